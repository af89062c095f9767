/*
 * Tests of analyze/reader.c's sample weights (PPF_REC_SAMPLE_WEIGHT): a
 * sample stands for the overflows its weight record says, old logs
 * without one read as one overflow a sample, and the reports' counts
 * follow.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "reader.h"
#include "tst_log.h"
#include "tst_run.h"

static char *rw_dir;

static void rw_setup(void)
{
	rw_dir = tst_log_tmpdir();
}

static void rw_teardown(void)
{
	tst_log_rmdir(rw_dir);
	rw_dir = NULL;
}

TestSuite(reader_weight, .init = rw_setup, .fini = rw_teardown, .timeout = 10);

static const uint64_t rw_ips[2] = { 0x401010, 0x402020 };

/*
 * rw_dir/app.10/ with a finished process.log of pid 10 that maps this test
 * binary; returns that directory.
 */
static char *rw_process_dir(void)
{
	char *pdir = tst_log_subdir(rw_dir, "app.10");

	tst_prof_process_log(pdir, 10, 0, true);
	return pdir;
}

/* Loads rw_dir (collapsed as reports load it when collapse is set) with no error. */
static struct pa_run *rw_load(bool collapse)
{
	struct pa_load_opts o = { .collapse = collapse };
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	cr_assert_eq(pa_run_load_opts(rw_dir, &o, &run, &err), 0, "%s: %s", err.path,
		     err.reason);
	cr_assert_eq(run->nprocesses, 1);
	cr_assert_eq(run->processes[0]->nthreads, 1);
	return run;
}

/* Starts the log of thread 10 of pid 10: its header and PPF_REC_THREAD. */
static void rw_thread_begin(struct tst_log *l)
{
	tst_log_begin(l, PPF_FILE_THREAD);
	tst_log_thread(l, 10, 10, 1000, "main");
}

static const struct pa_thread *rw_thread(const struct pa_run *run)
{
	return run->processes[0]->threads[0];
}

