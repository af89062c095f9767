/*
 * Tests of analyze/reader.c's sample periods (PPF_REC_SAMPLE_WEIGHT.period,
 * written for a frequency-mode event whose period the kernel adjusts): a
 * sample counts as its events, and the profile every report is built from
 * weighs samples by them, not by their number.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "eventinfo.h"
#include "profile.h"
#include "reader.h"
#include "tst_log.h"
#include "tst_run.h"

static char *rp_dir;

static void rp_setup(void)
{
	rp_dir = tst_log_tmpdir();
}

static void rp_teardown(void)
{
	tst_log_rmdir(rp_dir);
	rp_dir = NULL;
}

TestSuite(reader_period, .init = rp_setup, .fini = rp_teardown, .timeout = 10);

/*
 * Ten samples of leaf of 2 events each, one of mid of 100: by number leaf
 * has 10 of 11, by events mid has 100 of 120. Collapsed or not, the profile
 * counts events.
 */
Test(reader_period, profile_weighs_samples_by_their_period)
{
	const uint64_t leaf = tst_run_in(pa_proftest_leaf), mid = tst_run_in(pa_proftest_mid);

	for (int collapse = 0; collapse < 2; collapse++) {
		char *root = tst_log_subdir(rp_dir, collapse ? "collapsed" : "plain");
		char *pdir = tst_log_subdir(root, "app.10");
		struct pa_load_opts o = { .collapse = collapse };
		struct pa_profile *prof = NULL;
		struct pa_error err = { 0 };
		struct pa_run *run = NULL;
		struct tst_log l;

		tst_prof_process_log(pdir, 10, 0, true);
		tst_log_begin(&l, PPF_FILE_THREAD);
		tst_log_thread(&l, 10, 10, 1000, "main");
		for (int i = 0; i < 10; i++) {
			tst_log_sample_weight(&l, 1, 2);
			tst_log_sample(&l, 2000 + (uint64_t)i, 0, 0, 1, &leaf);
		}
		tst_log_sample_weight(&l, 1, 100);
		tst_log_sample(&l, 3000, 0, 0, 1, &mid);
		tst_log_thread_end(&l, 5000, 11, 0, 0);
		tst_log_write(&l, pdir, "thread-10.log");
		cr_assert_eq(pa_run_load_opts(root, &o, &run, &err), 0, "%s", err.reason);
		cr_assert_eq(pa_profile_build_by(run, NULL, PA_PROFILE_BY_FUNCTION, &prof, NULL,
						 &err), 0, "%s", err.reason);
		cr_expect_eq(prof->samples, 120);
		cr_assert_not_null(pa_profile_find(prof, "pa_proftest_mid"));
		cr_assert_not_null(pa_profile_find(prof, "pa_proftest_leaf"));
		cr_expect_eq(pa_profile_find(prof, "pa_proftest_mid")->self, 100);
		cr_expect_eq(pa_profile_find(prof, "pa_proftest_leaf")->self, 20);
		pa_profile_free(prof);
		pa_run_free(run);
		free(pdir);
		free(root);
	}
}

/* A period whose product with the overflows is past any count is no period a writer makes. */
Test(reader_period, rejects_a_product_past_any_count)
{
	char *pdir = tst_log_subdir(rp_dir, "a.10"), path[4096];
	const uint64_t ip = 0x401000;
	struct pa_thread *t = NULL;
	struct pa_error err = { 0 };
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 10, 10, 1000, "main");
	off = tst_log_sample_weight(&l, 4, UINT64_MAX / 4);
	tst_log_sample(&l, 2000, 0, 0, 1, &ip);
	tst_log_write(&l, pdir, "thread-10.log");
	snprintf(path, sizeof(path), "%s/thread-10.log", pdir);
	cr_assert_lt(pa_thread_log_load(path, &t, NULL, &err), 0);
	cr_expect_eq(err.offset, off);
	cr_expect(strstr(err.reason, "events each") != NULL, "%s", err.reason);
	free(pdir);
}
