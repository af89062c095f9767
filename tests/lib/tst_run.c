/*
 * tst_run: the small runs made by hand (tst_log) that the analyzer's unit
 * tests share: the "profile" run (two processes, three threads, two events)
 * for profile.c and the flat reports, the "calls" run (one thread, 17
 * samples of a small call graph) for calltree.c and the tree reports, the
 * "counters" run (counting events) for counters.c and its report, the
 * "events" run (several events, one process of an older libpprof) for
 * eventinfo.c and the events report, and the two "diff" runs (the same
 * process, other shares) for diff and runs.c.
 * Their functions are defined here so that this test binary has symbols
 * for them: the goldens name them.
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

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

char *tst_prof_dir;
struct pa_run *tst_prof_run;

/* An address inside fn (past its first byte, so ip - 1 is inside too). */
uint64_t tst_run_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 2;
}

/* A process.log whose process runs exe (NULL: this test binary). */
void tst_prof_process_log_exe(const char *pdir, uint32_t pid, const char *exe,
			       uint64_t lost, bool ended)
{
	struct tst_log_self self;
	struct tst_log l;

	tst_log_self_module((const void *)pa_proftest_main, &self);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, exe ? exe : self.path, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_event(&l, 1, "page-faults", 1, 0);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	if (ended)
		tst_log_process_end(&l, 9000, 0, lost, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
}

void tst_prof_process_log(const char *pdir, uint32_t pid, uint64_t lost, bool ended)
{
	tst_prof_process_log_exe(pdir, pid, NULL, lost, ended);
}

/* Append count samples of stack (innermost first, n frames). */
void tst_prof_samples(struct tst_log *l, int count, uint32_t event, size_t n,
		       const uint64_t *stack)
{
	for (int i = 0; i < count; i++)
		tst_log_sample(l, 1000 + (uint64_t)i, event, 0, (uint16_t)n, stack);
}

/*
 * pid 10: thread 10 "main": 3 x main>mid>leaf, 1 x main>mid,
 *         2 x main>rec>rec>rec; lost 3;
 *         thread 11 "worker": 4 x main>leaf, 1 x main>leaf on event 1.
 * pid 20 (killed, no END): thread 20: 5 x main>mid.
 */
void tst_prof_setup(void)
{
	const uint64_t leaf_mid_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_mid),
					   tst_run_in(pa_proftest_main) };
	const uint64_t mid_main[] = { tst_run_in(pa_proftest_mid), tst_run_in(pa_proftest_main) };
	const uint64_t leaf_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	const uint64_t rec3[] = { tst_run_in(pa_proftest_rec), tst_run_in(pa_proftest_rec),
				  tst_run_in(pa_proftest_rec), tst_run_in(pa_proftest_main) };
	struct pa_error err = { 0 };
	struct tst_log l;
	char *p10, *p20;
	size_t off;

	tst_prof_dir = tst_log_tmpdir();
	p10 = tst_log_subdir(tst_prof_dir, "app.10");
	p20 = tst_log_subdir(tst_prof_dir, "app.20");
	tst_prof_process_log(p10, 10, 1, true);
	tst_prof_process_log(p20, 20, 0, false);

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 10, 10, 0, "main");
	tst_prof_samples(&l, 3, 0, 3, leaf_mid_main);
	tst_prof_samples(&l, 1, 0, 2, mid_main);
	tst_prof_samples(&l, 2, 0, 4, rec3);
	off = tst_log_thread_end(&l, 9000, 6, 3, 6000000);
	((struct ppf_thread_end *)tst_log_rec(&l, off))->throttled = 4;
	tst_log_write(&l, p10, "thread-10.log");

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 10, 11, 0, "");
	tst_log_thread_name(&l, 100, "worker");
	tst_prof_samples(&l, 4, 0, 2, leaf_main);
	tst_prof_samples(&l, 1, 1, 2, leaf_main);
	tst_log_thread_end(&l, 9000, 5, 0, 4000000);
	tst_log_write(&l, p10, "thread-11.log");

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 20, 20, 0, "main");
	tst_prof_samples(&l, 5, 0, 2, mid_main);
	tst_log_write(&l, p20, "thread-20.log");

	cr_assert_eq(pa_run_load(tst_prof_dir, &tst_prof_run, &err), 0, "%s: %s", err.path, err.reason);
	free(p10);
	free(p20);
}

void tst_prof_teardown(void)
{
	pa_run_free(tst_prof_run);
	tst_prof_run = NULL;
	tst_log_rmdir(tst_prof_dir);
	tst_prof_dir = NULL;
}

