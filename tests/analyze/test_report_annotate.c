/*
 * Tests of analyze/report_annotate.c and of top --lines / --inlines on a
 * hand-made run of tests/workloads/inlines (built by the Makefile, or here
 * from a copy of its source), whose samples are addresses chosen with the
 * symboliser: one in code inlined two levels deep, one in inl_outer itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_log.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "symbols.h"

#define RA_BIAS 0x7f1200000000ull
#define RA_PROG PP_TEST_BUILD_DIR "/workloads/inlines"

static char *ra_dir;
static struct pa_run *ra_run;

/* The first runtime address of inl_outer of prog with nsrc source frames. */
static uint64_t ra_addr_with(const struct pa_process *proc, const char *prog, size_t nsrc)
{
	struct pa_error err = { 0 };
	struct pa_symbols *sym;
	uint64_t size, start = tst_log_nm(prog, "inl_outer", &size) + RA_BIAS, found = 0;

	cr_assert_eq(pa_symbols_new(proc, &sym, NULL, &err), 0);
	for (uint64_t ip = start; ip < start + size && !found; ip++) {
		const struct pa_srcframe *src;
		size_t n;

		cr_assert_eq(pa_symbols_lookup_src(sym, ip, false, UINT64_MAX, &src, &n), 0);
		if (n == nsrc)
			found = ip;
	}
	pa_symbols_free(sym);
	cr_assert(found, "no address of inl_outer with %zu source frames", nsrc);
	return found;
}

/*
 * A run of prog: 3 samples in inl_square (via inl_mid), 2 in inl_outer's
 * start; without debug (prog has no line info) all 5 in inl_outer's start.
 */
static void ra_setup_prog(const char *prog, bool debug)
{
	struct pa_module mod = { .id = 1, .bias = RA_BIAS, .start = RA_BIAS,
				 .end = RA_BIAS + 0x10000, .unload_ns = UINT64_MAX };
	struct pa_process proc = { .pid = 10, .modules = &mod, .nmodules = 1 };
	struct pa_error err = { 0 };
	struct tst_log l;
	uint64_t deep[2], outer[2];
	char *pdir;

	mod.path = (char *)prog;
	proc.exe = (char *)prog;
	proc.path = (char *)"";
	proc.dir = (char *)"";
	outer[0] = tst_log_nm(prog, "inl_outer", NULL) + RA_BIAS;
	deep[0] = debug ? ra_addr_with(&proc, prog, 3) : outer[0];
	deep[1] = outer[1] = tst_log_nm(prog, "main", NULL) + RA_BIAS + 8;
	ra_dir = tst_log_tmpdir();
	pdir = tst_log_subdir(ra_dir, "inlines.10");
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 10, 1, prog, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, RA_BIAS, RA_BIAS, RA_BIAS + 0x10000, 0, prog, NULL, 0);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 10, 10, 0, "main");
	for (int i = 0; i < 3; i++)
		tst_log_sample(&l, 1000 + (uint64_t)i, 0, 0, 2, deep);
	for (int i = 0; i < 2; i++)
		tst_log_sample(&l, 2000 + (uint64_t)i, 0, 0, 2, outer);
	tst_log_thread_end(&l, 9000, 5, 0, 5000000);
	tst_log_write(&l, pdir, "thread-10.log");
	free(pdir);
	cr_assert_eq(pa_run_load(ra_dir, &ra_run, &err), 0, "%s", err.reason);
}

static void ra_setup(void)
{
	ra_setup_prog(RA_PROG, true);
}

static void ra_teardown(void)
{
	pa_run_free(ra_run);
	ra_run = NULL;
	tst_log_rmdir(ra_dir);
}

TestSuite(report_annotate, .init = ra_setup, .fini = ra_teardown, .timeout = 30);

