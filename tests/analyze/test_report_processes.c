/*
 * Tests of analyze/report_processes.c: a tree of processes that ended
 * every way a process can, against its golden.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

TestSuite(report_processes, .timeout = 30);

static void pf_end_abort(struct tst_log *l)
{
	tst_log_process_end(l, 1250000000ull, 0, 0, PPF_EXIT_SIGNAL, 6);
}

static void pf_end_exec(struct tst_log *l)
{
	tst_log_exec(l, 1100000000ull, "/usr/bin/env");
}

static void pf_end_exit3(struct tst_log *l)
{
	tst_log_process_end(l, 1200000000ull, 0, 0, PPF_EXIT_NORMAL, 3);
}

static void pf_end_none(struct tst_log *l)
{
	(void)l;
}

/* process.log stopped early (a full disk), then the process exec'd or was killed. */
static void pf_end_full(struct tst_log *l)
{
	tst_log_log_full(l, 1300000000ull, ENOSPC);
}

/*
 * make (100) runs cc (101, aborts), sh (102, execs env, which exits 3) and
 * sh's child ld (103, forked before the exec, killed); tool (104) ran with
 * profiling off and is 102's child after the exec; as (105) filled the disk,
 * and its log ends without END.
 */
Test(report_processes, processes_output_matches_golden)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *dir = tst_log_tmpdir();
	struct pa_error err = { 0 };
	struct pa_run *run;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	tst_prof_process_at(dir, 100, 1, "/usr/bin/make", 1000000000ull, PPF_MODE_SIGTRAP,
			tst_prof_end_exit0);
	tst_prof_process_at(dir, 101, 100, "/usr/bin/cc", 1010000000ull, PPF_MODE_SIGTRAP,
			pf_end_abort);
	tst_prof_process_at(dir, 102, 100, "/bin/sh", 1020000000ull, PPF_MODE_SIGNAL, pf_end_exec);
	tst_prof_process_at(dir, 102, 100, "/usr/bin/env", 1110000000ull, PPF_MODE_SIGNAL,
			pf_end_exit3);
	tst_prof_process_at(dir, 103, 102, "/usr/bin/ld", 1050000000ull, PPF_MODE_SIGTRAP,
			pf_end_none);
	tst_prof_process_at(dir, 104, 102, "/opt/tool", 1150000000ull, PPF_MODE_OFF, tst_prof_end_exit0);
	tst_prof_process_at(dir, 105, 100, "/usr/bin/as", 1200000000ull, PPF_MODE_SIGTRAP,
			pf_end_full);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	out = open_memstream(&text, &len);
	cr_assert(out);
	cr_assert_eq(pa_report_processes.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = &f,
			     .run = run }),
		     0);
	cr_assert_eq(fclose(out), 0);
	tst_log_golden(text, "processes.txt");
	free(text);
	pa_run_free(run);
	tst_log_rmdir(dir);
}
