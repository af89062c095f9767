/*
 * Tests of analyze/report_callers.c (callers and callees, text and JSON)
 * on the "calls" run (tst_run.h), against their goldens.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_run.h"

TestSuite(report_callers, .init = tst_calls_setup, .fini = tst_calls_teardown, .timeout = 30);

Test(report_callers, callers_match_golden)
{
	tst_calls_golden("callers", "pa_treetest_alloc", 0, "callers_alloc.txt");
}

Test(report_callers, callers_of_a_root_say_root)
{
	tst_calls_golden("callers", "pa_treetest_main", 0, "callers_main.txt");
}

Test(report_callers, callers_of_recursive_function_count_once_per_sample)
{
	tst_calls_golden("callers", "pa_treetest_eval", 0, "callers_eval.txt");
}

Test(report_callers, callees_match_golden_with_self)
{
	tst_calls_golden("callees", "pa_treetest_eval", 0, "callees_eval.txt");
}

Test(report_callers, callers_and_callees_json_match_golden)
{
	tst_calls_golden("callers json", "pa_treetest_eval", 0, "callers_eval.json");
	tst_calls_golden("callers json", "pa_treetest_main", 0, "callers_main.json");
	tst_calls_golden("callees json", "pa_treetest_eval", 0, "callees_eval.json");
}

Test(report_callers, callees_of_a_leaf_are_all_self)
{
	struct pa_error err = { 0 };
	int ret;
	char *text = tst_calls_report("callees", "pa_treetest_alloc", 0, &ret, &err);

	cr_assert_eq(ret, 0);
	cr_assert(strstr(text, "       10 100.00%  [self]\n"), "%s", text);
	free(text);
}

Test(report_callers, unknown_function_is_an_error_with_closest_names)
{
	static const char *const which[] = { "callers", "callers json" };

	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		struct pa_error err = { 0 };
		int ret;
		char *text = tst_calls_report(which[i], "pa_treetest_evl", 0, &ret, &err);

		cr_assert_eq(ret, -ENOENT, "%s", which[i]);
		cr_assert_str_eq(text, "", "%s printed before failing: %s", which[i], text);
		cr_assert(strstr(err.reason, "no function named pa_treetest_evl in the profile"),
			  "%s", err.reason);
		cr_assert(strstr(err.reason, "closest: pa_treetest_eval"), "%s", err.reason);
		free(text);
	}
}
