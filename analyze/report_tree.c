/* report_tree: the top-down call tree; see report_tree.h. */
#include "report_tree.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>

#include "calltree.h"
#include "eventinfo.h"
#include "jsondoc.h"

static void pa_report_tree_node(FILE *out, const struct pa_calltree *t, size_t i,
				uint64_t samples, double min_percent)
{
	const struct pa_calltree_node *n = &t->nodes[i];

	if (i != 0) {
		fprintf(out, "%9" PRIu64 " %6.2f%% %9" PRIu64 " %6.2f%%  %*s", n->total,
			pa_profile_pct(n->total, samples), n->self,
			pa_profile_pct(n->self, samples), (int)(2 * (n->depth - 1)), "");
		pa_calltree_print_func(out, n->func);
		fputc('\n', out);
	}
	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		if (pa_profile_pct(t->nodes[c].total, samples) >= min_percent)
			pa_report_tree_node(out, t, c, samples, min_percent);
}

/* --min-percent, or tree's default. */
static double pa_report_tree_min_percent(const struct pa_report_ctx *ctx)
{
	return ctx->opts->min_percent >= 0 ? ctx->opts->min_percent : PA_REPORT_TREE_MIN_PERCENT;
}

/*
 * Write the call tree of ctx->prof (built from ctx->run): the event line (as
 * top's), a line saying what was pruned, a column header, then one line per
 * call path from the stacks' outermost frames down: total (inclusive)
 * samples, total %, self samples, self % (of all samples), and the function
 * indented by two spaces per level, as top names it. Children follow their
 * parent, sorted by total samples. A path with less than --min-percent of
 * the samples is left out with everything under it (0: none is).
 * Returns 0, -ENOMEM, or -EIO when out reports a write error.
 */
static int pa_report_tree_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	double min_percent = pa_report_tree_min_percent(ctx);
	struct pa_calltree *t;
	int ret = pa_calltree_build(prof, &t);

	if (ret < 0)
		return ret;
	pa_events_header(out, run, &prof->filter, prof->samples, true, prof->nprocesses,
			 prof->nthreads, prof->lost);
	if (min_percent > 0)
		fprintf(out, "# call tree: paths with less than %.2f%% of the samples left out\n",
			min_percent);
	else
		fprintf(out, "# call tree: every path\n");
	fprintf(out, "%9s %7s %9s %7s  %s\n", "total", "total%", "self", "self%", "function");
	pa_report_tree_node(out, t, 0, prof->samples, min_percent);
	pa_calltree_free(t);
	return ferror(out) ? -EIO : 0;
}

/* Node i's row (none for the root) and its children's; *row counts the rows written. */
static void pa_report_tree_json_node(struct pa_json *j, const struct pa_calltree *t, size_t i,
				     uint64_t samples, double min_percent, int64_t parent,
				     size_t *row)
{
	const struct pa_calltree_node *n = &t->nodes[i];
	int64_t self_row = -1;

	if (i != 0) {
		self_row = (int64_t)(*row)++;
		pa_json_object_begin(j);
		pa_json_key_uint(j, "depth", n->depth);
		pa_json_key(j, "parent");
		if (parent < 0)
			pa_json_null(j);
		else
			pa_json_int(j, parent);
		pa_json_key_uint(j, "total", n->total);
		pa_json_key_double(j, "total_percent", pa_profile_pct(n->total, samples));
		pa_json_key_uint(j, "self", n->self);
		pa_json_key_double(j, "self_percent", pa_profile_pct(n->self, samples));
		pa_jsondoc_func(j, n->func);
		pa_json_object_end(j);
	}
	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		if (pa_profile_pct(t->nodes[c].total, samples) >= min_percent)
			pa_report_tree_json_node(j, t, c, samples, min_percent, self_row, row);
}

/*
 * The same as a JSON document (jsondoc.h) with "min_percent" and one
 * row per line, in the same order: {"depth" (1 for an outermost frame),
 * "parent" (the index in rows of its caller's row, null at depth 1),
 * "total", "total_percent", "self", "self_percent", "function", "module",
 * "module_path"}. Returns 0, -ENOMEM, or -EIO on a write error.
 */
static int pa_report_tree_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	double min_percent = pa_report_tree_min_percent(ctx);
	struct pa_jsondoc_counts c = pa_jsondoc_profile_counts(prof);
	struct pa_calltree *t;
	struct pa_json *j;
	size_t row = 0;
	int ret = pa_calltree_build(prof, &t);

	if (ret < 0)
		return ret;
	ret = pa_jsondoc_begin(out, "tree", run, &prof->filter, &c, &j);
	if (ret < 0) {
		pa_calltree_free(t);
		return ret;
	}
	pa_json_key_double(j, "min_percent", min_percent);
	pa_json_key_array(j, "rows");
	pa_report_tree_json_node(j, t, 0, prof->samples, min_percent, -1, &row);
	pa_json_array_end(j);
	pa_calltree_free(t);
	return pa_jsondoc_end(j);
}

const struct pa_report pa_report_tree = {
	.name = "tree",
	.usage = "DIR [--min-percent P] [OPTIONS]",
	.help = "Top-down call tree: one line per call path from the\n"
		"outermost frames, indented two spaces per level, with total\n"
		"(inclusive) samples, total %, self samples, self %; children\n"
		"sorted by total. Paths under --min-percent (default 0.5)\n"
		"of the samples are left out with what they call.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.write = pa_report_tree_write,
	.write_json = pa_report_tree_write_json,
};
