/*
 * Tests of analyze/profile.c and the text reports on a hand-made run whose
 * samples hold real addresses of functions of this test binary.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "pa_testlog.h"
#include "profile.h"
#include "reader.h"
#include "report.h"

/* The "program" the samples come from; non-static so they have symbols. */
__attribute__((noinline)) int pa_proftest_leaf(int x);
__attribute__((noinline)) int pa_proftest_mid(int x);
__attribute__((noinline)) int pa_proftest_rec(int x);
__attribute__((noinline)) int pa_proftest_main(int x);

__attribute__((noinline)) int pa_proftest_leaf(int x)
{
	volatile int v = x;

	return v * 3 + 1;
}

__attribute__((noinline)) int pa_proftest_mid(int x)
{
	volatile int v = pa_proftest_leaf(x);

	return v + 2;
}

__attribute__((noinline)) int pa_proftest_rec(int x)
{
	volatile int v = x;

	return v > 0 ? pa_proftest_rec(v - 1) + 1 : 0;
}

__attribute__((noinline)) int pa_proftest_main(int x)
{
	volatile int v = pa_proftest_mid(x) + pa_proftest_rec(x);

	return v;
}

static char *pf_dir;
static struct pa_run *pf_run;

/* An address inside fn (past its first byte, so ip - 1 is inside too). */
static uint64_t pf_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 2;
}

/* A process.log whose process runs exe (NULL: this test binary). */
static void pf_process_log_exe(const char *pdir, uint32_t pid, const char *exe,
			       uint64_t lost, bool ended)
{
	struct pa_testlog_self self;
	struct pa_testlog l;

	pa_testlog_self_module((const void *)pa_proftest_main, &self);
	pa_testlog_begin(&l, PPF_FILE_PROCESS);
	pa_testlog_process(&l, pid, 1, exe ? exe : self.path, NULL);
	pa_testlog_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	pa_testlog_event(&l, 1, "page-faults", 1, 0);
	pa_testlog_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	if (ended)
		pa_testlog_process_end(&l, 9000, 0, lost, PPF_EXIT_NORMAL, 0);
	pa_testlog_write(&l, pdir, PPF_PROCESS_LOG);
}

static void pf_process_log(const char *pdir, uint32_t pid, uint64_t lost, bool ended)
{
	pf_process_log_exe(pdir, pid, NULL, lost, ended);
}

/* Append count samples of stack (innermost first, n frames). */
static void pf_samples(struct pa_testlog *l, int count, uint32_t event, size_t n,
		       const uint64_t *stack)
{
	for (int i = 0; i < count; i++)
		pa_testlog_sample(l, 1000 + (uint64_t)i, event, 0, (uint16_t)n, stack);
}

/*
 * pid 10: thread 10 "main": 3 x main>mid>leaf, 1 x main>mid,
 *         2 x main>rec>rec>rec; lost 3;
 *         thread 11 "worker": 4 x main>leaf, 1 x main>leaf on event 1.
 * pid 20 (killed, no END): thread 20: 5 x main>mid.
 */
