/*
 * Integration: the wall-clock event ([sample wall]) across the process's
 * run-time turns, in the mode under test. walllife waits in known
 * functions: paused time (pprof_pause(), the toggle signal, the delay) is
 * no wall time, a wait across a pause counts its profiled part only, a
 * failed exec does not end the event, a thread older than the profiler
 * (libearly.so's) shows its waits. The helper thread is the profiler's:
 * no sample of the program is in it, and its CPU time is not the
 * program's; a process starting 1,000 threads loses no switch record.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pprof/format.h"
#include "reader.h"
#include "tst_it.h"

static struct tst_it it_wli;

static void it_wli_init(void)
{
	tst_init(&it_wli);
}

static void it_wli_fini(void)
{
	tst_release(&it_wli);
}

TestSuite(it_wall_life, .init = it_wli_init, .fini = it_wli_fini, .timeout = 180);

#define IT_WLI_WALL "[sample cpu-clock]\n[sample wall]\nperiod = 1ms\n"
#define IT_WLI_PERIOD_S 1e-3
#define IT_WLI_MS 300

/*
 * Runs walllife (args after its name, NULL-terminated) with the wall event
 * and the [profile] lines extra; its truth file into truth. The program
 * must run as it does unprofiled.
 */
static void it_wli_run(const char *extra, const char *const *args, char *truth)
{
	char cfg[TST_CONFIG_ENV_MAX], text[256], prog[TST_PATH_MAX];
	char truth_env[TST_PATH_MAX + 16];
	const char *env[] = { it_wli.env_preload, it_wli.env_output, cfg, truth_env, NULL };
	const char *argv[8] = { prog };
	struct tst_result r;

	tst_build_path(prog, "workloads/walllife");
	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	snprintf(text, sizeof(text), "%s%s", IT_WLI_WALL, extra);
	tst_config_env(&it_wli, "wall.ini", text, cfg);
	snprintf(truth, TST_PATH_MAX, "%s/truth", it_wli.tmp);
	snprintf(truth_env, sizeof(truth_env), "PPROF_TRUTH=%s", truth);
	tst_run(&it_wli, "walllife", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	cr_expect(strstr(r.out, "walllife: done"), "stdout: %s", r.out);
	cr_expect_null(strstr(r.err, "libpprof:"), "stderr: %s", r.err);
	tst_result_release(&r);
}

/*
 * Seconds of wall time off the CPU with func in the stack: the wall
 * samples under an [off-cpu: ...] leaf (folded --event wall) times the
 * period.
 */
static double it_wli_off_s(const char *func)
{
	return (double)tst_wall_off(&it_wli, func) * IT_WLI_PERIOD_S;
}

/*
 * A pause (pprof_pause() or the toggle signal) in the middle: the wait
 * inside it is not there at all, the waits outside it are, and the wait
 * across it counts what was not paused.
 */
static void it_wli_pause(const char *extra, const char *const *args)
{
	char truth[TST_PATH_MAX];
	double across, outer, inner, got, running;

	it_wli_run(extra, args, truth);
	across = tst_truth(truth, "wait_across");
	outer = tst_truth(truth, "paused_outer");
	inner = tst_truth(truth, "paused_inner");
	cr_expect_eq(it_wli_off_s("wait_paused"), 0.0, "%.3f s of wall time while paused",
		     it_wli_off_s("wait_paused"));
	running = it_wli_off_s("wait_running");
	cr_expect_geq(running, 0.9 * 2 * IT_WLI_MS / 1e3,
		      "wait_running: %.3f s of wall time for two waits of %d ms", running,
		      IT_WLI_MS);
	/* The pause lies between the calls (outer), and around wait_paused (inner). */
	got = it_wli_off_s("wait_across");
	cr_expect(got >= 0.95 * (across - outer) - 0.005 && got <= across - inner + 0.005,
		  "wait_across: %.3f s of wall time; it waited %.3f s, %.3f..%.3f s of it paused",
		  got, across, inner, outer);
}

Test(it_wall_life, pause_call_leaves_paused_time_out)
{
	static const char *const args[] = { "api", "300", NULL };

	it_wli_pause("", args);
}

Test(it_wall_life, toggle_signal_leaves_paused_time_out)
{
	char sig[16];
	const char *const args[] = { "signal", sig, "300", NULL };

	snprintf(sig, sizeof(sig), "%d", SIGUSR2);
	it_wli_pause("[profile]\ntoggle_signal = SIGUSR2\n", args);
}

Test(it_wall_life, delay_holds_the_wall_event_off)
{
	static const char *const args[] = { "delay", "600", NULL };
	char truth[TST_PATH_MAX];
	double running;

	it_wli_run("[profile]\ndelay = 600ms\n", args, truth);
	cr_expect_eq(it_wli_off_s("wait_paused"), 0.0, "%.3f s of wall time in the delay",
		     it_wli_off_s("wait_paused"));
	running = it_wli_off_s("wait_running");
	cr_expect_geq(running, 0.9 * 0.6, "wait_running: %.3f s of wall time for 600 ms",
		      running);
}

Test(it_wall_life, waits_after_a_failed_exec_are_there)
{
	static const char *const args[] = { "exec", "300", NULL };
	char truth[TST_PATH_MAX];
	double before, after;

	it_wli_run("", args, truth);
	before = it_wli_off_s("wait_running");
	after = it_wli_off_s("wait_after");
	cr_expect_geq(before, 0.9 * IT_WLI_MS / 1e3, "before the exec: %.3f s", before);
	cr_expect_geq(after, 0.9 * IT_WLI_MS / 1e3, "after the failed exec: %.3f s", after);
}

Test(it_wall_life, a_thread_older_than_the_profiler_shows_its_waits)
{
	static const char *const args[] = { "early", "300", NULL };
	char truth[TST_PATH_MAX];
	double got;

	it_wli_run("", args, truth);
	/* libearly.so's thread waits for main's call after main's wait. */
	got = it_wli_off_s("early_main");
	cr_expect_geq(got, 0.9 * IT_WLI_MS / 1e3,
		      "early_main: %.3f s of wall time for a wait of %d ms or more", got,
		      IT_WLI_MS);
}

/*
 * idlers: 1,000 threads started at once, sleeping, the main thread burning
 * for 2 s: long enough that the CPU time no thread's log holds stays
 * under the analyzer's 10% ("CPU time in no thread's log") on a busy
 * machine (at 1 s, the main thread's CPU cut by load, it was 10.7% once:
 * 0.119 s of 1.108 s).
 */
static void it_wli_idlers(char **cpu, char **wall)
{
	static const char *const top[] = { "top", "--event", "cpu-clock", NULL };
	static const char *const wtop[] = { "top", "--event", "wall", NULL };
	char cfg[TST_CONFIG_ENV_MAX], prog[TST_PATH_MAX];
	const char *env[] = { it_wli.env_preload, it_wli.env_output, cfg, NULL };
	const char *argv[] = { prog, "1000", "2", "100", NULL };
	struct tst_result r;

	tst_build_path(prog, "workloads/idlers");
	tst_config_env(&it_wli, "wall.ini", IT_WLI_WALL, cfg);
	tst_run(&it_wli, "idlers", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	tst_result_release(&r);
	*cpu = tst_analyze(&it_wli, "top", top, it_wli.data);
	*wall = tst_analyze(&it_wli, "top-wall", wtop, it_wli.data);
	cr_assert(strstr(*wall, "# wall: the profiler's helper used"), "%s", *wall);
}

/*
 * The helper's CPU is the profiler's: not sampled (no libpprof frame in the
 * CPU profile), not counted as the program's ("CPU time in no thread's
 * log"); the wall report's header tells it.
 */
Test(it_wall_life, the_helper_is_not_the_programs)
{
	static const char *const folded[] = { "folded", "--event", "cpu-clock", NULL };
	char *cpu, *wall, *stacks;

	it_wli_idlers(&cpu, &wall);
	stacks = tst_analyze(&it_wli, "folded", folded, it_wli.data);
	cr_expect_null(strstr(stacks, "pp_wall_helper_main"), "the helper sampled:\n%s",
		       strstr(stacks, "pp_wall_helper_main"));
	cr_expect_null(strstr(cpu, "CPU time in no thread's log"), "%s", cpu);
	free(stacks);
	free(cpu);
	free(wall);
}

/* What wall.log says of one thread at its end (PPF_REC_WALL_THREAD). */
struct it_wli_thread {
	uint32_t tid;
	bool seen;
	struct ppf_wall_thread rec;
};

static int it_wli_thread_cb(void *ctx, const char *path, uint64_t off, const char *rec,
			    uint32_t type, uint32_t size, struct pa_error *err)
{
	struct it_wli_thread *t = ctx;
	struct ppf_wall_thread r;

	(void)path, (void)off, (void)err;
	if (type != PPF_REC_WALL_THREAD || size < sizeof(r))
		return 0;
	memcpy(&r, rec, sizeof(r));
	if (r.tid == t->tid) {
		t->seen = true;
		t->rec = r;
	}
	return 0;
}

/*
 * The thread that started 1,000 threads (each may preempt it) lost no
 * switch record: its own (in wall.log; with the per-CPU rings, none of
 * any CPU it ran on), and, unless the machine starved the helper of a
 * CPU, nobody's (the wall report's header).
 */
Test(it_wall_life, starting_a_thousand_threads_loses_no_switch)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct it_wli_thread t = { 0 };
	char *cpu, *wall, path[TST_PATH_MAX];
	struct pa_run *run;

	it_wli_idlers(&cpu, &wall);
	run = tst_load(&it_wli);
	cr_assert_eq(run->nprocesses, 1);
	t.tid = run->processes[0]->pid;
	tst_process_file(run->processes[0], PPF_WALL_LOG, path, sizeof(path));
	cr_assert_eq(pa_log_walk_file(path, PPF_FILE_WALL, it_wli_thread_cb, &t, &warn, &err), 0,
		     "%s", err.reason);
	cr_assert(t.seen, "%s: no record of thread %u", path, t.tid);
	cr_expect_gt(t.rec.ring_pages, 0, "thread %u had no ring (error %d)", t.tid,
		     t.rec.error);
	cr_expect_eq(t.rec.lost, 0, "thread %u lost %llu switch records:\n%s", t.tid,
		     (unsigned long long)t.rec.lost, wall);
	if (strstr(wall, "switch records lost"))
		cr_log_warn("other threads lost switch records (a busy machine): %s", wall);
	pa_warnings_release(&warn);
	pa_run_free(run);
	free(cpu);
	free(wall);
}
