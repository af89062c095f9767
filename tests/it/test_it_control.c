/*
 * Integration: sampling paused and resumed at run time (README, "Starting
 * and stopping at run time"): include/pprof/control.h's pprof_pause and
 * pprof_resume, the toggle signal sent to the process, the configuration's
 * delay; threads started while paused start paused; the paused time in the
 * logs; a toggle signal the profiler needs refused in one line; the
 * program's own action for the toggle signal winning; a program built with
 * the header running the same without the profiler.
 *
 * The pausing workload burns burn_ctl_a, pauses, burns burn_ctl_b (and
 * burn_ctl_w in a thread started while paused), resumes, burns burn_ctl_c,
 * and writes the CPU time it spent in each: the paused functions must have
 * no sample, the others their share of their own measured time.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"
#include "profile.h"
#include "runs.h"

static struct tst_it it_c;

static void it_control_init(void)
{
	tst_init(&it_c);
}

static void it_control_fini(void)
{
	tst_release(&it_c);
}

TestSuite(it_control, .init = it_control_init, .fini = it_control_fini, .timeout = 120);

/* Runs pausing with args under config text (NULL: the default), its truth in tmp/truth. */
static void it_control_run(const char *config, const char *const *argv, struct tst_result *r)
{
	char cfg[TST_CONFIG_ENV_MAX], truth[TST_PATH_MAX], env[TST_PATH_MAX + 16];
	const char *full[] = { it_c.env_preload, it_c.env_output, env, config ? cfg : NULL,
			       NULL };
	pid_t pid;

	snprintf(truth, sizeof(truth), "%s/truth", it_c.tmp);
	snprintf(env, sizeof(env), "PPROF_TRUTH=%s", truth);
	if (config)
		tst_config_env(&it_c, "control.ini", config, cfg);
	pid = tst_spawn(&it_c, "pausing", argv, full);
	tst_wait(&it_c, "pausing", pid, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "pausing: %s", r->err);
	cr_assert(strstr(r->out, "done\n"), "pausing printed: %s", r->out);
}

/* The workload's truth for func, in seconds. */
static double it_control_truth(const char *func)
{
	char truth[TST_PATH_MAX];

	snprintf(truth, sizeof(truth), "%s/truth", it_c.tmp);
	return tst_truth(truth, func);
}

/*
 * func's samples stand for its measured CPU time: within half of it
 * either way (and the time the hypervisor took meanwhile), a bound wide
 * enough for a busy machine that a function sampled for a part of its time
 * only (paused too soon or resumed too late) still fails.
 */
static void it_control_sampled(const struct pa_profile *prof, double period, const char *func,
			       double steal)
{
	double truth = it_control_truth(func), got = (double)tst_self(prof, func) * period;

	cr_expect(got >= 0.5 * truth - steal && got <= 1.5 * truth + steal,
		  "%s: %.3f s of samples for %.3f s of CPU", func, got, truth);
}

/* The run's only process. */
static const struct pa_process *it_control_process(const struct pa_run *run)
{
	cr_assert_eq(run->nprocesses, 1);
	return run->processes[0];
}