/* func's annotate report, text or JSON, with PP_TEST_SOURCE_DIR as "SRC"; returns want. */
static char *ra_report(const char *func, bool json, int want)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &(struct pa_report_opts){ .func = func },
				     .filter = &f, .run = ra_run, .err = &err };

	cr_assert(out);
	if (json)
		cr_assert_eq(pa_report_annotate.write_json(&ctx), want, "%s", err.reason);
	else
		cr_assert_eq(pa_report_annotate.write(&ctx), want, "%s", err.reason);
	cr_assert_eq(fclose(out), 0);
	return tst_log_replace(text, PP_TEST_SOURCE_DIR, "SRC");
}

static char *ra_annotate(const char *func, int want)
{
	return ra_report(func, false, want);
}

static char *ra_top(enum pa_profile_by by)
{
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_eq(pa_profile_build_by(ra_run, NULL, by, &prof, NULL, &err), 0);
	cr_assert_eq(pa_report_top.write(&(struct pa_report_ctx){
			     .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .run = ra_run,
			     .prof = prof }),
		     0);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(prof);
	return text;
}

Test(report_annotate, annotate_matches_golden)
{
	char *text = ra_annotate("inl_outer", 0);

	tst_log_golden(text, "annotate.txt");
	free(text);
}

Test(report_annotate, annotate_json_matches_golden)
{
	char *json = ra_report("inl_outer", true, 0);

	tst_log_golden(json, "annotate.json");
	free(json);
}

Test(report_annotate, annotate_json_of_absent_function_writes_nothing)
{
	char *json = ra_report("nosuch", true, -ENOENT);

	cr_assert_str_eq(json, "");
	free(json);
}

Test(report_annotate, annotate_counts_inlined_function_at_its_lines)
{
	char *text = ra_annotate("inl_square", 0);

	cr_assert(strstr(text, "# annotate inl_square: 3 samples in it (self), 3 with it"),
		  "%s", text);
	cr_assert(strstr(text, "unsigned v = x * x ^ (x >> 3); /* line:square */") ||
		  strstr(text, "return v + (v >> 7);"), "%s", text);
	free(text);
}

Test(report_annotate, annotate_of_absent_function_is_an_error)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	FILE *out = fopen("/dev/null", "w");

	cr_assert_eq(pa_report_annotate.write(&(struct pa_report_ctx){
			     .out = out, .opts = &(struct pa_report_opts){ .func = "nosuch" },
			     .filter = &f, .run = ra_run, .err = &err }),
		     -ENOENT);
	cr_assert(strstr(err.reason, "nosuch"), "%s", err.reason);
	fclose(out);
}

Test(report_annotate, top_inlines_and_lines_match_golden)
{
	char *inl = ra_top(PA_PROFILE_BY_INLINE), *lines = ra_top(PA_PROFILE_BY_LINE);

	tst_log_golden(inl, "top_inlines.txt");
	tst_log_golden(lines, "top_lines.txt");
	free(inl);
	free(lines);
}

/*
 * dir/prog, built from the inlines workload copied to dir/src, which is then
 * removed; ra_setup_prog'd. Returns prog's path (free it).
 */
static char *ra_setup_without_source(const char *dir, const char *src)
{
	char *prog, cmd[8192];

	cr_assert(asprintf(&prog, "%s/prog", dir) > 0);
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/workloads/inlines.c' '%s/%s' && "
		 "gcc -std=gnu11 -O2 -g -o '%s' '%s/%s' && rm '%s/%s'",
		 PP_TEST_SOURCE_DIR, dir, src, prog, dir, src, dir, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	ra_setup_prog(prog, true);
	return prog;
}

