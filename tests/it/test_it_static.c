/*
 * Integration: a statically linked program has no dynamic loader, so
 * LD_PRELOAD cannot enter it. The exec and spawn wrappers name it, once
 * per run, without changing the exec (the program's output, exit status
 * and errno are as without the profiler); the parent's log records it and
 * the analyzer says so; and pointing the analyzer at the directory a
 * static program never wrote says the likely causes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_st;

static void it_st_init(void)
{
	tst_init(&it_st);
}

static void it_st_fini(void)
{
	tst_release(&it_st);
}

TestSuite(it_static, .init = it_st_init, .fini = it_st_fini, .timeout = 120);

#define IT_ST_LINE " is statically linked: no dynamic loader reads LD_PRELOAD"

/* How many times needle occurs in text. */
static size_t it_st_count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/*
 * staticrun starts staticprog by posix_spawn, posix_spawnp, fork + execv,
 * vfork + execv and fork + execlp: five starts of one static program, one
 * line for the whole run (its forked children included), and what the
 * program and its children print and return is unchanged.
 */
Test(it_static, static_program_named_once_per_run)
{
	const char *argv[] = { "workloads/staticrun", NULL };
	char prog[TST_PATH_MAX], line[2 * TST_PATH_MAX], analyze[TST_PATH_MAX], *rest;
	const char *at;
	const char *rep_argv[] = { analyze, "processes", it_st.data, NULL };
	struct tst_result plain, prof, rep;
	struct pa_run *run;
	size_t records = 0, exec_static = 0;

	tst_build_path(prog, "workloads/staticprog");
	tst_run(&it_st, "plain", argv, NULL, &plain);
	tst_run_profiled(&it_st, "prof", argv, NULL, &prof);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
	cr_expect_eq(prof.status, plain.status);
	cr_expect_str_eq(prof.out, plain.out);
	cr_expect_eq(it_st_count(plain.out, ": exit 5\n"), 5, "%s", plain.out);
	cr_expect(strstr(prof.out, "execv of a missing program: No such file or directory\n"),
		  "%s", prof.out);
	snprintf(line, sizeof(line), "libpprof: %s" IT_ST_LINE, prog);
	cr_expect_eq(it_st_count(prof.err, IT_ST_LINE), 1, "stderr:\n%s", prof.err);
	at = strstr(prof.err, line);
	cr_assert(at && strchr(at, '\n'), "no '%s' on stderr:\n%s", line, prof.err);
	/* Nothing else on stderr than without the profiler. */
	rest = strdup(prof.err);
	memmove(rest + (at - prof.err), strchr(at, '\n') + 1, strlen(strchr(at, '\n') + 1) + 1);
	cr_expect_str_eq(rest, plain.err);
	free(rest);

	/* The spawns and the forked children's execs (not the vfork child's: no log there). */
	run = tst_load(&it_st);
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		for (size_t k = 0; k < p->nunprofiled; k++) {
			cr_expect_str_eq(p->unprofiled[k].path, prog);
			cr_expect_eq(p->unprofiled[k].why, PPF_UNPROFILED_STATIC);
			records++;
			exec_static += p->replaced && p->unprofiled[k].pid == p->pid;
		}
	}
	cr_expect_eq(records, 4, "%zu records of a static program", records);
	cr_expect_eq(exec_static, 2, "%zu forked children recorded exec'ing it", exec_static);
	pa_run_free(run);

	tst_build_path(analyze, "pprof-analyze");
	tst_run(&it_st, "report", rep_argv, NULL, &rep);
	cr_assert(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 0, "%s", rep.err);
	snprintf(line, sizeof(line), "1 program was statically linked and not profiled "
		 "(started 4 times; ");
	cr_expect(strstr(rep.err, line) && strstr(rep.err, prog), "%s", rep.err);
	cr_expect_eq(it_st_count(rep.out, "(statically linked: not profiled)\n"), 2, "%s",
		     rep.out);
	tst_result_release(&rep);
	tst_result_release(&plain);
	tst_result_release(&prof);
}

/*
 * Run directly under the preload, a static program writes nothing: the
 * analyzer, pointed at the directory that was never made, says why that
 * may be.
 */
Test(it_static, missing_directory_says_why)
{
	char prog[TST_PATH_MAX], analyze[TST_PATH_MAX];
	const char *argv[] = { prog, "direct", NULL };
	const char *rep_argv[] = { analyze, "top", it_st.data, NULL };
	struct tst_result prof, rep;

	tst_build_path(prog, "workloads/staticprog");
	tst_build_path(analyze, "pprof-analyze");
	tst_run_profiled(&it_st, "direct", argv, NULL, &prof);
	cr_expect(WIFEXITED(prof.status) && WEXITSTATUS(prof.status) == 5);
	cr_expect_str_eq(prof.out, "staticprog direct\n");
	tst_run(&it_st, "report", rep_argv, NULL, &rep);
	cr_expect(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 1, "status 0x%x",
		  rep.status);
	cr_expect(strstr(rep.err, "No such file or directory; was the program statically "
			 "linked (LD_PRELOAD cannot enter it), did LD_PRELOAD not reach it"),
		  "%s", rep.err);
	tst_result_release(&rep);
	tst_result_release(&prof);
}
