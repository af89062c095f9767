/*
 * Integration: coverage is shown. cpusplit's three threads measure their
 * own user and system time (getrusage); the logs must hold the same, the
 * samples of the default event (user time only) must cover the user time
 * of the threads that can be sampled, kernel time must be named as not
 * sampled rather than lost, and the thread that blocks every signal with a
 * raw rt_sigprocmask (which no profiler driven by signals can sample) must
 * be named in the notes of every report: under the '# event' line of
 * those that have one, on stderr for the others.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "coverage.h"
#include "eventinfo.h"
#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_cov;

static void it_cov_init(void)
{
	tst_init(&it_cov);
}

static void it_cov_fini(void)
{
	tst_release(&it_cov);
}

TestSuite(it_coverage, .init = it_cov_init, .fini = it_cov_fini, .timeout = 120);

/*
 * Seconds of CPU time each cpusplit thread burns, and piper: half of it in
 * the kernel, its user time is an estimate on both sides (coverage.c's
 * pa_coverage_short): long enough for its samples to tell user time from
 * all of its CPU time by many standard deviations.
 */
#define IT_COV_SECONDS "0.4"
#define IT_COV_PIPER_SECONDS "1.2"
/* The kernel's clock tick at its coarsest, as coverage.c assumes it. */
#define IT_COV_TICK_S 0.004

/* One line of cpusplit's truth: "TID NAME USER_S SYSTEM_S". */
struct it_cov_truth {
	long tid;
	char name[32];
	double user, sys;
};

/* The truth line of the thread called name. */
static struct it_cov_truth it_cov_truth(const char *path, const char *name)
{
	struct it_cov_truth t;
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "no truth file %s", path);
	while (fscanf(f, "%ld %31s %lf %lf", &t.tid, t.name, &t.user, &t.sys) == 4)
		if (strcmp(t.name, name) == 0) {
			fclose(f);
			return t;
		}
	fclose(f);
	cr_assert_fail("no truth for thread %s in %s", name, path);
	return t;
}

static const struct pa_thread *it_cov_thread(const struct pa_process *p, long tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == (uint32_t)tid)
			return p->threads[i];
	cr_assert_fail("no log of thread %ld", tid);
	return NULL;
}

/* Runs pprof-analyze REPORT on the run; it must succeed. */
static void it_cov_analyze(const char *report, struct tst_result *r)
{
	const char *argv[] = { "pprof-analyze", report, it_cov.data, NULL };

	tst_run(&it_cov, report, argv, NULL, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "%s: %s", report,
		  r->err);
}

/*
 * The thread's logged user and system time agree with its own, and its
 * samples (with those the profiler throttled or lost) stand for its user
 * time: one per ms, within four standard deviations of what sampling a
 * thread that goes in and out of the kernel gives (pa_coverage_short),
 * slack (a share of its user time) and the CPU time the hypervisor took
 * meanwhile (steal: cpu-clock and the thread's clock may part by that
 * much). sampled false: it cannot be sampled, and is covered below 10%.
 */
static void it_cov_expect_thread(const struct pa_filter *f, const struct pa_process *p,
				 const struct it_cov_truth *tr, bool sampled, double slack,
				 double steal)
{
	const struct pa_thread *t = it_cov_thread(p, tr->tid);
	double period = tst_period_s(p), user, sys, taken, q, var, gap;
	struct pa_coverage c;

	pa_coverage_thread(f, p, t, &c);
	cr_assert(c.split && c.has_share, "%s: no user and system time in its log", tr->name);
	user = (double)c.user_ns / 1e9;
	sys = (double)c.system_ns / 1e9;
	cr_expect_leq(fabs(user - tr->user), 0.02 + 0.05 * tr->user, "%s: user %.3f s, "
		      "its own %.3f s", tr->name, user, tr->user);
	cr_expect_leq(fabs(sys - tr->sys), 0.02 + 0.05 * tr->sys, "%s: system %.3f s, "
		      "its own %.3f s", tr->name, sys, tr->sys);
	cr_expect_eq(c.counted_ns, c.user_ns, "%s: coverage of its user time", tr->name);
	taken = tst_overflow_s(f, p, t, &c);
	q = tr->user / (tr->user + tr->sys);
	var = period * period * (tr->user + tr->sys) / period * q * (1 - q) *
	      (1 + IT_COV_TICK_S / period);
	gap = fabs(taken - tr->user) - slack * tr->user - steal;
	if (sampled)
		cr_expect(gap <= 0 || gap * gap <= 16 * var, "%s: %.3f s of overflows for %.3f s "
			  "of user time (variance %.6f s^2, %.3f s stolen)", tr->name, taken,
			  tr->user, var, steal);
	else
		cr_expect_lt(c.share, 0.1, "%s: blocked every signal, yet %.1f%% covered",
			     tr->name, c.share * 100);
}

