/*
 * Integration: every overflow is counted. A thread that blocks the
 * sampling signal with the raw rt_sigprocmask system call (no wrapper sees
 * it, so the profiler cannot keep the signal out of its mask) while it
 * burns CPU: its overflows merge into one late signal (the sigtrap mode,
 * and the signal mode on a signal that does not queue, SIGPROF: what
 * `auto` picks under a debugger) or queue behind it (a real-time signal).
 * The samples of that thread, weighed by the overflows each stands for,
 * must still cover its CPU time; in the signal mode the overflows of the
 * blocked stretch are recovered from the ring buffer where they happened.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_overflow;

static void it_overflow_init(void)
{
	tst_init(&it_overflow);
}

static void it_overflow_fini(void)
{
	tst_release(&it_overflow);
}

TestSuite(it_overflow, .init = it_overflow_init, .fini = it_overflow_fini, .timeout = 120);

/* CPU seconds of each of blocker's two burns: the blocked one fills the ring buffer. */
#define IT_OVERFLOW_BURN "0.3"

/*
 * Runs blocker (raw masks) under the preload with extra ("NAME=VALUE" or
 * NULL); asserts it ran as without the profiler. Returns the logs and, in
 * *worker, its burning thread.
 */
static struct pa_run *it_overflow_run(const char *extra, const struct pa_thread **worker)
{
	const char *argv[] = { "workloads/blocker", IT_OVERFLOW_BURN, "raw", NULL };
	struct tst_result r;
	struct pa_run *run;
	const struct pa_process *p;

	tst_run_profiled(&it_overflow, "blocker", argv, extra, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s%s", r.out, r.err);
	cr_assert_str_eq(r.out, "blocker: done\n");
	cr_assert_str_eq(r.err, "");
	tst_result_release(&r);
	run = tst_load(&it_overflow);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	*worker = NULL;
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid != p->pid)
			*worker = p->threads[i];
	cr_assert_not_null(*worker, "no log of blocker's worker thread");
	cr_assert((*worker)->ended && (*worker)->cpu_ns, "the worker's log has no CPU time");
	return run;
}

/*
 * The worker's samples, each weighed by the overflows it stands for, cover
 * at least three quarters of its CPU time at the run's period: half of
 * that time it had the signal blocked (without the weights, half is
 * missing). The rest allows for the handler's own pacing on a busy
 * machine and for kernel time, which the user-space event does not see.
 */
static void it_overflow_expect_covered(const struct pa_run *run, const struct pa_thread *w)
{
	const struct pa_process *p = run->processes[0];
	struct pa_filter f = PA_FILTER_ALL;
	double cpu_s = (double)w->cpu_ns / 1e9, period_s = tst_period_s(p);
	uint64_t n;

	f.event = 0;
	n = pa_filter_count_samples(&f, p, w);
	cr_expect_geq((double)n * period_s, 0.75 * cpu_s,
		      "worker: %llu samples of %.3f s = %.3f s, CPU %.3f s",
		      (unsigned long long)n, period_s, (double)n * period_s, cpu_s);
}

/* Samples of w with all of flags set, each counted once. */
static uint64_t it_overflow_flagged(const struct pa_thread *w, uint16_t flags)
{
	uint64_t n = 0;

	for (size_t i = 0; i < w->nsamples; i++)
		if ((w->samples[i].flags & flags) == flags)
			n++;
	return n;
}

/*
 * In the mode the tests run in (make test runs both): the sigtrap mode's
 * one late SIGTRAP stands for the blocked stretch's overflows; the signal
 * mode (a real-time signal: one per overflow queued) recovers them.
 */
Test(it_overflow, blocked_time_is_weighed)
{
	const struct pa_thread *w;
	struct pa_run *run = it_overflow_run(NULL, &w);

	it_overflow_expect_covered(run, w);
	cr_expect_geq(it_overflow_flagged(w, PPF_SAMPLE_LATE), 1, "no late sample");
	pa_run_free(run);
}

/*
 * The signal mode on SIGPROF, which does not queue: the overflows of the
 * blocked stretch merge into one signal. Those the ring buffer recorded
 * become samples where they happened, in burn_blocked, marked recovered
 * (its one data page holds 256, a quarter second at the default period);
 * the rest weigh the next sample.
 */
Test(it_overflow, merged_sigprof_recovered)
{
	char cfg[TST_CONFIG_ENV_MAX];
	const struct pa_thread *w;
	struct pa_profile *prof;
	struct pa_run *run;
	uint64_t blocked;

	tst_config_env(&it_overflow, "sigprof.ini",
		       "[profile]\nmode = signal\nsignal = SIGPROF\n[sample cpu-clock]\n", cfg);
	run = it_overflow_run(cfg, &w);
	cr_assert_eq(run->processes[0]->mode, PPF_MODE_SIGNAL);
	it_overflow_expect_covered(run, w);
	prof = tst_profile(run, 0, w->tid);
	blocked = tst_self(prof, "burn_blocked");
	cr_expect_geq(blocked, 100, "burn_blocked: %llu samples", (unsigned long long)blocked);
	cr_expect_geq(it_overflow_flagged(w, PPF_SAMPLE_RECOVERED), 1, "no recovered sample");
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * A frequency asked of cpu-clock is a fixed period (the kernel runs the
 * hrtimer at 1 s / frequency): top shows what the samples stand for in CPU
 * seconds, as for a period, and they cover the burn's CPU time.
 */
Test(it_overflow, frequency_of_cpu_clock_is_time)
{
	const char *argv[] = { "workloads/blocker", IT_OVERFLOW_BURN, NULL };
	char cfg[TST_CONFIG_ENV_MAX], analyze[TST_PATH_MAX];
	const char *report[] = { analyze, "top", it_overflow.data, NULL };
	struct tst_result r, rep;
	const char *line;
	double cpu_s = 0;

	tst_config_env(&it_overflow, "freq.ini", "[sample cpu-clock]\nfrequency = 500\n", cfg);
	tst_run_profiled(&it_overflow, "blocker", argv, cfg, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s%s", r.out, r.err);
	tst_result_release(&r);
	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_overflow, "top", report, NULL, &rep);
	line = strstr(rep.out, "burn_unblocked");
	cr_assert_not_null(line, "%s", rep.out);
	while (line > rep.out && line[-1] != '\n')
		line--;
	cr_assert_eq(sscanf(line, "%*s %*s %*s %*s %lf", &cpu_s), 1,
		     "no CPU seconds for burn_unblocked: %s", rep.out);
	cr_expect_geq(cpu_s, 0.75 * 0.3, "burn_unblocked: %.3f s of 0.3 s: %s", cpu_s, rep.out);
	tst_result_release(&rep);
}