struct pa_profile *tst_prof_build_filter(const struct pa_filter *f)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;

	cr_assert_eq(pa_profile_build_by(tst_prof_run, f, PA_PROFILE_BY_FUNCTION,
					 &prof, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	return prof;
}

/*
 * The text report r writes on the profile run (thread tid, 0: all), for
 * the event the command line picks by default, as a malloc'd string.
 */
char *tst_prof_report(const struct pa_report *r, uint32_t tid)
{
	struct pa_filter f = { .tid = tid };
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	char *text;

	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_str_eq(f.event_name, "cpu-clock");
	prof = tst_prof_build_filter(&f);
	text = tst_run_report(r, tst_prof_run, &f, prof, NULL);
	pa_profile_free(prof);
	return text;
}

/* The text r writes with the default options, as a malloc'd string. */
/* r's text (json false) or JSON document on run, as tst_run_report says. */
static char *tst_run_report_as(const struct pa_report *r, const struct pa_run *run,
			       const struct pa_filter *f, const struct pa_profile *prof,
			       size_t *size, bool json)
{
	struct pa_report_opts opts = PA_REPORT_OPTS_DEFAULT;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &opts, .filter = f, .run = run,
				     .prof = prof };

	cr_assert(out);
	opts.json = json;
	cr_assert_eq((json ? r->write_json : r->write)(&ctx), 0, "%s", r->name);
	cr_assert_eq(fclose(out), 0);
	if (size)
		*size = len;
	return text;
}

char *tst_run_report(const struct pa_report *r, const struct pa_run *run,
		     const struct pa_filter *f, const struct pa_profile *prof, size_t *size)
{
	return tst_run_report_as(r, run, f, prof, size, false);
}

char *tst_run_report_json(const struct pa_report *r, const struct pa_run *run,
			  const struct pa_filter *f, const struct pa_profile *prof)
{
	return tst_run_report_as(r, run, f, prof, NULL, true);
}

/* Add dir/<name>/ with a thread log of pid holding count samples of stack. */
void tst_prof_add_thread(const char *pdir, uint32_t pid, int count, size_t n,
			  const uint64_t *stack)
{
	tst_prof_add_named_thread(pdir, pid, "main", count, n, stack);
}

void tst_prof_add_named_thread(const char *pdir, uint32_t pid, const char *thread, int count,
			       size_t n, const uint64_t *stack)
{
	struct tst_log l;
	char name[64];

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, pid, pid, 0, thread);
	tst_prof_samples(&l, count, 0, n, stack);
	tst_log_thread_end(&l, 9000, (uint64_t)count, 0, 0);
	snprintf(name, sizeof(name), "thread-%u.log", pid);
	tst_log_write(&l, pdir, name);
}

void tst_prof_reload(void)
{
	struct pa_error err = { 0 };

	pa_run_free(tst_prof_run);
	cr_assert_eq(pa_run_load(tst_prof_dir, &tst_prof_run, &err), 0, "%s: %s", err.path, err.reason);
}

/* A process.log: pid, ppid, exe, start, then what end() appends. */
void tst_prof_process_at(const char *dir, uint32_t pid, uint32_t ppid, const char *exe,
			    uint64_t start_ns, uint32_t mode, void (*end)(struct tst_log *))
{
	struct tst_log l;
	struct ppf_process *p;
	char name[64], *pdir;
	const char *base = strrchr(exe, '/') + 1;

	snprintf(name, sizeof(name), "%s.%u", base, pid);
	pdir = tst_log_subdir(dir, name);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	p = (struct ppf_process *)(void *)tst_log_rec(&l, tst_log_process(&l, pid, ppid,
										    exe, NULL));
	p->start_ns = start_ns;
	p->mode = mode;
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	end(&l);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	if (pid == 100) {
		const uint64_t stack[] = { 0x401000 };

		tst_prof_add_thread(pdir, pid, 4, 1, stack);
	}
	free(pdir);
}

/*
 * Process 50 maps this test binary a second time, as "libpprof.so", 16 TiB
 * higher: its copy of pa_proftest_mid stands for a frame of the profiler.
 */
#define TST_PROF_SHIFT 0x100000000000ull

static void tst_prof_libpprof_process(const char *pdir)
{
	struct tst_log_self self;
	struct tst_log l;
	char *link;

	tst_log_self_module((const void *)pa_proftest_main, &self);
	cr_assert(asprintf(&link, "%s/libpprof.so", tst_prof_dir) > 0);
	cr_assert_eq(symlink(self.path, link), 0, "symlink %s", link);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 50, 1, self.path, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	tst_log_module(&l, 2, self.bias + TST_PROF_SHIFT, self.start + TST_PROF_SHIFT,
			  self.end + TST_PROF_SHIFT, 0, link, self.build_id, self.build_id_len);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	free(link);
}

