/*
 * Integration: what happens to a profiled process as a whole: killed with
 * SIGKILL, refused perf_event_open, forking a child.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_proc;

static void it_proc_init(void)
{
	tst_init(&it_proc);
}

static void it_proc_fini(void)
{
	tst_release(&it_proc);
}

TestSuite(it_process, .init = it_proc_init, .fini = it_proc_fini, .timeout = 120);

/* Polls tmp/<tag>.out until it holds a line starting with "ready"; false on timeout. */
static bool it_proc_wait_ready(const char *tag, pid_t pid, int seconds)
{
	char path[TST_PATH_MAX];
	struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };

	snprintf(path, sizeof(path), "%s/%s.out", it_proc.tmp, tag);
	for (int i = 0; i < seconds * 50; i++) {
		/* The child may not have made the file yet. */
		char *out = access(path, R_OK) == 0 ? tst_slurp(path, NULL) : NULL;
		bool ready = out && tst_count_lines(out, "ready") > 0;

		free(out);
		if (ready)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}

/*
 * A process killed with SIGKILL writes no END record, but every sample it
 * took is in the page cache: the logs load (with warnings) and hold them.
 */
Test(it_process, sigkill_keeps_samples)
{
	const char *argv[] = { "workloads/spin", "0.5", NULL };
	const char *env[] = { it_proc.env_preload, it_proc.env_output, NULL };
	struct tst_result r;
	struct pa_profile *prof;
	struct pa_run *run;
	const struct pa_process *p;
	pid_t pid = tst_spawn(&it_proc, "spin", argv, env);
	bool ready = it_proc_wait_ready("spin", pid, 30);
	double want;

	kill(pid, SIGKILL);
	tst_wait(&it_proc, "spin", pid, &r);
	cr_assert(ready, "spin never said ready: %s", r.err);
	cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL,
		  "status 0x%x", r.status);
	tst_result_release(&r);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect(!p->ended, "a killed process has an END record");
	cr_expect_eq(p->nthreads, 2);
	cr_expect_geq(run->warnings.n, 1, "no warning about the unfinished logs");
	prof = tst_profile(run, 0, 0);
	/* The main thread alone burnt 0.5 s before saying ready. */
	want = 0.5 / tst_period_s(p);
	cr_expect_geq(tst_self(prof, "burn_spin"), 0.8 * want, "burn_spin: %llu samples",
		      (unsigned long long)tst_self(prof, "burn_spin"));
	cr_expect_geq(tst_stack_count(prof, "spin_loop;burn_spin"),
		      0.95 * (double)tst_self(prof, "burn_spin"));
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * A run that could not be profiled (r) ended as the run without the preload
 * (plain), with one line on stderr, the preload's, saying reason and that
 * profiling is off.
 */
static void it_proc_expect_said_off(const struct tst_result *r,
				    const struct tst_result *plain, const char *reason)
{
	cr_expect_eq(r->status, plain->status, "status 0x%x, without the preload 0x%x",
		     r->status, plain->status);
	cr_expect_str_eq(r->out, plain->out);
	cr_expect_eq(tst_count_lines(r->err, ""), 1, "stderr: %s", r->err);
	cr_expect_eq(tst_count_lines(r->err, "libpprof: "), 1, "stderr: %s", r->err);
	cr_expect(strstr(r->err, reason) && strstr(r->err, "profiling is off"),
		  "stderr does not say \"%s\" and \"profiling is off\": %s", reason, r->err);
}

/*
 * perf_event_open refused (seccomp_run makes it fail with err): the app runs
 * to completion as if unprofiled, the preload says why in exactly one line,
 * and the process log says profiling was off.
 */
