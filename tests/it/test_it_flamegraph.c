/*
 * Integration: the reports built on the call tree, on a real run of the
 * demo workload. The flame graph is opened in headless Chromium (Debian's
 * chromium, which `make test` installs): it must load without console
 * errors, show the workload's functions, and zoom when a frame is clicked
 * (the page's #test-click=NAME hook clicks it; analyze/flamegraph.js). The
 * tree's outermost frames must agree with top's totals.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"

#define IT_FG_CHROMIUM "/usr/bin/chromium"

static struct tst_it it_fg;

static void it_fg_init(void)
{
	const char *argv[] = { "workloads/demo", "0.3", NULL };
	struct tst_result r;

	tst_init(&it_fg);
	tst_run_profiled(&it_fg, "demo", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %s", r.err);
	tst_result_release(&r);
}

static void it_fg_fini(void)
{
	tst_release(&it_fg);
}

TestSuite(it_flamegraph, .init = it_fg_init, .fini = it_fg_fini, .timeout = 180);
TestSuite(it_tree, .init = it_fg_init, .fini = it_fg_fini, .timeout = 120);

/* Runs pprof-analyze with args (NULL-terminated, at most 8); returns its exit code. */
static int it_fg_analyze(const char *const *args, struct tst_result *r)
{
	const char *argv[10] = { "pprof-analyze" };

	for (size_t i = 0; args[i]; i++) {
		cr_assert_lt(i, 8);
		argv[i + 1] = args[i];
	}
	tst_run(&it_fg, "analyze", argv, NULL, r);
	cr_assert(WIFEXITED(r->status), "pprof-analyze died: status 0x%x", r->status);
	return WEXITSTATUS(r->status);
}

/* Writes the flame graph of the run to tmp/name; returns its path (malloc'd). */
static char *it_fg_write(const char *name)
{
	struct tst_result r;
	char *path;
	int code;

	cr_assert(asprintf(&path, "%s/%s", it_fg.tmp, name) > 0);
	code = it_fg_analyze((const char *[]){ "flamegraph", it_fg.data, "-o", path, NULL }, &r);
	cr_assert_eq(code, 0, "flamegraph -o %s: exit %d: %s", name, code, r.err);
	cr_expect_eq(r.out_len, 0, "flamegraph wrote to stdout: %s", r.out);
	tst_result_release(&r);
	return path;
}

/*
 * The DOM of file#fragment once its scripts ran, from headless Chromium.
 * Fails the test if Chromium cannot run or the page logged anything to the
 * console (the page logs nothing when all is well, so an uncaught exception
 * or a console error shows there).
 */
static char *it_fg_dom(const char *file, const char *fragment)
{
	char url[TST_PATH_MAX + 256], profile[TST_PATH_MAX + 32];
	struct tst_result r;
	char *dom;

	cr_assert(access(IT_FG_CHROMIUM, X_OK) == 0,
		  IT_FG_CHROMIUM " is missing: `make deps` installs Debian's chromium");
	snprintf(url, sizeof(url), "file://%s%s", file, fragment);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s/chromium", it_fg.tmp);
	tst_run(&it_fg, "chromium",
		  (const char *[]){ IT_FG_CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
				    "--disable-dev-shm-usage", "--no-first-run", profile,
				    "--enable-logging=stderr", "--v=0", "--dump-dom", url, NULL },
		  NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "chromium failed (status 0x%x): %s", r.status, r.err);
	cr_expect_null(strstr(r.err, "Uncaught"), "script error in %s%s: %s", file, fragment,
		       r.err);
	cr_expect_null(strstr(r.err, ":CONSOLE"), "console output from %s%s: %s", file,
		       fragment, r.err);
	cr_assert_gt(r.out_len, 0, "chromium dumped no DOM: %s", r.err);
	dom = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return dom;
}

/* The value of attribute name of the page's <svg id="ppf">, "" if absent (static buffer). */
static const char *it_fg_attr(const char *dom, const char *name)
{
	static char value[256];
	const char *svg = strstr(dom, "id=\"ppf\"");
	const char *end = svg ? strchr(svg, '>') : NULL;
	char key[64];
	const char *p;
	size_t n;

	cr_assert(end, "no <svg id=\"ppf\"> in the DOM");
	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(svg, key);
	value[0] = '\0';
	if (!p || p > end)
		return value;
	p += strlen(key);
	n = strcspn(p, "\"");
	cr_assert_lt(n, sizeof(value));
	memcpy(value, p, n);
	value[n] = '\0';
	return value;
}

