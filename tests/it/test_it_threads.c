/*
 * Integration: threads the profiler did not see being created are sampled
 * too, each into its own log (one started by a library constructor before
 * the profiler's, one made by raw clone() sharing the main thread's TLS),
 * and many short-lived threads leave one finished log each and no growth.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_thr;

static void it_thr_init(void)
{
	tst_init(&it_thr);
}

static void it_thr_fini(void)
{
	tst_release(&it_thr);
}

TestSuite(it_threads, .init = it_thr_init, .fini = it_thr_fini, .timeout = 120);

/* The one thread of p holding samples of func; asserts there is exactly one. */
static uint32_t it_thr_owner(const struct pa_run *run, const struct pa_process *p,
			     const char *func)
{
	uint32_t owner = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		struct pa_profile *prof = tst_profile(run, p->pid, p->threads[i]->tid);
		uint64_t self = tst_self(prof, func);

		pa_profile_free(prof);
		if (!self)
			continue;
		cr_expect_eq(owner, 0, "%s in threads %u and %u", func, owner,
			     p->threads[i]->tid);
		owner = p->threads[i]->tid;
		/* 0.3 s of CPU at one sample per ms. */
		cr_expect_geq(self, 150, "%s: %llu samples", func, (unsigned long long)self);
	}
	cr_expect_neq(owner, 0, "no samples of %s", func);
	return owner;
}

/*
 * A thread started by a library's constructor, before ours, and a thread made
 * by raw clone(): both sampled, each in a log of its own. In the signal mode
 * a raw clone() thread is not seen (no pthread_create to open its events):
 * it must then have no samples and no log, and the others must be intact.
 */
