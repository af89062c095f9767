/*
 * Integration: pprof-analyze's command line on a real run's data (exit codes
 * 0 ok, 1 bad input, 2 usage), and `make check-sigsafe` on objects that do
 * and do not keep to the allow-list.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_cli;

static void it_cli_init(void)
{
	tst_init(&it_cli);
}

static void it_cli_fini(void)
{
	tst_release(&it_cli);
}

TestSuite(it_cli, .init = it_cli_init, .fini = it_cli_fini, .timeout = 120);

/* Profiles a short demo run into it_cli.data. */
static void it_cli_record(void)
{
	const char *argv[] = { "workloads/demo", "0.2", NULL };
	struct tst_result r;

	tst_run_profiled(&it_cli, "demo", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %s", r.err);
	tst_result_release(&r);
}

/* Runs pprof-analyze with args (NULL-terminated, at most 8); returns its exit code. */
static int it_cli_analyze(const char *const *args, struct tst_result *r)
{
	const char *argv[10] = { "pprof-analyze" };

	for (size_t i = 0; args[i]; i++) {
		cr_assert_lt(i, 8);
		argv[i + 1] = args[i];
	}
	tst_run(&it_cli, "analyze", argv, NULL, r);
	cr_assert(WIFEXITED(r->status), "pprof-analyze died: status 0x%x", r->status);
	return WEXITSTATUS(r->status);
}

/* Runs pprof-analyze and expects exit code want and each of needles in stdout. */
static void it_cli_expect(const char *const *args, int want, const char *const *needles)
{
	struct tst_result r;
	int code = it_cli_analyze(args, &r);

	cr_expect_eq(code, want, "pprof-analyze %s: exit %d, stderr: %s", args[0], code, r.err);
	for (size_t i = 0; needles && needles[i]; i++)
		cr_expect(strstr(r.out, needles[i]), "pprof-analyze %s: no \"%s\" in:\n%s",
			  args[0], needles[i], r.out);
	tst_result_release(&r);
}

Test(it_cli, reports_name_the_functions)
{
	const char *top[] = { "top", it_cli.data, NULL };
	const char *top_needles[] = { "burn_alpha (demo)", "burn_beta (demo)",
		"burn_gamma (libburn.so)", NULL };
	const char *folded[] = { "folded", it_cli.data, NULL };
	const char *folded_needles[] = { "main;mid_alpha;burn_alpha ",
		"beta_thread;mid_beta;burn_beta ", "gamma_thread;mid_gamma;burn_gamma ", NULL };
	const char *threads[] = { "threads", it_cli.data, NULL };
	const char *threads_needles[] = { "beta", "gamma", "demo", NULL };
	const char *limited[] = { "top", it_cli.data, "--limit", "1", NULL };
	const char *limited_needles[] = { "burn_alpha", NULL };

	it_cli_record();
	it_cli_expect(top, 0, top_needles);
	it_cli_expect(folded, 0, folded_needles);
	it_cli_expect(threads, 0, threads_needles);
	it_cli_expect(limited, 0, limited_needles);
}

/* The whole file at path, malloc'd ("" when it cannot be read). */
static char *it_cli_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 1 << 20);
	size_t n = f ? fread(text, 1, (1 << 20) - 1, f) : 0;

	cr_assert_not_null(text);
	text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

/*
 * -o FILE: a regular file is replaced whole through a new temporary file
 * beside it, which follows no link planted at an old temporary's name and
 * is not left behind; what is not a regular file is written as it is: a
 * symbolic link's target gets the report and the link stays, a FIFO gets
 * it and stays a FIFO (as a shell's `>` would; renaming over them would
 * put a file in their place, over /dev/null too).
 */
