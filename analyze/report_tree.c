/* report_tree: the top-down call tree; see report_tree.h. */
#include "report_tree.h"

#include <errno.h>
#include <inttypes.h>

#include "calltree.h"
#include "events.h"

static void pa_report_tree_node(FILE *out, const struct pa_calltree *t, size_t i,
				uint64_t samples, double min_percent)
{
	const struct pa_calltree_node *n = &t->nodes[i];

	if (i != 0) {
		fprintf(out, "%9" PRIu64 " %6.2f%% %9" PRIu64 " %6.2f%%  %*s", n->total,
			pa_calltree_pct(n->total, samples), n->self,
			pa_calltree_pct(n->self, samples), (int)(2 * (n->depth - 1)), "");
		pa_calltree_print_func(out, n->func);
		fputc('\n', out);
	}
	for (size_t c = n->first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
		if (pa_calltree_pct(t->nodes[c].total, samples) >= min_percent)
			pa_report_tree_node(out, t, c, samples, min_percent);
}

int pa_report_tree(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		   double min_percent)
{
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