/* The COVER column of the row of thread tid in threads' text, in percent. */
static double it_cov_column(const char *text, long tid)
{
	const char *line = text;

	while ((line = strchr(line, '\n')) && line++) {
		char cover[16] = "";
		long t;

		if (sscanf(line, "%*u %ld %*s %*u %*u %*u %*u %*s %*s %*s %*s %15s", &t, cover) == 2 &&
		    t == tid) {
			cr_assert_neq(cover[0], '-', "thread %ld: COVER is '-'", tid);
			return strtod(cover, NULL);
		}
	}
	cr_assert_fail("no row of thread %ld in:\n%s", tid, text);
	return 0;
}

/* The line of text that starts with prefix, without its newline (malloc'd), or NULL. */
static char *it_cov_line(const char *text, const char *prefix)
{
	const char *line = tst_find_line(text, prefix);

	return line ? strndup(line, strcspn(line, "\n")) : NULL;
}

Test(it_coverage, user_time_covered_kernel_time_named_blocked_thread_noted)
{
	const char *argv[] = { "workloads/cpusplit", IT_COV_SECONDS, IT_COV_PIPER_SECONDS, NULL };
	char truth[TST_PATH_MAX], env[TST_PATH_MAX + 16], want[96], *note;
	struct it_cov_truth user, piper, masked;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_coverage c;
	struct tst_result r;
	struct pa_run *run;
	double steal;

	snprintf(truth, sizeof(truth), "%s/truth", it_cov.tmp);
	snprintf(env, sizeof(env), "PPROF_TRUTH=%s", truth);
	steal = tst_steal_s();
	tst_run_profiled(&it_cov, "cpusplit", argv, env, &r);
	steal = tst_steal_s() - steal;
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "cpusplit: %s", r.err);
	cr_assert_str_eq(r.out, "cpusplit: 3 threads\n");
	tst_result_release(&r);
	user = it_cov_truth(truth, "userburn");
	piper = it_cov_truth(truth, "piper");
	masked = it_cov_truth(truth, "masked");
	/*
	 * The workload's own split: the pipe's copies are kernel time, above
	 * what the kernel-time note names (over 0.1 s, 10% or more) with room
	 * (about half of its CPU time, usually; 0.299 of 1.2 s seen once).
	 */
	cr_assert(piper.sys > 0.15 && piper.sys >= 0.15 * (piper.user + piper.sys),
		  "piper spent only %.3f s of %.3f s in the kernel", piper.sys,
		  piper.user + piper.sys);

	run = tst_load(&it_cov);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	/*
	 * 8%: cpu-clock's timer restarts its period when it fires, so on a
	 * busy host whose timer interrupts come late the kernel overflows less
	 * than once per ms of CPU, for perf as for us (it_demo's timer
	 * shortfall). A clean-clone CI run (two test jobs, no steal) had
	 * 0.379 s of overflows for userburn's 0.400 s: 5.3% short, every
	 * overflow counted.
	 */
	it_cov_expect_thread(&f, p, &user, true, 0.08, steal);
	/*
	 * In the signal mode, beside a CPU hog on each CPU, piper's samples
	 * came out 8% to 25% short of the user time the kernel gives it
	 * (the sigtrap mode's: within 7%; not explained yet): a wide margin,
	 * still far from its whole CPU time, which is twice its user time.
	 */
	it_cov_expect_thread(&f, p, &piper, true, 0.3, steal);
	it_cov_expect_thread(&f, p, &masked, false, 0, steal);

	/* threads: its COVER column is of user time, and the notes come under the header. */
	it_cov_analyze("threads", &r);
	pa_coverage_thread(&f, p, it_cov_thread(p, piper.tid), &c);
	cr_expect_leq(fabs(it_cov_column(r.out, piper.tid) - 100 * c.share), 0.051,
		      "piper: COVER is not samples x period / user time (%.1f%%):\n%s",
		      100 * c.share, r.out);
	note = it_cov_line(r.out, "# coverage below 90%: ");
	cr_assert_not_null(note, "no coverage note:\n%s", r.out);
	cr_expect(strstr(note, " of 3 threads with over 0.1 s of CPU time: "), "%s", note);
	/*
	 * A sample or two may land before its raw mask change (the thread's
	 * start under the profiler is ~0.3 ms of user code, which on a loaded
	 * machine reached the 1 ms period once): under 10%, as above.
	 */
	snprintf(want, sizeof(want), "/%ld masked ", masked.tid);
	{
		const char *at = strstr(note, want);
		double pct = 100;

		cr_expect(at && sscanf(at + strlen(want), "%lf%% of its ", &pct) == 1 && pct < 10,
			  "the note names masked, under 10%%: %s", note);
	}
	free(note);
	/* piper's kernel time is no loss: it is named as not sampled. */
	snprintf(want, sizeof(want), "/%ld piper ", piper.tid);
	note = it_cov_line(r.out, "# kernel time not sampled (cpu-clock counts user time only): ");
	cr_expect(note && strstr(note, want) && strstr(note, "exclude_kernel = no"),
		  "no kernel note naming piper:\n%s", r.out);
	free(note);
	cr_expect_eq(tst_count_lines(r.out, "# "), 3, "one line per note:\n%s", r.out);
	tst_result_release(&r);
	pa_run_free(run);

	/* folded has no header: the same notes go to stderr, the stacks stay clean. */
	it_cov_analyze("folded", &r);
	cr_expect_eq(tst_count_lines(r.err, "pprof-analyze: note: coverage below 90%: "), 1,
		     "stderr: %s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "pprof-analyze: note: kernel time not sampled"), 1,
		     "stderr: %s", r.err);
	cr_expect_null(strchr(r.out, '#'), "folded output holds a note:\n%s", r.out);
	tst_result_release(&r);
}

