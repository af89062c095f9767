/*
 * wall (analyze/wall.c) with sched_yield stretches (PPF_REC_WALL_YIELD):
 * a thread that waits in a loop calling sched_yield is preempted at every
 * call another thread is ready and spends its time on the CPU mostly in
 * the kernel, which user-only sampling does not see. Inside a stretch, its
 * preempted time goes above the stretch's own stack (the caller's of
 * sched_yield) and the time of its calls on the CPU onto that stack; a
 * stretch without a stack of its own borrows the nearest sample taken in
 * another stretch, not the compute around it; stretches with a wait
 * between them, or other stacks, stay apart. A broken stretch record is
 * an error naming its offset.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"
#include "wall.h"

#define TY_MS 1000000ull

static char *ty_dir;

static void ty_setup(void)
{
	ty_dir = tst_log_tmpdir();
}

static void ty_teardown(void)
{
	tst_log_rmdir(ty_dir);
	ty_dir = NULL;
}

TestSuite(wall_yield, .init = ty_setup, .fini = ty_teardown, .timeout = 10);

static const uint64_t ty_cpu_ips[2] = { 0x401010, 0x402020 };
static const uint64_t ty_loop_ips[3] = { 0x7f0000003000, 0x401300, 0x402020 };

/*
 * app.7: cpu-clock at 1 ms; thread 7 computed (samples at 10..40 ms and
 * at 290 ms) and, when loop_sample_ms is not 0, took one sample in its
 * wait loop then.
 */
static char *ty_process(uint64_t loop_sample_ms)
{
	static const char *const argv[] = { "app", NULL };
	char *pdir = tst_log_subdir(ty_dir, "app.7");
	struct tst_log l;
	uint64_t n = 5 + (loop_sample_ms != 0);

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", TY_MS, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 900 * TY_MS, n, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	for (int i = 0; i < 4; i++)
		tst_log_sample(&l, (uint64_t)(i + 1) * 10 * TY_MS, 0, 0, 2, ty_cpu_ips);
	if (loop_sample_ms)
		tst_log_sample(&l, loop_sample_ms * TY_MS, 0, 0, 3, ty_loop_ips);
	tst_log_sample(&l, 290 * TY_MS, 0, 0, 2, ty_cpu_ips);
	tst_log_thread_end(&l, 900 * TY_MS, n, 0, n * TY_MS);
	tst_log_write(&l, pdir, "thread-7.log");
	return pdir;
}

/* pdir/wall.log begun by the preload's writers: period and tick 1 ms. */
static void ty_start(const char *pdir, struct pp_logfile *log)
{
	struct ppf_wall_start st = { .period_ns = TY_MS, .tick_ns = TY_MS, .start_ns = 1000,
				     .ring_pages = 2 };

	tst_wall_log_start(pdir, &st, log);
}

static void ty_interval(struct pp_logfile *log, uint32_t tid, uint16_t state, uint64_t out_ms,
			uint64_t len_ms)
{
	struct ppf_wall_interval iv = { .tid = tid, .state = state, .out_ns = out_ms * TY_MS,
					.in_ns = (out_ms + len_ms) * TY_MS,
					.stack = PPF_WALL_NO_STACK, .nr = -1 };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)), 0);
}

static void ty_runnable(struct pp_logfile *log, uint64_t out_ms, uint64_t len_ms)
{
	ty_interval(log, 7, PPF_WALL_RUNNABLE, out_ms, len_ms);
}

/*
 * Thread tid's stretch from from_ms to to_ms, in_ms of it inside the calls,
 * with stack stack; size: the record's (PPF_WALL_YIELD_V1_SIZE: the first
 * writers', without in_calls_ns).
 */
static void ty_stretch_of(struct pp_logfile *log, uint32_t tid, uint64_t from_ms, uint64_t to_ms,
			  uint64_t in_ms, uint32_t stack, uint32_t size)
{
	struct ppf_wall_yield y = { .tid = tid, .calls = 5000, .from_ns = from_ms * TY_MS,
				    .to_ns = to_ms * TY_MS, .stack = stack,
				    .in_calls_ns = in_ms * TY_MS };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_YIELD, &y, size), 0);
}

