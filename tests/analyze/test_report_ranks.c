/*
 * Tests of analyze/report_ranks.c on the hand-made "hosts" run (tst_run.h):
 * ranks 0 and 2 of a world of 4, on two hosts whose pids clash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tst_it.h"
#include "tst_run.h"

TestSuite(report_ranks, .init = tst_hosts_setup, .fini = tst_hosts_teardown, .timeout = 30);

/* What ranks writes (json: its JSON) on the hosts run for f, malloc'd. */
static char *ranks_text(const struct pa_filter *f, bool json)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_report_opts opts = PA_REPORT_OPTS_DEFAULT;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &opts, .filter = f,
				     .run = tst_hosts_run, .warn = &warn, .err = &err };

	cr_assert(out);
	opts.json = json;
	cr_assert_eq((json ? pa_report_ranks.write_json : pa_report_ranks.write)(&ctx), 0, "%s",
		     err.reason);
	cr_assert_eq(fclose(out), 0);
	pa_warnings_release(&warn);
	return text;
}

static struct pa_filter ranks_filter(void)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	cr_assert_eq(pa_events_choose(tst_hosts_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	return f;
}

Test(report_ranks, one_row_per_rank_with_mpi_share_imbalance_and_missing_ranks)
{
	struct pa_filter f = ranks_filter();
	char *text = ranks_text(&f, false);

	cr_expect(tst_find_line(text, "# job 77: 2 ranks of world size 4\n"), "%s", text);
	cr_expect(tst_find_line(text, "# 2 of 4 ranks have no profile: 1, 3 ("), "%s", text);
	/* Compute (outside MPI): rank 0 2 samples, rank 2 8; mean 5. */
	cr_expect(tst_find_line(text, "# imbalance: the slowest rank, 2, computed 1.60x the mean "
				"(8 samples outside MPI, mean 5.0)"), "%s", text);
	cr_expect(tst_find_line(text, "  RANK  HOST          PROCS   SAMPLES       MPI     MPI%   "
				"COMPUTE    CPU(s)\n"), "%s", text);
	cr_expect(tst_find_line(text, "     0  node1.cluster     1         6         4   66.67%"
				"         2     0.006\n"), "%s", text);
	cr_expect(tst_find_line(text, "     2  node2.cluster     1         9         1   11.11%"
				"         8     0.009\n"), "%s", text);
	cr_expect(tst_find_line(text, "# 1 process without a rank (launchers, helpers) left out"),
		  "%s", text);
	/* No wall.log: no WAIT column that would read as a measurement, and how to get one. */
	cr_expect(!strstr(text, "WAIT(s)"), "%s", text);
	cr_expect(tst_find_line(text, "# the time ranks waited in MPI calls (WAIT) needs the "
				"wall-clock event: run with [sample wall] in the configuration"),
		  "%s", text);
	free(text);
}

Test(report_ranks, filters_and_json)
{
	struct pa_filter f = ranks_filter();
	char *text;

	f.host = "node2";
	text = ranks_text(&f, false);
	cr_expect(tst_find_line(text, "# job 77: 1 rank of world size 4\n"), "%s", text);
	cr_expect(tst_find_line(text, "# 3 of 4 ranks have no profile: 0, 1, 3 ("), "%s", text);
	cr_expect(!tst_find_line(text, "     0  "), "%s", text);
	free(text);
	f.host = NULL;
	text = ranks_text(&f, true);
	cr_expect(strstr(text, "{\"job\": \"77\", \"rank\": 2, \"world_size\": 4, \"host\": "
			 "\"node2.cluster\", \"processes\": 1, \"samples\": 9, \"mpi\": 1, "), "%s",
		  text);
	cr_expect(strstr(text, "\"missing\": 2, \"missing_ranks\": [1,3], \"imbalance\": 1.6"),
		  "%s", text);
	cr_expect(strstr(text, "\"slowest_rank\": 2, \"mean_compute\": 5"), "%s", text);
	cr_expect(strstr(text, "\"without_rank\": 1"), "%s", text);
	cr_expect(strstr(text, "\"cpu_s\": 0.009, \"wait_s\": null, \"in_mpi_s\": null}"), "%s",
		  text);
	cr_expect(strstr(text, "\"longest_in_mpi_rank\": null, \"mean_in_mpi_s\": null}"), "%s",
		  text);
	cr_expect(strstr(text, "\"wall_event\": false"), "%s", text);
	free(text);
}

/* A run without ranks says so, and is no error. */
Test(report_ranks, run_without_ranks_says_so, .init = tst_prof_setup, .fini = tst_prof_teardown)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text;

	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	text = tst_run_report(&pa_report_ranks, tst_prof_run, &f, NULL, NULL);
	cr_expect(tst_find_line(text, "# no process has an MPI rank"), "%s", text);
	free(text);
}

/*
 * The launcher's fork children, which exec the program and become ranks,
 * are no "processes without a rank": on node1, pid 9's first image exec'd
 * into rank 1; pid 10's exec'd into another program (no rank, no log).
 */
Test(report_ranks, images_replaced_by_exec_are_not_processes_without_a_rank)
{
	const struct tst_hosts_proc procs[] = {
		{ "node1.cluster", 0x11, 9, 5, -1, 3000000, 0, 0, 0, 0, 0, 0, "/bin/rankprog" },
		{ "node1.cluster", 0x11, 9, 5, 1, 4000000, 0, 1, 0, 0, 0, 0, NULL },
		{ "node1.cluster", 0x11, 10, 5, -1, 3000000, 0, 0, 0, 0, 0, 0, "/bin/other" },
	};
	struct pa_error err = { 0 };
	struct pa_filter f;
	char *text;

	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		tst_hosts_process(&procs[i]);
	pa_run_free(tst_hosts_run);
	cr_assert_eq(pa_run_load(tst_hosts_dir, &tst_hosts_run, &err), 0, "%s", err.reason);
	f = ranks_filter();
	text = ranks_text(&f, false);
	cr_expect(tst_find_line(text, "# job 77: 3 ranks of world size 4\n"), "%s", text);
	cr_expect(tst_find_line(text, "# 1 process without a rank (launchers, helpers) left out\n"),
		  "%s", text);
	cr_expect(tst_find_line(text, "# 2 images without a rank that exec replaced left out (1 by "
				"a rank: "), "%s", text);
	free(text);
	text = ranks_text(&f, true);
	cr_expect(strstr(text, "\"without_rank\": 1,") && strstr(text, "\"replaced_by_exec\": 2,") &&
		  strstr(text, "\"replaced_by_rank\": 1"), "%s", text);
	free(text);
}