/*
 * An image that exec replaced has no END records: its CPU time and its
 * threads' are their last word before the exec (the process's at the exec,
 * each thread's in a progress record written then), not a progress record
 * up to 100 ms older (threads showed 124% sampled, a short image 4000%);
 * and the new image's process clock, which holds the old image's other
 * threads' time too, is not taken for CPU time no thread's log holds.
 * threadexec: a thread spins while main burns, then main execs.
 */
/* Whether x is y within 20 ms and 10%: clocks read a moment apart, on a busy machine. */
static bool it_cov_near(double x, double y)
{
	return fabs(x - y) <= 0.02 + 0.1 * y;
}

Test(it_coverage, an_image_replaced_by_exec_covers_its_own_time)
{
	const char *seconds[] = { "0.3", "0.05" };
	const char *procs[] = { "processes", NULL };
	char truth[TST_PATH_MAX], env[TST_PATH_MAX + 16];

	snprintf(truth, sizeof(truth), "%s/threadexec.truth", it_cov.tmp);
	snprintf(env, sizeof(env), "PPROF_TRUTH=%s", truth);
	for (size_t n = 0; n < 2; n++) {
		const char *argv[] = { "workloads/threadexec", seconds[n], NULL };
		struct pa_filter f = PA_FILTER_ALL;
		struct pa_error err = { 0 };
		struct tst_result r;
		struct pa_run *run;
		size_t replaced = 0;
		char *out;

		tst_log_rmdir(strdup(it_cov.data));
		tst_run_profiled(&it_cov, "threadexec", argv, env, &r);
		cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status,
			  r.err);
		cr_expect_str_eq(r.out, "threadexec: done\n");
		tst_result_release(&r);
		run = tst_load(&it_cov);
		cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
			     err.reason);
		for (size_t i = 0; i < run->nprocesses; i++) {
			const struct pa_process *p = run->processes[i];
			struct pa_coverage c;

			if (!p->replaced)
				continue;
			replaced++;
			pa_coverage_process(&f, p, &c);
			cr_expect(it_cov_near((double)c.cpu_ns / 1e9, tst_truth(truth, "process")),
				  "%s s: replaced image: %.3f s of CPU time, its own %.3f s",
				  seconds[n], (double)c.cpu_ns / 1e9, tst_truth(truth, "process"));
			cr_assert_eq(p->nthreads, 2);
			for (size_t k = 0; k < p->nthreads; k++) {
				const struct pa_thread *t = p->threads[k];
				const char *who = t->tid == p->pid ? "main" : "spinner";

				pa_coverage_thread(&f, p, t, &c);
				cr_expect(it_cov_near((double)c.cpu_ns / 1e9, tst_truth(truth, who)),
					  "%s s: %s thread of the replaced image: %.3f s of CPU time "
					  "in its log, its own %.3f s", seconds[n], who,
					  (double)c.cpu_ns / 1e9, tst_truth(truth, who));
			}
		}
		cr_expect_eq(replaced, 1);
		pa_run_free(run);
		out = tst_analyze(&it_cov, "processes", procs, it_cov.data);
		cr_expect_null(strstr(out, "CPU time in no thread's log"), "%s s: %s", seconds[n],
			       out);
		free(out);
	}
}