static void it_proc_refused(int err, const char *reason)
{
	char errno_arg[16], env_cmd[] = "/usr/bin/env";
	const char *plain_argv[] = { "workloads/demo", "0.1", "--exit", "3", NULL };
	const char *argv[] = { "workloads/seccomp_run", errno_arg, env_cmd,
			       it_proc.env_preload, NULL, "0.1", "--exit", "3", NULL };
	const char *env[] = { it_proc.env_output, NULL };
	char demo[TST_PATH_MAX];
	struct tst_result plain, r;
	struct pa_profile *prof;
	struct pa_run *run;

	snprintf(errno_arg, sizeof(errno_arg), "%d", err);
	tst_build_path(demo, "workloads/demo");
	argv[4] = demo;
	/* The preload goes in through env(1), so that seccomp_run itself is not profiled. */
	tst_run(&it_proc, "refused", argv, env, &r);
	tst_run(&it_proc, "plain", plain_argv, NULL, &plain);
	it_proc_expect_said_off(&r, &plain, reason);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->mode, PPF_MODE_OFF);
	cr_expect_eq(run->processes[0]->nthreads, 0);
	/* Not mistaken for a killed process: it ended, with its status. */
	cr_expect(run->processes[0]->ended);
	cr_expect_eq(run->processes[0]->exit_how, PPF_EXIT_NORMAL);
	cr_expect_eq(run->processes[0]->exit_status, 3);
	cr_expect_eq(run->warnings.n, 1);
	cr_expect(run->warnings.n && strstr(run->warnings.v[0].reason, "profiling was off"),
		  "no warning that profiling was off");
	prof = tst_profile(run, 0, 0);
	cr_expect_eq(prof->samples, 0);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
	tst_result_release(&plain);
}

Test(it_process, perf_event_open_eacces_runs_unprofiled)
{
	it_proc_refused(EACCES, strerror(EACCES));
}

Test(it_process, perf_event_open_enosys_runs_unprofiled)
{
	it_proc_refused(ENOSYS, strerror(ENOSYS));
}

/*
 * demo under seccomp_run nosigtrap (a kernel refusing perf_event_attr.sigtrap with
 * EINVAL, as before Linux 5.13) with PPROF_MODE=mode; *r gets its result
 * and *plain demo's own without the preload. The preload goes in through
 * env(1), so that seccomp_run itself is not profiled.
 */
static void it_proc_nosigtrap(const char *mode, struct tst_result *r,
			      struct tst_result *plain)
{
	char env_cmd[] = "/usr/bin/env", demo[TST_PATH_MAX], env_mode[32];
	const char *plain_argv[] = { "workloads/demo", "0.3", "--exit", "3", NULL };
	const char *argv[] = { "workloads/seccomp_run", "nosigtrap", env_cmd, it_proc.env_preload,
			       env_mode, demo, "0.3", "--exit", "3", NULL };
	const char *env[] = { it_proc.env_output, NULL };

	snprintf(env_mode, sizeof(env_mode), "PPROF_MODE=%s", mode);
	tst_build_path(demo, "workloads/demo");
	tst_run(&it_proc, mode, argv, env, r);
	tst_run(&it_proc, "plain", plain_argv, NULL, plain);
	cr_expect_eq(r->status, plain->status, "status 0x%x, without the preload 0x%x",
		     r->status, plain->status);
	cr_expect_str_eq(r->out, plain->out);
}

/*
 * mode = auto on a kernel without sigtrap: the sigtrap probe gets EINVAL
 * and the signal mode samples every thread instead, silently.
 */
Test(it_process, auto_mode_uses_signals_when_the_kernel_lacks_sigtrap)
{
	static const char *const burners[] = { "burn_alpha", "burn_beta", "burn_gamma" };
	struct tst_result r, plain;
	struct pa_profile *prof;
	struct pa_run *run;

	it_proc_nosigtrap("auto", &r, &plain);
	cr_expect_str_eq(r.err, "", "stderr: %s", r.err);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->mode, PPF_MODE_SIGNAL, "mode %u",
		     run->processes[0]->mode);
	cr_expect_eq(run->processes[0]->exit_status, 3);
	prof = tst_profile(run, 0, 0);
	for (size_t i = 0; i < 3; i++)
		cr_expect_gt(tst_self(prof, burners[i]), 20, "%s: %llu samples", burners[i],
			     (unsigned long long)tst_self(prof, burners[i]));
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
	tst_result_release(&plain);
}