static void pf_setup(void)
{
	const uint64_t leaf_mid_main[] = { pf_in(pa_proftest_leaf), pf_in(pa_proftest_mid),
					   pf_in(pa_proftest_main) };
	const uint64_t mid_main[] = { pf_in(pa_proftest_mid), pf_in(pa_proftest_main) };
	const uint64_t leaf_main[] = { pf_in(pa_proftest_leaf), pf_in(pa_proftest_main) };
	const uint64_t rec3[] = { pf_in(pa_proftest_rec), pf_in(pa_proftest_rec),
				  pf_in(pa_proftest_rec), pf_in(pa_proftest_main) };
	struct pa_error err = { 0 };
	struct pa_testlog l;
	char *p10, *p20;
	size_t off;

	pf_dir = pa_testlog_tmpdir();
	p10 = pa_testlog_subdir(pf_dir, "app.10");
	p20 = pa_testlog_subdir(pf_dir, "app.20");
	pf_process_log(p10, 10, 1, true);
	pf_process_log(p20, 20, 0, false);

	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 10, 10, 0, "main");
	pf_samples(&l, 3, 0, 3, leaf_mid_main);
	pf_samples(&l, 1, 0, 2, mid_main);
	pf_samples(&l, 2, 0, 4, rec3);
	off = pa_testlog_thread_end(&l, 9000, 6, 3, 6000000);
	((struct ppf_thread_end *)pa_testlog_rec(&l, off))->throttled = 4;
	pa_testlog_write(&l, p10, "thread-10.log");

	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 10, 11, 0, "");
	pa_testlog_thread_name(&l, 100, "worker");
	pf_samples(&l, 4, 0, 2, leaf_main);
	pf_samples(&l, 1, 1, 2, leaf_main);
	pa_testlog_thread_end(&l, 9000, 5, 0, 4000000);
	pa_testlog_write(&l, p10, "thread-11.log");

	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 20, 20, 0, "main");
	pf_samples(&l, 5, 0, 2, mid_main);
	pa_testlog_write(&l, p20, "thread-20.log");

	cr_assert_eq(pa_run_load(pf_dir, &pf_run, &err), 0, "%s: %s", err.path, err.reason);
	free(p10);
	free(p20);
}

static void pf_teardown(void)
{
	pa_run_free(pf_run);
	pf_run = NULL;
	pa_testlog_rmdir(pf_dir);
	pf_dir = NULL;
}

TestSuite(profile, .init = pf_setup, .fini = pf_teardown, .timeout = 30);

static struct pa_profile *pf_build_filter(const struct pa_filter *f)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;

	cr_assert_eq(pa_profile_build(pf_run, f, &prof, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	return prof;
}

static struct pa_profile *pf_build(uint32_t pid, uint32_t tid, int64_t event)
{
	struct pa_filter f = { .pid = pid, .tid = tid, .event = event };

	return pf_build_filter(&f);
}

static void pf_expect(const struct pa_profile *prof, const char *name, uint64_t self,
		      uint64_t total)
{
	const struct pa_func *f = pa_profile_find(prof, name);

	cr_assert(f, "%s missing from the profile", name);
	cr_assert_eq(f->self, self, "%s: self %llu, expected %llu", name,
		     (unsigned long long)f->self, (unsigned long long)self);
	cr_assert_eq(f->total, total, "%s: total %llu, expected %llu", name,
		     (unsigned long long)f->total, (unsigned long long)total);
}

Test(profile, counts_self_and_total_per_function)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	cr_assert_eq(prof->samples, 15);
	cr_assert_eq(prof->nprocesses, 2);
	cr_assert_eq(prof->nthreads, 3);
	cr_assert_eq(prof->lost, 3);
	pf_expect(prof, "pa_proftest_leaf", 7, 7);
	pf_expect(prof, "pa_proftest_mid", 6, 9);
	pf_expect(prof, "pa_proftest_main", 0, 15);
	cr_assert_str_eq(prof->funcs[0].name, "pa_proftest_leaf"); /* most self first */
	cr_assert_str_eq(prof->funcs[1].name, "pa_proftest_mid");
	cr_assert(strstr(prof->funcs[0].module, "run-tests"));
	pa_profile_free(prof);
}

Test(profile, counts_recursion_once_in_total)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	pf_expect(prof, "pa_proftest_rec", 2, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_rec", "pa_proftest_rec"), 2);
	pa_profile_free(prof);
}