Test(it_cli, output_file_replaces_a_file_and_writes_into_anything_else)
{
	char out[4096], victim[4096], plant[4096], link_path[4096], target[4096], fifo[4096];
	glob_t left = { 0 };
	struct stat st;
	char *text;
	int fd;

	it_cli_record();
	snprintf(out, sizeof(out), "%s/top.txt", it_cli.tmp);
	snprintf(victim, sizeof(victim), "%s/victim", it_cli.tmp);
	snprintf(plant, sizeof(plant), "%s/top.txt.tmp", it_cli.tmp);
	tst_log_fill(it_cli.tmp, "victim", 'V', 10);
	cr_assert_eq(symlink(victim, plant), 0);
	it_cli_expect((const char *[]){ "top", it_cli.data, "-o", out, NULL }, 0, NULL);
	text = it_cli_slurp(out);
	cr_expect(strstr(text, "burn_alpha (demo)"), "%s", text);
	free(text);
	text = it_cli_slurp(victim);
	cr_expect_str_eq(text, "VVVVVVVVVV", "the planted link was followed");
	free(text);
	snprintf(plant, sizeof(plant), "%s/top.txt.??????", it_cli.tmp);
	cr_expect_neq(glob(plant, 0, NULL, &left), 0, "a temporary file is left");
	globfree(&left);

	snprintf(target, sizeof(target), "%s/target.txt", it_cli.tmp);
	snprintf(link_path, sizeof(link_path), "%s/link.txt", it_cli.tmp);
	tst_log_fill(it_cli.tmp, "target.txt", 'T', 10);
	cr_assert_eq(symlink(target, link_path), 0);
	it_cli_expect((const char *[]){ "folded", it_cli.data, "-o", link_path, NULL }, 0, NULL);
	cr_assert_eq(lstat(link_path, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link was replaced");
	text = it_cli_slurp(target);
	cr_expect(strstr(text, "main;mid_alpha;burn_alpha "), "%s", text);
	free(text);

	snprintf(fifo, sizeof(fifo), "%s/fifo", it_cli.tmp);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	cr_assert_geq(fd, 0);
	it_cli_expect((const char *[]){ "top", it_cli.data, "--limit", "1", "-o", fifo, NULL },
		      0, NULL);
	text = calloc(1, 65536);
	cr_assert_not_null(text);
	cr_expect_gt(read(fd, text, 65535), 0);
	cr_expect(strstr(text, "burn_alpha"), "%s", text);
	free(text);
	close(fd);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

Test(it_cli, bad_usage_exits_2)
{
	static const char *const cases[][4] = {
		{ NULL },
		{ "bogus", "/tmp", NULL },
		{ "top", NULL },
		{ "top", "/tmp", "--limit", "many" },
		{ "top", "/tmp", "--no-such-option", NULL },
		{ "top", "/tmp", "-o", "" },
		{ "top", "", NULL },
		/* Another report's option, which this one would ignore. */
		{ "top", "/tmp", "--per-thread", NULL },
		{ "folded", "/tmp", "--limit", "3" },
		{ "threads", "/tmp", "--min-percent", "2" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[5] = { 0 };
		struct tst_result r;

		memcpy(args, cases[i], sizeof(cases[i]));
		cr_expect_eq(it_cli_analyze(args, &r), 2, "case %zu: stderr: %s", i, r.err);
		cr_expect_gt(r.err_len, 0, "case %zu: nothing on stderr", i);
		tst_result_release(&r);
	}
}

/* Overwrites len bytes at offset off of path, or cuts it to off bytes when bytes is NULL. */
static void it_cli_damage(const char *path, long off, const void *bytes, size_t len)
{
	FILE *f;

	if (!bytes) {
		cr_assert_eq(truncate(path, off), 0, "truncate %s", path);
		return;
	}
	f = fopen(path, "r+b");
	cr_assert(f, "%s", path);
	cr_assert_eq(fseek(f, off, SEEK_SET), 0);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* The path of the (only) process's log, or of its first thread's log (thread set). */
static void it_cli_log_path(char *buf, size_t size, bool thread)
{
	struct pa_run *run = tst_load(&it_cli);

	cr_assert_eq(run->nprocesses, 1);
	cr_assert(!thread || run->processes[0]->nthreads > 0);
	snprintf(buf, size, "%s", thread ? run->processes[0]->threads[0]->path :
					   run->processes[0]->path);
	pa_run_free(run);
}

/* A damaged log: exit 1, and stderr names the file. */
static void it_cli_expect_bad_input(const char *path)
{
	const char *args[] = { "top", it_cli.data, NULL };
	struct tst_result r;

	cr_expect_eq(it_cli_analyze(args, &r), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, path), "stderr does not name %s: %s", path, r.err);
	tst_result_release(&r);
}

Test(it_cli, wrong_magic_exits_1_naming_the_file)
{
	char path[TST_PATH_MAX + 64];

	it_cli_record();
	it_cli_log_path(path, sizeof(path), false);
	it_cli_damage(path, 0, "NOTALOG!", 8);
	it_cli_expect_bad_input(path);
}

Test(it_cli, header_cut_short_exits_1_naming_the_file)
{
	const char *args[] = { "threads", it_cli.data, NULL };
	struct tst_result r;
	char path[TST_PATH_MAX + 128];

	it_cli_record();
	it_cli_log_path(path, sizeof(path), true);
	it_cli_damage(path, 12, NULL, 0);
	it_cli_expect_bad_input(path);
	cr_expect_eq(it_cli_analyze(args, &r), 1, "threads: stderr: %s", r.err);
	tst_result_release(&r);
}

Test(it_cli, missing_directory_exits_1)
{
	const char *args[] = { "top", it_cli.data, NULL };
	struct tst_result r;

	cr_expect_eq(it_cli_analyze(args, &r), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, it_cli.data), "stderr does not name %s: %s", it_cli.data, r.err);
	tst_result_release(&r);
}

/* Compiles src into tmp/name.o and runs `make check-sigsafe` on it alone. */
static int it_cli_sigsafe(const char *name, const char *src, struct tst_result *r)
{
	char c_path[TST_PATH_MAX + 16], o_path[TST_PATH_MAX + 16];
	char objs[TST_PATH_MAX + 32];
	const char *cc[] = { "/usr/bin/cc", "-O2", "-c", c_path, "-o", o_path, NULL };
	const char *make[] = { "/usr/bin/make", "-s", "--no-print-directory", "-C",
			       PP_TEST_SOURCE_DIR, "check-sigsafe", objs, NULL };
	FILE *f;

	snprintf(c_path, sizeof(c_path), "%s/%s.c", it_cli.tmp, name);
	snprintf(o_path, sizeof(o_path), "%s/%s.o", it_cli.tmp, name);
	snprintf(objs, sizeof(objs), "SIGSAFE_OBJS=%s", o_path);
	f = fopen(c_path, "w");
	cr_assert(f && fputs(src, f) >= 0 && fclose(f) == 0);
	tst_run(&it_cli, "cc", cc, NULL, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "cc: %s", r->err);
	tst_result_release(r);
	tst_run(&it_cli, "make", make, NULL, r);
	cr_assert(WIFEXITED(r->status));
	return WEXITSTATUS(r->status);
}

/*
 * The check the Makefile runs on the handler's objects passes and fails when
 * it should: on a call outside the allow-list, and on a function whose name
 * does not say it runs in signal context.
 */
Test(it_cli, check_sigsafe_rejects_printf)
{
	static const char good[] = "#include <unistd.h>\nint f_sigsafe(void);\n"
				   "int f_sigsafe(void) { return getpid(); }\n";
	static const char bad[] = "#include <stdio.h>\nint f_sigsafe(int);\n"
				  "int f_sigsafe(int x) { return printf(\"%d\\n\", x); }\n";
	static const char unnamed[] =
		"#include <unistd.h>\nint getpid_twice(void);\n"
		"int getpid_twice(void) { return getpid() + getpid(); }\n";
	struct tst_result r;

	cr_expect_eq(it_cli_sigsafe("good", good, &r), 0, "good object refused: %s", r.err);
	tst_result_release(&r);
	cr_expect_neq(it_cli_sigsafe("bad", bad, &r), 0, "printf accepted: %s", r.out);
	cr_expect(strstr(r.err, "printf"), "the error does not name printf: %s", r.err);
	tst_result_release(&r);
	cr_expect_neq(it_cli_sigsafe("unnamed", unnamed, &r), 0, "getpid_twice accepted: %s",
		      r.out);
	cr_expect(strstr(r.err, "getpid_twice"), "the error does not name getpid_twice: %s",
		  r.err);
	tst_result_release(&r);
}

/*
 * The row starting with prefix has exe (its indentation included) right after
 * the BEFORE(s) column (seconds with three decimals, or '-'), and says how it
 * ended.
 */
static void it_cli_expect_row(const char *text, const char *prefix, const char *exe,
			      const char *how)
{
	const char *row = tst_find_line(text, prefix);
	const char *end = row ? strchr(row, '\n') : NULL;
	const char *at = row ? strstr(row, exe) : NULL;

	cr_assert(row && end, "no row '%s' in:\n%s", prefix, text);
	cr_expect(at && at < end && at - row > 5 && (at[-1] == '-' || (at[-4] == '.' &&
								     at[-1] >= '0' && at[-1] <= '9')),
		  "row '%s': no '%s' after the BEFORE(s) column:\n%s", prefix, exe, text);
	cr_expect(strstr(row, how) && strstr(row, how) < end, "row %s does not say %s",
		  prefix, how);
}

/* forker's parent and child: one row each, the child under its parent. */
Test(it_cli, processes_lists_forked_child_under_parent)
{
	const char *argv[] = { "workloads/forker", "0.2", NULL };
	const char *args[] = { "processes", it_cli.data, NULL };
	char parent_row[64], child_row[64];
	struct tst_result r;
	int parent, child;

	tst_run_profiled(&it_cli, "forker", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "forker: %s", r.err);
	cr_assert_eq(sscanf(r.out, "parent %d child %d", &parent, &child), 2, "%s", r.out);
	tst_result_release(&r);
	snprintf(parent_row, sizeof(parent_row), "%8d ", parent);
	snprintf(child_row, sizeof(child_row), "%8d %8d ", child, parent);
	cr_assert_eq(it_cli_analyze(args, &r), 0, "stderr: %s", r.err);
	cr_expect_eq(tst_count_lines(r.out, parent_row), 1, "no parent row:\n%s", r.out);
	cr_expect_eq(tst_count_lines(r.out, child_row), 1, "no child row:\n%s", r.out);
	/* The '#' lines (the event line, and notes on coverage if any), titles, two rows. */
	cr_expect_eq(tst_count_lines(r.out, "") - tst_count_lines(r.out, "#"), 3,
		     "titles and two rows:\n%s", r.out);
	cr_expect_eq(tst_count_lines(r.out, "# event cpu-clock: period 1 ms of CPU"), 1,
		     "no event line:\n%s", r.out);
	it_cli_expect_row(r.out, parent_row, "  forker", "exit 0");
	it_cli_expect_row(r.out, child_row, "    forker", "exit 0");
	cr_expect(tst_find_line(r.out, parent_row) < tst_find_line(r.out, child_row),
		  "the child is listed before its parent:\n%s", r.out);
	tst_result_release(&r);
}

/* --exe on every report: forker selects both processes; an unknown name warns. */
Test(it_cli, exe_filter_selects_processes)
{
	const char *argv[] = { "workloads/forker", "0.2", NULL };
	const char *top[] = { "top", it_cli.data, "--exe", "forker", NULL };
	const char *top_needles[] = { "burn_parent", "burn_child", "2 processes", NULL };
	const char *folded[] = { "folded", "--exe", "forker", it_cli.data, NULL };
	const char *folded_needles[] = { ";burn_child ", ";burn_parent ", NULL };
	const char *threads[] = { "threads", it_cli.data, "--exe", "forker", NULL };
	const char *threads_needles[] = { "forker", NULL };
	const char *unknown[] = { "processes", it_cli.data, "--exe", "no-such-exe", NULL };
	struct tst_result r;

	tst_run_profiled(&it_cli, "forker", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "forker: %s", r.err);
	tst_result_release(&r);
	it_cli_expect(top, 0, top_needles);
	it_cli_expect(folded, 0, folded_needles);
	it_cli_expect(threads, 0, threads_needles);
	cr_assert_eq(it_cli_analyze(unknown, &r), 0, "stderr: %s", r.err);
	cr_expect(strstr(r.err, "pprof-analyze: warning: no process runs no-such-exe"),
		  "stderr: %s", r.err);
	cr_expect_eq(tst_count_lines(r.out, ""), 2, "only the header:\n%s", r.out);
	cr_expect_eq(tst_count_lines(r.out, "# no process selected, 0 samples"), 1, "%s",
		     r.out);
	tst_result_release(&r);
	unknown[0] = "top";
	cr_assert_eq(it_cli_analyze(unknown, &r), 0, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "0 samples, 0 processes"), "%s", r.out);
	tst_result_release(&r);
}

/*
 * A hand-made run in it_cli.data: app (500) with cpu-clock (1 ms), "faults"
 * (page-faults:u) and a counting event "instr" (instructions:u); thread 500
 * has 3 cpu-clock samples, 1 fault sample and counted 5000 instructions
 * half of the time.
 */
static void it_cli_handmade(void)
{
	const uint32_t u = PPF_EVENT_EXCLUDE_KERNEL;
	struct ppf_event clock = { .index = 0, .type = 1, .period = 1000000,
				   .flags = PPF_EVENT_TIME_NS | u, .name = "cpu-clock",
				   .spec = "cpu-clock" };
	struct ppf_event faults = { .index = 1, .type = 1, .config = 2, .period = 1, .flags = u,
				    .name = "faults", .spec = "page-faults:u" };
	struct ppf_event instr = { .index = 2, .type = 0, .config = 1,
				   .flags = PPF_EVENT_COUNT | u, .name = "instr",
				   .spec = "instructions:u" };
	const uint64_t ips[1] = { 0x401000 };
	struct tst_log l;
	char *pdir;

	cr_assert_eq(mkdir(it_cli.data, 0700), 0);
	pdir = tst_log_subdir(it_cli.data, "app.500");
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 500, 1, "/usr/bin/app", NULL);
	tst_log_config(&l, PPF_MODE_REQUEST_AUTO, 128, PPF_CONFIG_FOLLOW_EXEC,
			  "(embedded default)", "[profile]\n");
	tst_log_event_full(&l, &clock);
	tst_log_event_full(&l, &faults);
	tst_log_event_full(&l, &instr);
	tst_log_process_end(&l, 9000, 4, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 500, 500, 0, "main");
	for (int i = 0; i < 3; i++)
		tst_log_sample(&l, 100, 0, 0, 1, ips);
	tst_log_sample(&l, 100, 1, 0, 1, ips);
	tst_log_thread_event(&l, 0, 0, 3, 0, 0, 0, 0);
	tst_log_thread_event(&l, 1, 0, 1, 0, 0, 0, 0);
	tst_log_thread_event(&l, 2, PPF_THREAD_EVENT_COUNTED, 0, 0, 5000, 100, 50);
	tst_log_thread_end(&l, 9000, 4, 0, 0);
	tst_log_write(&l, pdir, "thread-500.log");
	free(pdir);
}

Test(it_cli, event_option_picks_and_refuses_events)
{
	const char *deflt[] = { "threads", it_cli.data, NULL };
	const char *deflt_needles[] = { "# event cpu-clock: period 1 ms of CPU (user), 3 samples\n",
		NULL };
	const char *byspec[] = { "top", it_cli.data, "--event", "page-faults:u", NULL };
	const char *byspec_needles[] = { "# event faults (page-faults:u): period 1 event (user), "
		"1 sample, 1 process, 1 thread\n", NULL };
	const char *unknown[] = { "top", "--event", "nope", it_cli.data, NULL };
	const char *counting[] = { "folded", it_cli.data, "--event", "instr", NULL };
	const char *folded[] = { "folded", it_cli.data, NULL };
	struct tst_result r;

	it_cli_handmade();
	it_cli_expect(deflt, 0, deflt_needles);
	it_cli_expect(byspec, 0, byspec_needles);
	cr_expect_eq(it_cli_analyze(unknown, &r), 1, "stderr: %s", r.err);
	cr_expect_str_eq(r.err, "pprof-analyze: no event named nope (sampling events: "
			 "cpu-clock, faults (page-faults:u))\n");
	cr_expect_eq(r.out_len, 0, "%s", r.out);
	tst_result_release(&r);
	cr_expect_eq(it_cli_analyze(counting, &r), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, "pprof-analyze: instr is a counting event: see `pprof-analyze "
			 "counters`"), "%s", r.err);
	tst_result_release(&r);
	cr_expect_eq(it_cli_analyze(folded, &r), 0, "stderr: %s", r.err);
	cr_expect_eq(tst_count_lines(r.out, "#"), 0, "folded has no header:\n%s", r.out);
	cr_expect_eq(tst_count_lines(r.out, ""), 1, "one stack:\n%s", r.out);
	tst_result_release(&r);
}

