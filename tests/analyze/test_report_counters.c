/* Tests of the counters report (analyze/report_counters.c) on the "counters" run (tst_run.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "tst_log.h"
#include "tst_run.h"

TestSuite(report_counters, .init = tst_counters_setup, .fini = tst_counters_teardown,
	  .timeout = 30);

/* The counters report of pid (0: all) and event (NULL: all) as a malloc'd string. */
static char *ct_report(uint32_t pid, const char *event)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	f.pid = pid;
	cr_assert_eq(pa_events_choose(tst_counters_run, &f, event, PA_EVENTS_COUNTS, &err), 0,
		     "%s", err.reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	cr_assert_eq(pa_report_counters.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
			     .run = tst_counters_run }),
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
