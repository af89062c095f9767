/*
 * The reader on process logs at the run's root, <P>.log (P:
 * <exe>@<host>.<pid>): one that took no sample is read as a process with no
 * thread log, beside process directories of the older layout, its threads
 * that took no sample named; the thread logs beside a log,
 * <P>.thread-<tid>.log, are its own and no other's; thread logs whose
 * process log is missing are said; a file that is not a process log is no
 * process; and a directory whose making was cut short (empty) beside such a
 * log does not hide it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	/* A user's own log, a thread log, a writer's temporary file are not processes. */
	snprintf(path, sizeof(path), "%s/notes.log", ra_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "stray");
	tst_log_write(&l, ra_dir, "stray.7.log");
	ra_process_log(ra_dir, ".module.0123.9.55.tmp", 9, "/bin/true");
	/* The directory of a process killed while making it: empty, no process.log. */
	free(tst_log_subdir(ra_dir, "true.7"));
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_expect_eq(run->processes[0]->pid, 7);
	pa_run_free(run);
}

static void ra_thread_log(const char *dir, const char *name, uint32_t pid, uint32_t tid);

/* Whether a warning of run names a file ending in name and says what. */
static bool ra_warned(const struct pa_run *run, const char *name, const char *what)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < run->warnings.n; i++) {
		size_t len = strlen(run->warnings.v[i].path);

		if (len >= n && strcmp(run->warnings.v[i].path + len - n, name) == 0 &&
		    strstr(run->warnings.v[i].reason, what))
			return true;
	}
	return false;
}

/* A program whose name starts with a dot (a wrapper: .firefox-wrapped) is read as any. */
Test(reader_alone, a_program_named_with_a_leading_dot_is_read)
{
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;
	char path[4096];

	ra_process_log(ra_dir, "true@h.7.log", 7, "/bin/true");
	ra_process_log(ra_dir, ".app-wrapped@h.9.log", 9, "/opt/.app-wrapped");
	ra_thread_log(ra_dir, ".app-wrapped@h.9.thread-10.log", 9, 10);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 2, "%zu processes", run->nprocesses);
	p = ra_find(run, 9);
	cr_assert_not_null(p, "the dot-named process is left out");
	cr_expect_eq(p->nthreads, 2, "%zu threads", p->nthreads);
	cr_expect_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	/* Named directly, too. */
	snprintf(path, sizeof(path), "%s/.app-wrapped@h.9.log", ra_dir);
	cr_assert_eq(pa_run_load(path, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 1);
	pa_run_free(run);
}

/* Makes the first record of dir/name (after its header) 12 bytes long: damaged there. */
static void ra_damage(const char *dir, const char *name)
{
	struct ppf_record bad = { .type = PPF_REC_PROCESS, .size = 12 };
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r+");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, (long)sizeof(struct ppf_file_header), SEEK_SET), 0);
	cr_assert_eq(fwrite(&bad, sizeof(bad), 1, f), 1);
	cr_assert_eq(fclose(f), 0);
}

/*
 * A process log with no thread log beside it is not left out unsaid when
 * it is odd: one never written (its process killed as it was made) is
 * skipped with a warning, one that is not a regular file too, and one that
 * is no libpprof log at all (another program's bytes); a damaged one is
 * an error naming it.
 */
Test(reader_alone, an_odd_log_without_thread_logs_is_said)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	char path[4096];

	ra_process_log(ra_dir, "true@h.7.log", 7, "/bin/true");
	tst_log_fill(ra_dir, "sh@h.8.log", 0, 0);
	tst_log_fill(ra_dir, "sh@h.9.log", 0, 4096);
	snprintf(path, sizeof(path), "%s/sh@h.10.log", ra_dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_expect(ra_warned(run, "sh@h.8.log", "no header"), "the empty log is not said");
	cr_expect(ra_warned(run, "sh@h.9.log", "no header"), "the zeroed log is not said");
	cr_expect(ra_warned(run, "sh@h.10.log", "FIFO"), "the FIFO is not said");
	pa_run_free(run);
	tst_log_fill(ra_dir, "sh@h.11.log", 'X', 200);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect(ra_warned(run, "sh@h.11.log", "not a libpprof log"), "the foreign log is not said");
	pa_run_free(run);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sh@h.11.log", ra_dir);
	unlink(path);
	ra_process_log(ra_dir, "sh@h.12.log", 12, "/bin/sh");
	ra_damage(ra_dir, "sh@h.12.log");
	cr_expect_neq(pa_run_load(ra_dir, &run, &err), 0, "a damaged log is read as none");
	cr_expect(strstr(err.path, "sh@h.12.log"), "%s: %s", err.path, err.reason);
	pa_run_free(run);
}