void tst_prof_add_libpprof(void)
{
	const uint64_t through[] = { tst_run_in(pa_proftest_leaf),
				     tst_run_in(pa_proftest_mid) + TST_PROF_SHIFT,
				     tst_run_in(pa_proftest_main) };
	const uint64_t inside[] = { tst_run_in(pa_proftest_mid) + TST_PROF_SHIFT,
				    tst_run_in(pa_proftest_main) };
	char *p50 = tst_log_subdir(tst_prof_dir, "app.50");
	struct tst_log l;

	tst_prof_libpprof_process(p50);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 50, 50, 0, "main");
	tst_prof_samples(&l, 2, 0, 3, through);
	tst_prof_samples(&l, 3, 0, 2, inside);
	tst_log_thread_end(&l, 9000, 5, 0, 0);
	tst_log_write(&l, p50, "thread-50.log");
	tst_prof_reload();
	free(p50);
}

void tst_prof_end_exit0(struct tst_log *l)
{
	tst_log_process_end(l, 2500000000ull, 0, 0, PPF_EXIT_NORMAL, 0);
}

__attribute__((noinline)) int pa_treetest_alloc(int x)
{
	volatile int v = x;

	return v * 5 + 7;
}

__attribute__((noinline)) int pa_treetest_tiny(int x)
{
	volatile int v = x;

	return v ^ 0x55;
}

__attribute__((noinline)) int pa_treetest_parse(int x)
{
	volatile int v = pa_treetest_alloc(x);

	return v - 11;
}

__attribute__((noinline)) int pa_treetest_eval(int x)
{
	volatile int v = x;

	return v > 0 ? pa_treetest_eval(v - 1) + pa_treetest_alloc(v) : pa_treetest_tiny(v);
}

__attribute__((noinline)) int pa_treetest_main(int x)
{
	volatile int v = pa_treetest_parse(x) + pa_treetest_eval(x) + pa_treetest_tiny(x);

	return v;
}

char *tst_calls_dir;
struct pa_run *tst_calls_run;

void tst_calls_samples(struct tst_log *l, int count, size_t n, const uint64_t *stack)
{
	for (int i = 0; i < count; i++)
		tst_log_sample(l, 1000 + (uint64_t)i, 0, 0, (uint16_t)n, stack);
}

/*
 * One process, one thread, 17 samples (stacks root first):
 *   6 main>parse>alloc, 2 main>parse, 4 main>eval>eval>alloc, 3 main>eval,
 *   1 main>tiny, 1 main>eval>tiny.
 */
void tst_calls_setup(void)
{
	const uint64_t parse_alloc[] = { tst_run_in(pa_treetest_alloc), tst_run_in(pa_treetest_parse),
					 tst_run_in(pa_treetest_main) };
	const uint64_t parse[] = { tst_run_in(pa_treetest_parse), tst_run_in(pa_treetest_main) };
	const uint64_t eval_alloc[] = { tst_run_in(pa_treetest_alloc), tst_run_in(pa_treetest_eval),
					tst_run_in(pa_treetest_eval), tst_run_in(pa_treetest_main) };
	const uint64_t eval[] = { tst_run_in(pa_treetest_eval), tst_run_in(pa_treetest_main) };
	const uint64_t tiny[] = { tst_run_in(pa_treetest_tiny), tst_run_in(pa_treetest_main) };
	const uint64_t eval_tiny[] = { tst_run_in(pa_treetest_tiny), tst_run_in(pa_treetest_eval),
				       tst_run_in(pa_treetest_main) };
	struct tst_log_self self;
	struct pa_error err = { 0 };
	struct tst_log l;
	char *pdir;

	tst_calls_dir = tst_log_tmpdir();
	pdir = tst_log_subdir(tst_calls_dir, "app.30");
	tst_log_self_module((const void *)pa_treetest_main, &self);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 30, 1, self.path, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 30, 30, 0, "main");
	tst_calls_samples(&l, 6, 3, parse_alloc);
	tst_calls_samples(&l, 2, 2, parse);
	tst_calls_samples(&l, 4, 4, eval_alloc);
	tst_calls_samples(&l, 3, 2, eval);
	tst_calls_samples(&l, 1, 2, tiny);
	tst_calls_samples(&l, 1, 3, eval_tiny);
	tst_log_thread_end(&l, 9000, 17, 0, 17000000);
	tst_log_write(&l, pdir, "thread-30.log");

	cr_assert_eq(pa_run_load(tst_calls_dir, &tst_calls_run, &err), 0, "%s: %s", err.path, err.reason);
	free(pdir);
}

