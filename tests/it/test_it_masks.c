/*
 * Integration: every thread is sampled whatever signal mask the program
 * sets (threads born with every signal blocked, as liblzma makes its
 * workers; masks set by every libc call that takes one), the program reads
 * back exactly the masks it set and its own use of the sampling signal's
 * number is unchanged, and a thread whose mask was set behind the
 * profiler's back is named.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_masks;

static void it_masks_init(void)
{
	tst_init(&it_masks);
}

static void it_masks_fini(void)
{
	tst_release(&it_masks);
}

TestSuite(it_masks, .init = it_masks_init, .fini = it_masks_fini, .timeout = 120);

/*
 * Runs argv unprofiled and profiled (extra: an environment entry for the
 * profiled run, may be NULL); asserts that the program succeeds and that
 * its status and output are the same under the profiler. Returns the logs.
 */
static struct pa_run *it_masks_run_unchanged(const char *const *argv, const char *extra)
{
	struct tst_result plain, prof;

	tst_run(&it_masks, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_masks, "prof", argv, extra, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0,
		  "%s fails on its own: %s%s", argv[0], plain.out, plain.err);
	cr_assert_eq(prof.status, plain.status, "%s%s", prof.out, prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);
	tst_result_release(&plain);
	tst_result_release(&prof);
	return tst_load(&it_masks);
}

/*
 * At least a third of the samples that cpu_s of CPU time stands for at the
 * run's period: the handler's own pacing may skip some on a busy machine
 * (README, "Sampling rate"), none is lost to a mask.
 */
static void it_masks_expect_sampled(uint64_t samples, double cpu_s, double period_s,
				    const char *what)
{
	double want = cpu_s / period_s / 3;

	cr_expect_geq((double)samples, want, "%s: %llu samples for %.3f s of CPU (want %.0f)",
		      what, (unsigned long long)samples, cpu_s, want);
}

/*
 * Workers born with every signal blocked (their creator's mask in
 * pthread_create) keep that mask for their whole life: they get samples in
 * proportion to their CPU time, as measured by the kernel's clock of the
 * thread (the workload burns to it), in both modes.
 */
Test(it_masks, born_blocked_threads_are_sampled)
{
	const char *argv[] = { "workloads/bornblocked", "0.3", "2", NULL };
	struct pa_run *run = it_masks_run_unchanged(argv, NULL);
	const struct pa_process *p = run->processes[0];
	double period = tst_period_s(p);
	size_t workers = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		char what[64];

		if (t->tid == p->pid)
			continue;
		workers++;
		snprintf(what, sizeof(what), "worker %u", t->tid);
		cr_expect_geq(t->cpu_ns, 250000000ull, "%s: %.3f s of CPU", what, t->cpu_ns / 1e9);
		it_masks_expect_sampled(t->nsamples, t->cpu_ns / 1e9, period, what);
		cr_expect_eq(t->holds, 0, "%s: held a signal", what);
	}
	cr_expect_eq(workers, 2, "%zu worker logs", workers);
	pa_run_free(run);
}

/*
 * maskview on the sampling signal itself (SIGTRAP in the sigtrap mode,
 * SIGPROF in the signal mode, chosen in its configuration): its output,
 * every mask it reads back and when its own handler runs around sigsuspend,
 * ppoll, pselect, epoll_pwait and the sigwait family, is the same as
 * without the profiler (and it says itself that the kernel's promises
 * held), and it is sampled while its masks block the signal, every way
 * libc sets one. Its own signal, raised while it blocked it, was held back
 * for it: the main thread's log says so.
 */
Test(it_masks, masks_read_back_and_sampled)
{
	int signal_mode = tst_mode() == PPF_MODE_SIGNAL;
	const char *argv[] = { "workloads/maskview", signal_mode ? "prof" : "trap", "0.15",
			       NULL };
	static const char *const burns[] = {
		"burn_masked_pthread", "burn_masked_procmask", "burn_masked_sigblock",
		"burn_masked_sighold", "burn_born_creator", "burn_born_attr",
	};
	char env[TST_CONFIG_ENV_MAX];
	const struct pa_process *p = NULL;
	struct pa_profile *prof;
	struct pa_run *run;

	tst_config_env(&it_masks, "sigprof.ini", "[profile]\nmode = signal\nsignal = SIGPROF\n",
			 env);
	run = it_masks_run_unchanged(argv, signal_mode ? env : NULL);
	for (size_t i = 0; i < run->nprocesses && !p; i++)
		if (run->processes[i]->nthreads == 3)
			p = run->processes[i];
	cr_assert_not_null(p, "no process with maskview's three threads");
	cr_expect_eq(p->signal, (uint32_t)(signal_mode ? SIGPROF : SIGTRAP));
	prof = tst_profile(run, p->pid, 0);
	for (size_t i = 0; i < sizeof(burns) / sizeof(burns[0]); i++)
		it_masks_expect_sampled(tst_self(prof, burns[i]), 0.15, tst_period_s(p),
					burns[i]);
	/* Burnt twice: before its own signal was raised, and after sigwait took it. */
	it_masks_expect_sampled(tst_self(prof, "burn_own_blocked"), 0.3, tst_period_s(p),
				"burn_own_blocked");
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == p->pid)
			cr_expect_geq(p->threads[i]->holds, 1, "the main thread held no signal");
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * A breakpoint (int3) while the program blocks SIGTRAP: the kernel forces
 * the trap through the mask, with the default action; under the profiler,
 * which keeps SIGTRAP deliverable in the sigtrap mode, the program dies of
 * it just the same instead of running on.
 */
Test(it_masks, blocked_breakpoint_still_kills)
{
	const char *argv[] = { "workloads/maskview", "--int3", NULL };
	struct tst_result plain, prof;

	tst_run(&it_masks, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_masks, "prof", argv, NULL, &prof);
	cr_assert(WIFSIGNALED(plain.status) && WTERMSIG(plain.status) == SIGTRAP,
		  "plain: status %#x %s", plain.status, plain.out);
	cr_expect_eq(prof.status, plain.status, "profiled: status %#x %s%s", prof.status,
		     prof.out, prof.err);
	cr_expect_str_eq(prof.out, plain.out);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * A thread that blocks every signal with the raw rt_sigprocmask system call
 * (as programs with their own runtime do) and ends so: no wrapper saw it,
 * and its log says so, which `threads` shows at the end of its row.
 */
Test(it_masks, raw_mask_is_named)
{
	const char *argv[] = { "workloads/blocker", "0.1", "rawend", NULL };
	char analyze[TST_PATH_MAX];
	const char *report[] = { analyze, "threads", it_masks.data, NULL };
	struct pa_run *run = it_masks_run_unchanged(argv, NULL);
	const struct pa_process *p = run->processes[0];
	const struct pa_thread *worker = NULL;
	struct tst_result rep;
	char want[64];

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];

		if (t->tid != p->pid)
			worker = t;
		else
			cr_expect_eq(t->blocked_flags, 0, "main thread: flags %#x",
				     t->blocked_flags);
	}
	cr_assert_not_null(worker);
	cr_expect(worker->blocked_flags & PPF_BLOCKED_UNSEEN, "worker: flags %#x",
		  worker->blocked_flags);
	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_masks, "report", report, NULL, &rep);
	snprintf(want, sizeof(want), " %u ", worker->tid);
	cr_expect(strstr(rep.out, want) && strstr(rep.out, "signal blocked by a raw mask change"),
		  "%s", rep.out);
	tst_result_release(&rep);
	pa_run_free(run);
}
