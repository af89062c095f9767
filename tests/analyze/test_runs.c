/*
 * Unit tests for analyze/runs.c: several run directories read as one, on
 * the two "diff" runs (tst_run.h), which share pid 40.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "reader.h"
#include "runs.h"
#include "tst_run.h"

TestSuite(runs, .init = tst_diff_setup, .fini = tst_diff_teardown, .timeout = 30);

Test(runs, merge_with_repeated_pids)
{
	const char *dirs[] = { tst_diff_dirs[0], tst_diff_dirs[1] };
	struct pa_error err = { 0 };
	struct pa_run *run;
	struct pa_profile *prof;

	cr_assert_eq(pa_runs_merge(dirs, 2, NULL, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(run->nprocesses, 2);
	cr_expect_eq(run->processes[0]->pid, 40);
	cr_expect_eq(run->processes[1]->pid, 40);
	cr_expect(strncmp(run->processes[0]->dir, tst_diff_dirs[0],
			  strlen(tst_diff_dirs[0])) == 0);
	cr_expect(strncmp(run->processes[1]->dir, tst_diff_dirs[1],
			  strlen(tst_diff_dirs[1])) == 0);
	prof = tst_run_profile(run, PA_FILTER_ALL);
	cr_expect_eq(prof->samples, 20);
	cr_expect_eq(pa_profile_find(prof, "pa_difftest_alpha")->self, 8);
	cr_expect_eq(pa_profile_find(prof, "pa_difftest_beta")->self, 10);
	cr_expect_eq(prof->nprocesses, 2);
	pa_profile_free(prof);
	pa_run_free(run);
}

Test(runs, fail_on_a_bad_directory)
{
	const char *dirs[] = { tst_diff_dirs[0], "/nonexistent/pprof-data" };
	struct pa_error err = { 0 };
	struct pa_run *run = (struct pa_run *)1;

	cr_expect_lt(pa_runs_merge(dirs, 2, NULL, &run, &err), 0);
	cr_expect_null(run);
	cr_expect(strstr(err.path, "/nonexistent/pprof-data"), "%s", err.path);
}

/* One DIR is read as pa_run_load reads it: its own name, no run named on its processes. */
Test(runs, one_directory_is_read_alone)
{
	const char *dirs[] = { tst_diff_dirs[1] };
	struct pa_error err = { 0 };
	struct pa_run *run;

	cr_assert_eq(pa_runs_merge(dirs, 1, NULL, &run, &err), 0, "%s", err.reason);
	cr_expect_str_eq(run->dir, tst_diff_dirs[1]);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_null(run->processes[0]->run_dir, "folded, speedscope and pprof name no run");
	pa_run_free(run);
}

/* The merged run is named by its DIRs in the order given; a shared pid keeps that order. */
Test(runs, keeps_the_order_of_the_directories)
{
	const char *dirs[] = { tst_diff_dirs[1], tst_diff_dirs[0] };
	struct pa_error err = { 0 };
	struct pa_run *run;
	char name[8192];

	cr_assert_eq(pa_runs_merge(dirs, 2, NULL, &run, &err), 0, "%s", err.reason);
	snprintf(name, sizeof(name), "%s, %s", tst_diff_dirs[1], tst_diff_dirs[0]);
	cr_expect_str_eq(run->dir, name);
	cr_assert_eq(run->nprocesses, 2);
	cr_expect_str_eq(run->processes[0]->run_dir, tst_diff_dirs[1]);
	cr_expect_str_eq(run->processes[1]->run_dir, tst_diff_dirs[0]);
	/* thread 40's third sample: beta in new (2 alpha first), alpha in base (6) */
	cr_assert_eq(run->processes[0]->threads[0]->nsamples, 9);
	cr_assert_eq(run->processes[1]->threads[0]->nsamples, 9);
	cr_expect_eq(run->processes[0]->threads[0]->samples[2].ips[0],
		     tst_run_in(pa_difftest_beta));
	cr_expect_eq(run->processes[1]->threads[0]->samples[2].ips[0],
		     tst_run_in(pa_difftest_alpha));
	pa_run_free(run);
}
