/*
 * Tests of the call tree (analyze/calltree.c) and the reports built on it
 * (tree, callers, callees, flame graph) on a hand-made run whose samples
 * hold real addresses of functions of this test binary. The text reports
 * are compared with tests/golden/ (PA_UPDATE_GOLDEN=1 rewrites them).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "eventinfo.h"
#include "pa_testlog.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "report_flamegraph.h"
#include "report_tree.h"

/* The "program" the samples come from; distinct bodies so none is folded. */
__attribute__((noinline)) int pa_treetest_alloc(int x);
__attribute__((noinline)) int pa_treetest_tiny(int x);
__attribute__((noinline)) int pa_treetest_parse(int x);
__attribute__((noinline)) int pa_treetest_eval(int x);
__attribute__((noinline)) int pa_treetest_main(int x);

__attribute__((noinline)) int pa_treetest_alloc(int x)
{
	volatile int v = x;

	return v * 5 + 7;
}

__attribute__((noinline)) int pa_treetest_tiny(int x)
{
	volatile int v = x;

	return v ^ 0x55;
}

__attribute__((noinline)) int pa_treetest_parse(int x)
{
	volatile int v = pa_treetest_alloc(x);

	return v - 11;
}

__attribute__((noinline)) int pa_treetest_eval(int x)
{
	volatile int v = x;

	return v > 0 ? pa_treetest_eval(v - 1) + pa_treetest_alloc(v) : pa_treetest_tiny(v);
}

__attribute__((noinline)) int pa_treetest_main(int x)
{
	volatile int v = pa_treetest_parse(x) + pa_treetest_eval(x) + pa_treetest_tiny(x);

	return v;
}

static char *tt_dir;
static struct pa_run *tt_run;

/* An address inside fn (past its first byte, so ip - 1 is inside too). */
static uint64_t tt_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 2;
}

static void tt_samples(struct pa_testlog *l, int count, size_t n, const uint64_t *stack)
{
	for (int i = 0; i < count; i++)
		pa_testlog_sample(l, 1000 + (uint64_t)i, 0, 0, (uint16_t)n, stack);
}

/*
 * One process, one thread, 17 samples (stacks root first):
 *   6 main>parse>alloc, 2 main>parse, 4 main>eval>eval>alloc, 3 main>eval,
 *   1 main>tiny, 1 main>eval>tiny.
 */
static void tt_setup(void)
{
	const uint64_t parse_alloc[] = { tt_in(pa_treetest_alloc), tt_in(pa_treetest_parse),
					 tt_in(pa_treetest_main) };
	const uint64_t parse[] = { tt_in(pa_treetest_parse), tt_in(pa_treetest_main) };
	const uint64_t eval_alloc[] = { tt_in(pa_treetest_alloc), tt_in(pa_treetest_eval),
					tt_in(pa_treetest_eval), tt_in(pa_treetest_main) };
	const uint64_t eval[] = { tt_in(pa_treetest_eval), tt_in(pa_treetest_main) };
	const uint64_t tiny[] = { tt_in(pa_treetest_tiny), tt_in(pa_treetest_main) };
	const uint64_t eval_tiny[] = { tt_in(pa_treetest_tiny), tt_in(pa_treetest_eval),
				       tt_in(pa_treetest_main) };
	struct pa_testlog_self self;
	struct pa_error err = { 0 };
	struct pa_testlog l;
	char *pdir;

	tt_dir = pa_testlog_tmpdir();
	pdir = pa_testlog_subdir(tt_dir, "app.30");
	pa_testlog_self_module((const void *)pa_treetest_main, &self);
	pa_testlog_begin(&l, PPF_FILE_PROCESS);
	pa_testlog_process(&l, 30, 1, self.path, NULL);
	pa_testlog_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	pa_testlog_module(&l, 1, self.bias, self.start, self.end, 0, self.path,
			  self.build_id, self.build_id_len);
	pa_testlog_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	pa_testlog_write(&l, pdir, PPF_PROCESS_LOG);

	pa_testlog_begin(&l, PPF_FILE_THREAD);
	pa_testlog_thread(&l, 30, 30, 0, "main");
	tt_samples(&l, 6, 3, parse_alloc);
	tt_samples(&l, 2, 2, parse);
	tt_samples(&l, 4, 4, eval_alloc);
	tt_samples(&l, 3, 2, eval);
	tt_samples(&l, 1, 2, tiny);
	tt_samples(&l, 1, 3, eval_tiny);
	pa_testlog_thread_end(&l, 9000, 17, 0, 17000000);
	pa_testlog_write(&l, pdir, "thread-30.log");

	cr_assert_eq(pa_run_load(tt_dir, &tt_run, &err), 0, "%s: %s", err.path, err.reason);
	free(pdir);
}

static void tt_teardown(void)
{
	pa_run_free(tt_run);
	tt_run = NULL;
	pa_testlog_rmdir(tt_dir);
	tt_dir = NULL;
}

TestSuite(report_tree, .init = tt_setup, .fini = tt_teardown, .timeout = 30);