Test(it_threads, early_and_raw_clone_threads_are_sampled)
{
	const bool signal_mode = tst_mode() == PPF_MODE_SIGNAL;
	const char *argv[] = { "workloads/oddthreads", "0.3", NULL };
	struct tst_result plain, prof;
	const struct pa_process *p;
	uint32_t main_tid, early, raw;
	struct pa_profile *early_prof;
	struct pa_run *run;

	tst_skip_under_asan("AddressSanitizer cannot run a raw clone() thread (its own "
			      "CHECK fails without the profiler too)");
	tst_run(&it_thr, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_thr, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_assert_eq(prof.status, plain.status, "%s", prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);

	run = tst_load(&it_thr);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect_eq(p->nthreads, signal_mode ? 2 : 3, "%zu thread logs", p->nthreads);
	main_tid = it_thr_owner(run, p, "burn_main");
	early = it_thr_owner(run, p, "burn_early");
	cr_expect_eq(main_tid, p->pid);
	if (signal_mode) {
		struct pa_profile *all = tst_profile(run, 0, 0);

		cr_expect_eq(tst_self(all, "burn_raw"), 0);
		pa_profile_free(all);
		raw = 0;
	} else {
		raw = it_thr_owner(run, p, "burn_raw");
	}
	cr_expect(early != main_tid && raw != main_tid && early != raw,
		  "main %u early %u raw %u", main_tid, early, raw);
	/* The pre-existing thread is unwound: its caller is in the stacks. */
	early_prof = tst_profile(run, p->pid, early);
	cr_expect_gt(tst_stack_count(early_prof, "early_main;burn_early"), 0);
	pa_profile_free(early_prof);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * Threads that end inside a signal handler (pthread_exit from an SA_ONSTACK
 * handler, which runs on the alternate stack the profiler gives each
 * thread): the program runs as it does unprofiled, and each thread's log
 * is finished, its samples there.
 */
Test(it_threads, threads_ending_in_a_signal_handler_finish_their_logs)
{
	enum { N = 8 };
	const char *argv[] = { "workloads/sigexit", "8", "0.05", NULL };
	struct tst_result plain, prof;
	const struct pa_process *p;
	struct pa_run *run;
	size_t burned = 0;

	tst_run(&it_thr, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_thr, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_assert_eq(prof.status, plain.status, "status 0x%x: %s", prof.status, prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);
	run = tst_load(&it_thr);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect(p->ended, "process.log has no END record");
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		struct pa_profile *tp = tst_profile(run, p->pid, t->tid);

		if (tst_self(tp, "burn_sigexit") > 0) {
			burned++;
			cr_expect(t->ended, "thread %u: its log has no END record", t->tid);
		}
		pa_profile_free(tp);
	}
	cr_expect_eq(burned, N, "%zu of %d threads have samples in burn_sigexit", burned, N);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/* Parses the workload's "fds F0 F1 rss R0 R1" line from stderr. */
static void it_thr_usage(const char *err, int *fds0, int *fds1, long *rss0, long *rss1)
{
	const char *line = strstr(err, "fds ");

	cr_assert_not_null(line, "stderr: %s", err);
	cr_assert_eq(sscanf(line, "fds %d %d rss %ld %ld", fds0, fds1, rss0, rss1), 4);
}

/*
 * 1,000 short threads, created and joined one after another, ending by
 * return, pthread_exit and cancellation in turn: one finished log each, and
 * the profiler's file descriptors and memory do not grow with them.
 */
Test(it_threads, thousand_short_threads)
{
	const char *argv[] = { "workloads/manythreads", "1000", NULL };
	struct tst_result r;
	struct pa_run *run;
	const struct pa_process *p;
	int fds0, fds1, main_logged, first_logged;
	long rss0, rss1;
	size_t ended = 0;

	tst_run_profiled(&it_thr, "many", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	it_thr_usage(r.err, &fds0, &fds1, &rss0, &rss1);
	/*
	 * The thread table grows with the threads alive at once (46 KiB per
	 * 64). AddressSanitizer's own per-thread memory grows by about 6 MiB
	 * over 1,000 threads without the profiler too: not measured there.
	 */
	if (!tst_asan())
		cr_expect_lt(rss1 - rss0, 2048, "RSS grew from %ld to %ld KiB", rss0, rss1);

	run = tst_load(&it_thr);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect_eq(p->nthreads, 1001, "%zu thread logs", p->nthreads);
	/*
	 * The main thread's own log is made at its first sample (it mostly
	 * waits in pthread_join: 3 ms of user time here, more on a loaded
	 * machine), which may come after the first count: one descriptor more
	 * then, the same however many threads ran. So is the process's
	 * directory, held open from its first thread log on: after the count
	 * when the first thread took no sample.
	 */
	{
		char log[TST_PATH_MAX], what[64];
		const struct pa_thread *first = NULL;

		/* Made at its first sample, kept or not (a late or throttled one). */
		snprintf(what, sizeof(what), "thread-%d.log", (int)p->pid);
		tst_process_file(p, what, log, sizeof(log));
		main_logged = access(log, F_OK) == 0;
		for (size_t i = 0; i < p->nthreads; i++)
			if (p->threads[i]->tid != p->pid &&
			    (!first || p->threads[i]->start_ns < first->start_ns))
				first = p->threads[i];
		cr_assert_not_null(first);
		snprintf(what, sizeof(what), "thread-%u.log", first->tid);
		tst_process_file(p, what, log, sizeof(log));
		first_logged = access(log, F_OK) == 0;
	}
	cr_expect(fds1 >= fds0 && fds1 <= fds0 + main_logged + !first_logged,
		  "open fds went from %d to %d (the main thread %s a log, the first thread %s)",
		  fds0, fds1, main_logged ? "has" : "has no", first_logged ? "has one" : "none");
	for (size_t i = 0; i < p->nthreads; i++)
		ended += p->threads[i]->ended;
	cr_expect_eq(ended, p->nthreads, "%zu of %zu thread logs finished", ended,
		     p->nthreads);
	cr_expect_eq(run->warnings.n, 0);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * Work in SIGEV_THREAD notifications (sigevthreads: a timer_create timer's
 * callbacks, then mq_notify's): glibc makes their threads itself, with
 * every signal blocked, so no wrapper saw them and no sample came (0 of
 * ~100 due in each). Each callback's thread is sampled now, its stack
 * from the program's function down, and the program's output is its own:
 * each callback's mask as glibc made it (every signal blocked in a
 * timer's, none in mq_notify's; the first version made the sampling
 * signal look blocked in mq_notify's, and its children inherited it).
 */
Test(it_threads, sigev_thread_callbacks_are_sampled)
{
	const char *argv[] = { "workloads/sigevthreads", "20", "5", NULL };
	struct tst_result r, alone;
	struct pa_run *run;
	struct pa_profile *p;
	double timer_s, queue_s, period;
	int timer_calls, queue_calls;
	uint64_t timer, queue;

	tst_run_profiled(&it_thr, "sigev", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert_eq(sscanf(r.out, "sigevthreads: timer %d calls %lf s queue %d calls %lf s",
			    &timer_calls, &timer_s, &queue_calls, &queue_s), 4, "%s", r.out);
	cr_expect(timer_calls == 20 && queue_calls == 20, "%s", r.out);
	/* Each callback's mask as the program sees it: glibc's, as without the profiler. */
	tst_run(&it_thr, "sigev-alone", argv, NULL, &alone);
	cr_assert(WIFEXITED(alone.status) && WEXITSTATUS(alone.status) == 0, "%s", alone.err);
	cr_assert_not_null(tst_find_line(alone.out, "blocked: "), "%s", alone.out);
	cr_expect_str_eq(tst_find_line(r.out, "blocked: "), tst_find_line(alone.out, "blocked: "),
			 "profiled:\n%s\nunprofiled:\n%s", r.out, alone.out);
	tst_result_release(&alone);
	run = tst_load(&it_thr);
	p = tst_profile(run, 0, 0);
	period = tst_period_s(run->processes[0]);
	timer = tst_self(p, "burn_timer");
	queue = tst_self(p, "burn_queue");
	/* Each callback's thread counts from its start: its last part period is lost. */
	cr_expect_geq(timer, 0.7 * timer_s / period, "burn_timer: %llu samples for %.3f s",
		      (unsigned long long)timer, timer_s);
	cr_expect_geq(queue, 0.7 * queue_s / period, "burn_queue: %llu samples for %.3f s",
		      (unsigned long long)queue, queue_s);
	cr_expect_geq(tst_stack_count(p, "sigev_on_timer;burn_timer"), timer / 2);
	cr_expect_geq(tst_stack_count(p, "sigev_on_message;burn_queue"), queue / 2);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}
