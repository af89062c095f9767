/*
 * tst_run: the small runs made by hand (tst_log) that the analyzer's unit
 * tests share. Each suite makes its run in .init and removes it in .fini:
 *
 *   TestSuite(report_top, .init = tst_prof_setup, .fini = tst_prof_teardown);
 */
#ifndef TST_RUN_H
#define TST_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "calltree.h"
#include "eventinfo.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "report_flamegraph.h"
#include "report_tree.h"
#include "tst_log.h"

/* An address inside fn (past its first byte, so ip - 1 is inside too). */
uint64_t tst_run_in(int (*fn)(int));

/*
 * The "profile" run, in tst_prof_dir:
 * pid 10: thread 10 "main": 3 x main>mid>leaf, 1 x main>mid,
 *         2 x main>rec>rec>rec; lost 3, throttled 4;
 *         thread 11 "worker": 4 x main>leaf, 1 x main>leaf on event 1.
 * pid 20 (killed, no END): thread 20: 5 x main>mid.
 * The frames are these functions of the test binary.
 */
int pa_proftest_leaf(int x);
int pa_proftest_mid(int x);
int pa_proftest_rec(int x);
int pa_proftest_main(int x);

/* The two static functions named tst_twin, of tst_twin_a.c and tst_twin_b.c. */
int (*tst_twin_a(void))(int);
int (*tst_twin_b(void))(int);

extern char *tst_prof_dir;
extern struct pa_run *tst_prof_run;

void tst_prof_setup(void);
void tst_prof_teardown(void);
/* Reads tst_prof_dir again, after a test added to it. */
void tst_prof_reload(void);

/* A process.log of pid whose process runs exe (NULL: this test binary). */
void tst_prof_process_log_exe(const char *pdir, uint32_t pid, const char *exe,
			      uint64_t lost, bool ended);
void tst_prof_process_log(const char *pdir, uint32_t pid, uint64_t lost, bool ended);
/* Appends count samples of stack (innermost first, n frames) on event. */
void tst_prof_samples(struct tst_log *l, int count, uint32_t event, size_t n,
		      const uint64_t *stack);
/* Adds pdir/thread-PID.log holding count samples of stack, ended. */
void tst_prof_add_thread(const char *pdir, uint32_t pid, int count, size_t n,
			 const uint64_t *stack);
/* The same for a thread named thread (not "main"). */
void tst_prof_add_named_thread(const char *pdir, uint32_t pid, const char *thread, int count,
			       size_t n, const uint64_t *stack);
/*
 * Process pid (directory app.PID of the profile run, its log ended) with
 * one thread named thread (any bytes) of count samples of
 * pa_proftest_main -> pa_proftest_leaf; then the run is loaded again.
 */
void tst_prof_add_named_process(uint32_t pid, const char *thread, int count);
/*
 * Adds dir/EXE.PID/process.log: pid, ppid, exe, start, mode, then what end
 * appends (pid 100 also gets a thread log with 4 samples).
 */
void tst_prof_process_at(const char *dir, uint32_t pid, uint32_t ppid, const char *exe,
			 uint64_t start_ns, uint32_t mode, void (*end)(struct tst_log *));
/*
 * Adds process 50 to the profile run and reloads it. It maps this test
 * binary a second time, as "libpprof.so" (the profiler's own module): its
 * thread 50 "main" has 2 x main>mid>leaf and 3 x main>mid, mid in that
 * copy each time.
 */
void tst_prof_add_libpprof(void);
/* An END record: exit 0 at 2.5 s. */
void tst_prof_end_exit0(struct tst_log *l);

/* The profile of tst_prof_run under f; asserts it builds without warnings. */
struct pa_profile *tst_prof_build_filter(const struct pa_filter *f);
/* The text r writes on the profile run (thread tid, 0: all), malloc'd. */
char *tst_prof_report(const struct pa_report *r, uint32_t tid);
/*
 * What r writes (its write, the default options) on run, for f and prof
 * (r needs a profile, else NULL), malloc'd and NUL-terminated, its size in
 * *size (may be NULL); r must succeed.
 */
char *tst_run_report(const struct pa_report *r, const struct pa_run *run,
		     const struct pa_filter *f, const struct pa_profile *prof, size_t *size);

/* The same as r's JSON document (its write_json, opts.json set), malloc'd. */
char *tst_run_report_json(const struct pa_report *r, const struct pa_run *run,
			  const struct pa_filter *f, const struct pa_profile *prof);

/*
 * The pprof report of run for event (NULL: the default), gunzip'd and
 * decoded with the unpacker protoc-c generates (build/gen/profile.pb-c.h);
 * free it with perftools__profiles__profile__free_unpacked.
 */
struct Perftools__Profiles__Profile;
struct Perftools__Profiles__Profile *tst_pprof_decode(const struct pa_run *run,
						       const char *event);

/*
 * The "calls" run, in tst_calls_dir: one process, one thread, 17 samples
 * (stacks root first): 6 main>parse>alloc, 2 main>parse,
 * 4 main>eval>eval>alloc, 3 main>eval, 1 main>tiny, 1 main>eval>tiny.
 */
int pa_treetest_alloc(int x);
int pa_treetest_tiny(int x);
int pa_treetest_parse(int x);
int pa_treetest_eval(int x);
int pa_treetest_main(int x);

extern char *tst_calls_dir;
extern struct pa_run *tst_calls_run;

void tst_calls_setup(void);
void tst_calls_teardown(void);
void tst_calls_samples(struct tst_log *l, int count, size_t n, const uint64_t *stack);
/* The calls run's profile (17 samples). */
struct pa_profile *tst_calls_profile(void);
/*
 * What a report wrote on the calls run: which is "tree", "callers" or
 * "callees", or "callers json" or "callees json"; its return in *ret.
 */