/* mode = sigtrap on a kernel without it: one line saying so, the program unprofiled. */
Test(it_process, sigtrap_mode_without_kernel_support_says_why)
{
	struct tst_result r, plain;
	struct pa_run *run;

	it_proc_nosigtrap("sigtrap", &r, &plain);
	cr_expect_eq(tst_count_lines(r.err, ""), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, "libpprof: ") && strstr(r.err, "Linux 5.13") &&
		  strstr(r.err, "profiling is off"), "stderr: %s", r.err);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->mode, PPF_MODE_OFF);
	cr_expect(run->processes[0]->ended && run->processes[0]->exit_status == 3);
	pa_run_free(run);
	tst_result_release(&r);
	tst_result_release(&plain);
}

/*
 * A libunwind.so.8 without libunwind's functions first in LD_LIBRARY_PATH:
 * the program runs as without the preload, one line names the library and
 * says profiling is off, and nothing is written.
 */
Test(it_process, a_libunwind_without_its_functions_runs_unprofiled)
{
	const char *argv[] = { "workloads/demo", "0.1", "--exit", "3", NULL };
	char dir[TST_PATH_MAX], link[TST_PATH_MAX + 16], fake[TST_PATH_MAX];
	char env[TST_PATH_MAX + 32];
	struct tst_result r, plain;

	snprintf(dir, sizeof(dir), "%s/fakelib", it_proc.tmp);
	snprintf(link, sizeof(link), "%s/libunwind.so.8", dir);
	tst_build_path(fake, "workloads/libfakeunwind.so");
	cr_assert_eq(mkdir(dir, 0700), 0, "%s: %s", dir, strerror(errno));
	cr_assert_eq(symlink(fake, link), 0, "%s: %s", link, strerror(errno));
	snprintf(env, sizeof(env), "LD_LIBRARY_PATH=%s", dir);
	tst_run(&it_proc, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_proc, "fakelib", argv, env, &r);
	it_proc_expect_said_off(&r, &plain, "libunwind.so.8 lacks the functions");
	cr_expect(access(it_proc.data, F_OK) != 0, "%s was made", it_proc.data);
	tst_result_release(&r);
	tst_result_release(&plain);
}

/* A fork child gets its own logs, <exe>@<host>.<pid>.*, and its own samples. */
Test(it_process, fork_child_has_own_logs)
{
	const char *argv[] = { "workloads/forker", "0.3", NULL };
	struct tst_result r;
	struct pa_run *run;
	const struct pa_process *parent, *child;
	struct pa_profile *pp, *cp;
	char dir[TST_PATH_MAX + 64];
	int ppid = 0, cpid = 0;
	double want;

	tst_run_profiled(&it_proc, "forker", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "forker: %s", r.err);
	cr_assert_eq(sscanf(r.out, "parent %d child %d", &ppid, &cpid), 2, "%s", r.out);
	tst_result_release(&r);
	tst_process_dir(&it_proc, "forker", cpid, dir);
	strcat(dir, PPF_LOG_SUFFIX);
	cr_expect_eq(access(dir, R_OK), 0, "no %s", dir);
	tst_process_dir(&it_proc, "forker", cpid, dir);
	snprintf(dir + strlen(dir), 64, ".thread-%d.log", cpid);
	cr_expect_eq(access(dir, R_OK), 0, "no %s", dir);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 2);
	parent = tst_log_find_process(run, (uint32_t)ppid);
	child = tst_log_find_process(run, (uint32_t)cpid);
	cr_assert(parent && child, "parent %d or child %d missing", ppid, cpid);
	cr_expect_eq(child->ppid, (uint32_t)ppid);
	cr_expect(parent->ended && child->ended);
	cr_expect_eq(child->nthreads, 1);
	cr_expect_eq(child->threads[0]->tid, (uint32_t)cpid);
	want = 0.3 / tst_period_s(child);
	pp = tst_profile(run, (uint32_t)ppid, 0);
	cp = tst_profile(run, (uint32_t)cpid, 0);
	cr_expect_geq(tst_self(cp, "burn_child"), 0.8 * want);
	cr_expect_geq(tst_self(pp, "burn_parent"), 0.8 * want);
	cr_expect_eq(tst_self(cp, "burn_parent"), 0, "the child has the parent's samples");
	cr_expect_eq(tst_self(pp, "burn_child"), 0, "the parent has the child's samples");
	pa_profile_free(pp);
	pa_profile_free(cp);
	pa_run_free(run);
}