Test(profile, filters_by_pid_tid_and_event)
{
	struct pa_profile *prof = pf_build(20, 0, 0);

	cr_assert_eq(prof->samples, 5);
	cr_assert_eq(prof->nprocesses, 1);
	cr_assert_eq(prof->nthreads, 1);
	pf_expect(prof, "pa_proftest_mid", 5, 5);
	cr_assert_null(pa_profile_find(prof, "pa_proftest_leaf"));
	pa_profile_free(prof);

	prof = pf_build(0, 11, 0);
	cr_assert_eq(prof->samples, 4);
	cr_assert_eq(prof->nthreads, 1);
	pf_expect(prof, "pa_proftest_leaf", 4, 4);
	cr_assert_null(pa_profile_find(prof, "pa_proftest_mid"));
	pa_profile_free(prof);

	prof = pf_build(0, 11, -1); /* every event: the page-fault sample too */
	pf_expect(prof, "pa_proftest_leaf", 5, 5);
	pa_profile_free(prof);

	prof = pf_build(0, 0, 1);
	cr_assert_eq(prof->samples, 1);
	pa_profile_free(prof);

	prof = pf_build(99, 0, 0); /* no such process: empty, not an error */
	cr_assert_eq(prof->samples, 0);
	cr_assert_eq(prof->nfuncs, 0);
	cr_assert_eq(prof->nprocesses, 0);
	pa_profile_free(prof);
}

Test(profile, keeps_callers_in_stacks)
{
	struct pa_profile *prof = pf_build(0, 0, 0);

	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_mid"), 9);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_mid", "pa_proftest_leaf"), 3);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_leaf"), 4);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_leaf", "pa_proftest_mid"), 0);
	cr_assert_eq(prof->nstacks, 4);
	cr_assert_eq(prof->stacks[2].nframes, 3);
	cr_assert_str_eq(prof->stacks[2].frames[0], "pa_proftest_main"); /* root first */
	cr_assert_str_eq(prof->stacks[2].frames[2], "pa_proftest_leaf");
	pa_profile_free(prof);
}

/* The report text as a malloc'd string, for the event the command line picks by default. */
static char *pf_report(const char *which, uint32_t tid)
{
	struct pa_filter f = { .tid = tid };
	struct pa_error err = { 0 };
	struct pa_profile *prof;

	cr_assert_eq(pa_events_choose(pf_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_str_eq(f.event_name, "cpu-clock");
	prof = pf_build_filter(&f);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
				     .run = pf_run, .prof = prof };

	cr_assert(out);
	if (strcmp(which, "top") == 0)
		cr_assert_eq(pa_report_top.write(&ctx), 0);
	else if (strcmp(which, "folded") == 0)
		cr_assert_eq(pa_report_folded.write(&ctx), 0);
	else
		cr_assert_eq(pa_report_threads.write(&ctx), 0);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(prof);
	return text;
}

static void pf_golden(const char *text, const char *name)
{
	pa_testlog_golden(text, name);
}

Test(profile, folded_output_matches_golden)
{
	char *text = pf_report("folded", 0);

	pf_golden(text, "folded.txt");
	free(text);
}

Test(profile, top_output_matches_golden)
{
	char *text = pf_report("top", 0);

	pf_golden(text, "top.txt");
	free(text);
}

Test(profile, threads_output_matches_golden)
{
	char *text = pf_report("threads", 0);

	pf_golden(text, "threads.txt");
	free(text);
}

/*
 * The same run read with identical samples collapsed (as pprof-analyze
 * reads it for these reports): the same text, byte for byte, from fewer
 * entries.
 */
Test(profile, collapsed_run_gives_the_same_reports)
{
	struct pa_load_opts lo = { .collapse = true };
	const char *const names[] = { "top", "folded", "threads" };
	const char *const goldens[] = { "top.txt", "folded.txt", "threads.txt" };
	struct pa_error err = { 0 };
	const struct pa_process *p10;

	pa_run_free(pf_run);
	cr_assert_eq(pa_run_load_opts(pf_dir, &lo, &pf_run, &err), 0, "%s", err.reason);
	p10 = pa_run_find_process(pf_run, 10);
	cr_assert(p10 && p10->nthreads == 2);
	cr_expect_eq(p10->threads[0]->nsamples, 3, "6 samples of 3 stacks: %zu entries",
		     p10->threads[0]->nsamples);
	cr_expect_eq(p10->threads[1]->nsamples, 2, "one stack on 2 events: %zu entries",
		     p10->threads[1]->nsamples);
	for (size_t i = 0; i < 3; i++) {
		char *text = pf_report(names[i], 0);

		pf_golden(text, goldens[i]);
		free(text);
	}
}

Test(profile, names_frames_outside_modules_unknown)
{
	const uint64_t stack[] = { 0x10, pf_in(pa_proftest_main) };
	struct pa_testlog l;
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	char *p30 = pa_testlog_subdir(pf_dir, "app.30");

	pf_process_log(p30, 30, 0, true);
	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 30, 30, 0, "main");
	pf_samples(&l, 2, 0, 2, stack);
	pa_testlog_thread_end(&l, 9000, 2, 0, 0);
	pa_testlog_write(&l, p30, "thread-30.log");
	pa_run_free(pf_run);
	cr_assert_eq(pa_run_load(pf_dir, &pf_run, &err), 0, "%s", err.reason);
	prof = pf_build(30, 0, 0);
	pf_expect(prof, "[unknown]", 2, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "[unknown]"), 2);
	pa_profile_free(prof);
	free(p30);
}

