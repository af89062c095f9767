/*
 * The reader on a process log alone at the run's root, <exe>.<pid>.log (a
 * process that took no sample makes no directory): read as a process with
 * no thread log, beside process directories, its threads that took no
 * sample named; a file that is not a process log is no process; and a
 * directory whose making was cut short (empty) beside such a log does not
 * hide it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader.h"
#include "tst_log.h"

static char *ra_dir;

static void ra_setup(void)
{
	ra_dir = tst_log_tmpdir();
}

static void ra_teardown(void)
{
	tst_log_rmdir(ra_dir);
	ra_dir = NULL;
}

TestSuite(reader_alone, .init = ra_setup, .fini = ra_teardown, .timeout = 10);

static const uint64_t ra_ips[2] = { 0x401010, 0x402020 };

/* A process log of pid (and one quiet thread, tid pid) into dir/name. */
static void ra_process_log(const char *dir, const char *name, uint32_t pid, const char *exe)
{
	static const char *const argv[] = { "app", NULL };
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, exe, argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_quiet(&l, pid, 0, 1000, 5000, 300, 100, "idle");
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, dir, name);
}

static const struct pa_process *ra_find(const struct pa_run *run, uint32_t pid)
{
	for (size_t i = 0; i < run->nprocesses; i++)
		if (run->processes[i]->pid == pid)
			return run->processes[i];
	return NULL;
}

Test(reader_alone, log_alone_at_the_root_reads_as_a_process)
{
	char *pdir = tst_log_subdir(ra_dir, "busy.8");
	char path[4096];
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;
	struct tst_log l;

	ra_process_log(ra_dir, "sh.7.log", 7, "/bin/sh");
	/* A sampled process beside it, in its directory. */
	ra_process_log(pdir, PPF_PROCESS_LOG, 8, "/usr/bin/busy");
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 8, 9, 1000, "worker");
	tst_log_sample(&l, 2000, 0, 0, 2, ra_ips);
	tst_log_thread_end(&l, 8500, 1, 0, 0);
	tst_log_write(&l, pdir, "thread-9.log");
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 2, "%zu processes", run->nprocesses);
	p = ra_find(run, 7);
	cr_assert_not_null(p, "the log alone at the root is not read");
	cr_expect_str_eq(p->exe, "/bin/sh");
	cr_expect(p->ended);
	snprintf(path, sizeof(path), "%s/sh.7.log", ra_dir);
	cr_expect_str_eq(p->path, path);
	snprintf(path, sizeof(path), "%s/sh.7", ra_dir);
	cr_expect_str_eq(p->dir, path, "its dir is named as its directory would be");
	cr_assert_eq(p->nthreads, 1, "%zu threads", p->nthreads);
	cr_expect_str_eq(p->threads[0]->name, "idle");
	cr_expect_eq(p->threads[0]->nsamples, 0);
	p = ra_find(run, 8);
	cr_assert_not_null(p);
	cr_expect_eq(p->nthreads, 2, "%zu threads", p->nthreads);
	cr_expect_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

Test(reader_alone, other_files_at_the_root_are_no_process)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	struct tst_log l;
	char path[4096];
	FILE *f;

	ra_process_log(ra_dir, "true.7.log", 7, "/bin/true");
	/* A user's own log, a thread log and a hidden process log are not processes. */
	snprintf(path, sizeof(path), "%s/notes.log", ra_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "stray");
	tst_log_write(&l, ra_dir, "stray.7.log");
	ra_process_log(ra_dir, ".hidden.9.log", 9, "/bin/true");
	/* The directory of a process killed while making it: empty, no process.log. */
	free(tst_log_subdir(ra_dir, "true.7"));
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_expect_eq(run->processes[0]->pid, 7);
	pa_run_free(run);
}
