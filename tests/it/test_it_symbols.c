/*
 * Integration: the symbol side of pprof-analyze on real runs — top --inlines
 * and --lines on a workload whose hot code is inlined two levels deep,
 * annotate on its function, and C++ names with and without --no-demangle.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_sym;

static void it_sym_init(void)
{
	tst_init(&it_sym);
}

static void it_sym_fini(void)
{
	tst_release(&it_sym);
}

TestSuite(it_symbols, .init = it_sym_init, .fini = it_sym_fini, .timeout = 120);

static void it_sym_record(const char *const *argv)
{
	struct tst_result r;

	tst_run_profiled(&it_sym, "run", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", argv[0], r.err);
	tst_result_release(&r);
}

/* pprof-analyze args (NULL-terminated); expects exit 0; its stdout, malloc'd. */
static char *it_sym_analyze(const char *const *args)
{
	const char *argv[12] = { "pprof-analyze" };
	struct tst_result r;
	char *out;

	for (size_t i = 0; args[i]; i++) {
		cr_assert_lt(i, 10);
		argv[i + 1] = args[i];
	}
	tst_run(&it_sym, "analyze", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "pprof-analyze %s: status 0x%x, stderr: %s", args[0], r.status, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

/* The self samples on top's line for name (module inlines), -1 if none. */
static long it_sym_self(const char *top, const char *name)
{
	char want[256];
	const char *line = top;

	snprintf(want, sizeof(want), "  %s (inlines)\n", name);
	while ((line = strstr(line, want))) {
		const char *bol = line;

		while (bol > top && bol[-1] != '\n')
			bol--;
		return strtol(bol, NULL, 10);
	}
	return -1;
}

Test(it_symbols, top_inlines_and_lines_show_inlined_code)
{
	const char *argv[] = { "workloads/inlines", "0.3", NULL };
	const char *plain[] = { "top", it_sym.data, NULL };
	const char *inl[] = { "top", it_sym.data, "--inlines", NULL };
	const char *lines[] = { "top", it_sym.data, "--lines", NULL };
	char *a, *b, *c;

	it_sym_record(argv);
	a = it_sym_analyze(plain);
	b = it_sym_analyze(inl);
	c = it_sym_analyze(lines);
	/* without --inlines the inlined functions are part of inl_outer */
	cr_expect_gt(it_sym_self(a, "inl_outer"), 0, "%s", a);
	cr_expect_eq(it_sym_self(a, "inl_square"), -1, "%s", a);
	/* with it, the hot inlined code is inl_square's and inl_mid's */
	cr_expect_gt(it_sym_self(b, "inl_square"), 0, "%s", b);
	cr_expect_neq(it_sym_self(b, "inl_mid"), -1, "%s", b);
	cr_expect_lt(it_sym_self(b, "inl_outer"), it_sym_self(a, "inl_outer"), "%s", b);
	/* lines: "inlines.c:LINE FUNCTION" */
	cr_expect(strstr(c, " inlines.c:") && strstr(c, " inl_square (inlines)\n"), "%s", c);
	free(a);
	free(b);
	free(c);
}

Test(it_symbols, annotate_prints_source_with_counts)
{
	const char *argv[] = { "workloads/inlines", "0.3", NULL };
	const char *ann[] = { "annotate", "inl_outer", it_sym.data, NULL };
	char *out;

	it_sym_record(argv);
	out = it_sym_analyze(ann);
	cr_expect(strstr(out, "# annotate inl_outer: "), "%s", out);
	cr_expect(strstr(out, "/tests/workloads/inlines.c\n"), "%s", out);
	/* the call of the inlined code, with its samples, and the source text */
	cr_expect(strstr(out, "s += inl_mid(i ^ s); /* line:outer_call */"), "%s", out);
	cr_expect_null(strstr(out, "not found"), "%s", out);
	free(out);
}

Test(it_symbols, demangles_cxx_unless_asked_not_to)
{
	const char *argv[] = { "workloads/cxxthrow", "20000", "1", NULL };
	const char *top[] = { "top", it_sym.data, NULL };
	const char *raw[] = { "top", it_sym.data, "--no-demangle", NULL };
	char *a, *b;

	it_sym_record(argv);
	a = it_sym_analyze(top);
	b = it_sym_analyze(raw);
	cr_expect(strstr(a, "cxx_throw_deep(unsigned long, int)"), "%s", a);
	cr_expect_null(strstr(a, "_ZL14cxx_throw_deep"), "%s", a);
	cr_expect(strstr(b, "_ZL14cxx_throw_deepmi"), "%s", b);
	free(a);
	free(b);
}