/* Add dir/<name>/ with a thread log of pid holding count samples of stack. */
static void pf_add_thread(const char *pdir, uint32_t pid, int count, size_t n,
			  const uint64_t *stack)
{
	struct pa_testlog l;
	char name[64];

	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, pid, pid, 0, "main");
	pf_samples(&l, count, 0, n, stack);
	pa_testlog_thread_end(&l, 9000, (uint64_t)count, 0, 0);
	snprintf(name, sizeof(name), "thread-%u.log", pid);
	pa_testlog_write(&l, pdir, name);
}

static void pf_reload(void)
{
	struct pa_error err = { 0 };

	pa_run_free(pf_run);
	cr_assert_eq(pa_run_load(pf_dir, &pf_run, &err), 0, "%s: %s", err.path, err.reason);
}

Test(profile, filters_by_exe_basename_or_path)
{
	const uint64_t stack[] = { pf_in(pa_proftest_leaf), pf_in(pa_proftest_main) };
	char *p40 = pa_testlog_subdir(pf_dir, "worker.40");
	struct pa_filter f = { .event = 0, .exe = "worker" };
	struct pa_profile *prof;

	pf_process_log_exe(p40, 40, "/opt/bin/worker", 0, true);
	pf_add_thread(p40, 40, 7, 2, stack);
	pf_reload();
	prof = pf_build_filter(&f);
	cr_assert_eq(prof->samples, 7);
	cr_assert_eq(prof->nprocesses, 1);
	pf_expect(prof, "pa_proftest_leaf", 7, 7);
	pa_profile_free(prof);

	f.exe = "/opt/bin/worker";
	prof = pf_build_filter(&f);
	cr_assert_eq(prof->samples, 7);
	pa_profile_free(prof);

	f.exe = "run-tests"; /* pid 10 and 20 of the fixture */
	prof = pf_build_filter(&f);
	cr_assert_eq(prof->samples, 15);
	cr_assert_eq(prof->nprocesses, 2);
	pa_profile_free(prof);

	f.exe = "work"; /* a prefix is not a match */
	prof = pf_build_filter(&f);
	cr_assert_eq(prof->samples, 0);
	cr_assert_eq(prof->nprocesses, 0);
	pa_profile_free(prof);
	free(p40);
}

/*
 * Process 50 maps this test binary a second time, as "libpprof.so", 16 TiB
 * higher: its copy of pa_proftest_mid stands for a frame of the profiler.
 */
#define PF_SHIFT 0x100000000000ull

