/*
 * Integration: children started every way a program can (fork + execve with
 * an empty environment after chdir, vfork + execv, posix_spawn, system(),
 * popen() for reading and for writing) are profiled into their own
 * directories of the same output root, and the ends that bypass exit()
 * (_exit, abort) are recorded.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_exec;

static void it_exec_init(void)
{
	tst_init(&it_exec);
}

static void it_exec_fini(void)
{
	tst_release(&it_exec);
}

TestSuite(it_exec, .init = it_exec_init, .fini = it_exec_fini, .timeout = 120);

/* The processes whose argv[1] is role ("child", "exit", "abort"). */
static size_t it_exec_find(const struct pa_run *run, const char *role,
			   const struct pa_process **out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		if (p->argc > 1 && strcmp(p->argv[1], role) == 0 && n < cap)
			out[n++] = p;
	}
	return n;
}

/* Samples of func in one process, against the 0.2 s it burns there. */
static void it_exec_expect_burn_in(const struct pa_run *run, const struct pa_process *p,
				   const char *func)
{
	struct pa_profile *prof = tst_profile(run, p->pid, 0);
	uint64_t self = tst_self(prof, func);

	cr_expect_geq(self, 100, "pid %u (%s %s): %llu samples in %s",
		      p->pid, p->exe, p->argv[1], (unsigned long long)self, func);
	pa_profile_free(prof);
}

static void it_exec_expect_burn(const struct pa_run *run, const struct pa_process *p)
{
	it_exec_expect_burn_in(run, p, "burn_child");
}

/* Whether p descends from the process ancestor (through ppid links in run). */
static bool it_exec_descends(const struct pa_run *run, const struct pa_process *p,
			     uint32_t ancestor)
{
	for (int depth = 0; p && depth < 8; depth++) {
		if (p->ppid == ancestor)
			return true;
		p = tst_log_find_process(run, p->ppid);
	}
	return false;
}

static const char *const it_exec_argv[] = { "workloads/spawner", "0.2", NULL };

/*
 * Under make test-asan: the children spawner starts with an empty
 * environment get libpprof.so back in LD_PRELOAD, but not the libasan.so an
 * ASan-built preload needs before it, and die at start.
 */
#define IT_EXEC_ASAN_EMPTY_ENV "a child exec'd with an empty environment gets " \
			       "libpprof.so back but not libasan.so, which an ASan-built " \
			       "preload needs first in LD_PRELOAD"

