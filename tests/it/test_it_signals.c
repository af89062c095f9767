/*
 * Integration: the app's own SIGTRAP handling survives the profiler, whose
 * samples also arrive as SIGTRAP, and under gdb and strace; code outside any
 * file (the vDSO) is named.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_sig;

static void it_sig_init(void)
{
	tst_init(&it_sig);
}

static void it_sig_fini(void)
{
	tst_release(&it_sig);
}

TestSuite(it_signals, .init = it_sig_init, .fini = it_sig_fini, .timeout = 120);

/*
 * apptrap installs a SIGTRAP handler, raises SIGTRAP five times and checks
 * that its handler ran five times (no sample reached it), that sigaction()
 * and signal() give back its own handler, and that SIG_IGN works. Its output
 * must be the same with and without the profiler, and the profiler must
 * still have sampled it.
 */
Test(it_signals, app_sigtrap_handler_keeps_working)
{
	const char *argv[] = { "workloads/apptrap", "0.5", NULL };
	struct tst_result plain, prof;
	struct pa_profile *p;
	struct pa_run *run;

	tst_run(&it_sig, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_sig, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0,
		  "apptrap fails on its own: %s", plain.out);
	cr_assert_eq(prof.status, plain.status, "profiled: %s", prof.out);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);

	run = tst_load(&it_sig);
	p = tst_profile(run, 0, 0);
	/* 0.6 s of CPU in apptrap_burn at 1 ms per sample. */
	cr_assert_gt(tst_self(p, "apptrap_burn"), 300,
		     "the profiler stopped sampling");
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/* A SIGTRAP left at its default action still kills the app, as without us. */
Test(it_signals, default_sigtrap_still_kills)
{
	const char *argv[] = { "workloads/apptrap", "--raise-default", NULL };
	struct tst_result plain, prof;

	tst_run(&it_sig, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_sig, "prof", argv, NULL, &prof);
	cr_assert(WIFSIGNALED(plain.status) && WTERMSIG(plain.status) == SIGTRAP,
		  "status 0x%x", plain.status);
	cr_assert_eq(prof.status, plain.status, "profiled status 0x%x", prof.status);
	cr_assert_str_eq(prof.out, plain.out);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * Runs argv plain (which must exit 0) and profiled: the same status and
 * stdout. Returns the profiled run's stderr, malloc'd.
 */
static char *it_sig_as_plain(const char *const *argv)
{
	struct tst_result plain, prof;
	char *err;

	tst_run(&it_sig, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_sig, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0,
		  "%s %s fails on its own: 0x%x %s", argv[0], argv[1], plain.status, plain.err);
	cr_expect_eq(prof.status, plain.status, "%s %s: profiled status 0x%x: %s", argv[0],
		     argv[1], prof.status, prof.err);
	cr_expect_str_eq(prof.out, plain.out, "%s %s", argv[0], argv[1]);
	err = strdup(prof.err);
	cr_assert_not_null(err);
	tst_result_release(&plain);
	tst_result_release(&prof);
	return err;
}

/*
 * A signal stack with no room for a sample (the program's own alternate
 * signal stack of 8 KiB; a 16 KiB thread that disabled its alternate
 * stack, so that signals run on it): the program runs as without the
 * profiler (it was killed by SIGSEGV: the handler wrote past the stack),
 * and the samples are said lost, in one line at exit.
 */
Test(it_signals, a_signal_stack_without_room_loses_samples_not_the_program)
{
	const char *how[] = { "alt", "thread" };

	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = { "workloads/smallalt", how[i], "0.3", NULL };
		struct pa_filter f = PA_FILTER_ALL;
		struct pa_run *run;
		uint64_t lost = 0;
		char *err;

		tst_log_rmdir(strdup(it_sig.data));
		err = it_sig_as_plain(argv);
		cr_expect(strstr(err, "lost: the stack the handler ran on had less than"),
			  "%s: %s", how[i], err);
		free(err);
		/* The thread's log says them lost too (its LOST column). */
		run = tst_load(&it_sig);
		for (size_t p = 0; p < run->nprocesses; p++)
			for (size_t t = 0; t < run->processes[p]->nthreads; t++)
				lost += pa_filter_count_lost(&f, run->processes[p],
							     run->processes[p]->threads[t]);
		cr_expect_geq(lost, 50, "%s: %llu samples lost in the logs", how[i],
			      (unsigned long long)lost);
		pa_run_free(run);
	}
}