Test(report_annotate, says_when_source_file_is_missing, .init = NULL)
{
	char *dir = tst_log_tmpdir(), *prog = ra_setup_without_source(dir, "gone.c"), *text;

	text = ra_annotate("inl_outer", 0);
	cr_assert(strstr(text, "gone.c\n# source file not found (No such file or directory)"),
		  "%s", text);
	/* the counts are there, without source text: "  self  total  line" */
	cr_assert(strstr(text, "        2         2 ") || strstr(text, "        5         5 "),
		  "%s", text);
	cr_assert(strstr(text, "        3         3 ") || strstr(text, "        5         5 "),
		  "%s", text);
	free(text);
	text = ra_report("inl_outer", true, 0);
	cr_assert(strstr(text, "gone.c\", \"found\": false, \"error\": \"No such file or "
			 "directory\"}\n"), "%s", text);
	cr_assert(strstr(text, "\"source\": null}") && !strstr(text, "\"source\": \""),
		  "%s", text);
	free(text);
	free(prog);
	tst_log_rmdir(dir);
}

/*
 * A source file whose lines are longer than a line shown (a generated
 * file, or one put where the debug information says): each is cut at
 * 1,024 bytes, "..." after, read without keeping the rest.
 */
Test(report_annotate, long_source_lines_are_cut, .init = NULL)
{
	char *dir = tst_log_tmpdir(), *prog = ra_setup_without_source(dir, "long.c");
	char *src, *text, *line;
	FILE *f;

	cr_assert(asprintf(&src, "%s/long.c", dir) > 0);
	f = fopen(src, "w");
	cr_assert_not_null(f);
	for (int i = 1; i <= 400; i++) {
		fprintf(f, "L%d ", i);
		for (int k = 0; k < 3000; k++)
			fputc('x', f);
		fputc('\n', f);
	}
	cr_assert_eq(fclose(f), 0);
	text = ra_annotate("inl_outer", 0);
	cr_expect(strstr(text, "xxx...\n"), "%s", text);
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		cr_expect_leq(len, 1024 + 3 + 64, "a line of %zu bytes shown", len);
	}
	free(text);
	free(src);
	free(prog);
	tst_log_rmdir(dir);
}

/*
 * The source path comes from the debug information: a FIFO there blocked
 * fopen() for good, and /dev/zero fed getline() forever. Neither is read:
 * the counts are listed without text, saying why.
 */
Test(report_annotate, says_when_source_file_is_not_a_regular_file, .init = NULL)
{
	static const char *const kinds[][2] = {
		{ "fifo", "a FIFO, not a regular file" },
		{ "symlink", "a character device, not a regular file" }, /* to /dev/zero */
	};
	char *dir = tst_log_tmpdir(), *prog = ra_setup_without_source(dir, "odd.c");
	char *src, *text, want[256];

	cr_assert(asprintf(&src, "%s/odd.c", dir) > 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		cr_assert(tst_log_odd_file(src, kinds[i][0]));
		text = ra_annotate("inl_outer", 0);
		snprintf(want, sizeof(want), "odd.c\n# source file not found (%s)", kinds[i][1]);
		cr_expect(strstr(text, want), "%s: no \"%s\" in:\n%s", kinds[i][0], want, text);
		free(text);
		cr_assert_eq(unlink(src), 0);
	}
	free(src);
	free(prog);
	tst_log_rmdir(dir);
}

Test(report_annotate, samples_without_line_info_come_last, .init = NULL)
{
	char *dir = tst_log_tmpdir(), *prog, *text, cmd[8192];

	cr_assert(asprintf(&prog, "%s/prog", dir) > 0);
	snprintf(cmd, sizeof(cmd), "gcc -std=gnu11 -O2 -o '%s' '%s/tests/workloads/inlines.c'",
		 prog, PP_TEST_SOURCE_DIR);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	ra_setup_prog(prog, false);
	text = ra_annotate("inl_outer", 0);
	cr_assert(strstr(text, "(total)\n## (no line information)\n     self     total\n"
			 "        5         5\n"), "%s", text);
	free(text);
	text = ra_report("inl_outer", true, 0);
	cr_assert(strstr(text, "\"files\": [],\n  \"rows\": [\n    {\"file\": null, "
			 "\"line\": null, \"self\": 5, \"total\": 5, \"source\": null}\n  ]\n"),
		  "%s", text);
	free(text);
	free(prog);
	tst_log_rmdir(dir);
}
