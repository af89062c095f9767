/*
 * The reader on PPF_REC_THREAD_QUIET: threads that took no sample, named in
 * process.log only, are read as threads with no sample (ended, or gone to
 * an exec); the last record of a tid holds; a thread that has a log of its
 * own is read from its log; a short record is an error naming its offset;
 * and what the preload's writer writes reads back.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tst_log.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"

static char *rq_dir;

static void rq_setup(void)
{
	rq_dir = tst_log_tmpdir();
}

static void rq_teardown(void)
{
	tst_log_rmdir(rq_dir);
	rq_dir = NULL;
}

TestSuite(reader_quiet, .init = rq_setup, .fini = rq_teardown, .timeout = 10);

static const uint64_t rq_ips[2] = { 0x401010, 0x402020 };

/* dir/<name>/process.log of pid 7 with the given quiet records, then END. */
static char *rq_process(const char *name, void (*add)(struct tst_log *l))
{
	char *pdir = tst_log_subdir(rq_dir, name);
	static const char *const argv[] = { "app", NULL };
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	add(&l);
	tst_log_process_end(&l, 9000, 1, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	return pdir;
}

static const struct pa_thread *rq_find(const struct pa_process *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == tid)
			return p->threads[i];
	return NULL;
}

static void rq_add_three(struct tst_log *l)
{
	tst_log_quiet(l, 9, 0, 1200, 5000, 300, 100, "idler");
	tst_log_quiet(l, 10, PPF_QUIET_EXEC, 1300, 4000, 0, 0, "waiter");
	/* The exec failed: 10 went on, and ended later. */
	tst_log_quiet(l, 10, 0, 1300, 8000, 50, 0, "waiter2");
	/* 7 has a log of its own: the record is not read as a second thread. */
	tst_log_quiet(l, 7, 0, 1000, 8500, 0, 0, "stale");
}

Test(reader_quiet, quiet_threads_read_as_threads_without_samples)
{
	char *pdir = rq_process("app.7", rq_add_three);
	struct pa_error err = { 0 };
	const struct pa_thread *t;
	const struct pa_process *p;
	struct pa_run *run;
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	tst_log_sample(&l, 2000, 0, 0, 2, rq_ips);
	tst_log_thread_end(&l, 8500, 1, 0, 0);
	tst_log_write(&l, pdir, "thread-7.log");
	cr_assert_eq(pa_run_load(rq_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_eq(p->nthreads, 3, "%zu threads", p->nthreads);
	cr_expect_eq(p->threads[0]->tid, 7, "threads are not in tid order");
	cr_expect_eq(p->threads[2]->tid, 10, "threads are not in tid order");
	t = rq_find(p, 7);
	cr_assert_not_null(t);
	cr_expect_str_eq(t->name, "app");
	cr_expect_eq(t->nsamples, 1);
	t = rq_find(p, 9);
	cr_assert_not_null(t);
	cr_expect_str_eq(t->name, "idler");
	cr_expect(t->ended);
	cr_expect_eq(t->pid, 7);
	cr_expect_eq(t->start_ns, 1200);
	cr_expect_eq(t->end_ns, 5000);
	cr_expect_eq(t->user_ns, 300);
	cr_expect_eq(t->system_ns, 100);
	cr_expect_eq(t->cpu_ns, 400);
	cr_expect_eq(t->nsamples, 0);
	cr_expect_str_eq(t->path, p->path);
	t = rq_find(p, 10);
	cr_assert_not_null(t);
	cr_expect_str_eq(t->name, "waiter2", "the last record of a tid does not hold");
	cr_expect(t->ended);
	cr_expect_eq(t->end_ns, 8000);
	cr_expect_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

static void rq_add_exec(struct tst_log *l)
{
	tst_log_quiet(l, 11, PPF_QUIET_EXEC, 1300, 4000, 20, 10, "waiter");
}

Test(reader_quiet, thread_at_exec_has_not_ended)
{
	char *pdir = rq_process("app.7", rq_add_exec);
	struct pa_error err = { 0 };
	const struct pa_thread *t;
	struct pa_run *run;

	cr_assert_eq(pa_run_load(rq_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	t = rq_find(run->processes[0], 11);
	cr_assert_not_null(t);
	cr_expect_not(t->ended);
	cr_expect(t->progress);
	cr_expect_eq(t->progress_ns, 4000);
	cr_expect_eq(t->user_ns, 20);
	cr_expect_eq(t->system_ns, 10);
	pa_run_free(run);
	free(pdir);
}

static void rq_add_short(struct tst_log *l)
{
	struct ppf_record r = { PPF_REC_THREAD_QUIET, 24 };
	char body[16] = { 0 };

	tst_log_raw(l, &r, sizeof(r));
	tst_log_raw(l, body, sizeof(body));
}

Test(reader_quiet, rejects_short_quiet_record)
{
	char *pdir = rq_process("app.7", rq_add_short);
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	cr_assert_lt(pa_run_load(rq_dir, &run, &err), 0);
	cr_expect(strstr(err.reason, "quiet thread record of 24 bytes"), "%s", err.reason);
	cr_expect(err.has_offset, "the error names no offset: %s", err.reason);
	free(pdir);
}

Test(reader_quiet, writer_round_trip)
{
	char *pdir = tst_log_subdir(rq_dir, "app.7");
	struct pp_records_cpu cpu = { .cpu_ns = 70, .user_ns = 50, .system_ns = 20 };
	struct pa_process *p = NULL;
	struct pa_error err = { 0 };
	struct pp_logfile log;
	char path[4096];
	int dirfd;

	snprintf(path, sizeof(path), "%s", pdir);
	dirfd = open(path, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dirfd, 0);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS), 0);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, SIGTRAP, "/usr/bin/app",
						"app", 4), 0);
	cr_assert_eq(pp_records_thread_quiet_sigsafe(&log, 42, 0, 100, 900, "a-long-thread-name-cut",
						     &cpu), 0);
	cr_assert_eq(pp_records_thread_quiet_sigsafe(&log, 43, PPF_QUIET_EXEC, 200, 800, "x", &cpu),
		     0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, NULL, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(p->nquiet, 2);
	cr_expect_eq(p->quiet[0]->tid, 42);
	cr_expect_str_eq(p->quiet[0]->name, "a-long-thread-n");
	cr_expect(p->quiet[0]->ended);
	cr_expect_eq(p->quiet[0]->start_ns, 100);
	cr_expect_eq(p->quiet[0]->end_ns, 900);
	cr_expect_eq(p->quiet[0]->user_ns, 50);
	cr_expect_eq(p->quiet[0]->system_ns, 20);
	cr_expect_eq(p->quiet[0]->cpu_ns, 70);
	cr_expect_eq(p->quiet[1]->tid, 43);
	cr_expect_not(p->quiet[1]->ended);
	pa_process_free(p);
	free(pdir);
}