/* A thread log linked or copied under another thread's name counts once. */
Test(reader_alone, a_thread_log_under_another_tid_is_left_out)
{
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;
	char from[4096], to[4096];

	ra_process_log(ra_dir, "app@h.7.log", 7, "/usr/bin/app");
	ra_thread_log(ra_dir, "app@h.7.thread-8.log", 7, 8);
	snprintf(from, sizeof(from), "%s/app@h.7.thread-8.log", ra_dir);
	snprintf(to, sizeof(to), "%s/app@h.7.thread-777.log", ra_dir);
	cr_assert_eq(link(from, to), 0);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = ra_find(run, 7);
	cr_assert_not_null(p);
	cr_expect_eq(p->nthreads, 2, "%zu threads (the quiet main one and 8)", p->nthreads);
	cr_expect(ra_warned(run, "app@h.7.thread-777.log", "not thread 777"), "no warning");
	pa_run_free(run);
}

/* A thread log of pid and tid with one sample, ended, into dir/name. */
static void ra_thread_log(const char *dir, const char *name, uint32_t pid, uint32_t tid)
{
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, pid, tid, 1000, "worker");
	tst_log_sample(&l, 2000, 0, 0, 2, ra_ips);
	tst_log_thread_end(&l, 8500, 1, 0, 0);
	tst_log_write(&l, dir, name);
}

/* Whether p lists a thread tid that took a sample. */
static bool ra_has_sampled(const struct pa_process *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == tid && p->threads[i]->nsamples == 1)
			return true;
	return false;
}

/*
 * Makes dir's names unreadable to this test: mode 0600 and, as root (who
 * reads anything), the test then runs as nobody (the directory, its
 * other files, readable to all), as another user analysing a shared
 * root would, until ra_readable.
 */
static void ra_unreadable(const char *dir, const char *const *names, size_t n)
{
	char path[4096];

	cr_assert_eq(chmod(dir, 0755), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		cr_assert_eq(chmod(path, geteuid() == 0 ? 0600 : 0), 0, "%s", path);
	}
	if (geteuid() == 0)
		cr_assert_eq(seteuid(65534), 0);
}

/* Root again, when ra_unreadable made the test nobody. */
static void ra_readable(void)
{
	if (getuid() == 0)
		cr_assert_eq(seteuid(0), 0);
}

/*
 * A log the user cannot read (another user's process on a shared root:
 * the preload makes logs 0600) is skipped and said, not the whole run's
 * error: a thread log, and a process log with the process's own thread
 * logs.
 */
Test(reader_alone, a_log_the_user_cannot_read_is_skipped_and_said)
{
	const char *all[] = { "app@h.7.log", "app@h.7.thread-7.log", "app@h.7.thread-8.log",
			      "app@h.9.log", "app@h.9.thread-9.log" };
	const char *odd[] = { "app@h.7.thread-8.log", "app@h.9.log" };
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;

	ra_process_log(ra_dir, "app@h.7.log", 7, "/usr/bin/app");
	ra_thread_log(ra_dir, "app@h.7.thread-7.log", 7, 7);
	ra_thread_log(ra_dir, "app@h.7.thread-8.log", 7, 8);
	ra_process_log(ra_dir, "app@h.9.log", 9, "/usr/bin/app");
	ra_thread_log(ra_dir, "app@h.9.thread-9.log", 9, 9);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", ra_dir, all[i]);
		cr_assert_eq(chmod(path, 0644), 0);
	}
	ra_unreadable(ra_dir, odd, 2);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	ra_readable();
	p = ra_find(run, 7);
	cr_assert_not_null(p);
	cr_expect(ra_has_sampled(p, 7), "the readable thread log is read");
	cr_expect(!ra_has_sampled(p, 8));
	cr_expect_null(ra_find(run, 9), "the unreadable process log is not a process");
	cr_expect(ra_warned(run, "app@h.7.thread-8.log", "Permission denied"), "no warning");
	cr_expect(ra_warned(run, "app@h.9.log", "Permission denied"), "no warning");
	pa_run_free(run);
}

