/*
 * Integration: threads the profiler did not see start, which it adopts at
 * their first sample (one a library's constructor started before the
 * profiler's, one made by raw clone()), get the counting events of the
 * configuration too, opened there: their counts are known, and marked as
 * counted from that sample on. oddthreads burns 0.3 s of CPU in each: its
 * task-clock counter must hold nearly all of it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_ad;

static void it_ad_init(void)
{
	tst_init(&it_ad);
}

static void it_ad_fini(void)
{
	tst_release(&it_ad);
}

TestSuite(it_adopted, .init = it_ad_init, .fini = it_ad_fini, .timeout = 120);

/* CPU seconds each thread of oddthreads burns. */
#define IT_AD_SECONDS 0.3
/* What a counter opened at the first sample may miss: that sample's period and more. */
#define IT_AD_MISSED 0.05

/* The thread of p whose samples hold func, or NULL. */
static const struct pa_thread *it_ad_owner(const struct pa_run *run, const struct pa_process *p,
					   const char *func)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		struct pa_profile *prof = tst_profile(run, p->pid, p->threads[i]->tid);
		uint64_t self = tst_self(prof, func);

		pa_profile_free(prof);
		if (self)
			return p->threads[i];
	}
	return NULL;
}

/* t's task-clock count (event index idx): known, late as asked, and about its burn. */
static void it_ad_expect_counted(const struct pa_thread *t, uint32_t idx, bool late,
				 const char *what)
{
	const struct pa_thread_event *te = pa_thread_find_event(t, idx);

	cr_assert_not_null(te, "%s (thread %u): no totals for task-clock", what, t->tid);
	cr_expect(te->flags & PPF_THREAD_EVENT_COUNTED, "%s (thread %u): no counter (flags %#x)",
		  what, t->tid, te->flags);
	cr_expect_eq(!!(te->flags & PPF_THREAD_EVENT_LATE_COUNTER), late,
		     "%s (thread %u): flags %#x", what, t->tid, te->flags);
	cr_expect_geq((double)te->value / 1e9, IT_AD_SECONDS - IT_AD_MISSED,
		      "%s (thread %u): task-clock %.3f s; it burnt %.3f s", what, t->tid,
		      (double)te->value / 1e9, IT_AD_SECONDS);
}

Test(it_adopted, adopted_threads_have_counters)
{
	const bool signal_mode = tst_mode() == PPF_MODE_SIGNAL;
	const char *argv[] = { "workloads/oddthreads", "0.3", NULL };
	char env[TST_CONFIG_ENV_MAX], analyze[TST_PATH_MAX];
	const char *rep_argv[] = { analyze, "counters", it_ad.data, NULL };
	const struct pa_thread *early, *raw, *main_thread;
	const struct pa_event *tc;
	const struct pa_process *p;
	struct tst_result r, rep;
	struct pa_run *run;
	size_t late = 0;

	tst_skip_under_asan("AddressSanitizer cannot run a raw clone() thread (its own "
			      "CHECK fails without the profiler too)");
	tst_config_env(&it_ad, "count.ini", "[sample cpu-clock]\n[count task-clock]\n"
		       "[count page-faults]\n", env);
	tst_run_profiled(&it_ad, "odd", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	run = tst_load(&it_ad);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	tc = pa_process_find_event_named(p, "task-clock");
	cr_assert_not_null(tc);
	main_thread = it_ad_owner(run, p, "burn_main");
	early = it_ad_owner(run, p, "burn_early");
	raw = it_ad_owner(run, p, "burn_raw");
	cr_assert(main_thread && early, "main %p early %p", (void *)main_thread, (void *)early);
	it_ad_expect_counted(main_thread, tc->index, false, "main thread");
	it_ad_expect_counted(early, tc->index, true, "thread older than the constructor");
	/* In the signal mode a raw clone() thread is not seen at all (README). */
	if (signal_mode)
		cr_expect_null(raw, "a raw clone() thread sampled in the signal mode");
	else if (raw)
		it_ad_expect_counted(raw, tc->index, true, "raw clone() thread");
	else
		cr_expect_fail("the raw clone() thread was not sampled");
	pa_run_free(run);

	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_ad, "counters", rep_argv, NULL, &rep);
	cr_assert(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 0, "%s", rep.err);
	for (const char *s = rep.out; (s = strstr(s, "(from its first sample)")) != NULL; s++)
		late++;
	/* task-clock and page-faults of each adopted thread. */
	cr_expect_eq(late, signal_mode ? 2 : 4, "%s", rep.out);
	cr_expect(strstr(rep.out, signal_mode ? "# note: 1 thread was counted from its first "
			 "sample on" : "# note: 2 threads were counted from their first sample on"),
		  "%s", rep.out);
	cr_expect(!strstr(rep.out, "(no counter)"), "%s", rep.out);
	tst_result_release(&rep);
	tst_result_release(&r);
}

/*
 * The adopted threads end before the process (libearly's is joined, the raw
 * one exits): no hook sees them end, and the process's end could not read
 * their clocks. Their CPU time is their last progress record's, not
 * unknown, and no note calls it "CPU time in no thread's log" (before: CPU
 * '-' in `threads` and 0.3 s of each said to be in no thread's log).
 */
Test(it_adopted, adopted_threads_that_end_early_keep_their_cpu_time)
{
	const bool signal_mode = tst_mode() == PPF_MODE_SIGNAL;
	const char *argv[] = { "workloads/oddthreads", "0.3", NULL };
	const char *args[] = { "threads", NULL };
	const struct pa_thread *early, *raw;
	const struct pa_process *p;
	struct tst_result r;
	struct pa_run *run;
	char *out;

	tst_skip_under_asan("AddressSanitizer cannot run a raw clone() thread (its own "
			      "CHECK fails without the profiler too)");
	tst_run_profiled(&it_ad, "odd-end", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	run = tst_load(&it_ad);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	early = it_ad_owner(run, p, "burn_early");
	raw = it_ad_owner(run, p, "burn_raw");
	cr_assert_not_null(early);
	/* Progress is recorded every 100 ms or 64 samples at the most. */
	cr_expect_geq((double)early->cpu_ns / 1e9, IT_AD_SECONDS - 0.1,
		      "thread older than the constructor: %.3f s of CPU; it burnt %.3f s",
		      (double)early->cpu_ns / 1e9, IT_AD_SECONDS);
	cr_expect_geq((double)early->user_ns / 1e9, IT_AD_SECONDS - 0.15);
	if (!signal_mode) {
		cr_assert_not_null(raw);
		cr_expect_geq((double)raw->cpu_ns / 1e9, IT_AD_SECONDS - 0.1,
			      "raw clone() thread: %.3f s of CPU; it burnt %.3f s",
			      (double)raw->cpu_ns / 1e9, IT_AD_SECONDS);
	}
	pa_run_free(run);
	out = tst_analyze(&it_ad, "odd-threads", args, it_ad.data);
	/* The signal mode never sees the raw thread: its time is rightly in no log. */
	if (!signal_mode)
		cr_expect_null(strstr(out, "CPU time in no thread's log"), "%s", out);
	free(out);
	tst_result_release(&r);
}
