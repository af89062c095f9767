/*
 * Integration: what a profiled process pays at its start. The constructor
 * takes the command line from its own argv (glibc passes main's arguments
 * to constructors) and asks /proc only what it cannot know otherwise: a
 * process that does nothing reads no /proc/self/cmdline, lists no
 * /proc/self/task when its thread is alone, and reads /proc/self/exe once
 * for its own records. What is recorded stays what it was: the arguments
 * exactly as the program got them, a fork child's as /proc gives them.
 * A thread's alternate signal stack is kept for the next thread when it
 * ends, not unmapped and mapped again for each short thread.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_su;

static void it_su_init(void)
{
	tst_init(&it_su);
}

static void it_su_fini(void)
{
	tst_release(&it_su);
}

TestSuite(it_startup, .init = it_su_init, .fini = it_su_fini, .timeout = 120);

/* An argument longer than a page, so that the copy's bounds are exercised. */
#define IT_SU_LONG 5000

/* proc's recorded arguments are argv's (argc of them), byte for byte. */
static void it_su_expect_args(const struct pa_process *proc, const char *const *argv,
			      size_t argc)
{
	cr_assert_eq(proc->argc, argc, "pid %u: %zu arguments recorded, %zu given", proc->pid,
		     proc->argc, argc);
	for (size_t i = 0; i < argc; i++)
		cr_expect_str_eq(proc->argv[i], argv[i], "pid %u: argument %zu", proc->pid, i);
}

/*
 * /bin/true with awkward arguments (empty, spaces, a tab, UTF-8, one longer
 * than a page): its process record holds each as given.
 */
Test(it_startup, arguments_recorded_as_given)
{
	static char longarg[IT_SU_LONG + 1];
	const char *argv[] = { "/bin/true", "", "two words", "tab\there", "\xc3\xa9t\xc3\xa9",
			       longarg, "-", NULL };
	struct tst_result r;
	struct pa_run *run;

	memset(longarg, 'x', IT_SU_LONG);
	tst_run_profiled(&it_su, "true", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x, stderr: %s",
		  r.status, r.err);
	run = tst_load(&it_su);
	cr_assert_eq(run->nprocesses, 1);
	it_su_expect_args(run->processes[0], argv, sizeof(argv) / sizeof(argv[0]) - 1);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * A fork child, which starts from the fork handler, not the constructor,
 * records its arguments too: the parent's (forker, both processes).
 */
Test(it_startup, fork_child_records_its_arguments)
{
	char forker[TST_PATH_MAX];
	const char *argv[] = { forker, "0.05", "--no-pids", NULL };
	struct tst_result r;
	struct pa_run *run;

	tst_build_path(forker, "workloads/forker");
	tst_run_profiled(&it_su, "forker", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x, stderr: %s",
		  r.status, r.err);
	run = tst_load(&it_su);
	cr_assert_eq(run->nprocesses, 2);
	for (size_t i = 0; i < run->nprocesses; i++)
		it_su_expect_args(run->processes[i], argv, 3);
	pa_run_free(run);
	tst_result_release(&r);
}

/* Lines of text naming what (a path in quotes, as strace shows it). */
static size_t it_su_count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/*
 * A profiled /bin/true under strace -f: the profiler's start opens no
 * /proc/self/cmdline (argv has it), lists no /proc/self/task (status said
 * its thread was alone) and reads /proc/self/exe at most twice (its
 * process record and the module scan). Before, each start read cmdline
 * and the task list once and /proc/self/exe three times, ~10 us of CPU
 * per /proc access here. Counts system calls, not time.
 */
Test(it_startup, empty_process_asks_proc_only_what_it_must)
{
	char trace[TST_PATH_MAX + 16];
	const char *argv[] = { "/usr/bin/strace", "-f", "-qq", "-e",
			       "trace=open,openat,readlink,readlinkat", "-o", trace,
			       "/usr/bin/env", it_su.env_preload, it_su.env_output, "/bin/true",
			       NULL };
	struct tst_result r;
	char *text;
	size_t len;

	snprintf(trace, sizeof(trace), "%s/strace.txt", it_su.tmp);
	tst_run(&it_su, "strace", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x, stderr: %s",
		  r.status, r.err);
	cr_expect_null(strstr(r.err, "libpprof:"), "the preload said something: %s", r.err);
	text = tst_slurp(trace, &len);
	/* The run was profiled: the preload opened its status file. */
	cr_assert_geq(it_su_count(text, "\"/proc/self/status\""), 1, "not profiled? %s", text);
	cr_expect_eq(it_su_count(text, "\"/proc/self/cmdline\""), 0, "%s", text);
	cr_expect_eq(it_su_count(text, "\"/proc/self/task\""), 0, "%s", text);
	cr_expect_leq(it_su_count(text, "readlink(\"/proc/self/exe\""), 2, "%s", text);
	free(text);
	tst_result_release(&r);
}

/* Lines of the strace output at path that hold what. */
static size_t it_su_count_in(const char *path, const char *what)
{
	size_t len, n;
	char *text = tst_slurp(path, &len);

	n = it_su_count(text, what);
	free(text);
	return n;
}

/*
 * manythreads makes 200 short threads one after another (each takes
 * samples, on its alternate stack, and ends by return, pthread_exit or
 * cancellation): the profiler maps a 64 KiB alternate stack for the first
 * few only, then hands an ended thread's to the next (before: one mmap and
 * one munmap per thread). The run still ends well and lists every thread.
 */
Test(it_startup, short_threads_reuse_alternate_stacks)
{
	char trace[TST_PATH_MAX + 16], many[TST_PATH_MAX];
	const char *argv[] = { "/usr/bin/strace", "-f", "-qq", "-e", "trace=mmap", "-o", trace,
			       "/usr/bin/env", it_su.env_preload, it_su.env_output, many, "200",
			       "--no-usage", NULL };
	struct tst_result r;
	struct pa_run *run;
	size_t stacks;

	snprintf(trace, sizeof(trace), "%s/strace.txt", it_su.tmp);
	tst_build_path(many, "workloads/manythreads");
	tst_run(&it_su, "strace", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x, stderr: %s",
		  r.status, r.err);
	cr_expect_null(strstr(r.err, "libpprof:"), "the preload said something: %s", r.err);
	stacks = it_su_count_in(trace, "65536, PROT_READ|PROT_WRITE, "
				"MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK");
	cr_expect_leq(stacks, 8, "%zu alternate stacks mapped for 200 threads made one after "
		      "another", stacks);
	run = tst_load(&it_su);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->nthreads, 201, "%zu threads listed",
		     run->processes[0]->nthreads);
	pa_run_free(run);
	tst_result_release(&r);
}
