/*
 * Tests of analyze/report_flamegraph.c: the kind from the file name, a
 * self-contained page on the "calls" run (tst_run.h), escaped names.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

TestSuite(report_flamegraph, .init = tst_calls_setup, .fini = tst_calls_teardown, .timeout = 30);

Test(report_flamegraph, flamegraph_kind_from_suffix)
{
	enum pa_flamegraph_kind k;

	cr_assert(pa_report_flamegraph_kind("out.svg", &k) && k == PA_FLAMEGRAPH_SVG);
	cr_assert(pa_report_flamegraph_kind("a/b.HTML", &k) && k == PA_FLAMEGRAPH_HTML);
	cr_assert(pa_report_flamegraph_kind("x.htm", &k) && k == PA_FLAMEGRAPH_HTML);
	cr_assert_not(pa_report_flamegraph_kind("out.txt", &k));
	cr_assert_not(pa_report_flamegraph_kind("out", &k));
	cr_assert_not(pa_report_flamegraph_kind("dir.svg/out", &k));
}

static size_t tt_count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *tt_flamegraph(enum pa_flamegraph_kind kind)
{
	struct pa_profile *prof = tst_calls_profile();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert(out);
	cr_assert_eq(pa_report_flamegraph.write(&(struct pa_report_ctx){
			     .out = out, .run = tst_calls_run, .prof = prof,
			     .opts = &(struct pa_report_opts){
				     .output = kind == PA_FLAMEGRAPH_HTML ? "t.html" : "t.svg" } }),
		     0);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(prof);
	return text;
}

/*
 * The script and data stay inside their CDATA sections and script
 * elements: only the closing markers end them.
 */
Test(report_flamegraph, flamegraph_is_self_contained)
{
	char *svg = tt_flamegraph(PA_FLAMEGRAPH_SVG);
	char *html = tt_flamegraph(PA_FLAMEGRAPH_HTML);

	cr_assert(strncmp(svg, "<?xml ", 6) == 0);
	cr_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	for (int i = 0; i < 2; i++) {
		const char *t = i ? html : svg;

		cr_assert_eq(tt_count(t, "]]>"), 2, "%s", t);
		cr_assert_eq(tt_count(t, "</script"), 2);
		cr_assert_eq(tt_count(t, "<svg xmlns="), 1);
		cr_assert_eq(tt_count(t, "http://"), tt_count(t, "http://www.w3.org/"),
			     "a link besides the namespaces");
		cr_assert_eq(tt_count(t, "https://"), 0);
		cr_assert(strstr(t, "\"pa_treetest_eval\""));
		/* the root, then main with its 3 children: all 17 samples */
		cr_assert(strstr(t, "nodes:[\n-1,17,0,1,\n"), "%s", t);
		cr_assert(strstr(t, "var PPF_DATA"));
	}
	free(svg);
	free(html);
}

/*
 * Names that would end a CDATA section or a script, quote characters and
 * invalid UTF-8 are escaped in the page's data (a hand-made profile).
 */
Test(report_flamegraph, flamegraph_escapes_names)
{
	static const char *const names[] = { "std::vector<int>::at]]></script>", "a\"b\\c&d",
					     "bad\xff utf8 \xc3\xa9" };
	struct pa_func funcs[3];
	const char *frames[3];
	struct pa_stack stack = { .frames = frames, .nframes = 3, .count = 4 };
	struct pa_profile prof = { .filter = PA_FILTER_ALL, .samples = 4, .funcs = funcs,
				   .nfuncs = 3, .stacks = &stack, .nstacks = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	for (size_t i = 0; i < 3; i++) {
		funcs[i] = (struct pa_func){ .name = names[i], .module = "/lib/m<x>.so",
					     .self = i == 2 ? 4 : 0, .total = 4 };
		frames[i] = names[i];
	}
	cr_assert(out);
	cr_assert_eq(pa_report_flamegraph.write(&(struct pa_report_ctx){
			     .out = out, .run = tst_calls_run, .prof = &prof,
			     .opts = &(struct pa_report_opts){ .output = "t.html" } }),
		     0);
	cr_assert_eq(fclose(out), 0);
	cr_assert_eq(tt_count(text, "]]>"), 2, "%s", text);
	cr_assert_eq(tt_count(text, "</script"), 2, "%s", text);
	cr_assert(strstr(text, "\"std::vector\\u003cint\\u003e::at]]\\u003e\\u003c/script\\u003e\""),
		  "%s", text);
	cr_assert(strstr(text, "\"a\\\"b\\\\c\\u0026d\""), "%s", text);
	cr_assert(strstr(text, "\"bad\\ufffd utf8 \xc3\xa9\""), "%s", text);
	cr_assert(strstr(text, "\"m\\u003cx\\u003e.so\""), "%s", text);
	cr_assert(strstr(text, "nodes:[\n-1,4,0,1,\n0,4,0,1,\n1,4,0,1,\n2,4,4,0]"), "%s", text);
	free(text);
}