/*
 * Thread logs beside their process's log at the root, <P>.thread-<tid>.log,
 * are that process's, and only its: a name that starts the same (pid 8 and
 * pid 80) takes none of the other's; a process directory of the older
 * layout beside them is read as before; and a process log given alone
 * finds its thread logs itself.
 */
Test(reader_alone, thread_logs_beside_their_process_log_are_its_own)
{
	char *old = tst_log_subdir(ra_dir, "old@h.5");
	struct pa_error err = { 0 };
	struct pa_warnings warn = { 0 };
	struct pa_process *alone;
	const struct pa_process *p;
	struct pa_run *run;
	char path[4096];

	ra_process_log(ra_dir, "busy@h.8.log", 8, "/usr/bin/busy");
	ra_thread_log(ra_dir, "busy@h.8.thread-9.log", 8, 9);
	ra_thread_log(ra_dir, "busy@h.8.thread-10.log", 8, 10);
	ra_process_log(ra_dir, "busy@h.80.log", 80, "/usr/bin/busy");
	ra_thread_log(ra_dir, "busy@h.80.thread-81.log", 80, 81);
	ra_process_log(ra_dir, "busy@h.8.2.log", 8, "/usr/bin/busy");
	ra_thread_log(ra_dir, "busy@h.8.2.thread-12.log", 8, 12);
	ra_process_log(old, PPF_PROCESS_LOG, 5, "/usr/bin/old");
	ra_thread_log(old, "thread-6.log", 5, 6);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->warnings.n, 0, "%s: %s", run->warnings.n ? run->warnings.v[0].path : "",
		     run->warnings.n ? run->warnings.v[0].reason : "");
	cr_assert_eq(run->nprocesses, 4, "%zu processes", run->nprocesses);
	for (size_t i = 0; i < run->nprocesses; i++) {
		p = run->processes[i];
		if (p->pid == 80) {
			cr_expect_eq(p->nthreads, 2, "pid 80: %zu threads", p->nthreads);
			cr_expect(ra_has_sampled(p, 81));
		} else if (p->pid == 5) {
			cr_expect_eq(p->nthreads, 2, "pid 5: %zu threads", p->nthreads);
			cr_expect(ra_has_sampled(p, 6));
		} else if (strstr(p->path, "busy@h.8.2.log")) {
			cr_expect_eq(p->nthreads, 2, "busy@h.8.2: %zu threads", p->nthreads);
			cr_expect(ra_has_sampled(p, 12));
		} else {
			cr_expect_eq(p->pid, 8);
			cr_expect_eq(p->nthreads, 3, "pid 8: %zu threads", p->nthreads);
			cr_expect(ra_has_sampled(p, 9) && ra_has_sampled(p, 10));
		}
	}
	pa_run_free(run);
	snprintf(path, sizeof(path), "%s/busy@h.8.log", ra_dir);
	cr_assert_eq(pa_process_load_opts(path, NULL, &alone, &warn, &err), 0, "%s: %s", err.path,
		     err.reason);
	cr_expect_eq(alone->nthreads, 3, "%zu threads", alone->nthreads);
	cr_expect(ra_has_sampled(alone, 9) && ra_has_sampled(alone, 10));
	pa_process_free(alone);
	pa_warnings_release(&warn);
	/* A run named by one process's log is that process, its threads with it. */
	cr_assert_eq(pa_run_load(path, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_expect_eq(run->processes[0]->nthreads, 3);
	cr_expect(ra_has_sampled(run->processes[0], 9) && ra_has_sampled(run->processes[0], 10));
	/* Named as the user named it: reports (diff, speedscope) label it so. */
	cr_expect_str_eq(run->dir, path);
	pa_run_free(run);
	/* A thread log is no run: the error says what is expected. */
	snprintf(path, sizeof(path), "%s/busy@h.8.thread-9.log", ra_dir);
	cr_expect_neq(pa_run_load(path, &run, &err), 0);
	cr_expect_str_eq(err.path, path);
	cr_expect(strstr(err.reason, "nor a process's log"), "%s", err.reason);
	free(old);
}

/*
 * Thread logs whose process log is missing are left out, said once, naming
 * the log that is missing; the rest of the run is read. A process log that
 * is damaged beside its thread logs is not passed over as no log: reading
 * it fails, naming it, as a damaged process.log in a directory does.
 */
Test(reader_alone, thread_logs_without_their_process_log)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	char path[4096], want[4200];
	FILE *f;

	ra_process_log(ra_dir, "ok@h.3.log", 3, "/usr/bin/ok");
	ra_thread_log(ra_dir, "gone@h.4.thread-5.log", 4, 5);
	ra_thread_log(ra_dir, "gone@h.4.thread-6.log", 4, 6);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_assert_eq(run->warnings.n, 1, "%zu warnings", run->warnings.n);
	snprintf(want, sizeof(want), "%s/gone@h.4.log", ra_dir);
	cr_expect_str_eq(run->warnings.v[0].path, want);
	cr_expect(strstr(run->warnings.v[0].reason, "missing") &&
		  strstr(run->warnings.v[0].reason, "gone@h.4.thread-*.log"), "%s",
		  run->warnings.v[0].reason);
	pa_run_free(run);

	snprintf(path, sizeof(path), "%s/gone@h.4.log", ra_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("NOTALOG! damaged", f);
	fclose(f);
	cr_expect_neq(pa_run_load(ra_dir, &run, &err), 0, "a damaged process log read as none");
	cr_expect_str_eq(err.path, path, "the error names %s: %s", err.path, err.reason);
	/* Not a regular file: said, and the rest of the run read. */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_assert_eq(run->warnings.n, 1, "%zu warnings", run->warnings.n);
	cr_expect_str_eq(run->warnings.v[0].path, path);
	cr_expect(strstr(run->warnings.v[0].reason, "not a regular file"), "%s",
		  run->warnings.v[0].reason);
	pa_run_free(run);
}

/*
 * The thread logs of P and of P.1 (a later process of the same name) sort
 * next to each other: P's own missing log is still said, once, and P.1's
 * threads are its own.
 */
Test(reader_alone, a_missing_log_beside_a_name_that_starts_the_same_is_said)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	char want[4200];

	ra_process_log(ra_dir, "dash@h.6.1.log", 6, "/bin/dash");
	ra_thread_log(ra_dir, "dash@h.6.1.thread-6.log", 6, 6);
	ra_thread_log(ra_dir, "dash@h.6.thread-6.log", 6, 6);
	ra_thread_log(ra_dir, "dash@h.6.thread-7.log", 6, 7);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	cr_expect(ra_has_sampled(run->processes[0], 6));
	cr_expect_eq(run->processes[0]->nthreads, 1, "%zu threads", run->processes[0]->nthreads);
	cr_assert_eq(run->warnings.n, 1, "%zu warnings", run->warnings.n);
	snprintf(want, sizeof(want), "%s/dash@h.6.log", ra_dir);
	cr_expect_str_eq(run->warnings.v[0].path, want);
	pa_run_free(run);
}