static void ty_stretch(struct pp_logfile *log, uint64_t from_ms, uint64_t to_ms, uint64_t in_ms,
		       uint32_t stack)
{
	ty_stretch_of(log, 7, from_ms, to_ms, in_ms, stack, sizeof(struct ppf_wall_yield));
}

static struct pa_run *ty_load(void)
{
	struct pa_load_opts opts = { .collapse = true };
	struct pa_error err = { 0 };
	struct pa_run *run;

	cr_assert_eq(pa_run_load_opts(ty_dir, &opts, &run, &err), 0, "%s: %s", err.path,
		     err.reason);
	return run;
}

/*
 * Wall samples of thread tid of run's first process: off the CPU
 * ("[off-cpu: runnable]" above a stack whose frame 1 is at ip), or
 * on it (leaf at ip, no leaf of the analyzer's).
 */
static uint64_t ty_wall_of(const struct pa_run *run, uint32_t tid, bool runnable, uint64_t ip)
{
	const struct pa_process *p = run->processes[0];
	const struct pa_event *ev = pa_process_find_event_named(p, "wall");
	uint64_t n = 0;

	cr_assert_not_null(ev, "no wall event");
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];

		for (size_t j = 0; t->tid == tid && j < t->nsamples; j++) {
			const struct pa_sample *s = &t->samples[j];
			const char *leaf = pa_wall_frame_name(s->ips[0]);

			if (s->event != ev->index)
				continue;
			if (runnable && leaf && strcmp(leaf, "[off-cpu: runnable]") == 0 &&
			    s->nframes > 1 && s->ips[1] == ip)
				n += s->count;
			if (!runnable && !leaf && s->ips[0] == ip)
				n += s->count;
		}
	}
	return n;
}

static uint64_t ty_wall(const struct pa_run *run, bool runnable, uint64_t ip)
{
	return ty_wall_of(run, 7, runnable, ip);
}

/*
 * A 100 ms stretch with its stack, preempted twice (30 and 20 ms), 90 ms
 * of it inside the calls, no sample in it: the 50 ms preempted go above
 * the loop's stack (not the compute's samples, nearer in time), the 40 ms
 * of the calls on the CPU onto it, its leaf the call's place (the return
 * address less one); the compute's own preemption stays the compute's.
 */
Test(wall_yield, a_stretchs_time_goes_to_its_own_stack)
{
	char *pdir = ty_process(0);
	struct pp_logfile log;
	struct pa_run *run;

	ty_start(pdir, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, ty_loop_ips, 3, 0, 0), 0);
	ty_runnable(&log, 20, 3);
	ty_runnable(&log, 101, 30);
	ty_runnable(&log, 150, 20);
	ty_stretch(&log, 100, 200, 90, 0);
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, ty_loop_ips[0]), 50);
	cr_expect_eq(ty_wall(run, false, ty_loop_ips[0] - 1), 40);
	cr_expect_eq(ty_wall(run, true, ty_cpu_ips[0]), 3);
	cr_expect_eq(ty_wall(run, false, ty_cpu_ips[0]), 5, "the CPU samples changed");
	pa_run_free(run);
	free(pdir);
}

/*
 * Two stretches with different stacks, a 50 ms futex wait between them:
 * not one stretch; the second's preemption goes above its own stack.
 * Thread 12 (no log, no CPU sample) has a stretch with its stack: its
 * preemption and the time of its calls on the CPU go there too.
 */
Test(wall_yield, stretches_apart_keep_their_stacks)
{
	static const uint64_t other_ips[3] = { 0x7f0000004000, 0x401400, 0x402020 };
	char *pdir = ty_process(0);
	struct pp_logfile log;
	struct pa_run *run;

	ty_start(pdir, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, ty_loop_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, other_ips, 3, 0, 0), 0);
	ty_interval(&log, 7, PPF_WALL_FUTEX, 110, 50);
	ty_runnable(&log, 165, 10);
	ty_stretch(&log, 100, 110, 5, 0);
	ty_stretch(&log, 160, 200, 15, 1);
	ty_interval(&log, 12, PPF_WALL_RUNNABLE, 105, 10);
	ty_stretch_of(&log, 12, 100, 150, 30, 0, sizeof(struct ppf_wall_yield));
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, other_ips[0]), 10);
	cr_expect_eq(ty_wall(run, true, ty_loop_ips[0]), 0);
	cr_expect_eq(ty_wall(run, false, other_ips[0] - 1), 5);
	cr_expect_eq(ty_wall(run, false, ty_loop_ips[0] - 1), 5);
	cr_expect_eq(ty_wall_of(run, 12, true, ty_loop_ips[0]), 10);
	cr_expect_eq(ty_wall_of(run, 12, false, ty_loop_ips[0] - 1), 20);
	pa_run_free(run);
	free(pdir);
}

