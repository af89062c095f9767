/*
 * PPF_REC_IDENTITY: what pp_records_identity_sigsafe writes, the reader
 * reads back, with an anchor taken when it was written; a damaged record
 * is refused with the reason.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pprof/format.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"

TestSuite(records_identity, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown,
	  .timeout = 30);

static uint64_t ri_now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

Test(records_identity, reads_back_what_was_written)
{
	struct pp_records_identity id = { .host = "node7.cluster", .job = "4242", .rank = 3,
					  .world_size = 64, .rank_source = PPF_RANK_SLURM };
	struct pa_warnings warn = { 0 };
	struct pa_process *p = NULL;
	struct pa_error err = { 0 };
	struct pp_logfile log;
	char path[PATH_MAX];
	uint64_t mono, real;
	int dirfd = open(tst_log_dir, O_RDONLY | O_DIRECTORY);

	for (int i = 0; i < 16; i++)
		id.boot_id[i] = (uint8_t)(i * 17);
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS), 0);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, 5, "/bin/app", "app", 4),
		     0);
	mono = ri_now(CLOCK_MONOTONIC);
	real = ri_now(CLOCK_REALTIME);
	cr_assert_eq(pp_records_identity_sigsafe(&log, &id), 0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	snprintf(path, sizeof(path), "%s/%s", tst_log_dir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, &warn, &err), 0, "%s", err.reason);
	cr_assert(p->id.known);
	cr_expect_str_eq(p->id.host, "node7.cluster");
	cr_expect_str_eq(p->id.job, "4242");
	cr_expect(p->id.rank == 3 && p->id.world_size == 64 &&
		  p->id.rank_source == PPF_RANK_SLURM);
	cr_expect_eq(memcmp(p->id.boot_id, id.boot_id, 16), 0);
	/* The anchor pairs the two clocks as read around the same moment. */
	cr_expect(p->id.anchor_mono_ns >= mono && p->id.anchor_mono_ns - mono < 1000000000ull);
	cr_expect(p->id.anchor_real_ns >= real && p->id.anchor_real_ns - real < 1000000000ull);
	pa_process_free(p);
	pa_warnings_release(&warn);
}

Test(records_identity, a_host_without_its_nul_is_refused)
{
	struct tst_log l;
	struct pa_process *p = NULL;
	struct pa_error err = { 0 };
	struct ppf_identity *r;
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 1, 0, "/bin/app", NULL);
	off = tst_log_identity(&l, "node1", 1, 0, 2, "", 0, 0);
	r = (struct ppf_identity *)(void *)tst_log_rec(&l, off);
	r->host_len = 2; /* "no", no NUL */
	cr_assert_lt(pa_process_log_parse("process.log", l.buf, l.len, &p, NULL, &err), 0);
	cr_expect(strstr(err.reason, "identity record: host is not NUL-terminated"), "%s",
		  err.reason);
	free(l.buf);
}

Test(records_identity, a_second_identity_record_is_refused)
{
	struct tst_log l;
	struct pa_process *p = NULL;
	struct pa_error err = { 0 };

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 1, 0, "/bin/app", NULL);
	tst_log_identity(&l, "node1", 1, 0, 2, "", 0, 0);
	tst_log_identity(&l, "node2", 1, 1, 2, "", 0, 0);
	cr_assert_lt(pa_process_log_parse("process.log", l.buf, l.len, &p, NULL, &err), 0);
	cr_expect(strstr(err.reason, "second identity record"), "%s", err.reason);
	free(l.buf);
}