Test(it_cli, events_and_counters_reports)
{
	const char *events[] = { "events", it_cli.data, NULL };
	const char *events_needles[] = {
		"# mode sigtrap (requested auto); configuration (embedded default): max_frames 128, "
		"follow_exec yes, unavailable skip, strict no\n",
		"\nfaults     page-faults:u   sample  software:0x2  1 event      user          "
		"     0        1     0          0  all        ok\n",
		"\ninstr      instructions:u  count   hardware:0x1  -            user          "
		"     0        -     -          -  all        ok\n", NULL };
	const char *counters[] = { "counters", it_cli.data, NULL };
	const char *counters_needles[] = {
		"\n            10,000  instr (instructions:u)  (scaled, counted 50.0% of the "
		"time)\n", NULL };
	const char *wrong[] = { "counters", it_cli.data, "--event", "cpu-clock", NULL };
	struct tst_result r;

	it_cli_handmade();
	it_cli_expect(events, 0, events_needles);
	it_cli_expect(counters, 0, counters_needles);
	cr_expect_eq(it_cli_analyze(wrong, &r), 1, "stderr: %s", r.err);
	cr_expect(strstr(r.err, "cpu-clock is a sampling event"), "%s", r.err);
	tst_result_release(&r);
}

/*
 * Reading that takes over a second shows a progress line on a terminal and
 * erases it; the report that follows is complete. strace slows every
 * openat by 3 ms (1,001 thread logs: ~3 s), script(1) gives a terminal.
 */
