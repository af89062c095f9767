/*
 * Integration: what is not a regular file (a FIFO, a directory, a socket, a
 * device, a link to /dev/zero) where pprof-analyze or the preload reads a
 * file: a log, a module or its separate debug information, PPROF_CONFIG.
 * Nothing waits for a FIFO's writer or reads a device forever: the file is
 * named in a warning (the analyzer, which reads the rest and exits 0) or a
 * refusal (the preload, and the program runs unprofiled, its own stdin
 * untouched). Every program that used to hang runs under a bound, so that
 * a hang fails the test instead of the test run.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

/* Seconds a program that used to hang gets: its work takes well under one. */
#define IT_NR_LIMIT_S 60

static struct tst_it it_nr;

static void it_nr_init(void)
{
	tst_init(&it_nr);
}

static void it_nr_fini(void)
{
	tst_release(&it_nr);
}

TestSuite(it_nonregular, .init = it_nr_init, .fini = it_nr_fini, .timeout = 240);

/* A kind for tst_log_odd_file, and what the message says it is. */
struct it_nr_case {
	char kind[16];
	char what[48];
};

static struct it_nr_case it_nr_cases[] = {
	{ "fifo", "is a FIFO, not a regular file" },
	{ "directory", "is a directory, not a regular file" },
	{ "socket", "is a socket, not a regular file" },
	{ "device", "is a character device, not a regular file" },
};

#define IT_NR_NCASES (sizeof(it_nr_cases) / sizeof(it_nr_cases[0]))

/* Makes path of c's kind; false (and says so) where this machine does not let it. */
static bool it_nr_odd(const char *path, const struct it_nr_case *c)
{
	if (tst_log_odd_file(path, c->kind))
		return true;
	cr_log_warn("no %s tested: cannot make one here (mknod needs CAP_MKNOD)", c->kind);
	return false;
}

/* Runs the program argv (path relative to the build directory) under the bound. */
static void it_nr_run(const char *tag, const char *const *argv, const char *const *env,
		      struct tst_result *r)
{
	tst_wait_bounded(&it_nr, tag, tst_spawn(&it_nr, tag, argv, env), IT_NR_LIMIT_S, r);
}

/* pprof-analyze with args (NULL-terminated, at most 6), under the bound; its exit code. */
static int it_nr_analyze(const char *const *args, struct tst_result *r)
{
	const char *argv[8] = { "pprof-analyze" };

	for (size_t i = 0; args[i]; i++) {
		cr_assert_lt(i, 6);
		argv[i + 1] = args[i];
	}
	it_nr_run("analyze", argv, NULL, r);
	cr_assert(WIFEXITED(r->status), "pprof-analyze died: status 0x%x", r->status);
	return WEXITSTATUS(r->status);
}

/* The path of the one process's file what in it_nr.data, into path (size bytes). */
static void it_nr_process_file(const char *what, char *path, size_t size)
{
	struct pa_run *run = tst_load(&it_nr);

	cr_assert_eq(run->nprocesses, 1);
	tst_process_file(run->processes[0], what, path, size);
	pa_run_free(run);
}

/* Expects "pprof-analyze: warning: PATH: WHAT; " on a line of err. */
static void it_nr_expect_warning(const char *err, const char *path, const char *what)
{
	char line[TST_PATH_MAX + 128];

	snprintf(line, sizeof(line), "pprof-analyze: warning: %s: %s; ", path, what);
	cr_expect(tst_find_line(err, line), "no \"%s\" in stderr:\n%s", line, err);
}

/*
 * A FIFO named thread-N.log used to hang the analyzer, and a directory, a
 * socket or a device so named failed the whole run. Each is skipped with a
 * warning naming it, the rest of the run is reported, and the exit status
 * is 0, as for a truncated log.
 */