void tst_calls_teardown(void)
{
	pa_run_free(tst_calls_run);
	tst_calls_run = NULL;
	tst_log_rmdir(tst_calls_dir);
	tst_calls_dir = NULL;
}

struct pa_profile *tst_calls_profile(void)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;

	cr_assert_eq(pa_events_choose(tst_calls_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_eq(pa_profile_build_by(tst_calls_run, &f, PA_PROFILE_BY_FUNCTION,
					 &prof, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(prof->samples, 17);
	return prof;
}

/*
 * What a report wrote: which is "tree", "callers" or "callees", or "callers
 * json" or "callees json" for their JSON; its return in *ret.
 */
char *tst_calls_report(const char *which, const char *arg, double min_percent, int *ret,
		       struct pa_error *err)
{
	struct pa_profile *prof = tst_calls_profile();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_opts opts = { .func = arg, .min_percent = min_percent };
	struct pa_report_ctx ctx = { .out = out, .opts = &opts, .filter = &prof->filter,
				     .run = tst_calls_run, .prof = prof, .err = err };
	const struct pa_report *r = strncmp(which, "callees", 7) == 0 ? &pa_report_callees :
				    &pa_report_callers;

	cr_assert(out);
	if (strcmp(which, "tree") == 0)
		*ret = pa_report_tree.write(&ctx);
	else if (strstr(which, " json"))
		*ret = r->write_json(&ctx);
	else
		*ret = r->write(&ctx);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(prof);
	return text;
}

void tst_calls_golden(const char *which, const char *arg, double min_percent,
			     const char *golden)
{
	struct pa_error err = { 0 };
	int ret;
	char *text = tst_calls_report(which, arg, min_percent, &ret, &err);

	cr_assert_eq(ret, 0, "%s %s: %d %s", which, arg ? arg : "", ret, err.reason);
	/* JSON names the test binary by its path */
	tst_log_golden(tst_log_replace(text, PP_TEST_BUILD_DIR, "BUILD"), golden);
	free(text);
}

/* An event record; spec NULL: the same as name. */
void tst_run_event(struct tst_log *l, uint32_t index, const char *name, const char *spec,
		   uint32_t type, uint64_t config, uint64_t period, uint32_t flags,
		   uint32_t error)
{
	struct ppf_event e = { .index = index, .type = type, .config = config,
			       .period = period, .flags = flags, .error = error };

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.spec, sizeof(e.spec), "%s", spec ? spec : name);
	tst_log_event_full(l, &e);
}

char *tst_counters_dir;
struct pa_run *tst_counters_run;

#define TST_COUNTERS_U PPF_EVENT_EXCLUDE_KERNEL
#define TST_COUNTERS_COUNTED PPF_THREAD_EVENT_COUNTED

/* A counting event; spec NULL: the same as name. */
static void tst_counters_event(struct tst_log *l, uint32_t index, const char *name,
			       const char *spec, uint32_t type, uint64_t config,
			       uint32_t flags, uint32_t error)
{
	tst_run_event(l, index, name, spec, type, config, 0, flags | PPF_EVENT_COUNT, error);
}

/*
 * A process.log in tst_counters_dir/<exe>.<pid>/ with cpu-clock as event 0,
 * then what add() appends.
 */
static char *tst_counters_process(const char *exe, uint32_t pid,
				  void (*add)(struct tst_log *), bool replaced)
{
	struct ppf_event clock = { .index = 0, .type = PERF_TYPE_SOFTWARE, .period = 1000000,
				   .flags = PPF_EVENT_TIME_NS | TST_COUNTERS_U,
				   .name = "cpu-clock", .spec = "cpu-clock" };
	char name[64], path[64], *pdir;
	struct tst_log l;

	snprintf(name, sizeof(name), "%s.%u", exe, pid);
	snprintf(path, sizeof(path), "/usr/bin/%s", exe);
	pdir = tst_log_subdir(tst_counters_dir, name);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, path, NULL);
	tst_log_config(&l, 0, 128, 0, "(embedded default)", "");
	tst_log_event_full(&l, &clock);
	add(&l);
	if (replaced)
		tst_log_exec(&l, 5000, "/bin/true");
	else
		tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	return pdir;
}

/*
 * calc (400): instructions, cycles (user), cache references and misses,
 * branches and misses, cycles of the kernel, an unavailable L1 event and
 * task-clock.
 */
static void tst_counters_calc_events(struct tst_log *l)
{
	const uint32_t u = TST_COUNTERS_U;

	tst_counters_event(l, 1, "instructions", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_INSTRUCTIONS, u, 0);
	tst_counters_event(l, 2, "cyc", "cycles:u", PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_CPU_CYCLES, u, 0);
	tst_counters_event(l, 3, "cache-references", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_CACHE_REFERENCES, u, 0);
	tst_counters_event(l, 4, "cache-misses", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_CACHE_MISSES, u, 0);
	tst_counters_event(l, 5, "branches", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_BRANCH_INSTRUCTIONS, u, 0);
	tst_counters_event(l, 6, "branch-misses", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_BRANCH_MISSES, u, 0);
	tst_counters_event(l, 7, "kcycles", "cycles:k", PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_CPU_CYCLES, PPF_EVENT_EXCLUDE_USER, 0);
	tst_counters_event(l, 8, "l1", "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000,
			   u | PPF_EVENT_UNAVAILABLE, ENOENT);
	tst_counters_event(l, 9, "task-clock", NULL, PERF_TYPE_SOFTWARE,
			   PERF_COUNT_SW_TASK_CLOCK, PPF_EVENT_TIME_NS, 0);
}

/*
 * The threads' totals (PPF_REC_THREAD_EVENT) of calc's events. main (400):
 * every counter; cycles multiplexed half of the time. worker (401): no
 * instructions counter; its cache-miss counter never ran.
 */
static const struct tst_counters_total {
	uint32_t tid, event, flags;
	uint64_t value, enabled, running;
} tst_counters_totals[] = {
	{ 400, 0, 0, 0, 0, 0 },
	{ 400, 1, TST_COUNTERS_COUNTED, 3000000, 1000, 1000 },
	{ 400, 2, TST_COUNTERS_COUNTED, 1000000, 1000, 500 },
	{ 400, 3, TST_COUNTERS_COUNTED, 10000, 1000, 1000 },
	{ 400, 4, TST_COUNTERS_COUNTED, 100, 1000, 1000 },
	{ 400, 5, TST_COUNTERS_COUNTED, 200000, 1000, 1000 },
	{ 400, 6, TST_COUNTERS_COUNTED, 4000, 1000, 1000 },
	{ 400, 7, TST_COUNTERS_COUNTED, 50000, 1000, 1000 },
	{ 400, 8, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0 },
	{ 400, 9, TST_COUNTERS_COUNTED, 5000000, 5000000, 5000000 },
	{ 401, 1, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0 },
	{ 401, 2, TST_COUNTERS_COUNTED, 500000, 1000, 1000 },
	{ 401, 3, TST_COUNTERS_COUNTED, 1000, 1000, 1000 },
	{ 401, 4, TST_COUNTERS_COUNTED, 0, 100, 0 },
	{ 401, 5, TST_COUNTERS_COUNTED, 1000, 1000, 1000 },
	{ 401, 6, TST_COUNTERS_COUNTED, 10, 1000, 1000 },
	{ 401, 7, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0 },
	{ 401, 8, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0 },
	{ 401, 9, TST_COUNTERS_COUNTED, 1000000, 1000000, 1000000 },
};

/* A thread log of pid, tid, name with its totals, then an END when ended. */
static void tst_counters_thread(const char *pdir, uint32_t pid, uint32_t tid,
				const char *name, bool ended)
{
	const size_t n = sizeof(tst_counters_totals) / sizeof(tst_counters_totals[0]);
	struct tst_log l;
	char file[64];

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, pid, tid, 0, name);
	for (size_t i = 0; i < n; i++) {
		const struct tst_counters_total *t = &tst_counters_totals[i];

		if (t->tid == tid)
			tst_log_thread_event(&l, t->event, t->flags, 0, 0, t->value, t->enabled,
					     t->running);
	}
	if (ended)
		tst_log_thread_end(&l, 9000, 0, 0, 0);
	snprintf(file, sizeof(file), "thread-%u.log", tid);
	tst_log_write(&l, pdir, file);
}