/* A log of an older writer: no weight records, every sample one overflow. */
Test(reader_weight, old_log_reads_one_overflow_a_sample)
{
	char *pdir = rw_process_dir();
	struct pa_run *run;
	struct tst_log l;

	rw_thread_begin(&l);
	tst_log_sample(&l, 2000, 0, 0, 2, rw_ips);
	tst_log_sample(&l, 3000, 0, PPF_SAMPLE_LATE, 1, rw_ips);
	tst_log_thread_end(&l, 4000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-10.log");
	run = rw_load(false);
	cr_assert_eq(rw_thread(run)->nsamples, 2);
	cr_expect_eq(rw_thread(run)->samples[0].count, 1);
	cr_expect_eq(rw_thread(run)->samples[1].count, 1);
	pa_run_free(run);
	free(pdir);
}

/*
 * A weight applies to the sample right after it only; one followed by
 * another record (the sample could not be written) is dropped.
 */
Test(reader_weight, weight_applies_to_the_next_sample_only)
{
	char *pdir = rw_process_dir();
	const struct pa_thread *t;
	struct pa_run *run;
	struct tst_log l;

	rw_thread_begin(&l);
	tst_log_sample_weight(&l, 40, 0);
	tst_log_sample(&l, 2000, 0, PPF_SAMPLE_LATE, 2, rw_ips);
	tst_log_sample(&l, 3000, 0, 0, 2, rw_ips);
	tst_log_sample_weight(&l, 7, 0);
	tst_log_thread_name(&l, 3500, "renamed");
	tst_log_sample(&l, 4000, 0, 0, 1, rw_ips);
	tst_log_thread_end(&l, 5000, 42, 0, 0);
	tst_log_write(&l, pdir, "thread-10.log");
	run = rw_load(false);
	t = rw_thread(run);
	cr_assert_eq(t->nsamples, 3);
	cr_expect_eq(t->samples[0].count, 40);
	cr_expect_eq(t->samples[1].count, 1);
	cr_expect_eq(t->samples[2].count, 1);
	pa_run_free(run);
	free(pdir);
}

/*
 * Collapsing sums the weights of samples that cannot be told apart, and the
 * profile every report is built from counts overflows: a late sample of
 * weight 40 outweighs 3 plain ones.
 */
Test(reader_weight, profile_counts_weights)
{
	char *pdir = rw_process_dir();
	struct pa_profile *prof = NULL;
	struct pa_error err = { 0 };
	const struct pa_thread *t;
	struct pa_run *run;
	const uint64_t leaf = tst_run_in(pa_proftest_leaf), mid = tst_run_in(pa_proftest_mid);
	struct tst_log l;

	rw_thread_begin(&l);
	for (int i = 0; i < 3; i++)
		tst_log_sample(&l, 2000 + (uint64_t)i, 0, 0, 1, &leaf);
	tst_log_sample_weight(&l, 30, 0);
	tst_log_sample(&l, 3000, 0, PPF_SAMPLE_LATE, 1, &mid);
	tst_log_sample_weight(&l, 10, 0);
	tst_log_sample(&l, 3100, 0, PPF_SAMPLE_LATE, 1, &mid);
	tst_log_thread_end(&l, 5000, 43, 0, 0);
	tst_log_write(&l, pdir, "thread-10.log");
	run = rw_load(true);
	t = rw_thread(run);
	cr_assert_eq(t->nsamples, 2);
	cr_expect_eq(t->samples[0].count, 3);
	cr_expect_eq(t->samples[1].count, 40);
	cr_assert_eq(pa_profile_build_by(run, NULL, PA_PROFILE_BY_FUNCTION, &prof, NULL, &err),
		     0, "%s", err.reason);
	cr_expect_eq(prof->samples, 43);
	cr_assert_not_null(pa_profile_find(prof, "pa_proftest_mid"));
	cr_assert_not_null(pa_profile_find(prof, "pa_proftest_leaf"));
	cr_expect_eq(pa_profile_find(prof, "pa_proftest_mid")->self, 40);
	cr_expect_eq(pa_profile_find(prof, "pa_proftest_leaf")->self, 3);
	pa_profile_free(prof);
	pa_run_free(run);
	free(pdir);
}

/* A log whose writer was killed between a weight and its sample reads to its last whole record. */
Test(reader_weight, killed_after_a_weight_keeps_what_was_written)
{
	char *pdir = rw_process_dir();
	struct pa_run *run;
	struct tst_log l;

	rw_thread_begin(&l);
	tst_log_sample(&l, 2000, 0, 0, 2, rw_ips);
	tst_log_sample_weight(&l, 12, 0);
	tst_log_write(&l, pdir, "thread-10.log");
	run = rw_load(false);
	cr_assert_eq(rw_thread(run)->nsamples, 1);
	cr_expect_eq(rw_thread(run)->samples[0].count, 1);
	cr_expect_not(rw_thread(run)->ended);
	pa_run_free(run);
	free(pdir);
}

/* No writer says a sample stands for no overflow, or for more than a count holds. */
Test(reader_weight, rejects_impossible_weights)
{
	const uint64_t bad[] = { 0, (uint64_t)UINT32_MAX + 1 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *pdir = tst_log_subdir(rw_dir, i ? "b.10" : "a.10"), path[4096];
		struct pa_thread *t = NULL;
		struct pa_error err = { 0 };
		struct tst_log l;
		size_t off;

		rw_thread_begin(&l);
		off = tst_log_sample_weight(&l, bad[i], 0);
		tst_log_sample(&l, 2000, 0, 0, 2, rw_ips);
		tst_log_write(&l, pdir, "thread-10.log");
		snprintf(path, sizeof(path), "%s/thread-10.log", pdir);
		cr_assert_lt(pa_thread_log_load(path, &t, NULL, &err), 0, "weight %llu read",
			     (unsigned long long)bad[i]);
		cr_expect_eq(err.offset, off);
		cr_expect(strstr(err.reason, "overflows") != NULL, "%s", err.reason);
		free(pdir);
	}
}
