/*
 * Tests of the script report (analyze/report_script.c), the text layout of
 * `perf script`, on the "profile" run (tst_run.h): checked line by line,
 * its addresses against what nm says of this test binary.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "runs.h"
#include "tst_it.h"
#include "tst_run.h"

TestSuite(report_script, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

/* The script of run for pid (0: all) and event (NULL: the default), malloc'd. */
static char *sc_script(const struct pa_run *run, uint32_t pid, const char *event)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	f.pid = pid;
	cr_assert_eq(pa_events_choose(run, &f, event, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	return tst_run_report(&pa_report_script, run, &f, NULL, NULL);
}

/*
 * The line of frame fn (a function of this binary, at tst_run_in(fn)):
 * its ELF address, as nm gives it, the function and the offset it was
 * looked up at (a caller's at the return address - 1), the module.
 */
static void sc_frame(FILE *out, int (*fn)(int), const char *name, bool caller)
{
	struct tst_log_self self;

	tst_log_self_module((const void *)fn, &self);
	fprintf(out, "\t%16" PRIx64 " %s+0x%d (%s)\n", tst_log_nm(self.path, name, NULL) + 2,
		name, caller ? 1 : 2, self.path);
}

/* Thread 11 "worker": its 4 cpu-clock samples, leaf called by main, at 1000..1003 ns. */
Test(report_script, has_the_layout_of_perf_script)
{
	char *text = sc_script(tst_prof_run, 10, NULL), *want = NULL, *at;
	size_t len = 0;
	FILE *out = open_memstream(&want, &len);

	cr_assert(out);
	for (int i = 0; i < 4; i++) {
		fputs("worker 11 0.000001:    1000000 cpu-clock: \n", out);
		sc_frame(out, pa_proftest_leaf, "pa_proftest_leaf", false);
		sc_frame(out, pa_proftest_main, "pa_proftest_main", true);
		fputc('\n', out);
	}
	cr_assert_eq(fclose(out), 0);
	at = strstr(text, "worker 11 ");
	cr_assert(at, "%s", text);
	cr_expect_str_eq(at, want, "thread 11 comes last in process 10");
	free(text);
	free(want);
}

/* Thread by thread, each thread's samples in time order: 6 + 4 in process 10, 5 in 20. */
Test(report_script, every_sample_once_with_its_thread)
{
	char *text = sc_script(tst_prof_run, 0, NULL);
	const char *order[] = { "main 10 ", "worker 11 ", "main 20 " };
	const int count[] = { 6, 4, 5 };
	const char *p = text;

	for (size_t t = 0; t < 3; t++)
		for (int i = 0; i < count[t]; i++) {
			cr_assert(strncmp(p, order[t], strlen(order[t])) == 0, "sample %d of %s: %s",
				  i, order[t], p);
			p = strstr(p, "\n\n");
			cr_assert(p, "a blank line ends each sample");
			p += 2;
		}
	cr_expect_str_eq(p, "");
	free(text);
}

/* A counting period (page-faults, every fault) is the event's; the first line says which. */
Test(report_script, period_and_name_are_the_events)
{
	char *text = sc_script(tst_prof_run, 0, "page-faults");

	cr_expect(strncmp(text, "worker 11 0.000001:          1 page-faults: \n", 44) == 0, "%s",
		  text);
	free(text);
}

/* An address no module holds: its run-time address, [unknown] twice. */
Test(report_script, unknown_frames_say_so)
{
	const uint64_t nowhere[] = { 0xdead0 };
	char *p60 = tst_log_subdir(tst_prof_dir, "app.60");
	char *text;

	tst_prof_process_log(p60, 60, 0, true);
	tst_prof_add_thread(p60, 60, 1, 1, nowhere);
	tst_prof_reload();
	text = sc_script(tst_prof_run, 60, NULL);
	cr_expect_str_eq(text, "main 60 0.000001:    1000000 cpu-clock: \n"
			 "\t           dead0 [unknown] ([unknown])\n\n");
	free(text);
	free(p60);
}

/* With several DIRs, readers tell threads apart by COMM: it starts with the DIR. */
Test(report_script, several_runs_name_theirs)
{
	const char *dirs[] = { tst_prof_dir, tst_prof_dir };
	struct pa_error err = { 0 };
	struct pa_run *both;
	char *text, want[4200];

	cr_assert_eq(pa_runs_merge(dirs, 2, NULL, &both, &err), 0, "%s", err.reason);
	text = sc_script(both, 20, NULL);
	snprintf(want, sizeof(want), "%s:main 20 0.000001:    1000000 cpu-clock: \n",
		 tst_prof_dir);
	cr_expect(strncmp(text, want, strlen(want)) == 0, "%s", text);
	cr_expect_eq(tst_count_lines(text, want), 10, "pid 20's 5 samples in each run: %s", text);
	free(text);
	pa_run_free(both);
}

/* A thread named with a newline and a tab makes no line of its own: its header is one line. */
Test(report_script, a_thread_name_with_a_newline_keeps_the_layout)
{
	char *text;

	tst_prof_add_named_process(67, "we\nird\tname", 1);
	text = sc_script(tst_prof_run, 67, NULL);
	cr_expect(strncmp(text, "we?ird?name 67 ", 15) == 0, "%s", text);
	cr_expect_null(strstr(text, "\nird"), "%s", text);
	free(text);
}