static void tst_counters_none(struct tst_log *l)
{
	(void)l;
}

static void tst_counters_unavailable_only(struct tst_log *l)
{
	tst_counters_event(l, 1, "cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			   TST_COUNTERS_U | PPF_EVENT_UNAVAILABLE, ENOENT);
}

static void tst_counters_instructions_only(struct tst_log *l)
{
	tst_counters_event(l, 1, "instructions", NULL, PERF_TYPE_HARDWARE,
			   PERF_COUNT_HW_INSTRUCTIONS, TST_COUNTERS_U, 0);
}

void tst_counters_setup(void)
{
	struct pa_error err = { 0 };
	char *p;

	tst_counters_dir = tst_log_tmpdir();
	p = tst_counters_process("calc", 400, tst_counters_calc_events, false);
	tst_counters_thread(p, 400, 400, "main", true);
	tst_counters_thread(p, 400, 401, "worker", true);
	free(p);
	p = tst_counters_process("plain", 410, tst_counters_none, false);
	tst_counters_thread(p, 410, 410, "plain", true);
	free(p);
	p = tst_counters_process("hwless", 420, tst_counters_unavailable_only, false);
	tst_counters_thread(p, 420, 420, "hwless", true);
	free(p);
	p = tst_counters_process("sh", 430, tst_counters_instructions_only, true);
	tst_counters_thread(p, 430, 430, "sh", false);
	free(p);
	cr_assert_eq(pa_run_load(tst_counters_dir, &tst_counters_run, &err), 0, "%s: %s",
		     err.path, err.reason);
	cr_assert_eq(tst_counters_run->warnings.n, 0, "%s",
		     tst_counters_run->warnings.v[0].reason);
}

void tst_counters_teardown(void)
{
	pa_run_free(tst_counters_run);
	tst_counters_run = NULL;
	tst_log_rmdir(tst_counters_dir);
	tst_counters_dir = NULL;
}

char *tst_events_dir;
struct pa_run *tst_events_run;
const uint64_t tst_events_ips[1] = { 0x401000 };

/*
 * app (300), configured from a file: events 0 "hw" (cycles, unavailable),
 * 1 cpu-clock (1 ms, user), 2 "faults" (page-faults:u, every fault), 3
 * "instr" (counting instructions, user). Thread 300: 4 cpu-clock samples
 * (1 lost, 12 throttled), 2 faults; thread 301: 3 cpu-clock samples, 2 lost.
 */
static void tst_events_app(void)
{
	const uint32_t u = PPF_EVENT_EXCLUDE_KERNEL;
	char *pdir = tst_log_subdir(tst_events_dir, "app.300");
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 300, 1, "/usr/bin/app", NULL);
	tst_log_config(&l, PPF_MODE_REQUEST_AUTO, 128,
			  PPF_CONFIG_FROM_FILE | PPF_CONFIG_FOLLOW_EXEC, "/home/u/pp.ini",
			  "[profile]\n");
	tst_run_event(&l, 0, "hw", "cycles", 0, 0, 1000003, PPF_EVENT_UNAVAILABLE, ENOENT);
	tst_run_event(&l, 1, "cpu-clock", NULL, 1, 0, 1000000, PPF_EVENT_TIME_NS | u, 0);
	tst_run_event(&l, 2, "faults", "page-faults:u", 1, 2, 1, u, 0);
	tst_run_event(&l, 3, "instr", "instructions:u", 0, 1, 0, PPF_EVENT_COUNT | u, 0);
	tst_log_process_end(&l, 9000, 9, 3, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 300, 300, 0, "main");
	for (int i = 0; i < 4; i++)
		tst_log_sample(&l, 100, 1, 0, 1, tst_events_ips);
	for (int i = 0; i < 2; i++)
		tst_log_sample(&l, 100, 2, 0, 1, tst_events_ips);
	off = tst_log_thread_event(&l, 1, 0, 4, 1, 0, 0, 0);
	((struct ppf_thread_event *)tst_log_rec(&l, off))->throttled = 12;
	tst_log_thread_event(&l, 2, 0, 2, 0, 0, 0, 0);
	tst_log_thread_event(&l, 3, PPF_THREAD_EVENT_COUNTED, 0, 0, 5000, 10, 10);
	tst_log_thread_end(&l, 9000, 6, 1, 0);
	tst_log_write(&l, pdir, "thread-300.log");

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 300, 301, 0, "worker");
	for (int i = 0; i < 3; i++)
		tst_log_sample(&l, 100, 1, 0, 1, tst_events_ips);
	tst_log_thread_event(&l, 1, 0, 3, 2, 0, 0, 0);
	tst_log_thread_event(&l, 2, 0, 0, 0, 0, 0, 0);
	tst_log_thread_event(&l, 3, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_end(&l, 9000, 3, 2, 0);
	tst_log_write(&l, pdir, "thread-301.log");
	free(pdir);
}

