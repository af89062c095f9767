/*
 * Integration: threads and processes that take no sample cost no log of
 * their own. workloads/quietthreads starts a thread named "quiet-one" that
 * blocks and uses no CPU: it has no thread-<tid>.log, yet pprof-analyze
 * names it in `threads` (its name, how it ended) and counts it in
 * `processes`; a process that took no sample at all leaves only its
 * log (alone at the root, no directory); a killed process's logs still read;
 * a thread alive at an exec is named as one that went to the exec.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tst_it.h"

/* What a process that took no sample may leave on disk, in all. */
#define IT_QUIET_EMPTY_BYTES (16 * 1024)
/* How long the hanging workload may take to say "ready" (bounds a hang only). */
#define IT_QUIET_READY_S 120

static struct tst_it it_quiet;

static void it_quiet_init(void)
{
	tst_init(&it_quiet);
}

static void it_quiet_fini(void)
{
	tst_release(&it_quiet);
}

TestSuite(it_quiet, .init = it_quiet_init, .fini = it_quiet_fini, .timeout = 240);

/* Runs quietthreads with args under the preload; expects exit 0. */
static void it_quiet_run(const char *tag, const char *const *argv)
{
	struct tst_result r;

	tst_run_profiled(&it_quiet, tag, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: status 0x%x, stderr: %s", argv[0], r.status, r.err);
	cr_expect_null(strstr(r.err, "libpprof:"), "the preload said something: %s", r.err);
	tst_result_release(&r);
}

/* The thread of proc named name, or NULL. */
static const struct pa_thread *it_quiet_thread(const struct pa_process *proc, const char *name)
{
	for (size_t i = 0; i < proc->nthreads; i++)
		if (strcmp(proc->threads[i]->name, name) == 0)
			return proc->threads[i];
	return NULL;
}

/* Whether proc's directory holds a thread log of tid. */
static bool it_quiet_has_log(const struct pa_process *proc, uint32_t tid)
{
	char path[TST_PATH_MAX], what[64];
	struct stat st;

	snprintf(what, sizeof(what), "thread-%u.log", tid);
	tst_process_file(proc, what, path, sizeof(path));
	return lstat(path, &st) == 0;
}

/*
 * Every thread of proc that took no sample has no thread log, and every
 * one that took some has one; quiet-one is among those with none, named,
 * with no sample. Returns quiet-one.
 */
static const struct pa_thread *it_quiet_check_logs(const struct pa_process *proc)
{
	const struct pa_thread *q = it_quiet_thread(proc, "quiet-one");

	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];

		cr_expect_eq(it_quiet_has_log(proc, t->tid), t->nsamples > 0,
			     "thread %u (%s) took %zu samples and %s a log", t->tid, t->name,
			     t->nsamples, it_quiet_has_log(proc, t->tid) ? "has" : "has no");
	}
	cr_assert_not_null(q, "no thread named quiet-one among the %zu of process %u",
			   proc->nthreads, proc->pid);
	cr_expect_eq(q->nsamples, 0, "quiet-one took %zu samples", q->nsamples);
	cr_expect(!it_quiet_has_log(proc, q->tid), "quiet-one has a thread log");
	return q;
}

/* pprof-analyze report on the run: expects exit 0; its stdout, malloc'd. */
static char *it_quiet_report(const char *report)
{
	char tag[64];
	const char *argv[] = { "pprof-analyze", report, it_quiet.data, NULL };
	struct tst_result r;
	char *out;

	snprintf(tag, sizeof(tag), "analyze-%s", report);
	tst_run(&it_quiet, tag, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "pprof-analyze %s: status 0x%x, stderr: %s", report, r.status, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

/* The line of text that holds both a and b, or NULL. */
static const char *it_quiet_line(const char *text, const char *a, const char *b)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t len = strchr(p, '\n') ? (size_t)(strchr(p, '\n') - p) : strlen(p);
		char *line = strndup(p, len);
		bool both = line && strstr(line, a) && strstr(line, b);

		free(line);
		if (both)
			return p;
	}
	return NULL;
}

/*
 * Runs quietthreads with argv under the preload; its run (*run), of one
 * process, whose threads are checked by it_quiet_check_logs; quiet-one,
 * said to have ended.
 */
static const struct pa_thread *it_quiet_one(const char *tag, const char *const *argv,
					    struct pa_run **run)
{
	const struct pa_thread *q;

	it_quiet_run(tag, argv);
	*run = tst_load(&it_quiet);
	cr_assert_eq((*run)->nprocesses, 1, "%zu processes", (*run)->nprocesses);
	q = it_quiet_check_logs((*run)->processes[0]);
	cr_expect(q->ended, "quiet-one is not said to have ended");
	return q;
}

