/* Tests of analyze/counters.c and analyze/report_counters.c on hand-made runs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "eventinfo.h"
#include "tst_log.h"
#include "profile.h"
#include "reader.h"
#include "report.h"

static char *ct_dir;
static struct pa_run *ct_run;

#define CT_U PPF_EVENT_EXCLUDE_KERNEL
#define CT_COUNTED PPF_THREAD_EVENT_COUNTED

/* Append a counting event; spec NULL: the same as name. */
static void ct_event(struct tst_log *l, uint32_t index, const char *name, const char *spec,
		     uint32_t type, uint64_t config, uint32_t flags, uint32_t error)
{
	struct ppf_event e = { .index = index, .type = type, .config = config,
			       .flags = flags | PPF_EVENT_COUNT, .error = error };

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.spec, sizeof(e.spec), "%s", spec ? spec : name);
	tst_log_event_full(l, &e);
}

/* A process.log in ct_dir/<exe>.<pid>/ with cpu-clock as event 0, then what add() appends. */
static char *ct_process(const char *exe, uint32_t pid, void (*add)(struct tst_log *),
			bool replaced)
{
	struct ppf_event clock = { .index = 0, .type = PERF_TYPE_SOFTWARE, .period = 1000000,
				   .flags = PPF_EVENT_TIME_NS | CT_U, .name = "cpu-clock",
				   .spec = "cpu-clock" };
	char name[64], path[64], *pdir;
	struct tst_log l;

	snprintf(name, sizeof(name), "%s.%u", exe, pid);
	snprintf(path, sizeof(path), "/usr/bin/%s", exe);
	pdir = tst_log_subdir(ct_dir, name);
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
static void ct_calc_events(struct tst_log *l)
{
	ct_event(l, 1, "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		 CT_U, 0);
	ct_event(l, 2, "cyc", "cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, CT_U, 0);
	ct_event(l, 3, "cache-references", NULL, PERF_TYPE_HARDWARE,
		 PERF_COUNT_HW_CACHE_REFERENCES, CT_U, 0);
	ct_event(l, 4, "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
		 CT_U, 0);
	ct_event(l, 5, "branches", NULL, PERF_TYPE_HARDWARE,
		 PERF_COUNT_HW_BRANCH_INSTRUCTIONS, CT_U, 0);
	ct_event(l, 6, "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
		 CT_U, 0);
	ct_event(l, 7, "kcycles", "cycles:k", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		 PPF_EVENT_EXCLUDE_USER, 0);
	ct_event(l, 8, "l1", "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000,
		 CT_U | PPF_EVENT_UNAVAILABLE, ENOENT);
	ct_event(l, 9, "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		 PPF_EVENT_TIME_NS, 0);
}

/* main: every counter; cycles multiplexed half of the time. */
static void ct_calc_main(struct tst_log *l)
{
	tst_log_thread_event(l, 0, 0, 0, 0, 0, 0, 0);
	tst_log_thread_event(l, 1, CT_COUNTED, 0, 0, 3000000, 1000, 1000);
	tst_log_thread_event(l, 2, CT_COUNTED, 0, 0, 1000000, 1000, 500);
	tst_log_thread_event(l, 3, CT_COUNTED, 0, 0, 10000, 1000, 1000);
	tst_log_thread_event(l, 4, CT_COUNTED, 0, 0, 100, 1000, 1000);
	tst_log_thread_event(l, 5, CT_COUNTED, 0, 0, 200000, 1000, 1000);
	tst_log_thread_event(l, 6, CT_COUNTED, 0, 0, 4000, 1000, 1000);
	tst_log_thread_event(l, 7, CT_COUNTED, 0, 0, 50000, 1000, 1000);
	tst_log_thread_event(l, 8, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_event(l, 9, CT_COUNTED, 0, 0, 5000000, 5000000, 5000000);
}

/* worker: no instructions counter; its cache-miss counter never ran. */
static void ct_calc_worker(struct tst_log *l)
{
	tst_log_thread_event(l, 1, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_event(l, 2, CT_COUNTED, 0, 0, 500000, 1000, 1000);
	tst_log_thread_event(l, 3, CT_COUNTED, 0, 0, 1000, 1000, 1000);
	tst_log_thread_event(l, 4, CT_COUNTED, 0, 0, 0, 100, 0);
	tst_log_thread_event(l, 5, CT_COUNTED, 0, 0, 1000, 1000, 1000);
	tst_log_thread_event(l, 6, CT_COUNTED, 0, 0, 10, 1000, 1000);
	tst_log_thread_event(l, 7, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_event(l, 8, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_event(l, 9, CT_COUNTED, 0, 0, 1000000, 1000000, 1000000);
}

/* A thread log of pid, tid, name with what add() appends before its END. */
static void ct_thread(const char *pdir, uint32_t pid, uint32_t tid, const char *name,
		      void (*add)(struct tst_log *), bool ended)
{
	struct tst_log l;
	char file[64];

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, pid, tid, 0, name);
	if (add)
		add(&l);
	if (ended)
		tst_log_thread_end(&l, 9000, 0, 0, 0);
	snprintf(file, sizeof(file), "thread-%u.log", tid);
	tst_log_write(&l, pdir, file);
}

static void ct_none(struct tst_log *l)
{
	(void)l;
}

static void ct_unavailable_only(struct tst_log *l)
{
	ct_event(l, 1, "cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		 CT_U | PPF_EVENT_UNAVAILABLE, ENOENT);
}

static void ct_instructions_only(struct tst_log *l)
{
	ct_event(l, 1, "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		 CT_U, 0);
}

/*
 * calc (400, threads 400 and 401, see above); plain (410): no counting
 * event; hwless (420): its only counting event unavailable; sh (430):
 * replaced by exec before its thread ended.
 */
static void ct_setup(void)
{
	struct pa_error err = { 0 };
	char *p;

	ct_dir = tst_log_tmpdir();
	p = ct_process("calc", 400, ct_calc_events, false);
	ct_thread(p, 400, 400, "main", ct_calc_main, true);
	ct_thread(p, 400, 401, "worker", ct_calc_worker, true);
	free(p);
	p = ct_process("plain", 410, ct_none, false);
	ct_thread(p, 410, 410, "plain", NULL, true);
	free(p);
	p = ct_process("hwless", 420, ct_unavailable_only, false);
	ct_thread(p, 420, 420, "hwless", NULL, true);
	free(p);
	p = ct_process("sh", 430, ct_instructions_only, true);
	ct_thread(p, 430, 430, "sh", NULL, false);
	free(p);
	cr_assert_eq(pa_run_load(ct_dir, &ct_run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(ct_run->warnings.n, 0, "%s", ct_run->warnings.v[0].reason);
}

static void ct_teardown(void)
{
	pa_run_free(ct_run);
	ct_run = NULL;
	tst_log_rmdir(ct_dir);
	ct_dir = NULL;
}

TestSuite(report_counters, .init = ct_setup, .fini = ct_teardown, .timeout = 30);

/* The counters report of pid (0: all) and event (NULL: all) as a malloc'd string. */
static char *ct_report(uint32_t pid, const char *event)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	f.pid = pid;
	cr_assert_eq(pa_events_choose(ct_run, &f, event, PA_EVENTS_COUNTS, &err), 0, "%s",
		     err.reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	cr_assert_eq(pa_report_counters.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
			     .run = ct_run }),
		     0);
	cr_assert_eq(fclose(out), 0);
	return text;
}

Test(report_counters, output_matches_golden)
{
	char *text = ct_report(0, NULL);

	tst_log_golden(text, "counters.txt");
	free(text);
}

Test(report_counters, scales_multiplexed_counts_and_derives_ratios)
{
	char *text = ct_report(400, NULL);

	cr_assert(strstr(text, "\n         2,500,000  cyc (cycles:u)      (scaled, counted 75.0% "
			 "of the time)\n"), "%s", text);
	cr_assert(strstr(text, "\n  tid 400 (main):\n         3,000,000  instructions        "
			 "# 1.50 instructions per cycle\n"),
		  "main's IPC uses its scaled cycles: %s", text);
	cr_assert(strstr(text, "\n               100  cache-misses        # 1.00% of cache "
			 "references\n"), "%s", text);
	cr_assert(strstr(text, "\n             4,000  branch-misses       # 2.00% of "
			 "branches\n"), "%s", text);
	cr_assert(strstr(text, "\n            50,000  kcycles (cycles:k)\n"),
		  "kernel cycles make no ratio with user instructions: %s", text);
	cr_assert(strstr(text, "\n         5,000,000  task-clock          # 5.000 ms\n"),
		  "%s", text);
	cr_assert(strstr(text, "# l1 (L1-dcache-load-misses): unavailable: No such file or "
			 "directory\n"), "%s", text);
	free(text);
}

Test(report_counters, shows_unknown_counts_as_dash_with_a_note)
{
	char *text = ct_report(400, NULL);

	cr_assert(strstr(text, "\n                 -  instructions        (no counter)\n"),
		  "%s", text);
	cr_assert(strstr(text, "\n                 -  cache-misses        (not counted: the "
			 "counter never ran)\n"), "%s", text);
	cr_assert(strstr(text, "\n         3,000,000  instructions        # 1.50 instructions "
			 "per cycle  (1 of 2 threads)\n"),
		  "the process's IPC is of the threads that count both: %s", text);
	cr_assert(strstr(text, "# note: 1 thread had no counter for some event"), "%s", text);
	cr_assert(strstr(text, "# note: 1 thread had a counter that never ran"), "%s", text);
	free(text);
}

Test(report_counters, selects_one_event)
{
	char *text = ct_report(400, "cycles:u");

	cr_assert(strncmp(text, "# counters: 1 event, 1 process, 2 threads", 41) == 0, "%s",
		  text);
	cr_assert_null(strstr(text, "instructions"), "%s", text);
	cr_assert_null(strstr(text, "l1"), "the unavailable event is not the one asked: %s",
		       text);
	free(text);
}

Test(report_counters, says_when_there_is_nothing_to_count)
{
	char *text = ct_report(410, NULL);

	cr_assert_str_eq(text, "# no counting events in the selected processes (configure "
			 "them with [count NAME] sections)\n");
	free(text);
	text = ct_report(420, NULL);
	cr_assert_str_eq(text, "# no counting event could be opened in the selected "
			 "processes:\n# cycles: unavailable: No such file or directory\n");
	free(text);
}

Test(report_counters, exec_leaves_no_totals)
{
	char *text = ct_report(430, NULL);

	cr_assert(strstr(text, "\n                 -  instructions  (no totals: exec replaced "
			 "the process image)\n"), "%s", text);
	cr_assert(strstr(text, "# note: 1 thread left no totals"), "%s", text);
	free(text);
}

/* A thread holding one THREAD_EVENT record for event 1. */
static struct pa_count ct_count(uint32_t flags, uint64_t value, uint64_t enabled,
				uint64_t running)
{
	struct pa_thread_event te = { .event = 1, .flags = flags, .value = value,
				      .time_enabled = enabled, .time_running = running };
	struct pa_thread t = { .events = &te, .nevents = 1 };
	struct pa_count c;

	pa_count_thread(&t, 1, &c);
	return c;
}

Test(report_counters, counts_one_thread)
{
	struct pa_count c = ct_count(CT_COUNTED, 1000, 800, 500);
	struct pa_count sum = { 0 };

	cr_assert(pa_count_known(&c));
	cr_assert(pa_count_scaled(&c));
	cr_assert_float_eq(c.estimate, 1600.0, 1e-9);
	cr_assert_float_eq(pa_count_share(&c), 0.625, 1e-9);
	c = ct_count(CT_COUNTED, UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 2);
	cr_assert(c.estimate > 1.8e19, "no overflow: %g", c.estimate);
	c = ct_count(CT_COUNTED, 0, 0, 0); /* never ran at all: a known zero */
	cr_assert(pa_count_known(&c));
	cr_assert_not(pa_count_scaled(&c));
	cr_assert_float_eq(pa_count_share(&c), 1.0, 1e-9);
	c = ct_count(CT_COUNTED, 5, 10, 0);
	cr_assert_not(pa_count_known(&c));
	cr_assert_eq(c.not_counted, 1);
	c = ct_count(PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0);
	cr_assert_eq(c.no_counter, 1);
	c = ct_count(0, 7, 7, 7); /* neither flag: not a count */
	cr_assert_eq(c.missing, 1);
	pa_count_add(&sum, &c);
	c = ct_count(CT_COUNTED, 10, 10, 5);
	pa_count_add(&sum, &c);
	cr_assert_eq(sum.counted, 1);
	cr_assert_eq(sum.missing, 1);
	cr_assert_float_eq(sum.estimate, 20.0, 1e-9);
}

Test(report_counters, ratios_need_matching_hardware_events)
{
	const struct pa_process *calc = tst_log_find_process(ct_run, 400);
	struct pa_event hybrid;
	struct pa_ratio r;

	cr_assert(pa_counters_ratio(calc, pa_process_find_event(calc, 1), &r));
	cr_assert_str_eq(r.den->name, "cyc");
	cr_assert_str_eq(r.what, "instructions per cycle");
	cr_assert_not(r.percent);
	cr_assert(pa_counters_ratio(calc, pa_process_find_event(calc, 6), &r));
	cr_assert_str_eq(r.den->name, "branches");
	cr_assert(r.percent);
	cr_assert_not(pa_counters_ratio(calc, pa_process_find_event(calc, 2), &r),
		      "cycles heads no ratio");
	cr_assert_not(pa_counters_ratio(calc, pa_process_find_event(calc, 0), &r),
		      "a sampling event heads no ratio");
	hybrid = *pa_process_find_event(calc, 1);
	hybrid.config |= 8ull << 32; /* instructions of another PMU: no cycles there */
	cr_assert_not(pa_counters_ratio(calc, &hybrid, &r));
}