/*
 * A fork child after the output root's path stopped naming it (the
 * program renamed it here; a chroot does the same) writes beside its
 * parent, in the root it had, not into a new root made where the path now
 * leads (inside a program's jail): both processes are in the one root,
 * and no other was made.
 */
Test(it_process, a_fork_child_keeps_its_parents_root_when_the_path_moved)
{
	const char *argv[] = { "workloads/rootmove", NULL };
	char moved[TST_PATH_MAX + 8];
	struct pa_error err = { 0 };
	struct tst_result r;
	struct pa_run *run;
	struct stat st;

	tst_run_profiled(&it_proc, "prof", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s", r.status,
		  r.err);
	cr_expect_str_eq(r.out, "child\nparent\n");
	tst_result_release(&r);
	cr_expect_neq(stat(it_proc.data, &st), 0, "a new root was made at %s", it_proc.data);
	snprintf(moved, sizeof(moved), "%s.moved", it_proc.data);
	cr_assert_eq(pa_run_load(moved, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_expect_eq(run->nprocesses, 2, "%zu processes in the root", run->nprocesses);
	pa_run_free(run);
}

/*
 * quick_exit runs the program's at_quick_exit handlers, no destructor, and
 * ends by glibc's own _exit, which the _exit hook does not see: the
 * process still ends with its END records and status, written after the
 * program's handlers (their samples are in the logs), every thread ended.
 */
Test(it_process, quick_exit_writes_the_end_records_after_the_programs_handlers)
{
	const char *argv[] = { "workloads/quickexit", NULL };
	struct tst_result r;
	struct pa_profile *prof;
	const struct pa_process *p;
	struct pa_run *run;

	tst_run_profiled(&it_proc, "quickexit", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 13, "status %#x: %s",
		  r.status, r.err);
	cr_expect_str_eq(r.out, "quickexit: handler ran\n");
	cr_expect_str_eq(r.err, "");
	tst_result_release(&r);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_expect(p->ended, "no END record");
	cr_expect(p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 13, "exit %u %d",
		  p->exit_how, p->exit_status);
	cr_expect_eq(p->nthreads, 3);
	for (size_t i = 0; i < p->nthreads; i++)
		cr_expect(p->threads[i]->ended, "thread %u not ended", p->threads[i]->tid);
	prof = tst_profile(run, p->pid, 0);
	cr_expect_gt(tst_self(prof, "quick_handler"), 0, "no sample in the at_quick_exit handler");
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * daemon(3)'s parent leaves by glibc's own _exit(0), which the _exit hook
 * does not see: its logs had no END record ("exit_group or killed?") and
 * its CPU time was its last progress record's. Now it ends at the fork,
 * with exit 0 and its time, and the daemon is profiled as a child.
 */
Test(it_process, a_daemons_parent_ends_with_its_records)
{
	char done[TST_PATH_MAX + 32];
	const char *argv[] = { "workloads/daemonize", it_proc.tmp, NULL };
	struct tst_result r;
	struct pa_run *run;
	size_t parents = 0, ended = 0;

	snprintf(done, sizeof(done), "%s/daemonize.done", it_proc.tmp);
	tst_run_profiled(&it_proc, "daemonize", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	tst_result_release(&r);
	/* The daemon runs on alone: its end is its file, then its logs' end. */
	for (int i = 0; i < 600 && access(done, F_OK) != 0; i++)
		usleep(20000);
	cr_assert_eq(access(done, F_OK), 0, "the daemon did not finish");
	for (int i = 0; i < 100; i++) {
		run = tst_load(&it_proc);
		ended = 0;
		for (size_t k = 0; k < run->nprocesses; k++)
			ended += run->processes[k]->ended;
		if (run->nprocesses == 2 && ended == 2)
			break;
		pa_run_free(run);
		run = NULL;
		usleep(20000);
	}
	if (!run)
		run = tst_load(&it_proc);
	cr_expect_eq(run->nprocesses, 2);
	for (size_t k = 0; k < run->nprocesses; k++) {
		const struct pa_process *p = run->processes[k];
		struct pa_profile *prof = tst_profile(run, p->pid, 0);

		if (tst_self(prof, "daemonize_parent") > 0) {
			parents++;
			cr_expect(p->ended && p->exit_how == PPF_EXIT_NORMAL && p->exit_status == 0,
				  "the parent: ended %d, exit %u %d", p->ended, p->exit_how,
				  p->exit_status);
			cr_expect_geq((double)(p->user_ns + p->system_ns) / 1e9, 0.1,
				      "the parent's CPU time %.3f s, it burnt 0.1 s",
				      (double)(p->user_ns + p->system_ns) / 1e9);
		}
		pa_profile_free(prof);
	}
	cr_expect_eq(parents, 1);
	pa_run_free(run);
}

/*
 * A daemon's double fork: the middle process exits at once, and the worker
 * it forked was recorded with ppid 1 (init had it by the time the worker
 * asked, 5 runs of 5), a root of the process tree cut off from its parent.
 * A fork child's parent is the process it was forked from.
 */
Test(it_process, a_double_forked_workers_parent_is_the_middle_process)
{
	const char *argv[] = { "workloads/doublefork", "0.2", NULL };
	const struct pa_process *middle, *worker;
	int parent = 0, mid = 0, work = 0;
	struct tst_result r;
	struct pa_run *run;

	tst_run_profiled(&it_proc, "doublefork", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert_eq(sscanf(r.out, "parent %d middle %d worker %d", &parent, &mid, &work), 3, "%s",
		     r.out);
	tst_result_release(&r);
	run = tst_load(&it_proc);
	middle = tst_log_find_process(run, (uint32_t)mid);
	worker = tst_log_find_process(run, (uint32_t)work);
	cr_assert(middle && worker, "middle %d or worker %d missing", mid, work);
	cr_expect_eq(middle->ppid, (uint32_t)parent);
	cr_expect_eq(worker->ppid, (uint32_t)mid, "the worker's parent: %u", worker->ppid);
	pa_run_free(run);
}

/*
 * 100 fork children of 5.5 ms of CPU each (forkstorm): their samples cover
 * their work, and none of it is "[before profiling]". Before, the time
 * from each fork to the child's sampling (the profiler's own set-up in the
 * child) was estimated as before-profiling samples, with the kernel's
 * time counted as user time in a process too young for a clock tick
 * (16% of such a profile), and the first sample of each child, which
 * makes its log, throttled the next (46 to 71 of 100 children's
 * overflows). Each child's event counts from its own start and its last
 * part period is lost at its exit: 5 samples a child are due.
 */
Test(it_process, fork_children_are_sampled_in_their_own_work)
{
	const char *argv[] = { "workloads/forkstorm", "100", "5.5", NULL };
	struct tst_result r;
	struct pa_run *run;
	struct pa_profile *p;
	uint64_t before = 0, throttled = 0, burn;
	double period, due;
	long n;

	tst_run_profiled(&it_proc, "forkstorm", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert(sscanf(r.out, "forkstorm: %ld children", &n) == 1 && n == 100, "%s", r.out);
	run = tst_load(&it_proc);
	cr_assert_eq(run->nprocesses, 101);
	period = tst_period_s(run->processes[0]);
	due = 100 * (double)(long)(0.0055 / period);
	p = tst_profile(run, 0, 0);
	burn = tst_self(p, "burn_forked");
	before = tst_self(p, "[before profiling]");
	for (size_t i = 0; i < run->nprocesses; i++)
		throttled += run->processes[i]->throttled;
	/*
	 * The signal mode loses more of them on a busy machine (408 of 500 in
	 * one run of the whole suite; 486-492 beside its stress tests): a bound
	 * for what the throttle and the estimate have to do with.
	 */
	cr_expect_geq(burn, 0.7 * due, "burn_forked: %llu samples, %.0f due",
		      (unsigned long long)burn, due);
	cr_expect_leq(before, 5, "%llu samples estimated before profiling in fork children",
		      (unsigned long long)before);
	cr_expect_leq(throttled, 25, "%llu overflows throttled", (unsigned long long)throttled);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}
