/*
 * The reader on a thread log whose header was never written: the profiler
 * makes a thread's log in the signal handler at its first sample, and a
 * process killed in that moment leaves an empty (or allocated, all-zero)
 * file. In a process that did not end, such a log is skipped with a
 * warning and the rest of the run is read; in a process that ended, it is
 * still an error naming the file.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "tst_log.h"

static char *rn_dir;

static void rn_setup(void)
{
	rn_dir = tst_log_tmpdir();
}

static void rn_teardown(void)
{
	tst_log_rmdir(rn_dir);
	rn_dir = NULL;
}

TestSuite(reader_noheader, .init = rn_setup, .fini = rn_teardown, .timeout = 10);

/* Process 8's directory: its log (ended or not) and thread 8's whole log. */
static char *rn_process(bool ended)
{
	static const char *const argv[] = { "busy", NULL };
	static const uint64_t ips[2] = { 0x401010, 0x402020 };
	char *pdir = tst_log_subdir(rn_dir, "busy.8");
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 8, 1, "/usr/bin/busy", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	if (ended)
		tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 8, 8, 1000, "busy");
	tst_log_sample(&l, 2000, 0, 0, 2, ips);
	if (ended)
		tst_log_thread_end(&l, 8500, 1, 0, 0);
	tst_log_write(&l, pdir, "thread-8.log");
	return pdir;
}

/* Whether a warning names path's file (name) and says its header is missing. */
static bool rn_warned(const struct pa_run *run, const char *name)
{
	for (size_t i = 0; i < run->warnings.n; i++)
		if (strstr(run->warnings.v[i].path, name) &&
		    strstr(run->warnings.v[i].reason, "no header"))
			return true;
	return false;
}

Test(reader_noheader, killed_while_a_log_was_made_reads_the_rest)
{
	char *pdir = rn_process(false);
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;

	tst_log_fill(pdir, "thread-9.log", 0, 0);
	tst_log_fill(pdir, "thread-10.log", 0, 65536);
	cr_assert_eq(pa_run_load(rn_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect_eq(p->nthreads, 1, "%zu threads", p->nthreads);
	cr_expect_eq(p->nthreads ? p->threads[0]->nsamples : 0, 1);
	cr_expect(rn_warned(run, "thread-9.log"), "no warning for the empty log");
	cr_expect(rn_warned(run, "thread-10.log"), "no warning for the all-zero log");
	pa_run_free(run);
	free(pdir);
}

Test(reader_noheader, an_ended_process_with_an_empty_log_is_an_error)
{
	char *pdir = rn_process(true);
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	tst_log_fill(pdir, "thread-9.log", 0, 0);
	cr_expect_neq(pa_run_load(rn_dir, &run, &err), 0, "an ended process's empty log loaded");
	cr_expect(strstr(err.path, "thread-9.log"), "%s: %s", err.path, err.reason);
	cr_expect(strstr(err.reason, "too short for a header"), "%s", err.reason);
	pa_run_free(run);
	free(pdir);
}