char *tst_calls_report(const char *which, const char *arg, double min_percent, int *ret,
		       struct pa_error *err);
/* Asserts that report which (as above) writes golden. */
void tst_calls_golden(const char *which, const char *arg, double min_percent,
		      const char *golden);

/*
 * Appends an event record: index, name, spec (NULL: the same as name), perf
 * type and config, period, flags (PPF_EVENT_*) and error (of an unavailable
 * event).
 */
void tst_run_event(struct tst_log *l, uint32_t index, const char *name, const char *spec,
		   uint32_t type, uint64_t config, uint64_t period, uint32_t flags,
		   uint32_t error);

/*
 * The "counters" run, in tst_counters_dir: cpu-clock (event 0, 1 ms, user)
 * and counting events, each process from a configuration.
 * calc (400): 1 instructions, 2 "cyc" (cycles:u), 3 cache-references,
 *   4 cache-misses, 5 branches, 6 branch-misses (all user), 7 "kcycles"
 *   (cycles:k), 8 "l1" (L1-dcache-load-misses, unavailable), 9 task-clock;
 *   thread 400 "main" counts them all, cycles multiplexed half of the time;
 *   thread 401 "worker" has no instructions counter, and its cache-miss
 *   counter never ran.
 * plain (410): no counting event. hwless (420): its only counting event,
 * cycles, unavailable. sh (430): instructions; exec replaced it before its
 * thread ended.
 */
extern char *tst_counters_dir;
extern struct pa_run *tst_counters_run;

void tst_counters_setup(void);
void tst_counters_teardown(void);

/*
 * The "events" run, in tst_events_dir; every sample at tst_events_ips.
 * app (300), configured from a file: events 0 "hw" (cycles, unavailable),
 * 1 cpu-clock (1 ms, user), 2 "faults" (page-faults:u, every fault), 3
 * "instr" (counting instructions, user). Thread 300 "main": 4 cpu-clock
 * samples (1 lost, 12 throttled), 2 faults; thread 301 "worker": 3
 * cpu-clock samples, 2 lost.
 * tool (310), written by an older libpprof: no configuration record, one
 * first-version cpu-clock event counting user and kernel time; 2 samples.
 */
extern char *tst_events_dir;
extern struct pa_run *tst_events_run;
extern const uint64_t tst_events_ips[1];

void tst_events_setup(void);
void tst_events_teardown(void);
/* pa_events_choose on the events run for pid (0: all), expecting success. */
struct pa_filter tst_events_choose(uint32_t pid, const char *name, enum pa_events_use use);
/* The text r writes on the events run for f (with a profile when r needs one), malloc'd. */
char *tst_events_report(const struct pa_report *r, const struct pa_filter *f);

/*
 * The two "diff" runs, in tst_diff_dirs[0] (base) and [1] (new): each has
 * process 40 (started at 1000 ns, this test binary) with a thread "main"
 * (tid 40) and a nameless one (tid 41). Thread 40 takes its alpha samples
 * at 1 ms steps from 1 ms after the start, then its beta ones; thread 41
 * one in main itself at 0.5 ms. Stacks: alpha>main, beta>main, main.
 * base: alpha 6, beta 3, main 1; new: alpha 2, beta 7, main 1.
 */
int pa_difftest_alpha(int x);
int pa_difftest_beta(int x);
int pa_difftest_main(int x);

extern char *tst_diff_dirs[2];

void tst_diff_setup(void);
void tst_diff_teardown(void);

/*
 * The "hosts" run, in tst_hosts_dir: an MPI job of world size 4 (job
 * "77") on two hosts whose pids clash, of which ranks 0 and 2 were
 * profiled; every process is this test binary, sampled on cpu-clock (1 ms).
 *   node1.cluster (boot 0x11): pid 5 "mpirun" (no rank, ppid 1, at 1 ms),
 *     1 x main; pid 6 rank 0 (ppid 5, at 2 ms): 2 x main>leaf,
 *     4 x main>PMPI_Tst_wait>leaf (in the MPI library: PMPI_ name).
 *   node2.cluster (boot 0x22, its monotonic clock 1 s behind node1's, as
 *     its anchor says): pid 6 rank 2 (ppid 5, not profiled there, at
 *     1.001 s of its clock, 2 ms after node1's mpirun started): 8 x
 *     main>leaf, 1 x main>PMPI_Tst_wait; its thread used 0.5 s of CPU (a
 *     coverage note names it).
 * Directories are named EXE@HOST.PID, as the preload names them.
 */
int PMPI_Tst_wait(int x);

extern char *tst_hosts_dir;
extern struct pa_run *tst_hosts_run;

/* One process of the hosts run: where it ran, and its thread's samples. */
struct tst_hosts_proc {
	const char *host;
	uint8_t boot;
	uint32_t pid, ppid;
	int32_t rank;
	uint64_t start_ns;
	uint64_t mono_anchor; /* its host's CLOCK_MONOTONIC when CLOCK_REALTIME was 1e18 */
	int leaf, wait_leaf, wait, main_only; /* samples of each stack */
	uint64_t period_ns; /* cpu-clock's period; 0: 1 ms */
	const char *exec_path; /* not NULL: the image ends by exec of it (no END) */
};

/*
 * Writes the logs of one more process into tst_hosts_dir (reload
 * tst_hosts_run after it).
 */
void tst_hosts_process(const struct tst_hosts_proc *hp);

void tst_hosts_setup(void);
void tst_hosts_teardown(void);

/* The profile of run under f (by function), for the sampling event chosen by default. */
struct pa_profile *tst_run_profile(const struct pa_run *run, struct pa_filter f);

#endif /* TST_RUN_H */
