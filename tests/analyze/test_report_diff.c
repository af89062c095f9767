/*
 * Tests of diff (analyze/report_diff.c), and of the time window and thread
 * name filters (profile.c), on the two "diff" runs (tst_run.h), whose
 * samples hold real addresses of functions of this test binary. diff's
 * text is compared with tests/golden/diff.txt (PA_UPDATE_GOLDEN=1
 * rewrites it).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "reader.h"
#include "report.h"
#include "report_diff.h"
#include "tst_log.h"
#include "tst_run.h"

TestSuite(report_diff, .init = tst_diff_setup, .fini = tst_diff_teardown, .timeout = 30);

static struct pa_run *dt_load(size_t k)
{
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	cr_assert_eq(pa_run_load(tst_diff_dirs[k], &run, &err), 0, "%s: %s", err.path, err.reason);
	return run;
}

static const struct pa_report_diff_row *dt_row(const struct pa_report_diff_row *rows,
					       size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	cr_assert_fail("no row %s", name);
	return NULL;
}

Test(report_diff, rows_by_change_of_share)
{
	struct pa_run *rb = dt_load(0), *rc = dt_load(1);
	struct pa_profile *pb = tst_run_profile(rb, PA_FILTER_ALL), *pc = tst_run_profile(rc, PA_FILTER_ALL);
	struct pa_report_diff_row *rows;
	const struct pa_report_diff_row *r;
	size_t n;

	cr_assert_eq(pa_report_diff_build(pb, pc, &rows, &n), 0);
	/* alpha, beta, main (and whatever called main: nothing, one frame each) */
	cr_assert_eq(n, 3);
	/* alpha and beta both moved 40 points; the tie goes by name */
	cr_expect_str_eq(rows[0].name, "pa_difftest_alpha");
	cr_expect_str_eq(rows[1].name, "pa_difftest_beta");
	cr_expect_str_eq(rows[2].name, "pa_difftest_main");
	r = dt_row(rows, n, "pa_difftest_alpha");
	cr_expect_float_eq(r->base_self, 60.0, 1e-9);
	cr_expect_float_eq(r->cur_self, 20.0, 1e-9);
	cr_expect_float_eq(r->base_total, 60.0, 1e-9);
	r = dt_row(rows, n, "pa_difftest_beta");
	cr_expect_float_eq(r->cur_self - r->base_self, 40.0, 1e-9);
	r = dt_row(rows, n, "pa_difftest_main");
	cr_expect_float_eq(r->base_self, 10.0, 1e-9);
	cr_expect_float_eq(r->cur_total - r->base_total, 0.0, 1e-9);
	cr_expect_str_eq(r->module, strrchr(rb->processes[0]->exe, '/') + 1);
	free(rows);
	pa_profile_free(pb);
	pa_profile_free(pc);
	pa_run_free(rb);
	pa_run_free(rc);
}

/* A function only one side has gets a share of 0 on the other. */
Test(report_diff, missing_function_has_no_share)
{
	struct pa_run *rb = dt_load(0), *rc = dt_load(1);
	struct pa_filter only_main = PA_FILTER_ALL;
	struct pa_profile *pb, *pc;
	struct pa_report_diff_row *rows;
	const struct pa_report_diff_row *r;
	size_t n;

	only_main.thread = "main";
	pb = tst_run_profile(rb, PA_FILTER_ALL);
	pc = tst_run_profile(rc, only_main); /* no nameless thread: main has no self */
	cr_assert_eq(pa_report_diff_build(pb, pc, &rows, &n), 0);
	r = dt_row(rows, n, "pa_difftest_main");
	cr_expect_float_eq(r->base_self, 10.0, 1e-9);
	cr_expect_float_eq(r->cur_self, 0.0, 1e-9);
	cr_expect_float_eq(r->cur_total, 100.0, 1e-9);
	free(rows);
	pa_profile_free(pb);
	pa_profile_free(pc);
	pa_run_free(rb);
	pa_run_free(rc);
}

/*
 * diff of the two runs (at most limit rows), as text or JSON; the runs'
 * directories, which are temporary, become BASE and NEW.
 */
static char *dt_report(bool json, size_t limit)
{
	struct pa_run *rb = dt_load(0), *rc = dt_load(1);
	struct pa_profile *pb = tst_run_profile(rb, PA_FILTER_ALL), *pc = tst_run_profile(rc, PA_FILTER_ALL);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &(struct pa_report_opts){ .limit = limit },
				     .run = rc, .prof = pc, .base_run = rb, .base_prof = pb };

	cr_assert(out);
	cr_assert_eq((json ? pa_report_diff.write_json : pa_report_diff.write)(&ctx), 0);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(pb);
	pa_profile_free(pc);
	pa_run_free(rb);
	pa_run_free(rc);
	tst_log_replace(text, tst_diff_dirs[0], "BASE");
	return tst_log_replace(text, tst_diff_dirs[1], "NEW");
}

Test(report_diff, text_matches_golden)
{
	char *text = dt_report(false, 0);

	tst_log_golden(text, "diff.txt");
	free(text);
}

Test(report_diff, json_matches_golden)
{
	char *json = dt_report(true, 2);

	tst_log_golden(json, "diff.json");
	free(json);
}

Test(report_diff, limit_keeps_the_largest)
{
	char *text = dt_report(false, 1), *json = dt_report(true, 1);

	cr_expect(strstr(text, "pa_difftest_alpha"), "%s", text);
	cr_expect(!strstr(text, "pa_difftest_beta"), "%s", text);
	cr_expect(strstr(json, "pa_difftest_alpha"), "%s", json);
	cr_expect(!strstr(json, "pa_difftest_beta"), "%s", json);
	free(text);
	free(json);
}

/* Samples at 1.5 ms, then 2..10 ms after the start (base run). */
Test(report_diff, window_is_from_process_start)
{
	struct pa_run *run = dt_load(0);
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_profile *prof;

	f.window.on = true;
	f.window.from_ns = 2000000; /* [2 ms, 7 ms): alpha at 2..6 ms, not main's at 0.5 ms */
	f.window.to_ns = 7000000;
	prof = tst_run_profile(run, f);
	cr_expect_eq(prof->samples, 5);
	cr_expect_eq(pa_profile_find(prof, "pa_difftest_alpha")->self, 5);
	cr_expect_null(pa_profile_find(prof, "pa_difftest_beta"));
	cr_expect_eq(pa_filter_count_samples(&prof->filter, run->processes[0],
					     run->processes[0]->threads[0]), 5);
	pa_profile_free(prof);
	f.window.from_ns = 0;
	f.window.to_ns = 1000000; /* before the first alpha: main's one sample */
	prof = tst_run_profile(run, f);
	cr_expect_eq(prof->samples, 1);
	cr_expect_eq(pa_profile_find(prof, "pa_difftest_main")->self, 1);
	pa_profile_free(prof);
	pa_run_free(run);
}

Test(report_diff, thread_name_selects)
{
	struct pa_run *run = dt_load(0);
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_profile *prof;

	f.thread = "-"; /* the nameless thread, as `threads` shows it */
	prof = tst_run_profile(run, f);
	cr_expect_eq(prof->samples, 1);
	cr_expect_eq(prof->nthreads, 1);
	pa_profile_free(prof);
	f.thread = "nope";
	prof = tst_run_profile(run, f);
	cr_expect_eq(prof->samples, 0);
	cr_expect_eq(prof->nthreads, 0);
	cr_expect_eq(prof->nprocesses, 0);
	pa_profile_free(prof);
	pa_run_free(run);
}

/* Two runs with the same pid: both processes kept, samples added up. */
