/*
 * Tests of analyze/report_ranks.c's wall-clock columns on the hand-made
 * "hosts" run (tst_run.h) with a crafted wall.log for rank 0: waits in MPI
 * whose sum passes what 64 bits of nanoseconds hold stop there (WAIT and
 * MPI(s) saturate) rather than wrap to a small figure.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_it.h"
#include "tst_log.h"
#include "tst_run.h"

TestSuite(report_ranks_wall, .init = tst_hosts_setup, .fini = tst_hosts_teardown,
	  .timeout = 30);

#define TRW_WAITS 40000u
#define TRW_WAIT_NS (1ull << 49)

/* Rank 0's wall.log (node1, pid 6): TRW_WAITS sleeps of TRW_WAIT_NS in PMPI_Tst_wait. */
static void trw_wall_log(void)
{
	const uint64_t ips[] = { tst_run_in(PMPI_Tst_wait), tst_run_in(pa_proftest_main) };
	struct ppf_wall_start st = { .period_ns = 1000000, .tick_ns = 1000000,
				     .start_ns = 2000000, .ring_pages = 2 };
	struct ppf_wall_end end = { .end_ns = 502000000, .threads = 1 };
	struct ppf_wall_interval iv = { .tid = 6, .state = PPF_WALL_SLEEP, .out_ns = 3000000,
					.in_ns = 3000000 + TRW_WAIT_NS, .stack = 0, .nr = 230 };
	struct tst_log_self self;
	struct pp_logfile log;
	char dir[4096];

	tst_log_self_module((const void *)pa_proftest_main, &self);
	snprintf(dir, sizeof(dir), "%s/%s@node1.6", tst_hosts_dir, strrchr(self.path, '/') + 1);
	tst_wall_log_start(dir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, ips, 2, 0, 0), 0);
	for (unsigned i = 0; i < TRW_WAITS; i++)
		cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)),
			     0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
}

Test(report_ranks_wall, waits_past_64_bits_of_nanoseconds_saturate)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_report_opts opts = PA_REPORT_OPTS_DEFAULT;
	struct pa_filter f = PA_FILTER_ALL;
	char *text = NULL, *at;
	size_t len = 0;
	FILE *out;
	double wait;

	trw_wall_log();
	pa_run_free(tst_hosts_run);
	tst_hosts_run = NULL;
	cr_assert_eq(pa_run_load(tst_hosts_dir, &tst_hosts_run, &err), 0, "%s: %s", err.path,
		     err.reason);
	cr_assert_eq(pa_events_choose(tst_hosts_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	opts.json = true;
	{
		struct pa_report_ctx ctx = { .out = out, .opts = &opts, .filter = &f,
					     .run = tst_hosts_run, .warn = &warn, .err = &err };

		cr_assert_eq(pa_report_ranks.write_json(&ctx), 0, "%s", err.reason);
	}
	cr_assert_eq(fclose(out), 0);
	pa_warnings_release(&warn);
	/* Rank 0's row comes first; its waits hold 40000 x 2^49 ns, past 2^64. */
	at = strstr(text, "\"wait_s\":");
	cr_assert(at, "%s", text);
	wait = strtod(at + strlen("\"wait_s\":"), NULL);
	cr_expect_geq(wait, (double)UINT64_MAX / 1e9 * 0.999, "rank 0 waited %.6g s in MPI: %s",
		      wait, text);
	free(text);
}
