/*
 * Integration: the wall-clock event's edge cases, with waitedge (each case
 * measures its own truth) in the mode under test.
 * - A wait still open when the process ends (main returns, calls exit, or
 *   the process dies of SIGTERM's default action): the wall profile has
 *   its time, as long as the workload measured, not zero.
 * - A blocked thread's stack reaches its callers whether they keep a frame
 *   pointer (waitedge-fp) or not (waitedge).
 * - A high switch rate (two threads ping-ponging over pipes): the time off
 *   the CPU per function is the workload's own, less at most the time the
 *   header says is not known because switch records were lost (so records
 *   lost without a word fail the test), more at most by the kernel's
 *   switch path each interval holds.
 * - pause() woken by a signal the program sends itself: its handling, its
 *   output and its exit status are its own.
 * - Forks while the helper thread runs: every child runs and exits.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "eventinfo.h"
#include "samples.h"
#include "tst_it.h"
#include "wall.h"

static struct tst_it it_we;

static void it_we_init(void)
{
	tst_init(&it_we);
}

static void it_we_fini(void)
{
	tst_release(&it_we);
}

TestSuite(it_wall_edges, .init = it_we_init, .fini = it_we_fini, .timeout = 240);

#define IT_WE_CONFIG "[sample cpu-clock]\n[sample wall]\nperiod = 1ms\n"

/* Runs waitedge (or prog) profiled with the wall event, its truth into tmp/truth. */
static void it_we_run(const char *const *argv, struct tst_result *r, char *truth)
{
	char cfg[TST_CONFIG_ENV_MAX], truth_env[TST_PATH_MAX + 16];
	const char *env[] = { it_we.env_preload, it_we.env_output, cfg, truth_env, NULL };

	snprintf(truth, TST_PATH_MAX, "%s/truth", it_we.tmp);
	snprintf(truth_env, sizeof(truth_env), "PPROF_TRUTH=%s", truth);
	tst_config_env(&it_we, "wall.ini", IT_WE_CONFIG, cfg);
	tst_run(&it_we, strrchr(argv[0], '/') + 1, argv, env, r);
}

struct it_we_count {
	const char *func;
	uint64_t off;                   /* wall samples off the CPU with func in the stack */
	const struct pa_thread *thread; /* the last thread with func in such a stack */
	size_t depth;                   /* frames below func in the deepest such stack */
	char stack[1024];               /* that stack, outermost last */
};

static int it_we_count_cb(void *ctx, const struct pa_samples_item *item)
{
	struct it_we_count *c = ctx;

	if (!pa_wall_frame_name(item->frames[0].ip))
		return 0;
	for (size_t i = 0; i < item->nframes; i++)
		if (item->frames[i].function && strcmp(item->frames[i].function, c->func) == 0) {
			c->off += item->sample->count;
			c->thread = item->thread;
			if (item->nframes - 1 - i > c->depth || !c->stack[0]) {
				size_t len = 0;

				c->depth = item->nframes - 1 - i;
				c->stack[0] = '\0';
				for (size_t k = 0; k < item->nframes && len + 64 < sizeof(c->stack); k++)
					len += (size_t)snprintf(c->stack + len, sizeof(c->stack) - len,
								"%s ", item->frames[k].function ?
								item->frames[k].function : "?");
			}
			break;
		}
	return 0;
}

/* The run's wall samples off the CPU with func in their stack. */
static struct it_we_count it_we_count(const struct pa_run *run, const char *func)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct it_we_count c = { .func = func };
	struct pa_error err = { 0 };

	cr_assert_eq(pa_events_choose(run, &f, PA_WALL_EVENT_NAME, PA_EVENTS_SAMPLES, &err), 0,
		     "%s", err.reason);
	cr_assert_eq(pa_samples_walk(run, &f, it_we_count_cb, &c, NULL, &err), 0, "%s",
		     err.reason);
	return c;
}

/* Whether the wall profile's stacks with func hold caller below it. */
static bool it_we_has_caller(const struct it_we_count *c, const char *caller)
{
	char word[128];

	snprintf(word, sizeof(word), " %s ", caller);
	return strstr(c->stack, word + 1) == c->stack || strstr(c->stack, word);
}

/*
 * waitedge HOW 1: a thread blocked in read() for the whole second the main
 * thread sleeps before the process ends. Its wait is in the wall profile,
 * as long as the workload measured: 2% of it, three periods (rounding),
 * two of the helper's ticks (a killed process's last one is when its time
 * stops being known) and what the hypervisor took meanwhile. Killed, also
 * the time from the helper's last tick (wall.log's PPF_REC_WALL_ALIVE) to
 * the workload's raise: on a busy machine the helper may wait for a CPU
 * longer than two ticks (25 ms once beside two busy loops); that it kept
 * ticking to within half a second of the end is checked.
 */
