/*
 * Integration: the demo workload (tests/workloads/demo.c) under the preload.
 * Three threads, three call chains, one of them in a dlopen'd library; the
 * workload measures its own truth (thread CPU time per burn function).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coverage.h"
#include "profile.h"
#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_demo;

static void it_demo_init(void)
{
	tst_init(&it_demo);
}

static void it_demo_fini(void)
{
	tst_release(&it_demo);
}

TestSuite(it_demo, .init = it_demo_init, .fini = it_demo_fini, .timeout = 120);

static const char *const it_demo_funcs[] = { "burn_alpha", "burn_beta", "burn_gamma" };
#define IT_DEMO_NFUNCS (sizeof(it_demo_funcs) / sizeof(it_demo_funcs[0]))

/* Runs demo for seconds of CPU (main thread) under the preload; asserts it exited 0. */
static struct pa_run *it_demo_profiled(const char *seconds, const char *truth_env)
{
	const char *argv[] = { "workloads/demo", seconds, NULL };
	struct tst_result r;
	struct pa_run *run;

	tst_run_profiled(&it_demo, "demo", argv, truth_env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "demo failed (status 0x%x): %s", r.status, r.err);
	cr_expect_eq(r.err_len, 0, "profiled demo wrote to stderr: %s", r.err);
	tst_result_release(&r);
	run = tst_load(&it_demo);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->warnings.n, 0, "a clean run gave warnings, first: %s",
		     run->warnings.n ? run->warnings.v[0].reason : "");
	return run;
}

/*
 * How far the kernel's overflows of the process fell short of its CPU time
 * (0 to 1): cpu-clock's timer restarts its period when it fires, so a
 * machine whose timer interrupts arrive late (a busy host) fires less than
 * once per period of CPU time, for perf as for us. Every overflow is
 * counted (samples, throttled, lost), so the shortfall is the kernel's
 * timer, not samples the profiler dropped.
 */
static double it_demo_timer_shortfall(const struct pa_process *p)
{
	double taken = 0, cpu = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		struct pa_coverage c;

		pa_coverage_thread(&PA_FILTER_ALL, p, t, &c);
		cpu += (double)c.cpu_ns / 1e9;
		taken += tst_overflow_s(&PA_FILTER_ALL, p, t, &c);
	}
	return cpu > 0 && taken < cpu ? 1 - taken / cpu : 0;
}

/*
 * Shares are taken among the three burn functions, on both sides: the truth
 * covers exactly the time inside the burn calls, while a process's total
 * samples also hold start-up, dlopen, the clock reads and the profiler's
 * own work, which the workload cannot measure. Thread CPU time keeps the
 * truth unbiased by other load on the machine. The burn functions must
 * still hold nearly all samples, and samples x period must match the CPU
 * time the workload measured (what `top`'s cpu(s) column shows). Time stolen
 * by the hypervisor during the run, and how late the kernel's timer fired
 * (up to 15%), both measured, widen the bounds by themselves: nothing on a
 * calm machine, which is where the bounds are tight.
 */
Test(it_demo, shares_match_truth)
{
	char truth_env[TST_PATH_MAX + 16], truth[TST_PATH_MAX];
	double t[IT_DEMO_NFUNCS], t_sum = 0, period, steal, late;
	uint64_t s[IT_DEMO_NFUNCS], s_sum = 0;
	struct pa_profile *prof;
	struct pa_run *run;
	const struct pa_func *gamma;

	snprintf(truth, sizeof(truth), "%s/truth", it_demo.tmp);
	snprintf(truth_env, sizeof(truth_env), "PPROF_TRUTH=%s", truth);
	steal = tst_steal_s();
	run = it_demo_profiled("1.0", truth_env);
	steal = tst_steal_s() - steal;
	prof = tst_profile(run, 0, 0);
	period = tst_period_s(run->processes[0]);
	/* At most 15%: a larger gap is samples missing, not a late timer. */
	late = it_demo_timer_shortfall(run->processes[0]);
	late = late < 0.15 ? late : 0.15;
	for (size_t i = 0; i < IT_DEMO_NFUNCS; i++) {
		t[i] = tst_truth(truth, it_demo_funcs[i]);
		s[i] = tst_self(prof, it_demo_funcs[i]);
		t_sum += t[i];
		s_sum += s[i];
	}
	cr_assert_gt(s_sum, 0, "no sample in any burn function");
	cr_expect_geq(s_sum, 0.95 * (double)prof->samples,
		      "burn functions hold %llu of %llu samples",
		      (unsigned long long)s_sum, (unsigned long long)prof->samples);
	for (size_t i = 0; i < IT_DEMO_NFUNCS; i++) {
		double got = (double)s[i] / (double)s_sum, want = t[i] / t_sum;

		cr_expect_leq(fabs(got - want), 0.02 + steal / t_sum,
			      "%s: %.2f%% of the burn samples, truth %.2f%% (%.3f s stolen)",
			      it_demo_funcs[i], 100 * got, 100 * want, steal);
		cr_expect_leq(fabs((double)s[i] * period - t[i]),
			      (0.05 + late) * t[i] + 0.01 + steal,
			      "%s: %llu samples = %.3f s, truth %.3f s (%.3f s stolen, the "
			      "timer fired %.1f%% short of the CPU time)",
			      it_demo_funcs[i], (unsigned long long)s[i], (double)s[i] * period,
			      t[i], steal, 100 * late);
	}
	/* The dlopen'd library's function is symbolised, in its own module. */
	gamma = pa_profile_find(prof, "burn_gamma");
	cr_assert(gamma && gamma->module, "burn_gamma has no module");
	cr_expect(strstr(gamma->module, "/libburn.so") != NULL, "burn_gamma in %s",
		  gamma->module);
	pa_profile_free(prof);
	pa_run_free(run);
}

