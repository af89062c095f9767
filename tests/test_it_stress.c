/*
 * Integration: the loader-lock deadlock (DESIGN.md: the dl_iterate_phdr
 * lock) under the highest sampling rate the kernel allows for cpu-clock
 * (its hrtimer fires at most every 10 us): threads that dlopen/dlclose in a
 * loop, and threads that throw C++ exceptions (the C++ unwinder walks the
 * loaded objects with dl_iterate_phdr). A deadlock shows as the run killed
 * by timeout(1) instead of finishing. The limit is generous: at this rate
 * the runs take 3-25 s on a calm 2-CPU machine, and more than 90 s were
 * seen at a load average of 18.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "pa_it.h"

#define IT_STRESS_LIMIT "240" /* seconds before timeout(1) kills the run */

static struct pa_it it_stress;

static void it_stress_init(void)
{
	pa_it_init(&it_stress);
}

static void it_stress_fini(void)
{
	pa_it_release(&it_stress);
}

TestSuite(it_stress, .init = it_stress_init, .fini = it_stress_fini,
	  .timeout = 290);

/*
 * Runs workload (with args) under the preload sampling every 10 us, bounded
 * by timeout(1); asserts it finished by itself with status 0 and stdout
 * want. Returns the run's logs.
 */
static struct pa_run *it_stress_run(const char *workload, const char *a1,
				    const char *a2, const char *want)
{
	char path[PA_IT_PATH_MAX], env[PA_IT_CONFIG_ENV_MAX];
	const char *argv[] = { "/usr/bin/timeout", "-s", "KILL", IT_STRESS_LIMIT,
			       path, a1, a2, NULL };
	struct pa_it_result r;

	pa_it_build_path(path, workload);
	pa_it_config_env(&it_stress, "fast.ini", "[sample cpu-clock]\nperiod = 10us\n", env);
	pa_it_run_profiled(&it_stress, workload + strlen("workloads/"), argv, env, &r);
	/* timeout(1) sends SIGKILL to its process group, itself included. */
	cr_assert(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 128 + SIGKILL) &&
			  !(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL),
		  "%s did not finish in " IT_STRESS_LIMIT " s (deadlock?)", workload);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: status 0x%x: %s", workload, r.status, r.err);
	cr_assert_str_eq(r.out, want);
	cr_expect_eq(r.err_len, 0, "stderr: %s", r.err);
	pa_it_result_release(&r);
	return pa_it_load(&it_stress);
}

/* The workload's process: every thread log finished, workers well sampled. */
static void it_stress_check(const struct pa_run *run, const char *exe,
			    size_t nworkers)
{
	const struct pa_process *proc = NULL;
	size_t busy = 0;

	for (size_t i = 0; i < run->nprocesses; i++)
		if (pa_process_runs(run->processes[i], exe))
			proc = run->processes[i];
	cr_assert_not_null(proc, "no process ran %s", exe);
	cr_expect_eq(proc->nthreads, nworkers + 1);
	for (size_t i = 0; i < proc->nthreads; i++) {
		cr_expect(proc->threads[i]->ended, "thread %u's log has no end",
			  proc->threads[i]->tid);
		busy += proc->threads[i]->nsamples >= 1000;
	}
	cr_expect_eq(busy, nworkers, "%zu of %zu workers have 1000 samples", busy,
		     nworkers);
}

Test(it_stress, dlopen_dlclose_loops_finish_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/dlstorm", "10000", "2",
					   "dlstorm done 2 x 10000\n"
					   "checksum 48aeb54e25b2c20\n");

	it_stress_check(run, "dlstorm", 2);
	pa_run_free(run);
}

Test(it_stress, cxx_exceptions_finish_at_the_highest_rate)
{
	struct pa_run *run = it_stress_run("workloads/cxxthrow", "20000", "3",
					   "cxxthrow done 3 x 20000 caught 60000\n");

	it_stress_check(run, "cxxthrow", 3);
	pa_run_free(run);
}

/*
 * 1,000 short threads, each sampled every 10 us until it ends: an overflow
 * that comes as a thread ends (its events closed, in the signal mode its
 * queued signal then unclaimed) must not kill the process; every log ends.
 */
Test(it_stress, threads_end_while_sampled_at_the_highest_rate)
{
	const struct pa_process *proc = NULL;
	size_t ended = 0, sampled = 0;
	struct pa_run *run;

	pa_it_skip_under_asan("built with AddressSanitizer, the signal handler costs more "
			      "than the 10 us period: threads start at about one per second");
	run = it_stress_run("workloads/manythreads", "1000", "--no-usage",
			    "manythreads: 1000 threads\n");
	for (size_t i = 0; i < run->nprocesses; i++)
		if (pa_process_runs(run->processes[i], "manythreads"))
			proc = run->processes[i];
	cr_assert_not_null(proc);
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