static void it_we_open_at_end(const char *how, bool killed)
{
	const char *argv[] = { "workloads/waitedge", how, "1", NULL };
	char truth[TST_PATH_MAX];
	double steal = tst_steal_s(), want, got, period, tick, slack;
	const struct pa_wall_info *w;
	struct it_we_count c;
	struct tst_result r;
	struct pa_run *run;

	it_we_run(argv, &r, truth);
	steal = tst_steal_s() - steal;
	if (killed)
		cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM,
			  "status 0x%x, not killed by SIGTERM: %s", r.status, r.err);
	else
		cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
			  r.status, r.err);
	cr_expect(strstr(r.out, "waitedge: done"), "stdout: %s", r.out);
	cr_expect_null(strstr(r.err, "libpprof:"), "stderr: %s", r.err);
	run = tst_load(&it_we);
	w = run->processes[0]->wall;
	cr_assert_not_null(w, "no wall.log");
	cr_expect(w->ended != killed, "wall.log %s an end record", w->ended ? "has" : "lacks");
	period = (double)w->period_ns * 1e-9;
	tick = (double)w->tick_ns * 1e-9;
	want = tst_truth(truth, "wait_forever");
	c = it_we_count(run, "wait_forever");
	got = (double)c.off * period;
	slack = 0.02 * want + 3 * period + 2 * tick + steal;
	if (killed && w->alive_ns) {
		double late = tst_truth(truth, "wait_forever.end_s") - (double)w->alive_ns * 1e-9;

		cr_expect_lt(late, 0.5, "%s: the helper's last tick %.3f s before the end", how,
			     late);
		slack += late > 0 ? late : 0;
	}
	cr_expect(fabs(got - want) <= slack, "%s: the wait open at the end: %.4f s off the CPU in "
		  "wall samples, the workload measured %.4f s (slack %.4f s)", how, got, want,
		  slack);
	pa_run_free(run);
	tst_result_release(&r);
}

Test(it_wall_edges, a_wait_open_when_main_returns_is_counted)
{
	it_we_open_at_end("return", false);
}

Test(it_wall_edges, a_wait_open_when_the_process_exits_is_counted)
{
	it_we_open_at_end("exit", false);
}

Test(it_wall_edges, a_wait_open_when_sigterm_kills_the_process_is_counted)
{
	it_we_open_at_end("term", true);
}

/* A thread reads a pipe in park_inner, called by park_outer from its start. */
static void it_we_callers(const char *prog)
{
	const char *argv[] = { prog, "callers", "40", "10", NULL };
	static const char *const callers[] = { "park_outer", "we_parker", "start_thread" };
	char truth[TST_PATH_MAX];
	struct it_we_count c;
	struct tst_result r;
	struct pa_run *run;

	it_we_run(argv, &r, truth);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	run = tst_load(&it_we);
	c = it_we_count(run, "park_inner");
	cr_assert_gt(c.off, 0, "%s: no wall sample off the CPU in park_inner", prog);
	for (size_t i = 0; i < sizeof(callers) / sizeof(callers[0]); i++)
		cr_expect(it_we_has_caller(&c, callers[i]), "%s: the blocked thread's deepest "
			  "stack stops before %s: %s", prog, callers[i], c.stack);
	pa_run_free(run);
	tst_result_release(&r);
}

Test(it_wall_edges, blocked_stacks_reach_callers_without_frame_pointers)
{
	it_we_callers("workloads/waitedge");
}

Test(it_wall_edges, blocked_stacks_reach_callers_with_frame_pointers)
{
	it_we_callers("workloads/waitedge-fp");
}

/*
 * 2 x 150,000 waits of a few microseconds each: the rings fill faster than
 * on any ordinary program, and the kernel may drop switch records. Per
 * loop, the time off the CPU in wall samples is the workload's less at
 * most what the wall header says lost records left unknown for that
 * thread: never more, and lost time is never silent. The slack: 5%, three
 * periods, the hypervisor's, and (upwards only) the kernel's switch path
 * that each interval holds, from the switch record out to the one in,
 * though the thread's CPU clock runs there: the CPU each loop used beyond
 * what it uses unprofiled (the same loop run first without the profiler).
 */
