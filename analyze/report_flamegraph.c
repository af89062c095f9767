/* report_flamegraph: the interactive flame graph; see report_flamegraph.h. */
#include "report_flamegraph.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "calltree.h"
#include "eventinfo.h"
#include "json.h"

/* analyze/flamegraph.js, built in (the Makefile passes its path). */
__asm__(".section .rodata\n"
	".hidden pa_flamegraph_js\n"
	"pa_flamegraph_js:\n"
	".incbin \"" PA_FLAMEGRAPH_JS "\"\n"
	".byte 0\n"
	".previous\n");
extern const char pa_flamegraph_js[];

#define PA_REPORT_FLAMEGRAPH_TITLE "pprof-analyze flame graph"

/* The script draws into this; it sets the size once it knows the depth. */
static const char pa_report_flamegraph_svg_open[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"ppf\" "
	"width=\"1200\" height=\"200\">\n"
	"<style>\n"
	"#ppf text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#ppf .ppf-title { font-size: 17px; }\n"
	"#ppf .ppf-sub { fill: #555; }\n"
	"#ppf .ppf-f { cursor: pointer; }\n"
	"#ppf .ppf-f text { pointer-events: none; }\n"
	"#ppf .ppf-f:hover rect { stroke: #000; stroke-width: 0.7; }\n"
	"#ppf .ppf-dim rect { opacity: 0.45; }\n"
	"#ppf .ppf-match rect { stroke: #000; stroke-width: 1.2; }\n"
	"#ppf .ppf-btn { cursor: pointer; fill: #1a5fb4; }\n"
	"#ppf input { font: 12px Verdana, sans-serif; width: 100%; box-sizing: border-box; }\n"
	"</style>\n"
	"<title>" PA_REPORT_FLAMEGRAPH_TITLE "</title>\n";

bool pa_report_flamegraph_kind(const char *path, enum pa_flamegraph_kind *kind)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	if (strcasecmp(dot, ".svg") == 0)
		*kind = PA_FLAMEGRAPH_SVG;
	else if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
		*kind = PA_FLAMEGRAPH_HTML;
	else
		return false;
	return true;
}

/* The basename of path. */
static const char *pa_report_flamegraph_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * "names" and "fmods" (each function's name and module index, -1 for
 * none) and "mods" (module basenames). mods[i] is the module of the
 * function that first has it. Returns -ENOMEM.
 */
static int pa_report_flamegraph_funcs(FILE *out, const struct pa_profile *prof)
{
	const char **mods = calloc(prof->nfuncs ? prof->nfuncs : 1, sizeof(*mods));
	size_t nmods = 0;

	if (!mods)
		return -ENOMEM;
	fputs("names:[", out);
	for (size_t i = 0; i < prof->nfuncs; i++) {
		fputs(i ? "," : "", out);
		pa_json_put_string(out, prof->funcs[i].name, PA_JSON_HTML);
	}
	fputs("],\nfmods:[", out);
	for (size_t i = 0; i < prof->nfuncs; i++) {
		const char *m = prof->funcs[i].module;
		size_t k = 0;

		if (m) {
			m = pa_report_flamegraph_base(m);
			while (k < nmods && strcmp(mods[k], m) != 0)
				k++;
			if (k == nmods)
				mods[nmods++] = m;
		}
		fprintf(out, "%s%zd", i ? "," : "", m ? (ssize_t)k : (ssize_t)-1);
	}
	fputs("],\nmods:[", out);
	for (size_t k = 0; k < nmods; k++) {
		fputs(k ? "," : "", out);
		pa_json_put_string(out, mods[k], PA_JSON_HTML);
	}
	fputs("],\n", out);
	free(mods);
	return 0;
}

static bool pa_report_flamegraph_keeps(const struct pa_calltree *t, size_t i, uint64_t samples,
				       double min_percent)
{
	return pa_profile_pct(t->nodes[i].total, samples) >= min_percent;
}

/*
 * The nodes in preorder, four numbers each: function index (-1 for the
 * root), total, self, number of children that follow.
 */
static void pa_report_flamegraph_nodes(FILE *out, const struct pa_profile *prof,
				       const struct pa_calltree *t, size_t i,
				       double min_percent)
{
	const struct pa_calltree_node *n = &t->nodes[i];
	size_t kids = 0;

	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		kids += pa_report_flamegraph_keeps(t, c, prof->samples, min_percent);
	fprintf(out, "%s%td,%" PRIu64 ",%" PRIu64 ",%zu", i ? ",\n" : "",
		n->func ? n->func - prof->funcs : (ptrdiff_t)-1, n->total, n->self, kids);
	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		if (pa_report_flamegraph_keeps(t, c, prof->samples, min_percent))
			pa_report_flamegraph_nodes(out, prof, t, c, min_percent);
}

