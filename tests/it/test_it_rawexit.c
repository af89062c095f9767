/*
 * Integration: processes that end by a raw exit_group (as every
 * dynamically linked Go program does) write no END record, and the
 * profiler's exit hooks never run. rawexit forks, and in both processes
 * three threads burn CPU time until the main thread calls exit_group under
 * them, one of them never sampled (every signal blocked by a raw
 * rt_sigprocmask). The analyzer must say so once, in one line for the run,
 * not a warning per log; report the threads' samples as usual; give their
 * CPU time, and the process's, from what the logs recorded as the threads
 * ran; and note the CPU time no thread's log holds.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "coverage.h"
#include "eventinfo.h"
#include "tst_it.h"

static struct tst_it it_raw;

static void it_raw_init(void)
{
	tst_init(&it_raw);
}

static void it_raw_fini(void)
{
	tst_release(&it_raw);
}

TestSuite(it_rawexit, .init = it_raw_init, .fini = it_raw_fini, .timeout = 120);

/* Seconds of CPU time each burner has at least when its process ends. */
#define IT_RAW_SECONDS 0.6
/*
 * What a thread's last progress record may miss of its CPU time: it is
 * written at most every 100 ms (wall time) after a sample; a process's,
 * that of the two CPUs.
 */
#define IT_RAW_LAG 0.11

/* p's threads named rawburn: each sampled, with the CPU time it had burnt. */
static void it_raw_expect_burners(const struct pa_filter *f, const struct pa_process *p)
{
	size_t burners = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];
		struct pa_coverage c;

		if (strcmp(t->name, "rawburn") != 0)
			continue;
		burners++;
		pa_coverage_thread(f, p, t, &c);
		cr_expect_not(t->ended, "thread %u has an END record", t->tid);
		/* A sixth of what 0.6 s of CPU gives: throttled samples on a busy machine. */
		cr_expect_geq(c.samples, 100, "thread %u: %llu samples", t->tid,
			      (unsigned long long)c.samples);
		/* Recorded at most 100 ms (wall) before its last sample. */
		cr_expect_geq((double)c.cpu_ns / 1e9, IT_RAW_SECONDS - IT_RAW_LAG,
			      "thread %u: %.3f s of CPU time known, it burnt %.3f s or more",
			      t->tid, (double)c.cpu_ns / 1e9, IT_RAW_SECONDS);
		cr_expect(c.split && c.has_share, "thread %u: no user time", t->tid);
	}
	cr_expect_eq(burners, 2, "process %u: %zu burner logs", p->pid, burners);
}

/* p's CPU time, the never sampled thread's too. */
static void it_raw_expect_process(const struct pa_filter *f, const struct pa_process *p)
{
	struct pa_coverage c;

	pa_coverage_process(f, p, &c);
	cr_expect_geq((double)c.cpu_ns / 1e9, 3 * IT_RAW_SECONDS - 2 * IT_RAW_LAG,
		      "process %u: %.3f s of CPU time known, its threads burnt %.3f s or more",
		      p->pid, (double)c.cpu_ns / 1e9, 3 * IT_RAW_SECONDS);
}

Test(it_rawexit, one_line_for_the_run_samples_and_cpu_reported)
{
	const char *argv[] = { "workloads/rawexit", "0.6", NULL };
	const char *threads[] = { "pprof-analyze", "threads", it_raw.data, NULL };
	const char *processes[] = { "pprof-analyze", "processes", it_raw.data, NULL };
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct tst_result r;
	struct pa_run *run;
	size_t unended = 0;

	tst_run_profiled(&it_raw, "rawexit", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "rawexit: status %#x: %s",
		  r.status, r.err);
	cr_expect_str_eq(r.out, "rawexit: parent done\n");
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);

	run = tst_load(&it_raw);
	cr_assert_eq(run->nprocesses, 2);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	for (size_t i = 0; i < run->nprocesses; i++) {
		cr_expect_not(run->processes[i]->ended);
		it_raw_expect_burners(&f, run->processes[i]);
		it_raw_expect_process(&f, run->processes[i]);
	}
	pa_run_free(run);

	/* Every report says it once, whatever the number of logs without END. */
	tst_run(&it_raw, "threads", threads, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "pprof-analyze: "), 1, "stderr:\n%s", r.err);
	cr_expect(strstr(r.err, ": 2 processes ended without an end record (raw exit_group or "
			 "killed): rawexit"), "stderr:\n%s", r.err);
	cr_expect_null(strstr(r.err, "not finalised"), "stderr:\n%s", r.err);
	cr_expect_eq(tst_count_lines(r.out, "# event cpu-clock"), 1, "%s", r.out);
	cr_expect_eq(tst_count_lines(r.out, "# CPU time in no thread's log: 2 processes used "),
		     1, "%s", r.out);
	tst_result_release(&r);
	tst_run(&it_raw, "processes", processes, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "pprof-analyze: "), 1, "stderr:\n%s", r.err);
	for (const char *at = r.out; (at = strstr(at, "  exit_group or killed?\n")); at++)
		unended++;
	cr_expect_eq(unended, 2, "%s", r.out);
	tst_result_release(&r);
}