/* An older run's process directory, named directly or by its process.log: its threads. */
Test(reader_alone, an_old_process_directory_named_directly_reads_its_threads)
{
	char *old = tst_log_subdir(ra_dir, "old@h.5");
	struct pa_error err = { 0 };
	struct pa_run *run;
	char path[4096];

	ra_process_log(old, PPF_PROCESS_LOG, 5, "/usr/bin/old");
	ra_thread_log(old, "thread-6.log", 5, 6);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", old, i ? "/" PPF_PROCESS_LOG : "");
		cr_assert_eq(pa_run_load(path, &run, &err), 0, "%s: %s", err.path, err.reason);
		cr_assert_eq(run->nprocesses, 1, "%s: %zu processes", path, run->nprocesses);
		cr_expect_eq(run->processes[0]->nthreads, 2, "%s: %zu threads", path,
			     run->processes[0]->nthreads);
		cr_expect(ra_has_sampled(run->processes[0], 6), "%s", path);
		pa_run_free(run);
	}
	free(old);
}

/*
 * The wall log of a process killed as it was being made (no header), or
 * one that is not a regular file, leaves out that process's wall-clock
 * samples, said; its CPU samples and the rest of the run are read.
 */
Test(reader_alone, an_odd_wall_log_leaves_out_only_its_wall_samples)
{
	static const char *const argv[] = { "app", NULL };
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;
	struct tst_log l;
	char path[4096];

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_write(&l, ra_dir, "app@h.7.log"); /* no end: killed */
	ra_thread_log(ra_dir, "app@h.7.thread-7.log", 7, 7);
	tst_log_fill(ra_dir, "app@h.7.wall.log", 0, 4096);
	ra_process_log(ra_dir, "sh@h.9.log", 9, "/bin/sh");
	snprintf(path, sizeof(path), "%s/sh@h.9.wall.log", ra_dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 2, "%zu processes", run->nprocesses);
	p = ra_find(run, 7);
	cr_assert_not_null(p);
	cr_expect_null(p->wall);
	cr_expect_eq(p->nthreads, 1);
	cr_expect_eq(p->nthreads ? p->threads[0]->nsamples : 0, 1, "its CPU samples are lost");
	cr_expect(ra_warned(run, "app@h.7.wall.log", "no header"), "the unwritten wall log is not said");
	cr_expect(ra_warned(run, "sh@h.9.wall.log", "FIFO"), "the FIFO is not said");
	cr_expect_not_null(ra_find(run, 9));
	pa_run_free(run);
}