Test(it_cli, progress_line_on_a_terminal)
{
	char analyze[TST_PATH_MAX], cmd[2 * TST_PATH_MAX + 256];
	const char *many[] = { "workloads/manythreads", "1000", "--no-usage", NULL };
	const char *argv[] = { "/usr/bin/script", "-qec", cmd, "/dev/null", NULL };
	struct tst_result r;

	tst_skip_under_asan(TST_ASAN_TRACED);
	tst_run_profiled(&it_cli, "many", many, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	tst_result_release(&r);
	tst_build_path(analyze, "pprof-analyze");
	snprintf(cmd, sizeof(cmd), "/usr/bin/strace -f -o /dev/null -e trace=openat "
		 "-e inject=openat:delay_enter=3000 %s top %s --limit 1", analyze, it_cli.data);
	tst_run(&it_cli, "pty", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "\r" "pprof-analyze: reading logs: "), "%s", r.out);
	cr_expect(strstr(r.out, " thread logs read\r\033[K# event cpu-clock"), "%s", r.out);
	cr_expect(strstr(r.out, "burn_short (manythreads)"), "%s", r.out);
	tst_result_release(&r);
}

/*
 * A run named twice (by two names, or a process's log beside the run that
 * holds it) is read once: its processes were counted twice. Said, the
 * later left out.
 */
