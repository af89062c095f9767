/*
 * Integration: a program started as root that becomes another user
 * (setuid, as daemons drop their privileges; workload setuser) goes on
 * being profiled: the logs it has made keep growing (a thread log reopens
 * its file by name to grow, which the new user may not do in a root-owned
 * root of mode 0700: the main thread lost every sample after setuid), and
 * a forked worker that becomes that user before its first sample gets its
 * log (made at the first sample, it could not be). A thread started after
 * the change cannot make its log in such a root: that is said, naming the
 * user and the remedy; in a root that user may write (mode 1777) it is
 * profiled too. Needs root (CI runs as root); skips, saying so, without.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eventinfo.h"
#include "tst_it.h"

static struct tst_it it_su;

static void it_su_init(void)
{
	tst_init(&it_su);
}

static void it_su_fini(void)
{
	tst_release(&it_su);
}

TestSuite(it_setuser, .init = it_su_init, .fini = it_su_fini, .timeout = 120);

/* CPU seconds setuser burns in each of its four phases. */
#define IT_SU_SECONDS "0.3"

/* Runs setuser into a root of mode (made by root); the run, loaded. */
static struct pa_run *it_su_run(const char *name, mode_t mode, struct tst_result *r)
{
	char prog[TST_PATH_MAX], out[TST_PATH_MAX];
	const char *argv[] = { prog, IT_SU_SECONDS, NULL };
	struct pa_error err = { 0 };
	struct pa_run *run;

	if (geteuid() != 0)
		cr_skip_test("needs root: the program becomes uid %d", TST_NOBODY);
	tst_build_path(prog, "workloads/setuser");
	tst_output_dir(&it_su, name, false, out);
	cr_assert_eq(chmod(out, mode), 0);
	tst_run_user(&it_su, name, false, out, NULL, argv, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "setuser: status %#x: %s",
		  r->status, r->err);
	cr_expect_str_eq(r->out, "setuser: done\n");
	cr_assert_eq(pa_run_load(out, &run, &err), 0, "%s: %s", err.path, err.reason);
	return run;
}

/* The process of run whose threads burnt in func; NULL if none did. */
static const struct pa_process *it_su_process_of(const struct pa_run *run, const char *func,
						 uint32_t tid, uint64_t *self)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		struct pa_profile *p = tst_profile(run, run->processes[i]->pid, tid);
		uint64_t n = tst_self(p, func);

		pa_profile_free(p);
		if (n) {
			*self = n;
			return run->processes[i];
		}
	}
	*self = 0;
	return NULL;
}

/*
 * What both roots give: the main thread sampled after setuid as before it,
 * nothing lost; the worker sampled.
 */
static void it_su_expect_kept(const struct pa_run *run)
{
	uint64_t before, after, worker;
	const struct pa_process *p = it_su_process_of(run, "setuser_before", 0, &before);
	const struct pa_thread *main_thread = NULL;

	cr_assert_not_null(p, "no sample in setuser_before");
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == p->pid)
			main_thread = p->threads[i];
	cr_assert_not_null(main_thread);
	cr_expect_eq(main_thread->lost, 0, "main thread: %llu samples lost",
		     (unsigned long long)main_thread->lost);
	cr_expect_not_null(it_su_process_of(run, "setuser_after", p->pid, &after),
			   "no sample in setuser_after");
	/* Each burnt the same CPU time: a quarter is far below what a busy machine costs. */
	cr_expect_geq(4 * after, before, "setuser_after %llu samples, setuser_before %llu",
		      (unsigned long long)after, (unsigned long long)before);
	cr_expect_not_null(it_su_process_of(run, "setuser_worker", 0, &worker),
			   "the worker that became uid %d has no sample", TST_NOBODY);
	cr_expect_geq(4 * worker, before, "setuser_worker %llu samples, setuser_before %llu",
		      (unsigned long long)worker, (unsigned long long)before);
}

Test(it_setuser, logs_made_before_setuid_go_on_and_the_new_thread_is_said)
{
	struct tst_result r;
	struct pa_run *run = it_su_run("root0700", 0700, &r);
	uint64_t n;
	char uid[64];

	it_su_expect_kept(run);
	cr_expect_null(it_su_process_of(run, "setuser_thread", 0, &n),
		       "a thread of uid %d has a log in a root only root may write", TST_NOBODY);
	snprintf(uid, sizeof(uid), "the program runs as uid %d now", TST_NOBODY);
	cr_expect(strstr(r.err, uid), "stderr:\n%s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 2, "stderr:\n%s", r.err);
	tst_result_release(&r);
	pa_run_free(run);
}

Test(it_setuser, a_root_the_new_user_may_write_profiles_everything)
{
	struct tst_result r;
	struct pa_run *run = it_su_run("root1777", 01777, &r);
	uint64_t before, thread;

	it_su_expect_kept(run);
	(void)it_su_process_of(run, "setuser_before", 0, &before);
	cr_expect_not_null(it_su_process_of(run, "setuser_thread", 0, &thread),
			   "the thread started after setuid has no sample");
	cr_expect_geq(4 * thread, before, "setuser_thread %llu samples, setuser_before %llu",
		      (unsigned long long)thread, (unsigned long long)before);
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);
	pa_run_free(run);
}