Test(it_quiet, idle_process_leaves_no_thread_log_and_is_listed)
{
	const char *argv[] = { "workloads/quietthreads", "idle", NULL };
	struct pa_run *run;
	const struct pa_process *proc;
	const struct pa_thread *q;
	char *threads, *processes, pid[32];

	q = it_quiet_one("idle", argv, &run);
	proc = run->processes[0];
	cr_expect_eq(proc->nthreads, 2, "%zu threads listed, not main and quiet-one",
		     proc->nthreads);
	cr_expect(q->start_ns >= proc->start_ns && q->end_ns >= q->start_ns,
		  "quiet-one's start %llu and end %llu (process start %llu)",
		  (unsigned long long)q->start_ns, (unsigned long long)q->end_ns,
		  (unsigned long long)proc->start_ns);
	/* The disk an empty process leaves: its log (alone at the root). */
	if (proc->samples_taken == 0)
		cr_expect_leq(tst_process_bytes(proc), IT_QUIET_EMPTY_BYTES,
			      "a process that took no sample left %llu bytes in %s",
			      tst_process_bytes(proc), proc->dir);

	threads = it_quiet_report("threads");
	cr_expect_not_null(it_quiet_line(threads, "quiet-one", " yes "),
			   "threads names no quiet-one that ended:\n%s", threads);
	snprintf(pid, sizeof(pid), " %u ", proc->pid);
	processes = it_quiet_report("processes");
	cr_expect_not_null(it_quiet_line(processes, pid, "exit 0"),
			   "processes lists no process %u that exited 0:\n%s", proc->pid,
			   processes);
	free(threads);
	free(processes);
	pa_run_free(run);
}

Test(it_quiet, sampled_process_names_its_quiet_thread)
{
	const char *argv[] = { "workloads/quietthreads", "busy", "0.3", NULL };
	struct pa_run *run;
	const struct pa_process *proc;
	const struct pa_thread *main_thread = NULL;
	char *threads;

	(void)it_quiet_one("busy", argv, &run);
	proc = run->processes[0];
	for (size_t i = 0; i < proc->nthreads; i++)
		if (proc->threads[i]->tid == proc->pid)
			main_thread = proc->threads[i];
	cr_assert_not_null(main_thread, "no main thread");
	cr_expect_gt(main_thread->nsamples, 0, "the main thread burned 0.3 s and took no sample");
	threads = it_quiet_report("threads");
	cr_expect_not_null(it_quiet_line(threads, "quiet-one", " yes "),
			   "threads names no quiet-one that ended:\n%s", threads);
	free(threads);
	pa_run_free(run);
}

/* Waits (bounded) until path holds "ready". */
static void it_quiet_wait_ready(const char *path)
{
	for (int i = 0; i < IT_QUIET_READY_S * 100; i++) {
		/* The child makes it, after the fork. */
		char *text = access(path, R_OK) == 0 ? tst_slurp(path, NULL) : NULL;
		bool ready = text && strstr(text, "ready");

		free(text);
		if (ready)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	cr_assert_fail("%s never said ready", path);
}

Test(it_quiet, killed_process_logs_still_read)
{
	const char *argv[] = { "workloads/quietthreads", "hang", "0.3", NULL };
	char out[TST_PATH_MAX];
	const char *env[] = { it_quiet.env_preload, it_quiet.env_output, NULL };
	struct tst_result r;
	struct pa_run *run;
	const struct pa_process *proc;
	char *threads;
	pid_t pid;

	pid = tst_spawn(&it_quiet, "hang", argv, env);
	snprintf(out, sizeof(out), "%s/hang.out", it_quiet.tmp);
	it_quiet_wait_ready(out);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	tst_wait(&it_quiet, "hang", pid, &r);
	cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL, "status 0x%x",
		  r.status);
	tst_result_release(&r);

	run = tst_load(&it_quiet);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	proc = run->processes[0];
	cr_expect(!proc->ended, "a killed process has an END record");
	for (size_t i = 0; i < proc->nthreads; i++)
		cr_expect_eq(it_quiet_has_log(proc, proc->threads[i]->tid),
			     proc->threads[i]->nsamples > 0, "thread %u: %zu samples",
			     proc->threads[i]->tid, proc->threads[i]->nsamples);
	cr_expect_gt(proc->nthreads, 0, "the killed process lists no thread");
	cr_expect(proc->nthreads == 0 || proc->threads[0]->nsamples > 0,
		  "its main thread burned 0.3 s and took no sample");
	threads = it_quiet_report("threads");
	cr_expect_not_null(strstr(threads, "quietthreads"), "threads lists nothing:\n%s",
			   threads);
	free(threads);
	pa_run_free(run);
}

Test(it_quiet, thread_alive_at_exec_is_named)
{
	const char *argv[] = { "workloads/quietthreads", "exec", NULL };
	struct pa_run *run;
	const struct pa_process *first = NULL;
	const struct pa_thread *q;
	char *threads;

	it_quiet_run("exec", argv);
	run = tst_load(&it_quiet);
	for (size_t i = 0; i < run->nprocesses; i++)
		if (run->processes[i]->replaced)
			first = run->processes[i];
	cr_assert_not_null(first, "no process replaced by exec among %zu", run->nprocesses);
	q = it_quiet_check_logs(first);
	cr_expect(!q->ended, "quiet-one, alive at the exec, is said to have ended");
	threads = it_quiet_report("threads");
	cr_expect_not_null(it_quiet_line(threads, "quiet-one", " exec "),
			   "threads names no quiet-one that went to the exec:\n%s", threads);
	free(threads);
	pa_run_free(run);
}
