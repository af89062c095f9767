/* report_tree: the top-down call tree, with inclusive and self shares. */
#ifndef PA_REPORT_TREE_H
#define PA_REPORT_TREE_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/* --min-percent's default for tree. */
#define PA_REPORT_TREE_MIN_PERCENT 0.5

/*
 * Write the call tree of prof (built from run) to out: the event line (as
 * top's), a line saying what was pruned, a column header, then one line per
 * call path from the stacks' outermost frames down: total (inclusive)
 * samples, total %, self samples, self % (of all samples), and the function
 * indented by two spaces per level, as top names it. Children follow their
 * parent, sorted by total samples. A path with less than min_percent of
 * the samples is left out with everything under it (0: none is).
 * Returns 0, -ENOMEM, or -EIO when out reports a write error.
 */
int pa_report_tree(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		   double min_percent);

/*
 * The same as a JSON document (report_json.h) with "min_percent" and one
 * row per line, in the same order: {"depth" (1 for an outermost frame),
 * "parent" (the index in rows of its caller's row, null at depth 1),
 * "total", "total_percent", "self", "self_percent", "function", "module",
 * "module_path"}. Returns 0, -ENOMEM, or -EIO on a write error.
 */
int pa_report_tree_json(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
			double min_percent);

#endif /* PA_REPORT_TREE_H */