static struct pa_profile *tt_profile(void)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;

	cr_assert_eq(pa_events_choose(tt_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	cr_assert_eq(pa_profile_build_by(tt_run, &f, PA_PROFILE_BY_FUNCTION,
					 &prof, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(prof->samples, 17);
	return prof;
}

/*
 * What a report wrote: which is "tree", "callers" or "callees", or "callers
 * json" or "callees json" for their JSON; its return in *ret.
 */
static char *tt_report(const char *which, const char *arg, double min_percent, int *ret,
		       struct pa_error *err)
{
	struct pa_profile *prof = tt_profile();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_opts opts = { .func = arg, .min_percent = min_percent };
	struct pa_report_ctx ctx = { .out = out, .opts = &opts, .filter = &prof->filter,
				     .run = tt_run, .prof = prof, .err = err };
	const struct pa_report *r = strncmp(which, "callees", 7) == 0 ? &pa_report_callees :
				    &pa_report_callers;

	cr_assert(out);
	if (strcmp(which, "tree") == 0)
		*ret = pa_report_tree.write(&ctx);
	else if (strstr(which, " json"))
		*ret = r->write_json(&ctx);
	else
		*ret = r->write(&ctx);
	cr_assert_eq(fclose(out), 0);
	pa_profile_free(prof);
	return text;
}

static void tt_expect_golden(const char *which, const char *arg, double min_percent,
			     const char *golden)
{
	struct pa_error err = { 0 };
	int ret;
	char *text = tt_report(which, arg, min_percent, &ret, &err);

	cr_assert_eq(ret, 0, "%s %s: %d %s", which, arg ? arg : "", ret, err.reason);
	/* JSON names the test binary by its path */
	pa_testlog_golden(pa_testlog_replace(text, PP_TEST_BUILD_DIR, "BUILD"), golden);
	free(text);
}

Test(report_tree, calltree_counts_every_path)
{
	struct pa_profile *prof = tt_profile();
	struct pa_calltree *t;
	const struct pa_calltree_node *n;
	uint64_t sum = 0;

	cr_assert_eq(pa_calltree_build(prof, &t), 0);
	cr_assert_eq(t->nodes[0].total, 17);
	cr_assert_eq(t->nodes[0].func, NULL);
	/* main, parse, alloc, eval, eval, alloc, tiny (under eval), tiny (under main) */
	cr_assert_eq(t->nnodes, 9, "%zu nodes", t->nnodes);
	cr_assert_eq(t->max_depth, 4);
	n = &t->nodes[t->nodes[0].first_child];
	cr_assert_str_eq(n->func->name, "pa_treetest_main");
	cr_assert_eq(n->total, 17);
	cr_assert_eq(n->next, PA_CALLTREE_NONE);
	/* children by total desc, then name: eval 8, parse 8, tiny 1 */
	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		sum += t->nodes[c].total;
	cr_assert_eq(sum + n->self, n->total);
	cr_assert_str_eq(t->nodes[n->first_child].func->name, "pa_treetest_eval");
	cr_assert_eq(t->nodes[n->first_child].total, 8);
	pa_calltree_free(t);
	pa_profile_free(prof);
}

Test(report_tree, tree_matches_golden)
{
	tt_expect_golden("tree", NULL, PA_REPORT_TREE_MIN_PERCENT, "tree.txt");
}

Test(report_tree, tree_prunes_below_min_percent)
{
	tt_expect_golden("tree", NULL, 10.0, "tree_min10.txt");
}

Test(report_tree, callers_match_golden)
{
	tt_expect_golden("callers", "pa_treetest_alloc", 0, "callers_alloc.txt");
}

Test(report_tree, callers_of_a_root_say_root)
{
	tt_expect_golden("callers", "pa_treetest_main", 0, "callers_main.txt");
}

Test(report_tree, callers_of_recursive_function_count_once_per_sample)
{
	tt_expect_golden("callers", "pa_treetest_eval", 0, "callers_eval.txt");
}

Test(report_tree, callees_match_golden_with_self)
{
	tt_expect_golden("callees", "pa_treetest_eval", 0, "callees_eval.txt");
}

Test(report_tree, callers_and_callees_json_match_golden)
{
	tt_expect_golden("callers json", "pa_treetest_eval", 0, "callers_eval.json");
	tt_expect_golden("callers json", "pa_treetest_main", 0, "callers_main.json");
	tt_expect_golden("callees json", "pa_treetest_eval", 0, "callees_eval.json");
}

Test(report_tree, callees_of_a_leaf_are_all_self)
{
	struct pa_error err = { 0 };
	int ret;
	char *text = tt_report("callees", "pa_treetest_alloc", 0, &ret, &err);

	cr_assert_eq(ret, 0);
	cr_assert(strstr(text, "       10 100.00%  [self]\n"), "%s", text);
	free(text);
}

Test(report_tree, unknown_function_is_an_error_with_closest_names)
{
	static const char *const which[] = { "callers", "callers json" };

	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		struct pa_error err = { 0 };
		int ret;
		char *text = tt_report(which[i], "pa_treetest_evl", 0, &ret, &err);

		cr_assert_eq(ret, -ENOENT, "%s", which[i]);
		cr_assert_str_eq(text, "", "%s printed before failing: %s", which[i], text);
		cr_assert(strstr(err.reason, "no function named pa_treetest_evl in the profile"),
			  "%s", err.reason);
		cr_assert(strstr(err.reason, "closest: pa_treetest_eval"), "%s", err.reason);
		free(text);
	}
}

Test(report_tree, flamegraph_kind_from_suffix)
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
	struct pa_profile *prof = tt_profile();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert(out);
	cr_assert_eq(pa_report_flamegraph.write(&(struct pa_report_ctx){
			     .out = out, .run = tt_run, .prof = prof,
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
Test(report_tree, flamegraph_is_self_contained)
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
Test(report_tree, flamegraph_escapes_names)
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
			     .out = out, .run = tt_run, .prof = &prof,
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