/*
 * The program's own handler for a sampling signal (SIGTRAP, SIGRTMAX) runs
 * as the kernel would run it: SA_RESETHAND resets the action; the handler's
 * mask is the kernel's (a SIGUSR1 it raises and a fault it catches get in:
 * the profiler ran it with every signal blocked, and the fault killed the
 * program); leaving it by longjmp leaves SIGALRM deliverable (a pause()
 * after it hung for good). ownaction prints what it saw.
 */
Test(it_signals, the_programs_handler_of_a_sampling_signal_runs_as_the_kernel_runs_it)
{
	const char *how[] = { "resethand", "nested", "longjmp" };
	const char *sig[] = { "trap", "rtmax" };

	char prog[TST_PATH_MAX];

	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 2; k++) {
			const char *argv[] = { "workloads/ownaction", how[i], sig[k], NULL };

			free(it_sig_as_plain(argv));
		}
	/*
	 * Left by longjmp, the signal stays blocked for a while: a real-time
	 * one must not queue a sample per overflow meanwhile (a queue of 100
	 * filled, and the kernel killed the program with SIGIO).
	 */
	tst_build_path(prog, "workloads/ownaction");
	for (size_t k = 0; k < 2; k++) {
		const char *argv[] = { "/usr/bin/prlimit", "--sigpending=100", prog, "longjmp",
				       sig[k], "0.5", NULL };

		free(it_sig_as_plain(argv));
	}
}

/*
 * A sampling signal the program ignores stays ignored in the programs it
 * execs and spawns, as without the profiler: exec resets a handled signal
 * (the profiler's handler) to its default, which killed the new program
 * when it got that signal (a shell sending itself SIGTRAP or SIGRTMAX).
 */
Test(it_signals, an_ignored_sampling_signal_stays_ignored_across_exec)
{
	const char *how[] = { "exec", "spawn" };

	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = { "workloads/ignexec", how[i], NULL };

		free(it_sig_as_plain(argv));
	}
}

/*
 * Time spent in the vDSO (clock_gettime) is named: the preload writes the
 * vDSO's image at the output root and records it as a module.
 * clockloop reads a coarse clock, which the vDSO serves whatever the
 * machine's clock source (a fine clock falls back to a system call on some
 * machines, and that time is the kernel's); every sample that lands in the
 * vDSO must be named there.
 */
