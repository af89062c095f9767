/*
 * Tests of analyze/report_tree.c on the "calls" run (tst_run.h), against
 * its goldens.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "tst_run.h"

TestSuite(report_tree, .init = tst_calls_setup, .fini = tst_calls_teardown, .timeout = 30);

Test(report_tree, tree_matches_golden)
{
	tst_calls_golden("tree", NULL, PA_REPORT_TREE_MIN_PERCENT, "tree.txt");
}

Test(report_tree, tree_prunes_below_min_percent)
{
	tst_calls_golden("tree", NULL, 10.0, "tree_min10.txt");
}