/*
 * tool (310), written by an older libpprof: no configuration record, one
 * 104-byte cpu-clock event counting user and kernel time; 2 samples.
 */
static void tst_events_tool(void)
{
	char *pdir = tst_log_subdir(tst_events_dir, "tool.310");
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 310, 300, "/usr/bin/tool", NULL);
	tst_log_event_v1(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 9000, 2, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 310, 310, 0, "tool");
	tst_log_sample(&l, 100, 0, 0, 1, tst_events_ips);
	tst_log_sample(&l, 100, 0, 0, 1, tst_events_ips);
	tst_log_thread_end(&l, 9000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-310.log");
	free(pdir);
}

void tst_events_setup(void)
{
	struct pa_error err = { 0 };

	tst_events_dir = tst_log_tmpdir();
	tst_events_app();
	tst_events_tool();
	cr_assert_eq(pa_run_load(tst_events_dir, &tst_events_run, &err), 0, "%s: %s", err.path,
		     err.reason);
	cr_assert_eq(tst_events_run->warnings.n, 0, "%s", tst_events_run->warnings.v[0].reason);
}

void tst_events_teardown(void)
{
	pa_run_free(tst_events_run);
	tst_events_run = NULL;
	tst_log_rmdir(tst_events_dir);
	tst_events_dir = NULL;
}

