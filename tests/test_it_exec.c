/*
 * Integration: children started every way a program can (fork + execve with
 * an empty environment after chdir, vfork + execv, posix_spawn, system())
 * are profiled into their own directories of the same output root, and the
 * ends that bypass exit() (_exit, abort) are recorded.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "pa_it.h"

static struct pa_it it_exec;

static void it_exec_init(void)
{
	pa_it_init(&it_exec);
}

static void it_exec_fini(void)
{
	pa_it_release(&it_exec);
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

/* burn_child samples of one process, against the 0.2 s it burns. */
static void it_exec_expect_burn(const struct pa_run *run, const struct pa_process *p)
{
	struct pa_profile *prof = pa_it_profile(run, p->pid, 0);
	uint64_t self = pa_it_self(prof, "burn_child");

	cr_expect_geq(self, 100, "pid %u (%s %s): %llu samples in burn_child",
		      p->pid, p->exe, p->argv[1], (unsigned long long)self);
	pa_profile_free(prof);
}

/* Whether p descends from the process ancestor (through ppid links in run). */
static bool it_exec_descends(const struct pa_run *run, const struct pa_process *p,
			     uint32_t ancestor)
{
	for (int depth = 0; p && depth < 8; depth++) {
		if (p->ppid == ancestor)
			return true;
		p = pa_run_find_process(run, p->ppid);
	}
	return false;
}

static const char *const it_exec_argv[] = { "workloads/spawner", "0.2", NULL };

Test(it_exec, every_child_is_profiled)
{
	const struct pa_process *children[8], *top = NULL, *p;
	struct pa_it_result plain, prof;
	struct pa_run *run;
	size_t n;

	pa_it_run(&it_exec, "plain", it_exec_argv, NULL, &plain);
	pa_it_run_profiled(&it_exec, "prof", it_exec_argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_assert_eq(prof.status, plain.status);
	cr_assert_str_eq(prof.out, plain.out);
	cr_assert_str_eq(prof.err, plain.err);

	run = pa_it_load(&it_exec);
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
	pa_it_result_release(&plain);
	pa_it_result_release(&prof);
}

/* PPROF_FOLLOW_EXEC=0: a child given an environment without the profiler stays unprofiled. */
Test(it_exec, follow_exec_off)
{
	const struct pa_process *children[8];
	struct pa_it_result r;
	struct pa_run *run;
	size_t n;

	pa_it_run_profiled(&it_exec, "prof", it_exec_argv, "PPROF_FOLLOW_EXEC=0", &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	run = pa_it_load(&it_exec);
	n = it_exec_find(run, "child", children, 8);
	/* Only vfork + execv passes the app's own environment, which has it. */
	cr_expect_eq(n, 1, "%zu exec'd children profiled, want 1", n);
	pa_run_free(run);
	pa_it_result_release(&r);
}