/*
 * A process a worker thread ends with exit() while the others are still
 * running or waiting (a JVM's System.exit): the threads exit_group ends
 * have no user/system split of their own, and the process's USER, SYS and
 * COVER read "-" although its END record holds its whole CPU time, split.
 */
Test(it_coverage, a_process_a_worker_ends_has_its_time_split_and_covered)
{
	const char *argv[] = { "workloads/workerexit", "0.3", NULL };
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_coverage c;
	struct tst_result r;
	struct pa_run *run;

	tst_run_profiled(&it_cov, "workerexit", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 6, "%#x: %s", r.status, r.err);
	tst_result_release(&r);
	run = tst_load(&it_cov);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_eq(run->nprocesses, 1);
	pa_coverage_process(&f, run->processes[0], &c);
	cr_expect(c.split, "user and system time not split (%.3f s of CPU)", (double)c.cpu_ns / 1e9);
	cr_expect(c.has_share, "no coverage");
	/* Two threads burning, each ~0.3 s: sampled at 1 ms, well inside 20%. */
	cr_expect(c.share > 0.8 && c.share < 1.2, "coverage %.1f%% of %.3f s", 100 * c.share,
		  (double)c.cpu_ns / 1e9);
	pa_run_free(run);
}

/*
 * Threads that each run less than a sampling period take hardly a sample
 * (each thread's event counts from its own start): 400 threads of 0.5 ms,
 * 0.2 s of CPU time, got a sample or none and no note, since every note
 * was about threads of over 0.1 s. The process is named in a note of its
 * own; in the sigtrap mode, 10 threads of 20 ms, each losing at most its
 * last partial period, get none (100 of 2 ms came out 89-98% covered: a
 * quarter of a period each is theirs to lose). Not in the signal mode:
 * beside two busy loops its threads of 20 ms came out 83.6% covered (its
 * per-thread events start after the thread's setup), and the note is
 * right to say so.
 */
Test(it_coverage, short_threads_covered_little_are_noted)
{
	const char *brief[] = { "workloads/briefthreads", "400", "500", NULL };
	const char *longer[] = { "workloads/briefthreads", "10", "20000", NULL };
	const char *top[] = { "top", NULL };
	const char *note = "# short threads covered below 90%: 1 process";
	struct tst_result r;
	char *out;

	tst_run_profiled(&it_cov, "brief", brief, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	tst_result_release(&r);
	out = tst_analyze(&it_cov, "top", top, it_cov.data);
	cr_expect(strstr(out, note) && strstr(out, " briefthreads ") && strstr(out, " threads, "), "%s",
		  out);
	free(out);
	if (tst_mode() == PPF_MODE_SIGNAL)
		return;

	tst_log_rmdir(strdup(it_cov.data));
	tst_run_profiled(&it_cov, "longer", longer, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	tst_result_release(&r);
	out = tst_analyze(&it_cov, "top", top, it_cov.data);
	cr_expect_null(strstr(out, "# short threads"), "%s", out);
	free(out);
}