/* The event line as a string (malloc'd), NULL when out of memory. */
static char *pa_report_flamegraph_subtitle(const struct pa_run *run,
					   const struct pa_profile *prof)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	pa_events_header(f, run, &prof->filter, prof->samples, true, prof->nprocesses,
			 prof->nthreads, prof->lost);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	/* The first line: the notes after it go to stderr (pa_report.notes_apart). */
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static int pa_report_flamegraph_data(FILE *out, const struct pa_run *run,
				     const struct pa_profile *prof, const struct pa_calltree *t,
				     double min_percent)
{
	char *sub = pa_report_flamegraph_subtitle(run, prof);
	int ret;

	if (!sub)
		return -ENOMEM;
	/* Strings escape '<', '>' and '&': they sit in the page's script (CDATA in SVG). */
	fputs("<script><![CDATA[\nvar PPF_DATA = {\ntitle:", out);
	pa_json_put_string(out, PA_REPORT_FLAMEGRAPH_TITLE, PA_JSON_HTML);
	fputs(",\nsubtitle:", out);
	pa_json_put_string(out, sub[0] == '#' ? sub + 1 + (sub[1] == ' ') : sub,
			   PA_JSON_HTML);
	fprintf(out, ",\nmin_percent:%g,\n", min_percent);
	free(sub);
	ret = pa_report_flamegraph_funcs(out, prof);
	if (ret < 0)
		return ret;
	fputs("nodes:[\n", out);
	pa_report_flamegraph_nodes(out, prof, t, 0, min_percent);
	fputs("]\n};\n]]></script>\n", out);
	return 0;
}

/*
 * Write the flame graph of ctx->prof (built from ctx->run), of the kind -o
 * FILE names (SVG without one): one frame per call path, as wide as its
 * inclusive samples, coloured by module; the event line (as top's) as
 * subtitle. Paths with less than --min-percent of the samples (default 0)
 * are left out with everything above them (0: none is).
 * Returns 0, -ENOMEM, or -EIO when out reports a write error.
 */
static int pa_report_flamegraph_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	double min_percent = ctx->opts->min_percent >= 0 ? ctx->opts->min_percent : 0;
	enum pa_flamegraph_kind kind = PA_FLAMEGRAPH_SVG;
	struct pa_calltree *t;
	int ret = pa_calltree_build(prof, &t);

	if (ret < 0)
		return ret;
	if (ctx->opts->output)
		pa_report_flamegraph_kind(ctx->opts->output, &kind);
	if (kind == PA_FLAMEGRAPH_HTML)
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<title>" PA_REPORT_FLAMEGRAPH_TITLE "</title>\n</head>\n"
		      "<body style=\"margin: 0; background: #fff\">\n", out);
	else
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fputs(pa_report_flamegraph_svg_open, out);
	ret = pa_report_flamegraph_data(out, run, prof, t, min_percent);
	pa_calltree_free(t);
	if (ret < 0)
		return ret;
	fprintf(out, "<script><![CDATA[\n%s]]></script>\n</svg>\n", pa_flamegraph_js);
	if (kind == PA_FLAMEGRAPH_HTML)
		fputs("</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}

/* The flame graph is written to a file whose suffix says its kind: -o is needed. */
static const char *pa_report_flamegraph_check(const struct pa_report_opts *o)
{
	enum pa_flamegraph_kind kind;

	if (!o->output || !pa_report_flamegraph_kind(o->output, &kind))
		return "flamegraph needs -o FILE.svg or -o FILE.html";
	return NULL;
}

const struct pa_report pa_report_flamegraph = {
	.name = "flamegraph",
	.usage = "DIR -o FILE.svg|FILE.html [--min-percent P]\n[OPTIONS]",
	.help = "Interactive flame graph, self-contained: SVG with its script\n"
		"(-o FILE.svg) or an HTML page (-o FILE.html). Click a frame\n"
		"to zoom, Escape to zoom out, search with a regular\n"
		"expression; tooltips give samples and percentages; one\n"
		"colour per module. --min-percent (default 0) leaves out\n"
		"paths under that share.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.notes_apart = true,
	.check = pa_report_flamegraph_check,
	.write = pa_report_flamegraph_write,
};