Test(it_signals, vdso_frames_are_named)
{
	const char *argv[] = { "workloads/clockloop", "0.3", NULL };
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t in_vdso = 0, named = 0;

	tst_skip_under_asan("libasan.so intercepts clock_gettime: the time the test "
			      "expects in the vDSO goes partly to the interceptor");
	tst_run_profiled(&it_sig, "clock", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	run = tst_load(&it_sig);
	p = tst_profile(run, 0, 0);
	for (size_t i = 0; i < p->nfuncs; i++) {
		const char *m = p->funcs[i].module, *base = m ? strrchr(m, '/') : NULL;

		/* the module's name, not the build's path (which may hold "vdso") */
		if (!m || !strstr(base ? base : m, "vdso"))
			continue;
		in_vdso += p->funcs[i].self;
		if (strstr(p->funcs[i].name, "clock_gettime"))
			named += p->funcs[i].self;
	}
	cr_assert_geq(in_vdso, p->samples / 5, "%llu of %llu samples in the vDSO",
		      (unsigned long long)in_vdso, (unsigned long long)p->samples);
	cr_assert_eq(named, in_vdso, "%llu of the vDSO's %llu samples named clock_gettime",
		     (unsigned long long)named, (unsigned long long)in_vdso);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * The run under a tracer (tag: gdb or strace) was profiled in the signal
 * mode on SIGPROF, which debuggers pass on without stopping: demo's
 * burn_alpha holds most of its 0.2 s.
 */
static void it_sig_traced_profile(void)
{
	struct pa_run *run = tst_load(&it_sig);
	const struct pa_process *proc;
	struct pa_profile *p;

	cr_assert_eq(run->nprocesses, 1);
	proc = run->processes[0];
	cr_expect_eq(proc->mode, PPF_MODE_SIGNAL, "mode %u under a tracer", proc->mode);
	cr_expect_eq(proc->signal, SIGPROF, "signal %u under a tracer", proc->signal);
	p = tst_profile(run, 0, 0);
	cr_expect_geq(tst_self(p, "burn_alpha"), 100, "%llu samples in burn_alpha",
		      (unsigned long long)tst_self(p, "burn_alpha"));
	pa_profile_free(p);
	pa_run_free(run);
}

/*
 * Under a debugger every perf SIGTRAP would stop the program: with a tracer
 * attached the profiler samples in the signal mode instead, on SIGPROF, and
 * the program runs to its normal end under gdb, profiled.
 */
Test(it_signals, runs_under_gdb)
{
	char demo[TST_PATH_MAX];
	const char *argv[] = { "/usr/bin/gdb", "-nx", "-batch", "-ex", "run", "--args",
			       "/usr/bin/env", it_sig.env_preload, it_sig.env_output, demo,
			       "0.2", "--exit", "3", NULL };
	struct tst_result r;

	tst_skip_under_asan(TST_ASAN_TRACED);
	tst_build_path(demo, "workloads/demo");
	tst_run(&it_sig, "gdb", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "gdb: %s", r.err);
	cr_expect(strstr(r.out, "exited with code 03"), "gdb saw: %s", r.out);
	cr_expect(!strstr(r.out, "SIGTRAP") && !strstr(r.out, "received signal"),
		  "the program stopped on a signal: %s", r.out);
	cr_expect(strstr(r.out, "demo: alpha"), "no program output: %s", r.out);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 0, "stderr: %s", r.err);
	tst_result_release(&r);
	it_sig_traced_profile();
}

/* mode = sigtrap asked for under a debugger: off, said once, the program runs. */
Test(it_signals, sigtrap_mode_under_gdb_turns_off)
{
	char demo[TST_PATH_MAX];
	const char *argv[] = { "/usr/bin/gdb", "-nx", "-batch", "-ex", "run", "--args",
			       "/usr/bin/env", it_sig.env_preload, it_sig.env_output,
			       "PPROF_MODE=sigtrap", demo, "0.2", "--exit", "3", NULL };
	struct tst_result r;

	tst_skip_under_asan(TST_ASAN_TRACED);
	tst_build_path(demo, "workloads/demo");
	tst_run(&it_sig, "gdb", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "gdb: %s", r.err);
	cr_expect(strstr(r.out, "exited with code 03"), "gdb saw: %s", r.out);
	cr_expect(!strstr(r.out, "SIGTRAP"), "the program stopped on SIGTRAP: %s", r.out);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, "tracer is attached") && strstr(r.err, "mode = sigtrap") &&
		  strstr(r.err, "profiling is off"), "stderr: %s", r.err);
	tst_result_release(&r);
}

/*
 * Under strace -f (a tracer that passes signals on) the program is profiled
 * in the signal mode, as under gdb: it is not killed, and its stdout,
 * stderr and exit status are those of a run without the profiler.
 */
Test(it_signals, runs_under_strace)
{
	char demo[TST_PATH_MAX];
	const char *argv[] = { "/usr/bin/strace", "-f", "-o", "/dev/null", "/usr/bin/env",
			       it_sig.env_preload, it_sig.env_output, demo, "0.2", "--exit",
			       "3", NULL };
	const char *plain_argv[] = { "workloads/demo", "0.2", "--exit", "3", NULL };
	struct tst_result plain, r;

	tst_skip_under_asan(TST_ASAN_TRACED);
	cr_assert_eq(access(argv[0], X_OK), 0, "strace is not installed (make deps)");
	tst_build_path(demo, "workloads/demo");
	tst_run(&it_sig, "plain", plain_argv, NULL, &plain);
	tst_run(&it_sig, "strace", argv, NULL, &r);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 3,
		  "plain demo: status 0x%x", plain.status);
	/* strace exits with the traced program's status, or dies of its signal. */
	cr_expect_eq(r.status, plain.status, "status 0x%x, without the profiler 0x%x: %s",
		     r.status, plain.status, r.err);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_str_eq(r.err, plain.err);
	tst_result_release(&plain);
	tst_result_release(&r);
	it_sig_traced_profile();
}

/*
 * Runs argv unprofiled and profiled; asserts the profiled run's status and
 * output are the unprofiled one's, and returns its logs.
 */
