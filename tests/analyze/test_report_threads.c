/*
 * Tests of analyze/report_threads.c: its text on the "profile" run
 * (tst_run.h) against its golden, unsampled threads, the LATE column
 * under a time window.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

TestSuite(report_threads, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

Test(report_threads, output_matches_golden)
{
	char *text = tst_prof_report(&pa_report_threads, 0);

	tst_log_golden(text, "threads.txt");
	free(text);
}

static void pf_end_unsampled(struct tst_log *l)
{
	tst_log_unsampled(l, 102, PPF_UNSAMPLED_SHARE, ENOMEM, 1300000000ull, "pool");
	tst_log_unsampled(l, 101, PPF_UNSAMPLED_LOG, EMFILE, 1200000000ull, "");
	tst_prof_end_exit0(l);
}

/* Text of report which (threads, processes, or threads as JSON) on run. */
static char *threads_report_of(const struct pa_run *run, const struct pa_filter *f,
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
Test(report_threads, unsampled_threads_are_listed_and_counted)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *dir = tst_log_tmpdir(), *text;
	struct pa_error err = { 0 };
	struct pa_run *run;

	tst_prof_process_at(dir, 100, 1, "/usr/bin/make", 1000000000ull, PPF_MODE_SIGTRAP,
			pf_end_unsampled);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	text = threads_report_of(run, &f, "threads");
	cr_assert_str_eq(text,
		"# event cpu-clock: period 1 ms of CPU (user+kernel), 4 samples\n"
		"     PID      TID  NAME               SAMPLES    LOST THROTTLED   LATE ENDED     CPU(s)"
		"    USER(s)     SYS(s)   COVER  EXE\n"
		"     100      100  main                     4       0         0      0   yes          -"
		"          -          -       -  make\n"
		"     100      101  -                        0       -         -      -     -          -"
		"          -          -       -  make  (unsampled: no log: Too many open files)\n"
		"     100      102  pool                     0       -         -      -     -          -"
		"          -          -       -  make  "
		"(unsampled: over the profiler's share of RLIMIT_AS)\n");
	free(text);
	text = threads_report_of(run, &f, "processes");
	cr_assert(strstr(text, "       4       3          -          -          -       -         -  make  "
			 "exit 0, 2 threads unsampled\n"), "%s", text);
	free(text);
	text = threads_report_of(run, &f, "json");
	cr_assert(strstr(text, "\"threads\": 3,"), "%s", text);
	cr_assert(strstr(text, "{\"pid\": 100, \"tid\": 102, \"name\": \"pool\", \"samples\": 0, "
			 "\"lost\": null, \"throttled\": null, \"late\": null, \"ended\": null, \"cpu_s\": null, "
			 "\"exe\": \"make\", \"unsampled\": \"over the profiler's share of "
			 "RLIMIT_AS\", \"user_s\": null, \"system_s\": null, \"coverage\": null, "
			 "\"cpu_at_end\": null, \"blocked\": null, \"paused_s\": null, "
			 "\"paused_cpu_s\": null, \"pauses\": 0, \"host\": null, \"rank\": null, "
			 "\"world_size\": null, \"job\": null}"), "%s", text);
	free(text);
	f.thread = "pool";
	text = threads_report_of(run, &f, "processes");
	cr_assert(strstr(text, "       0       1          -          -          -       -         -  make  "
			 "exit 0, 1 thread unsampled\n"), "%s", text);
	free(text);
	f.thread = NULL;
	f.tid = 101;
	text = threads_report_of(run, &f, "threads");
	cr_assert(strstr(text, " 101 ") && !strstr(text, " 102 ") && !strstr(text, "main"), "%s",
		  text);
	free(text);
	pa_run_free(run);
	tst_log_rmdir(dir);
}

/* threads with --from/--to: the LATE column counts the window's samples only. */
Test(report_threads, threads_late_column_follows_the_time_window)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	struct pa_filter f = { .event = -1,
				.window = { .on = true, .from_ns = 1000, .to_ns = 5000 } };
	char *dir = tst_log_tmpdir(), *pdir = tst_log_subdir(dir, "app.30");
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	char *text = NULL, *row;
	size_t len = 0;
	FILE *out;

	tst_prof_process_log(pdir, 30, 0, true);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 30, 30, 0, "main");
	/*
	 * The process starts at 1000 ns: samples at 500, 1500, 2500, 3500 and
	 * 6000 ns in; the window [1000, 5000) takes the middle three.
	 */
	tst_log_sample(&l, 1500, 0, PPF_SAMPLE_LATE, 2, stack);
	tst_log_sample(&l, 2500, 0, 0, 2, stack);
	tst_log_sample(&l, 3500, 0, PPF_SAMPLE_LATE, 2, stack);
	tst_log_sample(&l, 4500, 0, PPF_SAMPLE_LATE, 2, stack);
	tst_log_sample(&l, 7000, 0, PPF_SAMPLE_LATE, 2, stack);
	tst_log_thread_end(&l, 9000, 5, 0, 0);
	tst_log_write(&l, pdir, "thread-30.log");
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
	tst_log_rmdir(dir);
}