/*
 * Two stretches without stacks (the unwind failed): the first has a
 * sample of the loop (at 150 ms), the second none, and a compute sample
 * lies nearer to its preemption (290 ms) than the loop's. Its 10 ms
 * preempted go above the loop's sample; the time of the calls on the CPU
 * (80 ms in the first, 1 ms in the second) onto it too. A record of the
 * first writers (no time inside the calls) reads: its stretch's length
 * less its samples' periods.
 */
Test(wall_yield, a_stretch_without_a_stack_borrows_another_stretchs_sample)
{
	char *pdir = ty_process(150);
	struct pp_logfile log;
	struct pa_run *run;

	ty_start(pdir, &log);
	ty_stretch(&log, 100, 200, 80, PPF_WALL_NO_STACK);
	ty_runnable(&log, 295, 10);
	ty_stretch(&log, 294, 306, 11, PPF_WALL_NO_STACK);
	ty_stretch_of(&log, 7, 400, 420, 0, PPF_WALL_NO_STACK, PPF_WALL_YIELD_V1_SIZE);
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, ty_loop_ips[0]), 10);
	cr_expect_eq(ty_wall(run, true, ty_cpu_ips[0]), 0);
	/* 80 + 1, 20 of the old record's stretch, and the sample itself */
	cr_expect_eq(ty_wall(run, false, ty_loop_ips[0]), 102);
	pa_run_free(run);
	free(pdir);
}

/* Without stretches the same preemption goes to the compute nearest in time. */
Test(wall_yield, without_stretches_preemption_goes_to_the_nearest_sample)
{
	char *pdir = ty_process(150);
	struct pp_logfile log;
	struct pa_run *run;

	ty_start(pdir, &log);
	ty_runnable(&log, 295, 10);
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, ty_cpu_ips[0]), 10);
	cr_expect_eq(ty_wall(run, false, ty_loop_ips[0]), 1);
	pa_run_free(run);
	free(pdir);
}

/*
 * A log whose only stretch runs from from_ms to to_ms, in_ms inside its
 * calls, with stack stack does not load: the error names wall.log, an offset, and says what.
 */
static void ty_bad(uint64_t from_ms, uint64_t to_ms, uint64_t in_ms, uint32_t stack,
		   const char *what)
{
	char *pdir = ty_process(0);
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;
	struct pp_logfile log;

	ty_start(pdir, &log);
	ty_stretch(&log, from_ms, to_ms, in_ms, stack);
	pp_logfile_close_sigsafe(&log);
	cr_assert_lt(pa_run_load(ty_dir, &run, &err), 0);
	cr_expect(strstr(err.path, "wall.log"), "%s", err.path);
	cr_expect(err.has_offset);
	cr_expect(strstr(err.reason, what), "%s", err.reason);
	free(pdir);
}

Test(wall_yield, a_bad_stretch_is_an_error_at_its_offset)
{
	ty_bad(200, 100, 0, PPF_WALL_NO_STACK, "yield stretch of thread 7");
}

/* A stretch longer inside its calls than in all. */
Test(wall_yield, a_stretch_with_more_time_in_calls_than_its_length_is_an_error)
{
	ty_bad(100, 200, 150, PPF_WALL_NO_STACK, "(150000000 inside)");
}

/* A stretch naming a stack the log does not have. */
Test(wall_yield, a_stretchs_unknown_stack_is_an_error_at_its_offset)
{
	ty_bad(100, 200, 0, 3, "stack 3 of 0");
}
