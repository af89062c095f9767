/*
 * Tests of the speedscope report (analyze/report_speedscope.c) on the
 * "profile" run (tst_run.h): python3's json reads the file, and a summary
 * of it (profiles, their samples as frame names, root first, and weights;
 * the frames) is compared with the run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "report.h"
#include "tst_it.h"
#include "tst_run.h"

TestSuite(report_speedscope, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

/* Reads a speedscope file (argv[1]) and prints what it holds, a line per item. */
static const char ss_summary_py[] =
	"import json, os, sys\n"
	"d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
	"assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'\n"
	"frames = d['shared']['frames']\n"
	"print('name', d['name'], d['activeProfileIndex'])\n"
	"for p in d['profiles']:\n"
	"    print(p['type'], repr(p['name']), p['unit'], p['startValue'], p['endValue'])\n"
	"    for s, w in zip(p['samples'], p['weights'], strict=True):\n"
	"        print(' ', w, ';'.join(frames[i]['name'] for i in s))\n"
	"for f in frames:\n"
	"    print('frame', f['name'], os.path.basename(f['file']), f['line'] > 0)\n";

/* The summary of the speedscope file of the profile run for pid (0: all), malloc'd. */
static char *ss_summary(uint32_t pid)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char json[TST_PATH_MAX], *text, *out;
	const char *argv[] = { "/usr/bin/python3", "-c", ss_summary_py, json, NULL };
	struct tst_result r;
	struct tst_it it;
	FILE *file;

	f.pid = pid;
	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	text = tst_run_report(&pa_report_speedscope, tst_prof_run, &f, NULL, NULL);
	tst_init(&it);
	snprintf(json, sizeof(json), "%s/out.json", it.tmp);
	file = fopen(json, "w");
	cr_assert(file);
	fputs(text, file);
	cr_assert_eq(fclose(file), 0);
	tst_run(&it, "python", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "python3 could not read the file:\n%s\n%s", r.err, text);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	tst_release(&it);
	free(text);
	return out;
}

#define SS_MAIN "  1000000 pa_proftest_main"

/*
 * A profile per thread, samples in time order weighing the period in ns;
 * samples in a row with the same frames are one, weighing them all.
 */
Test(report_speedscope, profile_per_thread_weighed_in_nanoseconds)
{
	char *text = ss_summary(0), want[4096];

	snprintf(want, sizeof(want),
		 "name %s 0\n"
		 "sampled 'run-tests (10) main (10)' nanoseconds 0 6000000\n"
		 "  3000000 pa_proftest_main;pa_proftest_mid;pa_proftest_leaf\n"
		 SS_MAIN ";pa_proftest_mid\n"
		 "  2000000 pa_proftest_main;pa_proftest_rec;pa_proftest_rec;pa_proftest_rec\n"
		 "sampled 'run-tests (10) worker (11)' nanoseconds 0 4000000\n"
		 "  4000000 pa_proftest_main;pa_proftest_leaf\n"
		 "sampled 'run-tests (20) main (20)' nanoseconds 0 5000000\n"
		 "  5000000 pa_proftest_main;pa_proftest_mid\n"
		 "frame pa_proftest_main tst_run.c True\n"
		 "frame pa_proftest_mid tst_run.c True\n"
		 "frame pa_proftest_leaf tst_run.c True\n"
		 "frame pa_proftest_rec tst_run.c True\n", strrchr(tst_prof_dir, '/') + 1);
	cr_expect_str_eq(text, want);
	free(text);
}

/*
 * A thread's name with quotes and a backslash stays that name; a tab in it
 * (a control character, as a newline: the reader makes it '?' for every
 * report) is a '?'.
 */
Test(report_speedscope, names_are_escaped)
{
	char *text;

	tst_prof_add_named_process(60, "say \"hi\"\\\t", 1);
	text = ss_summary(60);
	cr_expect(strstr(text, "\nsampled 'run-tests (60) say \"hi\"\\\\? (60)' nanoseconds 0 "
			 "1000000\n" SS_MAIN ";pa_proftest_leaf\n"), "%s", text);
	free(text);
}

/*
 * Samples in a row merge when their frames are the same, even at other
 * addresses in the same functions, and weigh what they stand for (a late
 * sample's overflows); the same stack later, after another, is a sample
 * of its own: time order is kept.
 */
Test(report_speedscope, samples_in_a_row_merge_in_time_order)
{
	const uint64_t leaf_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	const uint64_t leaf_main2[] = { tst_run_in(pa_proftest_leaf) + 1,
					tst_run_in(pa_proftest_main) };
	const uint64_t mid_main[] = { tst_run_in(pa_proftest_mid), tst_run_in(pa_proftest_main) };
	char *p61 = tst_log_subdir(tst_prof_dir, "app.61");
	char *text;
	struct tst_log l;

	tst_prof_process_log(p61, 61, 0, true);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 61, 61, 0, "main");
	tst_log_sample(&l, 1000, 0, 0, 2, leaf_main);
	tst_log_sample_weight(&l, 3, 0);
	tst_log_sample(&l, 1001, 0, PPF_SAMPLE_LATE, 2, leaf_main2);
	tst_log_sample(&l, 1002, 0, 0, 2, mid_main);
	tst_log_sample(&l, 1003, 0, 0, 2, leaf_main);
	tst_log_thread_end(&l, 9000, 6, 0, 6000000);
	tst_log_write(&l, p61, "thread-61.log");
	tst_prof_reload();
	text = ss_summary(61);
	cr_expect(strstr(text, "\nsampled 'run-tests (61) main (61)' nanoseconds 0 6000000\n"
			 "  4000000 pa_proftest_main;pa_proftest_leaf\n"
			 SS_MAIN ";pa_proftest_mid\n"
			 SS_MAIN ";pa_proftest_leaf\nframe "), "%s", text);
	free(text);
	free(p61);
}

/* The whole file, byte for byte (paths of this build made stable): written as it streams. */
Test(report_speedscope, output_matches_golden)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text;

	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	text = tst_run_report(&pa_report_speedscope, tst_prof_run, &f, NULL, NULL);
	tst_log_replace(text, PP_TEST_SOURCE_DIR, "SRC");
	tst_log_replace(text, PP_TEST_BUILD_DIR, "BUILD");
	tst_log_replace(text, strrchr(tst_prof_dir, '/') + 1, "RUN");
	tst_log_golden(text, "speedscope.json");
	free(text);
}