Test(it_nonregular, analyzer_skips_entries_that_are_not_regular_files)
{
	const char *demo[] = { "workloads/demo", "0.2", NULL };
	const char *top[] = { "top", it_nr.data, NULL };
	char path[IT_NR_NCASES][TST_PATH_MAX + 32], what[64];
	bool made[IT_NR_NCASES];
	struct tst_result r;

	tst_run_profiled(&it_nr, "demo", demo, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %s", r.err);
	tst_result_release(&r);
	for (size_t i = 0; i < IT_NR_NCASES; i++) {
		snprintf(what, sizeof(what), "thread-%zu.log", 999990 + i);
		it_nr_process_file(what, path[i], sizeof(path[i]));
	}
	for (size_t i = 0; i < IT_NR_NCASES; i++)
		made[i] = it_nr_odd(path[i], &it_nr_cases[i]);
	cr_assert_eq(it_nr_analyze(top, &r), 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "burn_alpha (demo)") && strstr(r.out, "burn_gamma (libburn.so)"),
		  "the rest of the run is not reported:\n%s", r.out);
	for (size_t i = 0; i < IT_NR_NCASES; i++)
		if (made[i])
			it_nr_expect_warning(r.err, path[i], it_nr_cases[i].what);
	tst_result_release(&r);
}

/* Runs cmd (sh -c) in dir; the test fails when it does. */
static void it_nr_sh(const char *dir, const char *cmd)
{
	char line[2 * TST_PATH_MAX];

	snprintf(line, sizeof(line), "cd '%s' && %s", dir, cmd);
	cr_assert_eq(system(line), 0, "failed: %s", line);
}

/*
 * tmp/app/prog, the inlines workload without a build-id (so that libdw checks
 * a debug file found by its .gnu_debuglink CRC, reading it whole) and without
 * symbols: they are in the separate tmp/app/prog.debug it names. Runs it
 * profiled.
 */
static void it_nr_debuglinked_run(char *app)
{
	const char *argv[] = { NULL, "0.2", NULL };
	char prog[TST_PATH_MAX + 8];
	struct tst_result r;

	snprintf(app, TST_PATH_MAX, "%s/app", it_nr.tmp);
	cr_assert_eq(mkdir(app, 0700), 0, "%s", app);
	it_nr_sh(app, "gcc -std=gnu11 -O2 -g -Wl,--build-id=none -o prog '"
		 PP_TEST_SOURCE_DIR "/tests/workloads/inlines.c' && "
		 "objcopy --only-keep-debug prog prog.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=prog.debug prog");
	snprintf(prog, sizeof(prog), "%s/prog", app);
	argv[0] = prog;
	tst_run_profiled(&it_nr, "prog", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "prog: %s", r.err);
	tst_result_release(&r);
}