/* pprof_pause/pprof_resume: nothing sampled in between, in any thread; the time is recorded. */
Test(it_control, call_pauses_every_thread)
{
	const char *argv[] = { "workloads/pausing", "api", "0.3", "0.3", "0.3", NULL };
	const struct pa_process *proc;
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double steal = tst_steal_s(), period;
	const struct pa_thread *worker = NULL, *main_t = NULL;

	it_control_run(NULL, argv, &r);
	steal = tst_steal_s() - steal;
	run = tst_load(&it_c);
	proc = it_control_process(run);
	period = tst_period_s(proc);
	prof = tst_profile(run, 0, 0);
	cr_expect_eq(tst_self(prof, "burn_ctl_b"), 0, "paused work was sampled");
	cr_expect_eq(tst_self(prof, "burn_ctl_w"), 0, "a thread started while paused was sampled");
	it_control_sampled(prof, period, "burn_ctl_a", steal);
	it_control_sampled(prof, period, "burn_ctl_c", steal);
	for (size_t i = 0; i < proc->nthreads; i++)
		*(proc->threads[i]->tid == proc->pid ? &main_t : &worker) = proc->threads[i];
	cr_assert(main_t && worker, "%zu threads", proc->nthreads);
	/* Each thread's CPU while paused is its burn there, as it measured it. */
	cr_expect_eq(main_t->paused.pauses, 1);
	cr_expect(fabs((double)main_t->paused.cpu_ns / 1e9 - it_control_truth("burn_ctl_b")) <
		  0.1 + 0.2 * it_control_truth("burn_ctl_b"), "main paused CPU %.3f s",
		  (double)main_t->paused.cpu_ns / 1e9);
	cr_expect_eq(worker->paused.pauses, 1, "the worker started paused");
	cr_expect(fabs((double)worker->paused.cpu_ns / 1e9 - it_control_truth("burn_ctl_w")) <
		  0.1 + 0.2 * it_control_truth("burn_ctl_w"), "worker paused CPU %.3f s",
		  (double)worker->paused.cpu_ns / 1e9);
	cr_expect_eq(proc->paused.pauses, 1);
	cr_expect(proc->paused.flags & PPF_PAUSED_CALL);
	cr_expect_geq(proc->paused.paused_ns, main_t->paused.paused_ns / 2);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
}

/* The toggle signal, sent to the process as kill(1) does, pauses and resumes. */
Test(it_control, toggle_signal_pauses_and_resumes)
{
	char sig[16];
	const char *argv[] = { "workloads/pausing", "signal", sig, "0.3", "0.3", "0.3", NULL };
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double steal = tst_steal_s(), period;

	snprintf(sig, sizeof(sig), "%d", SIGUSR2);
	it_control_run("[profile]\ntoggle_signal = SIGUSR2\n", argv, &r);
	steal = tst_steal_s() - steal;
	cr_expect(!strstr(r.err, "libpprof:"), "stderr: %s", r.err);
	run = tst_load(&it_c);
	period = tst_period_s(it_control_process(run));
	prof = tst_profile(run, 0, 0);
	cr_expect_eq(tst_self(prof, "burn_ctl_b"), 0, "paused work was sampled");
	it_control_sampled(prof, period, "burn_ctl_a", steal);
	it_control_sampled(prof, period, "burn_ctl_c", steal);
	cr_expect(it_control_process(run)->paused.flags & PPF_PAUSED_SIGNAL);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
}

/* delay: what runs before it ends is not sampled, what runs after is. */
Test(it_control, delay_leaves_the_start_unsampled)
{
	const char *argv[] = { "workloads/pausing", "delay", "1000", "0.3", NULL };
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double steal = tst_steal_s(), period;

	it_control_run("[profile]\ndelay = 1s\n", argv, &r);
	steal = tst_steal_s() - steal;
	run = tst_load(&it_c);
	period = tst_period_s(it_control_process(run));
	prof = tst_profile(run, 0, 0);
	cr_assert_gt(it_control_truth("burn_ctl_a"), 0.01, "the workload burnt nothing first");
	cr_expect_eq(tst_self(prof, "burn_ctl_a"), 0, "work before the delay was sampled");
	it_control_sampled(prof, period, "burn_ctl_c", steal);
	cr_expect(it_control_process(run)->paused.flags & PPF_PAUSED_DELAY);
	cr_expect_eq(it_control_process(run)->paused.delay_ns, 1000000000ull);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
}

/* A program built with pprof/control.h runs the same without the profiler. */
Test(it_control, header_is_a_no_op_without_the_profiler)
{
	const char *status[] = { "workloads/pausing", "status", NULL };
	const char *api[] = { "workloads/pausing", "api", "0.05", "0.05", "0.05", NULL };
	struct tst_result r;

	tst_run(&it_c, "plain", status, NULL, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect_str_eq(r.out, "status 0 0 0\ndone\n");
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);
	tst_run(&it_c, "plain", api, NULL, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect_str_eq(r.out, "done\n");
	tst_result_release(&r);
	/* Profiled, it says what the profiler does. */
	it_control_run(NULL, status, &r);
	cr_expect_str_eq(r.out, "status 1 0 1\ndone\n");
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);
}