Test(it_exec, every_child_is_profiled)
{
	const struct pa_process *children[8], *top = NULL, *p;
	struct tst_result plain, prof;
	struct pa_run *run;
	size_t n;

	tst_skip_under_asan(IT_EXEC_ASAN_EMPTY_ENV);
	tst_run(&it_exec, "plain", it_exec_argv, NULL, &plain);
	tst_run_profiled(&it_exec, "prof", it_exec_argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_assert_eq(prof.status, plain.status);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);

	run = tst_load(&it_exec);
	/* The first with the spawner's own argv (its fork child has it too). */
	for (size_t i = 0; i < run->nprocesses && !top; i++)
		if (run->processes[i]->argc == 2)
			top = run->processes[i];
	cr_assert_not_null(top, "the spawner itself has no directory");

	/* execve with an empty environment, execv, posix_spawn with an empty one. */
	n = it_exec_find(run, "child", children, 8);
	cr_assert_eq(n, 3, "%zu exec'd children profiled, want 3", n);
	for (size_t i = 0; i < n; i++) {
		p = children[i];
		it_exec_expect_burn(run, p);
		cr_expect(p->ended && p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 7,
			  "pid %u: ended %d how %u status %d", p->pid, p->ended,
			  p->exit_how, p->exit_status);
		cr_expect(it_exec_descends(run, p, top->pid), "pid %u ppid %u", p->pid, p->ppid);
	}

	/* Through system(): the child ends with _exit(9), or abort(). */
	cr_assert_eq(it_exec_find(run, "exit", children, 8), 1);
	p = children[0];
	it_exec_expect_burn(run, p);
	cr_expect(p->ended && p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 9,
		  "_exit: ended %d how %u status %d", p->ended, p->exit_how, p->exit_status);
	cr_expect(it_exec_descends(run, p, top->pid));
	cr_assert_eq(it_exec_find(run, "abort", children, 8), 1);
	p = children[0];
	it_exec_expect_burn(run, p);
	cr_expect(p->ended && p->exit_how == PPF_EXIT_SIGNAL && p->exit_status == SIGABRT,
		  "abort: ended %d how %u status %d", p->ended, p->exit_how, p->exit_status);

	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * A configuration with an event this machine lacks (cycles, where there is
 * no PMU): the spawner and its children (fork + exec, vfork + exec,
 * posix_spawn, system()'s shells and what they run) name it once in all,
 * not once per process; every process still records it as unavailable. A
 * second run into the same output directory names it again: the first
 * run's directories are not this run's. With a PMU nothing is said.
 */
Test(it_exec, an_unavailable_event_is_named_once_per_run)
{
	char env[TST_CONFIG_ENV_MAX];
	const bool pmu = tst_has_pmu();
	struct tst_result plain, prof;
	size_t nruns = 0;

	tst_skip_under_asan(IT_EXEC_ASAN_EMPTY_ENV);
	tst_config_env(&it_exec, "cycles.ini",
			 "[sample cpu-clock]\nperiod = 1ms\n[count cycles]\n", env);
	tst_run(&it_exec, "plain", it_exec_argv, NULL, &plain);
	for (int run_no = 1; run_no <= 2; run_no++) {
		struct pa_run *run;
		size_t unavailable = 0;

		tst_run_profiled(&it_exec, "prof", it_exec_argv, env, &prof);
		cr_assert_eq(prof.status, plain.status, "run %d: %s", run_no, prof.err);
		cr_assert_str_eq(prof.out, plain.out);
		cr_expect_eq(tst_count_lines(prof.err, "libpprof: "), pmu ? 0 : 1,
			     "run %d: stderr: %s", run_no, prof.err);
		cr_expect(pmu || strstr(prof.err, "counting event cycles"), "run %d: %s",
			  run_no, prof.err);
		tst_result_release(&prof);
		run = tst_load(&it_exec);
		/*
		 * The spawner; its fork child before and after execve; vfork +
		 * execv; posix_spawn; two shells from system() and the spawner
		 * each runs.
		 */
		cr_expect_eq(run->nprocesses, nruns + 9, "run %d: %zu processes", run_no,
			     run->nprocesses - nruns);
		nruns = run->nprocesses;
		for (size_t i = 0; i < run->nprocesses; i++) {
			const struct pa_event *e = pa_process_find_event(run->processes[i], 1);

			cr_assert_not_null(e, "pid %u has no event 1", run->processes[i]->pid);
			unavailable += !!(e->flags & PPF_EVENT_UNAVAILABLE);
		}
		cr_expect_eq(unavailable, pmu ? 0 : run->nprocesses,
			     "run %d: %zu of %zu processes record cycles as unavailable",
			     run_no, unavailable, run->nprocesses);
		pa_run_free(run);
	}
	tst_result_release(&plain);
}

/* PPROF_FOLLOW_EXEC=0: a child given an environment without the profiler stays unprofiled. */
Test(it_exec, follow_exec_off)
{
	const struct pa_process *children[8];
	struct tst_result r;
	struct pa_run *run;
	size_t n;

	tst_run_profiled(&it_exec, "prof", it_exec_argv, "PPROF_FOLLOW_EXEC=0", &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	run = tst_load(&it_exec);
	n = it_exec_find(run, "child", children, 8);
	/* Only vfork + execv passes the app's own environment, which has it. */
	cr_expect_eq(n, 1, "%zu exec'd children profiled, want 1", n);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * The SAMPLES column of pid's row in a `pprof-analyze processes` report,
 * from the row whose executable is exe; -1 if there is none.
 */
static long long it_exec_row_samples(const char *report, uint32_t pid, const char *exe)
{
	for (const char *p = report; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned row_pid, ppid, threads;
		unsigned long long samples;
		char name[64];

		/* Then CPU(s), USER(s), SYS(s), COVER and BEFORE(s) before EXE. */
		if (sscanf(p, "%u %u %*s %*s %llu %u %*s %*s %*s %*s %*s %63s", &row_pid, &ppid,
			   &samples, &threads, name) == 5 &&
		    row_pid == pid && strcmp(name, exe) == 0)
			return (long long)samples;
	}
	return -1;
}

/*
 * popen(CMD, "r") and popen(CMD, "w") (glibc runs /bin/sh -c CMD): what the
 * parent reads from the one and writes to the other is unchanged, and the
 * program each shell starts is profiled into its own directory, with its
 * exit status, and shows in `pprof-analyze processes` with its samples.
 */
Test(it_exec, popen_children_are_profiled)
{
	const char *argv[] = { "workloads/popener", "0.2", NULL };
	static const char *const roles[] = { "reader", "writer" };
	static const int codes[] = { 3, 4 };
	char analyze[TST_PATH_MAX];
	const char *report[] = { analyze, "processes", it_exec.data, NULL };
	const struct pa_process *children[8], *top = NULL;
	struct tst_result plain, prof, rep;
	struct pa_run *run;

	tst_run(&it_exec, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_exec, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	/* The children's output went through the pipe and the shared stdout. */
	cr_assert(strstr(plain.out, "from the reader: reader: last line") &&
		  strstr(plain.out, "writer: read 10 lines"), "%s", plain.out);
	cr_assert_eq(prof.status, plain.status, "status 0x%x: %s", prof.status, prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);

	run = tst_load(&it_exec);
	for (size_t i = 0; i < run->nprocesses && !top; i++)
		if (run->processes[i]->argc == 2)
			top = run->processes[i];
	cr_assert_not_null(top, "popener itself has no directory");
	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_exec, "report", report, NULL, &rep);
	cr_assert(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 0, "%s", rep.err);
	for (size_t i = 0; i < 2; i++) {
		const struct pa_process *p;
		long long row;

		cr_assert_eq(it_exec_find(run, roles[i], children, 8), 1,
			     "the popen %s is not profiled once", roles[i]);
		p = children[0];
		cr_expect(it_exec_descends(run, p, top->pid), "%s: pid %u ppid %u",
			  roles[i], p->pid, p->ppid);
		cr_expect(p->ended && p->exit_how == PPF_EXIT_NORMAL &&
			  p->exit_status == codes[i], "%s: ended %d how %u status %d",
			  roles[i], p->ended, p->exit_how, p->exit_status);
		/* burn_popen takes its 0.2 s. */
		it_exec_expect_burn_in(run, p, "burn_popen");
		row = it_exec_row_samples(rep.out, p->pid, "popener");
		cr_expect_geq(row, 100, "%s (pid %u): %lld samples in its processes row:\n%s",
			      roles[i], p->pid, row, rep.out);
	}
	tst_result_release(&rep);
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * The exec wrappers stop sampling before the real call: when it fails,
 * sampling resumes, in the thread that called it (a second thread, then
 * the main thread) and errno is the exec's.
 */
Test(it_exec, sampling_resumes_after_a_failed_exec)
{
	const char *argv[] = { "workloads/execloop", "failed", "0.3", NULL };
	struct tst_result plain, prof;
	const struct pa_process *p;
	struct pa_profile *profile;
	struct pa_run *run;
	uint64_t samples;
	double want;

	tst_run(&it_exec, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_exec, "prof", argv, NULL, &prof);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	cr_assert_str_eq(plain.out, "execv failed: ENOENT\nexecvp failed: ENOENT\n");
	cr_assert_eq(prof.status, plain.status, "stderr: %s", prof.err);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_eq(prof.err_len, 0, "stderr: %s", prof.err);
	run = tst_load(&it_exec);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect_eq(p->nexecs, 2, "%zu exec attempts recorded", p->nexecs);
	cr_expect(!p->replaced && p->ended);
	cr_assert_eq(p->nthreads, 2);
	/* Each thread burns 0.3 s after its exec failed: most of it is sampled. */
	want = 0.3 / tst_period_s(p);
	for (size_t t = 0; t < 2; t++) {
		profile = tst_profile(run, p->pid, p->threads[t]->tid);
		samples = tst_self(profile, "burn_after_exec");
		cr_expect_geq((double)samples, want / 2, "thread %u: %llu samples in "
			      "burn_after_exec after a failed exec, want about %.0f",
			      p->threads[t]->tid, (unsigned long long)samples, want);
		pa_profile_free(profile);
	}
	pa_run_free(run);
	tst_result_release(&plain);
	tst_result_release(&prof);
}