/*
 * A process named as another's thread logs are (exe "app@h.7.thread-5")
 * sorts between that other's thread logs: the other's missing log is
 * still said once.
 */
Test(reader_alone, a_missing_log_split_by_an_odd_name_is_said_once)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	size_t said = 0;

	ra_process_log(ra_dir, "app@h.7.thread-5@h.9.log", 9, "/opt/app@h.7.thread-5");
	ra_thread_log(ra_dir, "app@h.7.thread-5@h.9.thread-9.log", 9, 9);
	ra_thread_log(ra_dir, "app@h.7.thread-4.log", 7, 4);
	ra_thread_log(ra_dir, "app@h.7.thread-6.log", 7, 6);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	for (size_t i = 0; i < run->warnings.n; i++)
		said += ra_warned(run, "app@h.7.log", "missing") &&
			strstr(run->warnings.v[i].path, "app@h.7.log") != NULL;
	cr_expect_eq(said, 1, "the missing app@h.7.log said %zu times", said);
	pa_run_free(run);
}

/* A thread log of another process named as this one's (copied from elsewhere) is left out. */
Test(reader_alone, a_thread_log_of_another_pid_is_left_out)
{
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;

	ra_process_log(ra_dir, "app@h.7.log", 7, "/usr/bin/app");
	ra_thread_log(ra_dir, "app@h.7.thread-8.log", 7, 8);
	ra_thread_log(ra_dir, "app@h.7.thread-99.log", 99, 99);
	cr_assert_eq(pa_run_load(ra_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = ra_find(run, 7);
	cr_assert_not_null(p);
	cr_expect_eq(p->nthreads, 2, "%zu threads (the quiet main one and 8)", p->nthreads);
	cr_expect(ra_warned(run, "app@h.7.thread-99.log", "a thread of pid 99"), "no warning");
	pa_run_free(run);
}