/* Whether the page drew a frame for func (its tooltip starts "func (module)"). */
static bool it_fg_has_frame(const char *dom, const char *func, const char *module)
{
	char needle[256];

	snprintf(needle, sizeof(needle), "<title>%s (%s)\n", func, module);
	return strstr(dom, needle) != NULL;
}

static uint64_t it_fg_total(const struct pa_profile *prof, const char *name)
{
	const struct pa_func *f = pa_profile_find(prof, name);

	cr_assert(f, "%s is not in the profile", name);
	return f->total;
}

Test(it_flamegraph, html_loads_and_shows_the_workloads_functions)
{
	char *file = it_fg_write("flame.html");
	char *dom = it_fg_dom(file, "");

	cr_assert_str_eq(it_fg_attr(dom, "data-ready"), "1", "the script did not finish");
	cr_expect_str_eq(it_fg_attr(dom, "data-zoom"), "all");
	cr_expect(it_fg_has_frame(dom, "burn_alpha", "demo"), "no burn_alpha frame");
	cr_expect(it_fg_has_frame(dom, "burn_beta", "demo"), "no burn_beta frame");
	cr_expect(it_fg_has_frame(dom, "burn_gamma", "libburn.so"), "no burn_gamma frame");
	cr_expect(it_fg_has_frame(dom, "mid_alpha", "demo"), "no mid_alpha frame");
	free(dom);
	free(file);
}

/* A click on burn_alpha zooms to it: the frames of the other threads go. */
Test(it_flamegraph, click_zooms_to_the_frame)
{
	struct pa_run *run = tst_load(&it_fg);
	struct pa_profile *prof = tst_profile(run, 0, 0);
	char *file = it_fg_write("flame.html");
	char *dom = it_fg_dom(file, "#test-click=burn_alpha");
	char want[32];

	cr_assert_str_eq(it_fg_attr(dom, "data-ready"), "1", "the script did not finish");
	cr_assert_str_eq(it_fg_attr(dom, "data-test-click"), "clicked");
	cr_expect_str_eq(it_fg_attr(dom, "data-zoom"), "burn_alpha");
	snprintf(want, sizeof(want), "%llu",
		 (unsigned long long)it_fg_total(prof, "burn_alpha"));
	cr_expect_str_eq(it_fg_attr(dom, "data-zoom-samples"), want);
	cr_expect(it_fg_has_frame(dom, "burn_alpha", "demo"), "burn_alpha's frame went");
	cr_expect(it_fg_has_frame(dom, "mid_alpha", "demo"), "its caller is not shown");
	cr_expect_not(it_fg_has_frame(dom, "burn_beta", "demo"), "burn_beta still drawn");
	cr_expect_not(it_fg_has_frame(dom, "burn_gamma", "libburn.so"),
		      "burn_gamma still drawn");
	free(dom);
	free(file);
	pa_profile_free(prof);
	pa_run_free(run);
}

/* The SVG document works on its own too, and search shares match the profile's. */
Test(it_flamegraph, svg_search_shows_the_matched_share)
{
	struct pa_run *run = tst_load(&it_fg);
	struct pa_profile *prof = tst_profile(run, 0, 0);
	char *file = it_fg_write("flame.svg");
	char *dom = it_fg_dom(file, "#search=burn_(alpha|beta)&test-click=mid_gamma");
	uint64_t matched = it_fg_total(prof, "burn_alpha") + it_fg_total(prof, "burn_beta");
	char want[32];

	cr_assert_str_eq(it_fg_attr(dom, "data-ready"), "1", "the script did not finish");
	snprintf(want, sizeof(want), "%.2f%%", 100.0 * (double)matched / (double)prof->samples);
	cr_expect_str_eq(it_fg_attr(dom, "data-matched"), want);
	cr_expect_str_eq(it_fg_attr(dom, "data-zoom"), "mid_gamma");
	cr_expect(it_fg_has_frame(dom, "burn_gamma", "libburn.so"), "no burn_gamma frame");
	cr_expect_not(it_fg_has_frame(dom, "burn_alpha", "demo"), "burn_alpha still drawn");
	free(dom);
	free(file);
	pa_profile_free(prof);
	pa_run_free(run);
}

Test(it_flamegraph, needs_an_svg_or_html_output)
{
	struct tst_result r;

	cr_expect_eq(it_fg_analyze((const char *[]){ "flamegraph", it_fg.data, NULL }, &r), 2);
	cr_expect(strstr(r.err, "flamegraph needs -o FILE.svg or -o FILE.html"), "%s", r.err);
	tst_result_release(&r);
	cr_expect_eq(it_fg_analyze((const char *[]){ "flamegraph", it_fg.data, "-o",
						      "/tmp/x.png", NULL }, &r), 2);
	tst_result_release(&r);
}

