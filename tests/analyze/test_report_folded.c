/*
 * Tests of analyze/report_folded.c: its text on the "profile" run (tst_run.h)
 * against its golden.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>


#include "tst_run.h"

TestSuite(report_folded, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

Test(report_folded, output_matches_golden)
{
	char *text = tst_prof_report(&pa_report_folded, 0);

	tst_log_golden(text, "folded.txt");
	free(text);
}

/*
 * A thread named with a ';' and a newline (a program names its threads as
 * it likes) keeps --per-thread's one stack per line: the name is one
 * frame, cleaned.
 */
Test(report_folded, a_thread_name_with_a_newline_or_a_semicolon_is_one_frame)
{
	struct pa_report_opts o = PA_REPORT_OPTS_DEFAULT;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	char *text;

	tst_prof_add_named_process(66, "we;ird\nname", 2);
	f.pid = 66;
	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	prof = tst_prof_build_filter(&f);
	o.per_thread = true;
	text = tst_run_report(pa_report_folded.variant(&o), tst_prof_run, &f, prof, NULL);
	cr_expect(strstr(text, "we:ird?name (66);pa_proftest_main;pa_proftest_leaf 2\n"), "%s",
		  text);
	cr_expect_eq(strchr(text, '\n'), text + strlen(text) - 1, "one line: %s", text);
	free(text);
	pa_profile_free(prof);
}

/*
 * Two stacks whose frames print alike (a function of one name in two
 * libraries, or two static functions of one name) are one line, their
 * counts summed: the format has one line per distinct text.
 */
Test(report_folded, stacks_that_print_alike_are_one_line)
{
	const char *a[] = { "main", "work" }, *b[] = { "main", "other" };
	struct pa_stack stacks[] = {
		{ .frames = a, .nframes = 2, .count = 184 },
		{ .frames = b, .nframes = 2, .count = 5 },
		{ .frames = a, .nframes = 2, .count = 91 },
	};
	struct pa_profile prof = { .stacks = stacks, .nstacks = 3 };
	struct pa_filter f = PA_FILTER_ALL;
	char *text = tst_run_report(&pa_report_folded, tst_prof_run, &f, &prof, NULL);

	cr_expect_str_eq(text, "main;work 275\nmain;other 5\n");
	free(text);
}