struct pa_filter tst_events_choose(uint32_t pid, const char *name, enum pa_events_use use)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	f.pid = pid;
	cr_assert_eq(pa_events_choose(tst_events_run, &f, name, use, &err), 0, "%s",
		     err.reason);
	return f;
}

char *tst_events_report(const struct pa_report *r, const struct pa_filter *f)
{
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;
	char *text;

	if (r->needs == PA_REPORT_NEEDS_PROFILE)
		cr_assert_eq(pa_profile_build_by(tst_events_run, f, PA_PROFILE_BY_FUNCTION,
						 &prof, NULL, &err), 0, "%s", err.reason);
	text = tst_run_report(r, tst_events_run, f, prof, NULL);
	pa_profile_free(prof);
	return text;
}

__attribute__((noinline)) int pa_difftest_alpha(int x)
{
	volatile int v = x;

	return v * 3 + 1;
}

__attribute__((noinline)) int pa_difftest_beta(int x)
{
	volatile int v = x;

	return v ^ 0x77;
}

__attribute__((noinline)) int pa_difftest_main(int x)
{
	volatile int v = pa_difftest_alpha(x) + pa_difftest_beta(x);

	return v;
}

char *tst_diff_dirs[2];

/*
 * A run in tst_diff_dirs[k]: process 40 (start_ns 1000) with a thread
 * "main" (tid 40) and a nameless one (tid 41). Thread 40 takes nalpha
 * samples in alpha at 1 ms steps from 1 ms after the start, then nbeta in
 * beta; thread 41 one in main itself at 0.5 ms.
 */
static void tst_diff_write_run(size_t k, int nalpha, int nbeta)
{
	const uint64_t alpha[] = { tst_run_in(pa_difftest_alpha), tst_run_in(pa_difftest_main) };
	const uint64_t beta[] = { tst_run_in(pa_difftest_beta), tst_run_in(pa_difftest_main) };
	const uint64_t mainonly[] = { tst_run_in(pa_difftest_main) };
	struct tst_log_self self;
	struct tst_log l;
	char *pdir;
	uint64_t t = 1000;

	tst_diff_dirs[k] = tst_log_tmpdir();
	pdir = tst_log_subdir(tst_diff_dirs[k], "app.40");
	tst_log_self_module((const void *)pa_difftest_main, &self);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 40, 1, self.path, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	tst_log_process_end(&l, 900000000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 40, 40, 0, "main");
	for (int i = 0; i < nalpha; i++)
		tst_log_sample(&l, t += 1000000, 0, 0, 2, alpha);
	for (int i = 0; i < nbeta; i++)
		tst_log_sample(&l, t += 1000000, 0, 0, 2, beta);
	tst_log_thread_end(&l, 900000000, (uint64_t)(nalpha + nbeta), 0, 1000000);
	tst_log_write(&l, pdir, "thread-40.log");

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 40, 41, 0, "");
	tst_log_sample(&l, 1000 + 500000, 0, 0, 1, mainonly);
	tst_log_thread_end(&l, 900000000, 1, 0, 1000000);
	tst_log_write(&l, pdir, "thread-41.log");
	free(pdir);
}

void tst_diff_setup(void)
{
	tst_diff_write_run(0, 6, 3); /* base: alpha 6, beta 3, main 1 (10) */
	tst_diff_write_run(1, 2, 7); /* new:  alpha 2, beta 7, main 1 (10) */
}

void tst_diff_teardown(void)
{
	for (size_t k = 0; k < 2; k++) {
		tst_log_rmdir(tst_diff_dirs[k]);
		tst_diff_dirs[k] = NULL;
	}
}

struct pa_profile *tst_run_profile(const struct pa_run *run, struct pa_filter f)
{
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;

	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_FUNCTION,
					 &prof, NULL, &err), 0, "%s", err.reason);
	return prof;
}