static const struct pa_thread *it_demo_thread(const struct pa_process *p, const char *name)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (strcmp(p->threads[i]->name, name) == 0)
			return p->threads[i];
	return NULL;
}

/* One log per thread: main plus the two the demo creates, each with its samples. */
Test(it_demo, one_log_per_thread)
{
	struct pa_run *run = it_demo_profiled("0.3", NULL);
	const struct pa_process *p = run->processes[0];
	const struct pa_thread *named[2];

	cr_assert_eq(p->nthreads, 3, "%zu thread logs", p->nthreads);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		uint64_t read = tst_samples_read(t);

		cr_expect_eq(t->pid, p->pid);
		cr_expect(t->ended, "thread %u not finalised", t->tid);
		cr_expect_gt(t->nsamples, 20, "thread %u: %zu samples", t->tid, t->nsamples);
		cr_expect_eq(t->samples_taken, read, "thread %u: %llu overflows written, %llu "
			     "read in %zu samples", t->tid, (unsigned long long)t->samples_taken,
			     (unsigned long long)read, t->nsamples);
		if (i > 0) /* sorted by tid, so distinct means increasing */
			cr_expect_lt(p->threads[i - 1]->tid, t->tid);
	}
	cr_expect_not_null(tst_log_find_process(run, p->pid));
	cr_expect(it_demo_thread(p, "demo") && it_demo_thread(p, "demo")->tid == p->pid,
		  "no main thread log");
	named[0] = it_demo_thread(p, "beta");
	named[1] = it_demo_thread(p, "gamma");
	cr_expect(named[0] && named[1], "thread names beta and gamma not recorded");
	cr_expect(p->ended && p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 0,
		  "process end: ended %d how %u status %d", p->ended, p->exit_how,
		  p->exit_status);
	pa_run_free(run);
}

/*
 * Each burn function is reached through its own caller chain, and the
 * samples of one thread hold only that thread's chain (callers are
 * symbolised at ip - 1, so a wrong caller would show here).
 */
Test(it_demo, stacks_have_their_callers)
{
	static const char *const chains[IT_DEMO_NFUNCS] = {
		"main;mid_alpha;burn_alpha",
		"beta_thread;mid_beta;burn_beta",
		"gamma_thread;mid_gamma;burn_gamma",
	};
	static const char *const threads[IT_DEMO_NFUNCS] = { "demo", "beta", "gamma" };
	struct pa_run *run = it_demo_profiled("0.3", NULL);
	struct pa_profile *prof = tst_profile(run, 0, 0);

	for (size_t i = 0; i < IT_DEMO_NFUNCS; i++) {
		uint64_t self = tst_self(prof, it_demo_funcs[i]);
		const struct pa_thread *t = it_demo_thread(run->processes[0], threads[i]);
		struct pa_profile *tp;

		cr_expect_gt(self, 20, "%s: %llu samples", it_demo_funcs[i],
			     (unsigned long long)self);
		cr_expect_geq(tst_stack_count(prof, chains[i]), 0.95 * (double)self,
			      "few stacks end in %s", chains[i]);
		cr_assert_not_null(t, "no thread %s", threads[i]);
		tp = tst_profile(run, 0, t->tid);
		for (size_t j = 0; j < IT_DEMO_NFUNCS; j++)
			if (j != i)
				cr_expect_eq(tst_self(tp, it_demo_funcs[j]), 0,
					     "thread %s has samples of %s", threads[i],
					     it_demo_funcs[j]);
		cr_expect_geq(tst_self(tp, it_demo_funcs[i]), 0.95 * (double)tp->samples);
		pa_profile_free(tp);
	}
	cr_expect_geq(pa_profile_call_count(prof, "mid_gamma", "burn_gamma"),
		      0.95 * (double)tst_self(prof, "burn_gamma"));
	pa_profile_free(prof);
	pa_run_free(run);
}

/* The app's stdout, stderr and exit status are the same with and without the preload. */
Test(it_demo, output_and_exit_status_unchanged)
{
	const char *argv[] = { "workloads/demo", "0.2", "--exit", "3", NULL };
	struct tst_result plain, prof;

	tst_run(&it_demo, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_demo, "profiled", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 3,
		  "plain demo: status 0x%x", plain.status);
	cr_expect_eq(prof.status, plain.status, "status 0x%x, without the preload 0x%x",
		     prof.status, plain.status);
	cr_expect(plain.out_len > 0);
	cr_expect(prof.out_len == plain.out_len && !memcmp(prof.out, plain.out, plain.out_len),
		  "stdout differs:\n%s---\n%s", prof.out, plain.out);
	cr_expect(prof.err_len == plain.err_len && !memcmp(prof.err, plain.err, plain.err_len),
		  "stderr differs:\n%s---\n%s", prof.err, plain.err);
	tst_result_release(&plain);
	tst_result_release(&prof);
}