Test(it_cli, a_run_given_twice_counts_once)
{
	char again[8200], log[4096];
	const char *once[] = { "pprof-analyze", "top", it_cli.data, NULL };
	const char *twice[] = { "pprof-analyze", "top", it_cli.data, again, NULL };
	const char *inside[] = { "pprof-analyze", "top", log, it_cli.data, NULL };
	struct tst_result a, b, c;

	it_cli_record();
	snprintf(again, sizeof(again), "%s/../%s", it_cli.data, strrchr(it_cli.data, '/') + 1);
	it_cli_log_path(log, sizeof(log), false);
	tst_run(&it_cli, "once", once, NULL, &a);
	tst_run(&it_cli, "twice", twice, NULL, &b);
	tst_run(&it_cli, "inside", inside, NULL, &c);
	cr_assert(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 0, "%s", b.err);
	cr_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0, "%s", c.err);
	cr_expect_str_eq(b.out, a.out);
	cr_expect_str_eq(c.out, a.out);
	cr_expect(strstr(b.err, ": read already (it is, or is inside, "), "%s", b.err);
	cr_expect(strstr(c.err, ": inside "), "%s", c.err);
	tst_result_release(&a);
	tst_result_release(&b);
	tst_result_release(&c);
}

/* pprof's gzip'd bytes are not written to a terminal: -o is asked for (exit 2). */
Test(it_cli, pprof_to_a_terminal_asks_for_a_file)
{
	char analyze[TST_PATH_MAX], cmd[2 * TST_PATH_MAX + 64];
	const char *argv[] = { "/usr/bin/script", "-qec", cmd, "/dev/null", NULL };
	struct tst_result r;

	it_cli_record();
	tst_build_path(analyze, "pprof-analyze");
	snprintf(cmd, sizeof(cmd), "%s pprof %s", analyze, it_cli.data);
	tst_run(&it_cli, "pty", argv, NULL, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "status %#x: %s", r.status,
		  r.out);
	cr_expect(strstr(r.out, "give -o FILE.pb.gz"), "%s", r.out);
	cr_expect_null(memchr(r.out, 0x1f, r.out_len), "gzip bytes on the terminal");
	tst_result_release(&r);
}