static void pf_libpprof_process(const char *pdir)
{
	struct pa_testlog_self self;
	struct pa_testlog l;
	char *link;

	pa_testlog_self_module((const void *)pa_proftest_main, &self);
	cr_assert(asprintf(&link, "%s/libpprof.so", pf_dir) > 0);
	cr_assert_eq(symlink(self.path, link), 0, "symlink %s", link);
	pa_testlog_begin(&l, PPF_FILE_PROCESS);
	pa_testlog_process(&l, 50, 1, self.path, NULL);
	pa_testlog_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	pa_testlog_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	pa_testlog_module(&l, 2, self.bias + PF_SHIFT, self.start + PF_SHIFT,
			  self.end + PF_SHIFT, 0, link, self.build_id, self.build_id_len);
	pa_testlog_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	pa_testlog_write(&l, pdir, PPF_PROCESS_LOG);
	free(link);
}

Test(profile, drops_libpprof_caller_frames_but_not_leaves)
{
	const uint64_t through[] = { pf_in(pa_proftest_leaf), pf_in(pa_proftest_mid) + PF_SHIFT,
				     pf_in(pa_proftest_main) };
	const uint64_t inside[] = { pf_in(pa_proftest_mid) + PF_SHIFT, pf_in(pa_proftest_main) };
	char *p50 = pa_testlog_subdir(pf_dir, "app.50");
	struct pa_testlog l;
	struct pa_profile *prof;
	const struct pa_func *mid;

	pf_libpprof_process(p50);
	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 50, 50, 0, "main");
	pf_samples(&l, 2, 0, 3, through);
	pf_samples(&l, 3, 0, 2, inside);
	pa_testlog_thread_end(&l, 9000, 5, 0, 0);
	pa_testlog_write(&l, p50, "thread-50.log");
	pf_reload();
	prof = pf_build(50, 0, 0);
	cr_assert_eq(prof->samples, 5);
	cr_assert_eq(prof->nstacks, 2);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_leaf"), 2);
	pf_expect(prof, "pa_proftest_leaf", 2, 2);
	pf_expect(prof, "pa_proftest_main", 0, 5);
	mid = pa_profile_find(prof, "pa_proftest_mid");
	cr_assert(mid, "a leaf in libpprof.so stays");
	cr_assert_eq(mid->self, 3);
	cr_assert_eq(mid->total, 3, "the caller frame in libpprof.so is counted");
	cr_assert(strstr(mid->module, "/libpprof.so"), "%s", mid->module);
	cr_assert_eq(pa_profile_call_count(prof, "pa_proftest_main", "pa_proftest_mid"), 3);
	pa_profile_free(prof);
	free(p50);
}

/* A process.log: pid, ppid, exe, start, then what end() appends. */
static void pf_tree_process(const char *dir, uint32_t pid, uint32_t ppid, const char *exe,
			    uint64_t start_ns, uint32_t mode, void (*end)(struct pa_testlog *))
{
	struct pa_testlog l;
	struct ppf_process *p;
	char name[64], *pdir;
	const char *base = strrchr(exe, '/') + 1;

	snprintf(name, sizeof(name), "%s.%u", base, pid);
	pdir = pa_testlog_subdir(dir, name);
	pa_testlog_begin(&l, PPF_FILE_PROCESS);
	p = (struct ppf_process *)(void *)pa_testlog_rec(&l, pa_testlog_process(&l, pid, ppid,
										    exe, NULL));
	p->start_ns = start_ns;
	p->mode = mode;
	pa_testlog_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	end(&l);
	pa_testlog_write(&l, pdir, PPF_PROCESS_LOG);
	if (pid == 100) {
		const uint64_t stack[] = { 0x401000 };

		pf_add_thread(pdir, pid, 4, 1, stack);
	}
	free(pdir);
}

static void pf_end_exit0(struct pa_testlog *l)
{
	pa_testlog_process_end(l, 2500000000ull, 0, 0, PPF_EXIT_NORMAL, 0);
}

static void pf_end_abort(struct pa_testlog *l)
{
	pa_testlog_process_end(l, 1250000000ull, 0, 0, PPF_EXIT_SIGNAL, 6);
}

static void pf_end_exec(struct pa_testlog *l)
{
	pa_testlog_exec(l, 1100000000ull, "/usr/bin/env");
}

