/*
 * Tests of analyze/report_ranks.c on the hand-made "hosts" run (tst_run.h):
 * ranks 0 and 2 of a world of 4, on two hosts whose pids clash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_ranks.h"
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

/* A frame named function in module (a path, or NULL: no module holds it). */
/*
 * A rank at or past the world size (a process that recorded another
 * launch's variables) is no rank of the job's: the header counted it among
 * "2 ranks of world size 4" beside "2 of 4 ranks have no profile". Said
 * apart, its row kept.
 */
Test(report_ranks, a_rank_past_the_world_size_is_said_apart)
{
	const struct tst_hosts_proc extra = { "node1.cluster", 0x11, 12, 5, 9, 5000000, 0, 1, 0,
					      0, 0, 0, NULL };
	struct pa_error err = { 0 };
	struct pa_filter f;
	char *text;

	tst_hosts_process(&extra);
	pa_run_free(tst_hosts_run);
	cr_assert_eq(pa_run_load(tst_hosts_dir, &tst_hosts_run, &err), 0, "%s", err.reason);
	f = ranks_filter();
	text = ranks_text(&f, false);
	cr_expect(tst_find_line(text, "# job 77: 2 ranks of world size 4\n"), "%s", text);
	cr_expect(tst_find_line(text, "# 1 rank at or past the world size: 9 ("), "%s", text);
	cr_expect(tst_find_line(text, "# 2 of 4 ranks have no profile: 1, 3 ("), "%s", text);
	free(text);
}

static struct pa_frame ranks_frame(const char *function, const char *module)
{
	const char *base = module ? strrchr(module, '/') : NULL;

	return (struct pa_frame){ .function = function, .module = module,
				  .module_base = base ? base + 1 : module,
				  .name = function ? function : "[unknown]" };
}

#define RANKS_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The program in an MPI call counts; threads the MPI library or the
 * libraries under it started, which wait or poll all their life, do not:
 * Open MPI's progress thread, UCX's async thread calling back into Open
 * MPI's UCX component (its frames were taken for the program's: a rank's
 * INMPI grew by that thread's whole life), a stack whose outer frames are
 * in no known module. A stack cut short inside MPI is the program's.
 */
Test(report_ranks, time_in_mpi_is_the_programs_not_its_libraries_threads)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	const char *mpi = "/usr/lib/x86_64-linux-gnu/libmpi.so.40";
	const char *pal = "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40";
	const char *ucs = "/usr/lib/x86_64-linux-gnu/libucs.so.0";
	const char *pml = "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ucx.so";
	struct pa_frame program[] = {
		ranks_frame("poll", libc), ranks_frame("opal_progress", pal),
		ranks_frame("PMPI_Barrier", mpi), ranks_frame("exchange", "/home/u/app"),
		ranks_frame("main", "/home/u/app"), ranks_frame("__libc_start_call_main", libc),
	};
	struct pa_frame progress[] = {
		ranks_frame("epoll_wait", libc), ranks_frame("opal_libevent2022_event_base_loop", pal),
		ranks_frame("progress_engine", pal), ranks_frame("start_thread", libc),
		ranks_frame("clone3", libc),
	};
	struct pa_frame ucx_async[] = {
		ranks_frame("mca_pml_ucx_progress", pml), ranks_frame("ucs_async_handle", ucs),
		ranks_frame("ucs_async_thread_func", ucs), ranks_frame("start_thread", libc),
		ranks_frame("clone3", libc),
	};
	struct pa_frame unknown_outer[] = {
		ranks_frame("PMPI_Recv", mpi), ranks_frame(NULL, NULL), ranks_frame(NULL, NULL),
	};
	struct pa_frame cut_inside[] = {
		ranks_frame("poll", libc), ranks_frame("opal_progress", pal),
		ranks_frame("ompi_request_default_wait", mpi),
	};

	cr_expect(pa_ranks_program_in_mpi(program, RANKS_N(program), false));
	cr_expect(!pa_ranks_program_in_mpi(progress, RANKS_N(progress), false));
	cr_expect(!pa_ranks_program_in_mpi(ucx_async, RANKS_N(ucx_async), false),
		  "UCX's async thread counted as the program in MPI");
	cr_expect(!pa_ranks_program_in_mpi(unknown_outer, RANKS_N(unknown_outer), false),
		  "frames in no module counted as the program's");
	cr_expect(!pa_ranks_program_in_mpi(cut_inside, RANKS_N(cut_inside), false));
	cr_expect(pa_ranks_program_in_mpi(cut_inside, RANKS_N(cut_inside), true),
		  "a stack cut short inside MPI is not counted");
	/* Not in MPI at all. */
	cr_expect(!pa_ranks_program_in_mpi(program + 3, 3, true));
}