/* The text of a report, which must exit 0. */
static char *it_fg_report(const char *const *args)
{
	struct tst_result r;
	int code = it_fg_analyze(args, &r);
	char *out;

	cr_assert_eq(code, 0, "pprof-analyze %s: exit %d: %s", args[0], code, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

/* The column where tree and top print the function, after the numbers. */
#define IT_TREE_FUNC_COL 37
#define IT_TOP_FUNC_COL 48

/* top's line for func has total and pct as its total and total%. */
static void it_tree_expect_top(const char *top, const char *func, unsigned long long total,
			       const char *pct)
{
	size_t n = strlen(func);
	const char *t, *match = NULL;
	unsigned long long self, ttotal;
	char spct[16], tpct[16];

	for (t = top; !match && (t = strstr(t, func)); t++)
		if (t - top > IT_TOP_FUNC_COL && t[n] == '\n' && t[-1] == ' ' && t[-2] == ' ')
			match = t;
	cr_assert(match, "%s is an outermost frame of tree but not in top:\n%s", func, top);
	cr_assert_eq(sscanf(match - IT_TOP_FUNC_COL, "%llu %15s %llu %15s", &self, spct, &ttotal,
			    tpct), 4, "%.80s", match - IT_TOP_FUNC_COL);
	cr_expect_eq(total, ttotal, "%s: tree total %llu, top total %llu", func, total, ttotal);
	cr_expect_str_eq(pct, tpct, "%s: tree %s, top %s", func, pct, tpct);
}

/*
 * Each line of the tree whose function is not indented (an outermost
 * frame) has the same total and total% as top gives that function, and
 * they add up to every sample.
 */
Test(it_tree, outermost_frames_match_top)
{
	char *tree = it_fg_report((const char *[]){ "tree", it_fg.data, "--min-percent", "0",
						    NULL });
	char *top = it_fg_report((const char *[]){ "top", it_fg.data, NULL });
	struct pa_run *run = tst_load(&it_fg);
	struct pa_profile *prof = tst_profile(run, 0, 0);
	unsigned long long sum = 0;
	size_t roots = 0;

	for (const char *l = tree; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *eol = strchr(l, '\n');
		unsigned long long total;
		char func[512], pct[16];
		size_t n;

		if (l[0] == '#' || strncmp(l, "    total", 9) == 0)
			continue;
		cr_assert(eol && eol - l > IT_TREE_FUNC_COL, "bad tree line: %.80s", l);
		if (l[IT_TREE_FUNC_COL] == ' ')
			continue;
		n = (size_t)(eol - l) - IT_TREE_FUNC_COL;
		cr_assert_lt(n, sizeof(func));
		memcpy(func, l + IT_TREE_FUNC_COL, n);
		func[n] = '\0';
		cr_assert_eq(sscanf(l, "%llu %15s", &total, pct), 2, "%.80s", l);
		it_tree_expect_top(top, func, total, pct);
		roots++;
		sum += total;
	}
	cr_expect_geq(roots, 2, "one root for the main thread, one for the others:\n%s", tree);
	cr_expect_eq(sum, prof->samples, "the roots hold %llu of %llu samples", sum,
		     (unsigned long long)prof->samples);
	cr_expect(strstr(tree, "burn_alpha (demo)\n"), "%s", tree);
	pa_profile_free(prof);
	pa_run_free(run);
	free(tree);
	free(top);
}

Test(it_tree, callers_and_callees_on_the_demo)
{
	char *callers = it_fg_report((const char *[]){ "callers", "burn_gamma", it_fg.data,
						       NULL });
	char *callees = it_fg_report((const char *[]){ "callees", "mid_alpha", it_fg.data,
						       NULL });
	struct tst_result r;

	cr_expect(strstr(callers, " 100.00%  mid_gamma (demo)\n"), "%s", callers);
	cr_expect(strstr(callees, "  burn_alpha (demo)\n"), "%s", callees);
	cr_expect(strstr(callees, "  [self]\n"), "%s", callees);
	cr_expect_eq(it_fg_analyze((const char *[]){ "callers", "burn_alpah", it_fg.data,
						      NULL }, &r), 1);
	cr_expect(strstr(r.err, "pprof-analyze: no function named burn_alpah in the profile; "
			 "closest: burn_alpha"), "%s", r.err);
	cr_expect_eq(r.out_len, 0, "%s", r.out);
	tst_result_release(&r);
	cr_expect_eq(it_fg_analyze((const char *[]){ "callers", NULL }, &r), 2);
	tst_result_release(&r);
	free(callers);
	free(callees);
}