static void pf_end_exit3(struct pa_testlog *l)
{
	pa_testlog_process_end(l, 1200000000ull, 0, 0, PPF_EXIT_NORMAL, 3);
}

static void pf_end_none(struct pa_testlog *l)
{
	(void)l;
}

/* process.log stopped early (a full disk), then the process exec'd or was killed. */
static void pf_end_full(struct pa_testlog *l)
{
	pa_testlog_log_full(l, 1300000000ull, ENOSPC);
}

/*
 * make (100) runs cc (101, aborts), sh (102, execs env, which exits 3) and
 * sh's child ld (103, forked before the exec, killed); tool (104) ran with
 * profiling off and is 102's child after the exec; as (105) filled the disk,
 * and its log ends without END.
 */
Test(profile, processes_output_matches_golden)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *dir = pa_testlog_tmpdir();
	struct pa_error err = { 0 };
	struct pa_run *run;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	pf_tree_process(dir, 100, 1, "/usr/bin/make", 1000000000ull, PPF_MODE_SIGTRAP,
			pf_end_exit0);
	pf_tree_process(dir, 101, 100, "/usr/bin/cc", 1010000000ull, PPF_MODE_SIGTRAP,
			pf_end_abort);
	pf_tree_process(dir, 102, 100, "/bin/sh", 1020000000ull, PPF_MODE_SIGNAL, pf_end_exec);
	pf_tree_process(dir, 102, 100, "/usr/bin/env", 1110000000ull, PPF_MODE_SIGNAL,
			pf_end_exit3);
	pf_tree_process(dir, 103, 102, "/usr/bin/ld", 1050000000ull, PPF_MODE_SIGTRAP,
			pf_end_none);
	pf_tree_process(dir, 104, 102, "/opt/tool", 1150000000ull, PPF_MODE_OFF, pf_end_exit0);
	pf_tree_process(dir, 105, 100, "/usr/bin/as", 1200000000ull, PPF_MODE_SIGTRAP,
			pf_end_full);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	out = open_memstream(&text, &len);
	cr_assert(out);
	cr_assert_eq(pa_report_processes.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
			     .run = run }),
		     0);
	cr_assert_eq(fclose(out), 0);
	pf_golden(text, "processes.txt");
	free(text);
	pa_run_free(run);
	pa_testlog_rmdir(dir);
}

static void pf_end_unsampled(struct pa_testlog *l)
{
	pa_testlog_unsampled(l, 102, PPF_UNSAMPLED_SHARE, ENOMEM, 1300000000ull, "pool");
	pa_testlog_unsampled(l, 101, PPF_UNSAMPLED_LOG, EMFILE, 1200000000ull, "");
	pf_end_exit0(l);
}

/* Text of report which (threads, processes, or threads as JSON) on run. */
static char *pf_report_of(const struct pa_run *run, const struct pa_filter *f,
			  const char *which)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = f,
				     .run = run };

	cr_assert(out);
	if (strcmp(which, "processes") == 0)
		cr_assert_eq(pa_report_processes.write(&ctx), 0);
	else if (strcmp(which, "json") == 0)
		cr_assert_eq(pa_report_threads.write_json(&ctx), 0);
	else
		cr_assert_eq(pa_report_threads.write(&ctx), 0);
	cr_assert_eq(fclose(out), 0);
	return text;
}

/*
 * Threads that ran unsampled: a row each in `threads` (after those with
 * logs, with the reason), in the JSON rows, and counted in `processes`;
 * --tid and --thread select them like the others.
 */