static struct pa_run *it_sig_run_unchanged(const char *const *argv)
{
	struct tst_result plain, prof;

	tst_run(&it_sig, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_sig, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0);
	cr_assert_eq(prof.status, plain.status, "%s", prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);
	tst_result_release(&plain);
	tst_result_release(&prof);
	return tst_load(&it_sig);
}

/*
 * A thread that blocks every signal with the raw system call (no wrapper
 * keeps the sampling signal out of that mask: it_masks has those) runs on
 * unharmed; the samples the kernel merged while SIGTRAP was blocked arrive
 * as one late sample, flagged, and `threads` counts it; sampling resumes
 * once the thread unblocks. In the signal mode each overflow queued a
 * real-time signal: the first arrives late, the others are taken off the
 * queue, and the ring buffer's records of them become samples where they
 * happened, marked recovered (it_overflow checks what they weigh).
 */
Test(it_signals, blocked_signals_are_late_not_fatal)
{
	const char *argv[] = { "workloads/blocker", "0.3", "raw", NULL };
	char analyze[TST_PATH_MAX], want[64];
	const char *report[] = { analyze, "threads", it_sig.data, NULL };
	struct tst_result rep;
	const struct pa_process *p;
	const struct pa_thread *t = NULL;
	struct pa_profile *pr;
	struct pa_run *run = it_sig_run_unchanged(argv);
	size_t late = 0, recovered = 0;

	p = run->processes[0];
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid != p->pid)
			t = p->threads[i];
	cr_assert_not_null(t);
	/* LATE counts the overflows late samples stand for. */
	for (size_t i = 0; i < t->nsamples; i++) {
		if (t->samples[i].flags & PPF_SAMPLE_LATE)
			late += t->samples[i].count;
		if (t->samples[i].flags & PPF_SAMPLE_RECOVERED)
			recovered += t->samples[i].count;
	}
	/* 0.3 s blocked at a sample per ms: some 300 overflows, 256 of them recorded. */
	if (tst_mode() == PPF_MODE_SIGNAL)
		cr_expect_geq(recovered, 200, "%zu overflows recovered", recovered);
	else
		cr_expect_geq(late, 1, "no sample flagged late");
	pr = tst_profile(run, p->pid, t->tid);
	cr_expect_geq(tst_self(pr, "burn_unblocked"), 150, "sampling did not resume");
	pa_profile_free(pr);

	/* The threads report shows the late count in its LATE column. */
	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_sig, "report", report, NULL, &rep);
	snprintf(want, sizeof(want), " %zu ", late);
	cr_expect(strstr(rep.out, "LATE") && strstr(rep.out, want), "%s", rep.out);
	snprintf(want, sizeof(want), " %llu ", (unsigned long long)t->throttled);
	cr_expect(strstr(rep.out, "THROTTLED") && strstr(rep.out, want), "%s", rep.out);
	tst_result_release(&rep);
	pa_run_free(run);
}

/*
 * The signal mode on SIGPROF while the program profiles itself with
 * setitimer(ITIMER_PROF) and its own SIGPROF handler: the program gets
 * every tick of its own timer and none of our samples, and sigaction()
 * gives back its own handler; we sample as well.
 */
Test(it_signals, signal_mode_shares_sigprof_with_the_app)
{
	const char *argv[] = { "workloads/profapp", "0.4", NULL };
	char env[TST_CONFIG_ENV_MAX];
	struct tst_result plain, r;
	struct pa_profile *p;
	struct pa_run *run;

	tst_config_env(&it_sig, "sigprof.ini", "[profile]\nmode = signal\nsignal = SIGPROF\n",
			 env);
	tst_run(&it_sig, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_sig, "prof", argv, env, &r);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.out);
	cr_expect_eq(r.status, plain.status, "%s%s", r.out, r.err);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_eq(r.err_len, 0, "stderr: %s", r.err);
	run = tst_load(&it_sig);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->mode, PPF_MODE_SIGNAL);
	cr_expect_eq(run->processes[0]->signal, SIGPROF);
	p = tst_profile(run, 0, 0);
	cr_expect_geq(tst_self(p, "profapp_burn"), 200, "%llu samples in profapp_burn",
		      (unsigned long long)tst_self(p, "profapp_burn"));
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&r);
}
