/*
 * Tests of analyze/calltree.c on the "calls" run (tst_run.h).
 */
#include <criterion/criterion.h>

#include "tst_run.h"

TestSuite(calltree, .init = tst_calls_setup, .fini = tst_calls_teardown, .timeout = 30);

Test(calltree, calltree_counts_every_path)
{
	struct pa_profile *prof = tst_calls_profile();
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