Test(it_wall_edges, a_high_switch_rate_loses_nothing_silently)
{
	static const char *const loops[] = { "ping_loop", "pong_loop" };
	const char *argv[] = { "workloads/waitedge", "pingpong", "150000", NULL };
	const char *top[] = { "top", "--event", "wall", NULL };
	char truth[TST_PATH_MAX], plain_truth[TST_PATH_MAX], plain_env[TST_PATH_MAX + 16];
	double steal, period, plain_cpu[2], path = 0;
	const struct pa_wall_info *w;
	struct tst_result r;
	struct pa_run *run;
	char *out;

	snprintf(plain_truth, sizeof(plain_truth), "%s/plain-truth", it_we.tmp);
	snprintf(plain_env, sizeof(plain_env), "PPROF_TRUTH=%s", plain_truth);
	tst_run(&it_we, "plain", argv, (const char *const[]){ plain_env, NULL }, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "unprofiled: status 0x%x: %s",
		  r.status, r.err);
	tst_result_release(&r);
	for (size_t i = 0; i < 2; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s.cpu", loops[i]);
		plain_cpu[i] = tst_truth(plain_truth, key);
	}
	steal = tst_steal_s();
	it_we_run(argv, &r, truth);
	steal = tst_steal_s() - steal;
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	run = tst_load(&it_we);
	w = run->processes[0]->wall;
	cr_assert_not_null(w, "no wall.log");
	period = (double)w->period_ns * 1e-9;
	out = tst_analyze(&it_we, "top", top, it_we.data);
	if (w->lost) {
		cr_expect(strstr(out, "switch records lost") && w->lost_ns > 0,
			  "%" PRIu64 " records lost, %.3f s unknown; the header: %s", w->lost,
			  (double)w->lost_ns * 1e-9, out);
	} else {
		cr_expect_null(strstr(out, "switch records lost"), "%s", out);
		cr_expect_eq(w->lost_ns, 0);
	}
	/*
	 * The switch path: the loops' CPU beyond an unprofiled run, both
	 * loops': a wait of one holds its partner's switches in and out as
	 * well as its own (seen in the signal mode, whose per-thread events
	 * make both dearer: 1.19 s above the truth and slack, one loop's path
	 * 1.14 s).
	 */
	for (size_t i = 0; i < 2; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s.cpu", loops[i]);
		plain_cpu[i] = tst_truth(truth, key) - plain_cpu[i];
		path += plain_cpu[i] > 0 ? plain_cpu[i] : 0;
	}
	for (size_t i = 0; i < 2; i++) {
		struct it_we_count c = it_we_count(run, loops[i]);
		double want = tst_truth(truth, loops[i]), got = (double)c.off * period;
		double unknown = c.thread ? (double)c.thread->wall_lost_ns * 1e-9 : 0;
		double slack = 0.05 * want + 3 * period + steal;
		cr_expect(got <= want + slack + path && want - got <= slack + unknown,
			  "%s: %.4f s off the CPU in wall samples, the workload measured %.4f s "
			  "(slack %.4f s, %.4f s more upwards for the switch path; %.4f s "
			  "unknown: %" PRIu64 " records lost in the process; %.0f waits/s)",
			  loops[i], got, want, slack, path, unknown, w->lost,
			  tst_truth(truth, "switches_per_s"));
	}
	free(out);
	pa_run_free(run);
	tst_result_release(&r);
}

/* The program's own signals and pause(): as without the profiler. */
Test(it_wall_edges, pause_woken_by_the_programs_own_signal_is_unchanged)
{
	const char *argv[] = { "workloads/waitedge", "pause", "50", NULL };
	static const char line[] = "waitedge: signals sent == handled; pause() returned EINTR "
				   "every time; enough pauses\n";
	char truth[TST_PATH_MAX];
	struct tst_result r, plain;
	struct pa_run *run;

	tst_run(&it_we, "plain", argv, NULL, &plain);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 7,
		  "unprofiled: status 0x%x: %s", plain.status, plain.err);
	cr_assert(strstr(plain.out, line), "unprofiled: %s", plain.out);
	it_we_run(argv, &r, truth);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7, "status 0x%x: %s", r.status,
		  r.err);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_null(strstr(r.err, "libpprof:"), "stderr: %s", r.err);
	run = tst_load(&it_we);
	cr_assert_not_null(run->processes[0]->wall, "no wall.log");
	cr_expect_gt(it_we_count(run, "we_pause").off, 0, "pause()'s waits are not in wall");
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&r);
}

/*
 * 300 forks one after the other while the helper ticks every millisecond:
 * each child's fork handler must not meet a lock the helper held.
 */
Test(it_wall_edges, forks_while_the_helper_runs_do_not_hang)
{
	const char *argv[] = { "workloads/waitedge", "forks", "300", NULL };
	char cfg[TST_CONFIG_ENV_MAX];
	const char *env[] = { it_we.env_preload, it_we.env_output, cfg, NULL };
	struct tst_result r;
	pid_t pid;

	tst_config_env(&it_we, "wall.ini", IT_WE_CONFIG, cfg);
	pid = tst_spawn(&it_we, "forks", argv, env);
	tst_wait_bounded(&it_we, "forks", pid, 120, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s", r.status,
		  r.err);
	cr_expect(strstr(r.out, "waitedge: done"), "stdout: %s", r.out);
	tst_result_release(&r);
}
