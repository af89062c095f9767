/*
 * wall (analyze/wall.c) with sched_yield stretches (PPF_REC_WALL_YIELD):
 * a thread that waits in a loop calling sched_yield is preempted at every
 * call another thread is ready and spends its time on the CPU mostly in
 * the kernel, which user-only sampling does not see. Inside a stretch, its
 * preempted time goes above the stretch's own stack (the caller's of
 * sched_yield) and its time on the CPU that its samples do not account for
 * onto that stack; a stretch without a stack of its own borrows the
 * nearest sample taken in another stretch, not the compute around it. A
 * broken stretch record is an error naming its offset.
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

static void ty_runnable(struct pp_logfile *log, uint64_t out_ms, uint64_t len_ms)
{
	struct ppf_wall_interval iv = { .tid = 7, .state = PPF_WALL_RUNNABLE,
					.out_ns = out_ms * TY_MS,
					.in_ns = (out_ms + len_ms) * TY_MS,
					.stack = PPF_WALL_NO_STACK, .nr = -1 };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)), 0);
}

static void ty_stretch(struct pp_logfile *log, uint64_t from_ms, uint64_t to_ms, uint32_t stack)
{
	struct ppf_wall_yield y = { .tid = 7, .calls = 5000, .from_ns = from_ms * TY_MS,
				    .to_ns = to_ms * TY_MS, .stack = stack };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_YIELD, &y, sizeof(y)), 0);
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
 * Wall samples of thread 7 of run's first process: off the CPU
 * ("[off-cpu: runnable]" above a stack whose frame 1 is at ip), or
 * on it (leaf at ip, no leaf of the analyzer's).
 */
static uint64_t ty_wall(const struct pa_run *run, bool runnable, uint64_t ip)
{
	const struct pa_process *p = run->processes[0];
	const struct pa_event *ev = pa_process_find_event_named(p, "wall");
	uint64_t n = 0;

	cr_assert_not_null(ev, "no wall event");
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct pa_thread *t = p->threads[i];

		for (size_t j = 0; t->tid == 7 && j < t->nsamples; j++) {
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

/*
 * A 100 ms stretch with its stack, preempted twice (30 and 20 ms), no
 * sample in it: the 50 ms preempted go above the loop's stack (not the
 * compute's samples, nearer in time), the 50 ms on the CPU unsampled onto
 * it; the compute's own preemption stays the compute's.
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
	ty_stretch(&log, 100, 200, 0);
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, ty_loop_ips[0]), 50);
	cr_expect_eq(ty_wall(run, false, ty_loop_ips[0]), 50);
	cr_expect_eq(ty_wall(run, true, ty_cpu_ips[0]), 3);
	cr_expect_eq(ty_wall(run, false, ty_cpu_ips[0]), 5, "the CPU samples changed");
	pa_run_free(run);
	free(pdir);
}

/*
 * Two stretches without stacks (the unwind failed): the first has a
 * sample of the loop (at 150 ms), the second none, and a compute sample
 * lies nearer to its preemption (290 ms) than the loop's. Its 10 ms
 * preempted go above the loop's sample; the first stretch's 99 ms on the
 * CPU that its one sample does not account for go onto it too.
 */
Test(wall_yield, a_stretch_without_a_stack_borrows_another_stretchs_sample)
{
	char *pdir = ty_process(150);
	struct pp_logfile log;
	struct pa_run *run;

	ty_start(pdir, &log);
	ty_stretch(&log, 100, 200, PPF_WALL_NO_STACK);
	ty_runnable(&log, 295, 10);
	ty_stretch(&log, 294, 306, PPF_WALL_NO_STACK);
	pp_logfile_close_sigsafe(&log);

	run = ty_load();
	cr_expect_eq(ty_wall(run, true, ty_loop_ips[0]), 10);
	cr_expect_eq(ty_wall(run, true, ty_cpu_ips[0]), 0);
	/* 99 ms of the first stretch, 2 of the second, and the sample itself */
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
 * A log whose only stretch runs from from_ms to to_ms with stack stack
 * does not load: the error names wall.log, an offset, and says what.
 */
static void ty_bad(uint64_t from_ms, uint64_t to_ms, uint32_t stack, const char *what)
{
	char *pdir = ty_process(0);
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;
	struct pp_logfile log;

	ty_start(pdir, &log);
	ty_stretch(&log, from_ms, to_ms, stack);
	pp_logfile_close_sigsafe(&log);
	cr_assert_lt(pa_run_load(ty_dir, &run, &err), 0);
	cr_expect(strstr(err.path, "wall.log"), "%s", err.path);
	cr_expect(err.has_offset);
	cr_expect(strstr(err.reason, what), "%s", err.reason);
	free(pdir);
}

Test(wall_yield, a_bad_stretch_is_an_error_at_its_offset)
{
	ty_bad(200, 100, PPF_WALL_NO_STACK, "yield stretch of thread 7");
}

/* A stretch naming a stack the log does not have. */
Test(wall_yield, a_stretchs_unknown_stack_is_an_error_at_its_offset)
{
	ty_bad(100, 200, 3, "stack 3 of 0");
}
