/*
 * Integration: the loader-lock deadlock (DESIGN.md: the dl_iterate_phdr
 * lock) under the highest sampling rate the configuration accepts for
 * cpu-clock (a sample every 100 us of CPU): threads that dlopen/dlclose in
 * a loop, and threads that throw C++ exceptions (the C++ unwinder walks the
 * loaded objects with dl_iterate_phdr). A deadlock shows as the run killed
 * by timeout(1) instead of finishing. The work is sized for a few seconds
 * on a calm 2-CPU machine (each worker 0.2-0.4 s of user CPU, over 1,000
 * samples; much of dlstorm's time is in the kernel, which the event does
 * not see); the limit is far above what a busy machine needs.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

#define IT_STRESS_LIMIT "120" /* seconds before timeout(1) kills the run */

static struct tst_it it_stress;

static void it_stress_init(void)
{
	tst_init(&it_stress);
}

static void it_stress_fini(void)
{
	tst_release(&it_stress);
}

TestSuite(it_stress, .init = it_stress_init, .fini = it_stress_fini,
	  .timeout = 150);

/*
 * Runs workload (with args) under the preload sampling every 100 us, bounded
 * by timeout(1); asserts it finished by itself with status 0 and stdout
 * want. The workload's threads write their user CPU time to the truth file
 * (it_stress_truth). Returns the run's logs.
 */
static struct pa_run *it_stress_run(const char *workload, const char *a1,
				    const char *a2, const char *want)
{
	char path[TST_PATH_MAX], config[TST_CONFIG_ENV_MAX],
		truth[TST_PATH_MAX + 16];
	const char *argv[] = { "/usr/bin/timeout", "-s", "KILL", IT_STRESS_LIMIT,
			       path, a1, a2, NULL };
	const char *env[] = { it_stress.env_preload, it_stress.env_output, config,
			      truth, NULL };
	struct tst_result r;

	tst_build_path(path, workload);
	tst_config_env(&it_stress, "fast.ini", "[sample cpu-clock]\nperiod = 100us\n",
			 config);
	snprintf(truth, sizeof(truth), "PPROF_TRUTH=%s/truth", it_stress.tmp);
	tst_run(&it_stress, workload + strlen("workloads/"), argv, env, &r);
	/* timeout(1) sends SIGKILL to its process group, itself included. */
	cr_assert(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 128 + SIGKILL) &&
			  !(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL),
		  "%s did not finish in " IT_STRESS_LIMIT " s (deadlock?)", workload);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: status 0x%x: %s", workload, r.status, r.err);
	cr_assert_str_eq(r.out, want);
	cr_expect_eq(r.err_len, 0, "stderr: %s", r.err);
	tst_result_release(&r);
	return tst_load(&it_stress);
}

/* The run's process that ran exe (the last, if several); asserts there is one. */
static const struct pa_process *it_stress_process(const struct pa_run *run, const char *exe)
{
	const struct pa_process *proc = NULL;

	for (size_t i = 0; i < run->nprocesses; i++)
		if (pa_process_runs(run->processes[i], exe))
			proc = run->processes[i];
	cr_assert_not_null(proc, "no process ran %s", exe);
	return proc;
}

/* The user CPU seconds thread tid wrote to the truth file. */
static double it_stress_truth(uint32_t tid)
{
	char path[TST_PATH_MAX], key[16];

	snprintf(path, sizeof(path), "%s/truth", it_stress.tmp);
	snprintf(key, sizeof(key), "%u", tid);
	return tst_truth(path, key);
}

/*
 * The workload's process: every thread log finished, and each worker
 * sampled (or, to bound the profiler's cost, throttled) for at least a
 * third of the 100 us periods of user CPU time it measured itself, and at
 * least IT_STRESS_MIN_SAMPLES times, so that samples did land among the
 * loader calls. How much user time the work takes depends on the machine,
 * not on the profiler (seen: 1,000-2,500 samples a worker). The kernel
 * splits a thread's CPU time into user and system by ticks: for dlstorm,
 * mostly system time, samples were 0.71-1.37 of the user periods it
 * reports, calm or beside two busy loops.
 */
#define IT_STRESS_MIN_SAMPLES 100