/* ---- the "hosts" run ------------------------------------------------------ */

char *tst_hosts_dir;
struct pa_run *tst_hosts_run;

__attribute__((noinline)) int PMPI_Tst_wait(int x)
{
	volatile int v = x;

	return v * 5 + 3;
}

void tst_hosts_process(const struct tst_hosts_proc *hp)
{
	const uint64_t leaf[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	const uint64_t wait_leaf[] = { tst_run_in(pa_proftest_leaf), tst_run_in(PMPI_Tst_wait),
				       tst_run_in(pa_proftest_main) };
	const uint64_t wait[] = { tst_run_in(PMPI_Tst_wait), tst_run_in(pa_proftest_main) };
	const uint64_t main_only[] = { tst_run_in(pa_proftest_main) };
	int total = hp->leaf + hp->wait_leaf + hp->wait + hp->main_only;
	struct tst_log_self self;
	struct ppf_process *p;
	struct tst_log l;
	char name[128], *pdir;

	tst_log_self_module((const void *)pa_proftest_main, &self);
	snprintf(name, sizeof(name), "%s@%.5s.%u%s", strrchr(self.path, '/') + 1, hp->host, hp->pid,
		 hp->exec_path ? ".exec" : "");
	pdir = tst_log_subdir(tst_hosts_dir, name);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	p = (struct ppf_process *)(void *)tst_log_rec(&l, tst_log_process(&l, hp->pid, hp->ppid,
									 self.path, NULL));
	p->start_ns = hp->start_ns;
	p->start_realtime_ns = 0;
	tst_log_identity(&l, hp->host, hp->boot, hp->rank, hp->rank >= 0 ? 4 : -1,
			 hp->rank >= 0 ? "77" : "", hp->mono_anchor, 1000000000000000000ull);
	tst_log_event(&l, 0, "cpu-clock", hp->period_ns ? hp->period_ns : 1000000,
		      PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path, self.build_id,
		       self.build_id_len);
	if (hp->exec_path)
		tst_log_exec(&l, hp->start_ns + 500000000, hp->exec_path);
	else
		tst_log_process_end(&l, hp->start_ns + 500000000, (uint64_t)total, 0,
				    PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, hp->pid, hp->pid, hp->start_ns, "main");
	tst_prof_samples(&l, hp->leaf, 0, 2, leaf);
	tst_prof_samples(&l, hp->wait_leaf, 0, 3, wait_leaf);
	tst_prof_samples(&l, hp->wait, 0, 2, wait);
	tst_prof_samples(&l, hp->main_only, 0, 1, main_only);
	/* Rank 2's thread used 0.5 s of CPU: its 9 samples cover it poorly (a note). */
	tst_log_thread_end(&l, hp->start_ns + 500000000, (uint64_t)total, 0,
			   hp->rank == 2 ? 500000000ull : (uint64_t)total * 1000000);
	snprintf(name, sizeof(name), "thread-%u.log", hp->pid);
	tst_log_write(&l, pdir, name);
	free(pdir);
}

void tst_hosts_setup(void)
{
	static const struct tst_hosts_proc procs[] = {
		{ "node1.cluster", 0x11, 5, 1, -1, 1000000, 0, 0, 0, 0, 1, 0, NULL },
		{ "node1.cluster", 0x11, 6, 5, 0, 2000000, 0, 2, 4, 0, 0, 0, NULL },
		{ "node2.cluster", 0x22, 6, 5, 2, 1003000000, 1000000000, 8, 0, 1, 0, 0, NULL },
	};
	struct pa_error err = { 0 };

	tst_hosts_dir = tst_log_tmpdir();
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		tst_hosts_process(&procs[i]);
	cr_assert_eq(pa_run_load(tst_hosts_dir, &tst_hosts_run, &err), 0, "%s: %s", err.path,
		     err.reason);
}

void tst_hosts_teardown(void)
{
	pa_run_free(tst_hosts_run);
	tst_hosts_run = NULL;
	tst_log_rmdir(tst_hosts_dir);
	tst_hosts_dir = NULL;
}

void tst_prof_add_named_process(uint32_t pid, const char *thread, int count)
{
	const uint64_t leaf_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char name[32], *pdir;

	snprintf(name, sizeof(name), "app.%u", pid);
	pdir = tst_log_subdir(tst_prof_dir, name);
	tst_prof_process_log(pdir, pid, 0, true);
	tst_prof_add_named_thread(pdir, pid, thread, count, 2, leaf_main);
	tst_prof_reload();
	free(pdir);
}