/* Checks that stderr holds exactly one libpprof line, naming what. */
static void it_control_one_line(const struct tst_result *r, const char *what)
{
	cr_expect_eq(tst_count_lines(r->err, "libpprof:"), 1, "stderr: %s", r->err);
	cr_expect(strstr(r->err, what), "stderr does not say %s: %s", what, r->err);
}

/* A toggle signal the profiler needs, or one that cannot be caught: one line, profiled on. */
Test(it_control, reserved_toggle_signal_is_refused)
{
	const char *status[] = { "workloads/pausing", "status", NULL };
	const char *mine = tst_mode() == PPF_MODE_SIGNAL ?
			   "[profile]\nsignal = SIGUSR1\ntoggle_signal = SIGUSR1\n" :
			   "[profile]\ntoggle_signal = SIGTRAP\n";
	struct tst_result r;

	it_control_run("[profile]\ntoggle_signal = SIGKILL\n", status, &r);
	it_control_one_line(&r, "toggle_signal = SIGKILL");
	cr_expect_str_eq(r.out, "status 1 0 1\ndone\n");
	tst_result_release(&r);
	it_control_run(mine, status, &r);
	it_control_one_line(&r, "the profiler samples on it");
	cr_expect_str_eq(r.out, "status 1 0 1\ndone\n");
	tst_result_release(&r);
}

/* The program's own action for the toggle signal wins, said once. */
Test(it_control, program_action_wins)
{
	char sig[16], want[32];
	const char *argv[] = { "workloads/pausing", "wins", sig, NULL };
	struct tst_result r;

	snprintf(sig, sizeof(sig), "%d", SIGUSR2);
	snprintf(want, sizeof(want), "handled %d\ndone\n", SIGUSR2);
	it_control_run("[profile]\ntoggle_signal = SIGUSR2\n", argv, &r);
	cr_expect_str_eq(r.out, want);
	it_control_one_line(&r, "sets its own action for SIGUSR2");
	tst_result_release(&r);
}

/* threads and processes say how long sampling was paused. */
Test(it_control, reports_show_paused_time)
{
	const char *argv[] = { "workloads/pausing", "api", "0.05", "0.2", "0.05", NULL };
	const char *threads[] = { "pprof-analyze", "threads", it_c.data, NULL };
	const char *json[] = { "pprof-analyze", "threads", it_c.data, "--format", "json", NULL };
	const char *procs[] = { "pprof-analyze", "processes", it_c.data, NULL };
	struct tst_result r;

	it_control_run(NULL, argv, &r);
	tst_result_release(&r);
	tst_run(&it_c, "threads", threads, NULL, &r);
	cr_expect_eq(tst_count_lines(r.out, "") - 2, 2, "%s", r.out);
	cr_expect(strstr(r.out, "(paused "), "%s", r.out);
	cr_expect(strstr(r.out, "s of CPU)"), "%s", r.out);
	tst_result_release(&r);
	tst_run(&it_c, "json", json, NULL, &r);
	cr_expect(strstr(r.out, "\"paused_cpu_s\": 0."), "%s", r.out);
	cr_expect(strstr(r.out, "\"pauses\": 1"), "%s", r.out);
	tst_result_release(&r);
	tst_run(&it_c, "processes", procs, NULL, &r);
	cr_expect(strstr(r.out, "(paused "), "%s", r.out);
	tst_result_release(&r);
}

/* The delay counts from the run's start: a program exec'd after it samples at once. */
Test(it_control, delay_counts_from_the_run_start)
{
	char cmd[TST_PATH_MAX + 64], prog[TST_PATH_MAX];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double steal = tst_steal_s(), period = 0;

	tst_build_path(prog, "workloads/pausing");
	snprintf(cmd, sizeof(cmd), "sleep 1.5; exec %s api 0.3 0.01 0.01", prog);
	it_control_run("[profile]\ndelay = 1s\n", argv, &r);
	steal = tst_steal_s() - steal;
	run = tst_load(&it_c);
	for (size_t i = 0; i < run->nprocesses; i++)
		if (strstr(run->processes[i]->exe, "pausing"))
			period = tst_period_s(run->processes[i]);
	cr_assert_gt(period, 0, "no process of pausing in the run");
	prof = tst_profile(run, 0, 0);
	it_control_sampled(prof, period, "burn_ctl_a", steal);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
}