static void it_stress_check(const struct pa_run *run, const char *exe,
			    size_t nworkers)
{
	const struct pa_process *proc = it_stress_process(run, exe);
	size_t workers = 0;

	cr_expect_eq(proc->nthreads, nworkers + 1);
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];
		double user_s, periods;

		cr_expect(t->ended, "thread %u's log has no end", t->tid);
		if (t->tid == proc->pid)
			continue;
		workers++;
		user_s = it_stress_truth(t->tid);
		periods = user_s / tst_period_s(proc);
		cr_expect(t->nsamples >= IT_STRESS_MIN_SAMPLES &&
				  (double)(t->nsamples + t->throttled) >= periods / 3,
			  "worker %u: %zu samples, %llu throttled, %llu lost for "
			  "%.3f s of user CPU (%.0f periods)",
			  t->tid, t->nsamples, (unsigned long long)t->throttled,
			  (unsigned long long)t->lost, user_s, periods);
	}
	cr_expect_eq(workers, nworkers);
}

Test(it_stress, dlopen_dlclose_loops_finish_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/dlstorm", "50000", "2",
					   "dlstorm done 2 x 50000\n"
					   "checksum 16b698a86bc7dca0\n");

	it_stress_check(run, "dlstorm", 2);
	pa_run_free(run);
}

Test(it_stress, cxx_exceptions_finish_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/cxxthrow", "100000", "3",
					   "cxxthrow done 3 x 100000 caught 300000\n");

	it_stress_check(run, "cxxthrow", 3);
	pa_run_free(run);
}

/*
 * 1,000 short threads, each sampled every 100 us until it ends: an overflow
 * that comes as a thread ends (its events closed, in the signal mode its
 * queued signal then unclaimed) must not kill the process; every log ends.
 */
Test(it_stress, threads_end_while_sampled_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/manythreads", "1000",
					   "--no-usage", "manythreads: 1000 threads\n");
	const struct pa_process *proc = it_stress_process(run, "manythreads");
	size_t ended = 0, sampled = 0;

	cr_expect_eq(proc->nthreads, 1001, "%zu thread logs", proc->nthreads);
	char open_logs[256] = "";

	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];

		ended += t->ended;
		sampled += t->nsamples > 0;
		if (!t->ended)
			snprintf(open_logs + strlen(open_logs),
				 sizeof(open_logs) - strlen(open_logs), " %u%s (%zu samples)",
				 t->tid, t->tid == proc->pid ? " main" : "", t->nsamples);
	}
	cr_expect_eq(ended, proc->nthreads, "%zu of %zu logs ended; open:%s", ended,
		     proc->nthreads, open_logs);
	cr_expect_geq(sampled, 900, "%zu of 1001 threads sampled", sampled);
	pa_run_free(run);
}

/*
 * 64 threads alive at once, each sampled every 100 us: the program finishes
 * with its output, every thread is sampled and every log ends.
 */
Test(it_stress, sixty_four_threads_finish_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/widethreads", "64", "0.05",
					   "widethreads: 64 threads\n");
	const struct pa_process *proc = it_stress_process(run, "widethreads");
	size_t ended = 0, sampled = 0;

	cr_expect_eq(proc->nthreads, 65, "%zu thread logs", proc->nthreads);
	for (size_t i = 0; i < proc->nthreads; i++) {
		ended += proc->threads[i]->ended;
		sampled += proc->threads[i]->tid != proc->pid && proc->threads[i]->nsamples > 0;
	}
	cr_expect_eq(ended, proc->nthreads, "%zu of %zu logs ended", ended, proc->nthreads);
	cr_expect_eq(sampled, 64, "%zu of 64 workers sampled", sampled);
	pa_run_free(run);
}

/*
 * A period shorter than the shortest the configuration accepts (the
 * kernel's 10 us, at which a program made no headway) is refused before
 * main, naming the limit, and the program runs unprofiled, unchanged.
 */
Test(it_stress, a_period_below_the_highest_rate_is_refused)
{
	const char *argv[] = { "workloads/demo", "0.05", NULL };
	char env[TST_CONFIG_ENV_MAX];
	struct tst_result plain, r;

	tst_config_env(&it_stress, "tooshort.ini", "[sample cpu-clock]\nperiod = 10us\n",
			 env);
	tst_run(&it_stress, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_stress, "demo", argv, env, &r);
	cr_assert_eq(r.status, plain.status, "status 0x%x, unprofiled 0x%x", r.status,
		     plain.status);
	cr_assert_str_eq(r.out, plain.out);
	cr_expect(strstr(r.err, "tooshort.ini:2: ") && strstr(r.err, "100us"),
		  "no line names the file, the line and the limit:\n%s", r.err);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 2, "%s", r.err);
	cr_expect(strstr(r.err, "profiling is off"), "%s", r.err);
	tst_result_release(&plain);
	tst_result_release(&r);
}