Test(profile, unsampled_threads_are_listed_and_counted)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *dir = pa_testlog_tmpdir(), *text;
	struct pa_error err = { 0 };
	struct pa_run *run;

	pf_tree_process(dir, 100, 1, "/usr/bin/make", 1000000000ull, PPF_MODE_SIGTRAP,
			pf_end_unsampled);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	text = pf_report_of(run, &f, "threads");
	cr_assert_str_eq(text,
		"# event cpu-clock: period 1 ms of CPU (user+kernel), 4 samples\n"
		"     PID      TID  NAME               SAMPLES    LOST THROTTLED   LATE ENDED     CPU(s)  EXE\n"
		"     100      100  main                     4       0         0      0   yes          -  make\n"
		"     100      101  -                        0       -         -      -     -          -  make  "
		"(unsampled: no log: Too many open files)\n"
		"     100      102  pool                     0       -         -      -     -          -  make  "
		"(unsampled: over the profiler's share of RLIMIT_AS)\n");
	free(text);
	text = pf_report_of(run, &f, "processes");
	cr_assert(strstr(text, "       4       3  make  exit 0, 2 threads unsampled\n"), "%s",
		  text);
	free(text);
	text = pf_report_of(run, &f, "json");
	cr_assert(strstr(text, "\"threads\": 3,"), "%s", text);
	cr_assert(strstr(text, "{\"pid\": 100, \"tid\": 102, \"name\": \"pool\", \"samples\": 0, "
			 "\"lost\": null, \"throttled\": null, \"late\": null, \"ended\": null, \"cpu_s\": null, "
			 "\"exe\": \"make\", \"unsampled\": \"over the profiler's share of "
			 "RLIMIT_AS\", \"blocked\": null}"), "%s", text);
	free(text);
	f.thread = "pool";
	text = pf_report_of(run, &f, "processes");
	cr_assert(strstr(text, "       0       1  make  exit 0, 1 thread unsampled\n"), "%s",
		  text);
	free(text);
	f.thread = NULL;
	f.tid = 101;
	text = pf_report_of(run, &f, "threads");
	cr_assert(strstr(text, " 101 ") && !strstr(text, " 102 ") && !strstr(text, "main"), "%s",
		  text);
	free(text);
	pa_run_free(run);
	pa_testlog_rmdir(dir);
}

/* threads with --from/--to: the LATE column counts the window's samples only. */
Test(profile, threads_late_column_follows_the_time_window)
{
	const uint64_t stack[] = { pf_in(pa_proftest_leaf), pf_in(pa_proftest_main) };
	struct pa_filter f = { .event = -1, .window = true, .from_ns = 1000, .to_ns = 5000 };
	char *dir = pa_testlog_tmpdir(), *pdir = pa_testlog_subdir(dir, "app.30");
	struct pa_error err = { 0 };
	struct pa_testlog l;
	struct pa_run *run;
	char *text = NULL, *row;
	size_t len = 0;
	FILE *out;

	pf_process_log(pdir, 30, 0, true);
	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 30, 30, 0, "main");
	/*
	 * The process starts at 1000 ns: samples at 500, 1500, 2500, 3500 and
	 * 6000 ns in; the window [1000, 5000) takes the middle three.
	 */
	pa_testlog_sample(&l, 1500, 0, PPF_SAMPLE_LATE, 2, stack);
	pa_testlog_sample(&l, 2500, 0, 0, 2, stack);
	pa_testlog_sample(&l, 3500, 0, PPF_SAMPLE_LATE, 2, stack);
	pa_testlog_sample(&l, 4500, 0, PPF_SAMPLE_LATE, 2, stack);
	pa_testlog_sample(&l, 7000, 0, PPF_SAMPLE_LATE, 2, stack);
	pa_testlog_thread_end(&l, 9000, 5, 0, 0);
	pa_testlog_write(&l, pdir, "thread-30.log");
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
	out = open_memstream(&text, &len);
	cr_assert_eq(pa_report_threads.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
			     .run = run }),
		     0);
	cr_assert_eq(fclose(out), 0);
	row = strstr(text, "\n      30       30");
	cr_assert(row, "no row for thread 30:\n%s", text);
	/* SAMPLES 3, LOST 0, THROTTLED 0, LATE 2 (of the 4 late samples in the log). */
	cr_expect(strstr(row, "main                     3       0         0      2 "), "%s", text);
	pa_run_free(run);
	free(pdir);
	pa_testlog_rmdir(dir);
}
