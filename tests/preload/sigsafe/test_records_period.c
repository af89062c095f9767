/*
 * The sample weight's period (preload/sigsafe/records.c against the
 * analyzer's reader): a sample of a frequency-mode event written after a
 * PPF_REC_SAMPLE_WEIGHT that gives its period reads back as that many
 * events, times its overflows; a weight without a period as overflows.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "tst_log.h"
#include "pprof/format.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"

static char *rp_dir;
static int rp_dirfd = -1;

static void rp_setup(void)
{
	rp_dir = tst_log_tmpdir();
	rp_dirfd = open(rp_dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(rp_dirfd, 0);
}

static void rp_teardown(void)
{
	close(rp_dirfd);
	tst_log_rmdir(rp_dir);
	rp_dir = NULL;
}

TestSuite(records_period, .init = rp_setup, .fini = rp_teardown, .timeout = 30);

Test(records_period, weight_with_a_period_reads_back_as_events)
{
	const uint64_t ips[2] = { 0x401000, 0x402000 };
	struct pa_thread *t = NULL;
	struct pp_logfile log;
	struct pa_error err;
	char path[PATH_MAX];

	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, rp_dirfd, "thread-5.log",
					       PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_records_thread_sigsafe(&log, 5, 5, pp_records_now_sigsafe(), NULL), 0);
	/* One overflow of 37 events; then 3 of 1000 each; then 2 of the configured period. */
	cr_assert_eq(pp_records_sample_weight_sigsafe(&log, 1, 37), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, ips, 2, 100, 0, 0), 0);
	cr_assert_eq(pp_records_sample_weight_sigsafe(&log, 3, 1000), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, ips, 1, 200, 0, PPF_SAMPLE_LATE), 0);
	cr_assert_eq(pp_records_sample_weight_sigsafe(&log, 2, 0), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, ips, 1, 300, 0, PPF_SAMPLE_LATE), 0);
	cr_assert_eq(pp_records_sample_sigsafe(&log, ips, 1, 400, 0, 0), 0);
	pp_logfile_close_sigsafe(&log);

	snprintf(path, sizeof(path), "%s/thread-5.log", rp_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, NULL, &err), 0, "%s", err.reason);
	cr_assert_eq(t->nsamples, 4);
	cr_expect_eq(t->samples[0].count, 37);
	cr_expect_eq(t->samples[1].count, 3000);
	cr_expect_eq(t->samples[2].count, 2);
	cr_expect_eq(t->samples[3].count, 1);
	pa_thread_free(t);
}
