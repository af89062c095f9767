/*
 * Tests of analyze/report_top.c: its text on the "profile" run (tst_run.h)
 * against its golden.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "tst_run.h"

TestSuite(report_top, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

Test(report_top, output_matches_golden)
{
	char *text = tst_prof_report(&pa_report_top, 0);

	tst_log_golden(text, "top.txt");
	free(text);
}