ParameterizedTestParameters(it_nonregular, analyzer_reads_past_debug_info_that_is_not_a_file)
{
	static struct it_nr_case cases[] = {
		{ "fifo", "is a FIFO, not a regular file" },
		{ "symlink", "is a character device, not a regular file" }, /* /dev/zero */
	};

	return cr_make_param_array(struct it_nr_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * libdw looks for separate debug info itself, by names from the module: a
 * FIFO at the first place it looks (beside the module) blocked its open()
 * for good, and /dev/zero there fed its CRC check forever. Each is passed
 * over with a warning, and the debug file in .debug/, the next place, is
 * read: the lines are there.
 */
ParameterizedTest(struct it_nr_case *c, it_nonregular,
		  analyzer_reads_past_debug_info_that_is_not_a_file)
{
	const char *top[] = { "top", "--lines", it_nr.data, NULL };
	char app[TST_PATH_MAX], path[TST_PATH_MAX + 16];
	struct tst_result r;

	it_nr_debuglinked_run(app);
	it_nr_sh(app, "mkdir .debug && mv prog.debug .debug/");
	snprintf(path, sizeof(path), "%s/prog.debug", app);
	cr_assert(tst_log_odd_file(path, c->kind));
	cr_assert_eq(it_nr_analyze(top, &r), 0, "%s: stderr: %s", c->kind, r.err);
	cr_expect(strstr(r.out, "inlines.c:") && strstr(r.out, "inl_outer (prog)"),
		  "%s: no lines from .debug/prog.debug:\n%s", c->kind, r.out);
	it_nr_expect_warning(r.err, path, c->what);
	tst_result_release(&r);
}

/*
 * A module path naming a FIFO blocked libdwfl's open() for good: the
 * module's frames stay unresolved, with a warning, and the others are named.
 */
Test(it_nonregular, analyzer_reads_past_a_module_that_is_a_fifo)
{
	const char *argv[] = { NULL, "0.2", NULL };
	const char *top[] = { "top", it_nr.data, NULL };
	char app[TST_PATH_MAX], demo[TST_PATH_MAX + 8], lib[TST_PATH_MAX + 16];
	char cmd[3 * TST_PATH_MAX];
	struct tst_result r;

	/* demo finds libburn.so beside itself (rpath $ORIGIN). */
	snprintf(app, sizeof(app), "%s/app", it_nr.tmp);
	cr_assert_eq(mkdir(app, 0700), 0, "%s", app);
	snprintf(cmd, sizeof(cmd), "cp '%s/workloads/demo' '%s/workloads/libburn.so' .",
		 PP_TEST_BUILD_DIR, PP_TEST_BUILD_DIR);
	it_nr_sh(app, cmd);
	snprintf(demo, sizeof(demo), "%s/demo", app);
	argv[0] = demo;
	tst_run_profiled(&it_nr, "demo", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %s", r.err);
	tst_result_release(&r);
	snprintf(lib, sizeof(lib), "%s/libburn.so", app);
	cr_assert_eq(unlink(lib), 0);
	cr_assert(tst_log_odd_file(lib, "fifo"));
	cr_assert_eq(it_nr_analyze(top, &r), 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "burn_alpha (demo)") && strstr(r.out, "libburn.so+0x"),
		  "demo not named, or libburn.so named:\n%s", r.out);
	it_nr_expect_warning(r.err, lib, "is a FIFO, not a regular file");
	tst_result_release(&r);
}

/* Expects the two lines of a refused PPROF_CONFIG=path on err, and nothing else. */
static void it_nr_expect_refused(const char *err, const char *path, const char *what)
{
	char line[TST_PATH_MAX + 128];

	snprintf(line, sizeof(line), "libpprof: PPROF_CONFIG=%s: %s; not read", path, what);
	cr_expect(tst_find_line(err, line), "no \"%s\" in stderr:\n%s", line, err);
	cr_expect(tst_find_line(err, "libpprof: profiling is off because of the "
				  "configuration; the program runs unprofiled"), "%s", err);
	cr_expect_eq(tst_count_lines(err, "libpprof: "), 2, "stderr:\n%s", err);
}

ParameterizedTestParameters(it_nonregular, config_that_is_not_a_regular_file_is_refused)
{
	return cr_make_param_array(struct it_nr_case, it_nr_cases, IT_NR_NCASES);
}

/*
 * PPROF_CONFIG naming a FIFO hung the program before main; a directory, a
 * socket or a device failed with a confusing reason or, for /dev/null, was
 * read as an empty file. Each is refused with one line naming it, and the
 * program runs unprofiled with its output and exit status unchanged.
 */
ParameterizedTest(struct it_nr_case *c, it_nonregular, config_that_is_not_a_regular_file_is_refused)
{
	const char *argv[] = { "workloads/demo", "0.2", "--exit", "3", NULL };
	char path[TST_PATH_MAX + 16], env[TST_PATH_MAX + 32];
	const char *envv[] = { it_nr.env_preload, it_nr.env_output, env, NULL };
	struct tst_result r, plain;
	struct stat st;

	snprintf(path, sizeof(path), "%s/odd.ini", it_nr.tmp);
	if (!tst_log_odd_file(path, c->kind))
		cr_skip_test("cannot make a %s here (mknod needs CAP_MKNOD)", c->kind);
	snprintf(env, sizeof(env), "PPROF_CONFIG=%s", path);
	tst_run(&it_nr, "plain", argv, NULL, &plain);
	it_nr_run("demo", argv, envv, &r);
	cr_assert_eq(r.status, plain.status, "%s: status 0x%x, unprofiled 0x%x: %s", c->kind,
		     r.status, plain.status, r.err);
	cr_expect_str_eq(r.out, plain.out);
	it_nr_expect_refused(r.err, path, c->what);
	cr_expect(stat(it_nr.data, &st) != 0, "%s: the refused run wrote logs", c->kind);
	tst_result_release(&r);
	tst_result_release(&plain);
}

/* cat under the preload with PPROF_CONFIG=/dev/stdin, its stdin from in. */
static void it_nr_cat_stdin(int in, struct tst_result *r)
{
	const char *argv[] = { "/bin/cat", NULL };
	const char *envv[] = { it_nr.env_preload, it_nr.env_output, "PPROF_CONFIG=/dev/stdin",
		NULL };

	tst_wait_bounded(&it_nr, "cat", tst_spawn_stdin(&it_nr, "cat", argv, envv, in),
			   IT_NR_LIMIT_S, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "cat: status 0x%x: %s",
		  r->status, r->err);
}

/*
 * PPROF_CONFIG=/dev/stdin with stdin a pipe ate the program's input before
 * main: it is refused, and the program reads all of it.
 */
Test(it_nonregular, config_on_piped_stdin_leaves_the_input_alone)
{
	static const char text[] = "[profile]\nmax_frames = 64\nthe program's own input\n";
	struct tst_result r;
	struct stat st;
	int p[2];

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(p[1]);
	it_nr_cat_stdin(p[0], &r);
	close(p[0]);
	cr_expect_str_eq(r.out, text);
	it_nr_expect_refused(r.err, "/dev/stdin", "is a FIFO, not a regular file");
	cr_expect(stat(it_nr.data, &st) != 0, "the refused run wrote logs");
	tst_result_release(&r);
}

/*
 * With stdin redirected from a regular file, /dev/stdin opens that file
 * anew: the configuration is read from its start, and the program's own
 * offset (here part-way in) does not move.
 */
Test(it_nonregular, config_on_a_regular_stdin_file_leaves_its_offset)
{
	static const char text[] = "[profile]\nmax_frames = 64\n";
	char path[TST_PATH_MAX + 16];
	struct tst_result r;
	struct pa_run *run;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/in.ini", it_nr.tmp);
	f = fopen(path, "w");
	cr_assert(f && fputs(text, f) >= 0 && fclose(f) == 0, "%s", path);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(lseek(fd, 10, SEEK_SET), 10); /* past "[profile]\n" */
	it_nr_cat_stdin(fd, &r);
	close(fd);
	cr_expect_str_eq(r.out, text + 10);
	cr_expect_eq(r.err_len, 0, "stderr: %s", r.err);
	run = tst_load(&it_nr);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->config.max_frames, 64);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * A process log that is not a libpprof log at all (its first bytes another
 * program's: a shell's writes to a descriptor it took for its own): the
 * analyzer refused the whole run ("bad magic"); now that process is
 * skipped and said, and the others are reported.
 */
Test(it_nonregular, analyzer_skips_a_process_log_that_is_not_a_log)
{
	const char *forker[] = { "workloads/forker", "0.2", NULL };
	const char *top[] = { "top", it_nr.data, NULL };
	char log[TST_PATH_MAX + 64];
	int parent = 0, child = 0, fd;
	struct tst_result r;

	tst_run_profiled(&it_nr, "forker", forker, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "forker: %s", r.err);
	cr_assert_eq(sscanf(r.out, "parent %d child %d", &parent, &child), 2, "%s", r.out);
	tst_result_release(&r);
	tst_process_dir(&it_nr, "forker", child, log);
	strcat(log, PPF_LOG_SUFFIX);
	fd = open(log, O_WRONLY);
	cr_assert_geq(fd, 0, "%s", log);
	cr_assert_eq(write(fd, "line1\nline2\n", 12), 12);
	close(fd);
	cr_assert_eq(it_nr_analyze(top, &r), 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "burn_parent (forker)"), "the rest of the run is not reported:\n%s",
		  r.out);
	cr_expect_null(strstr(r.out, "burn_child"), "%s", r.out);
	cr_expect(strstr(r.err, log) && strstr(r.err, "not a libpprof log") &&
		  strstr(r.err, "that process is skipped"), "%s", r.err);
	tst_result_release(&r);
}
