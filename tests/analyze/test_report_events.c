/*
 * Tests of the events report (analyze/report_events.c) on the "events" run
 * (tst_run.h), and of the threads report on a process exec replaced.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "tst_log.h"
#include "tst_run.h"

TestSuite(report_events, .init = tst_events_setup, .fini = tst_events_teardown, .timeout = 30);

Test(report_events, events_output_matches_golden)
{
	struct pa_filter f = tst_events_choose(0, NULL, PA_EVENTS_ANY);
	char *text = tst_events_report(&pa_report_events, &f);

	tst_log_golden(text, "events.txt");
	free(text);
}

Test(report_events, events_of_one_process_share_a_config_line)
{
	struct pa_filter f = tst_events_choose(300, "faults", PA_EVENTS_ANY);
	char *text = tst_events_report(&pa_report_events, &f);

	cr_assert_str_eq(text,
		"# mode sigtrap (requested auto); configuration /home/u/pp.ini: max_frames 128, "
		"follow_exec yes, unavailable skip, strict no\n"
		"NAME    EVENT          KIND    ENCODING      PERIOD   SCOPE        PRECISE  "
		"SAMPLES  LOST  THROTTLED  PROCESSES  STATUS\n"
		"faults  page-faults:u  sample  software:0x2  1 event  user               0  "
		"      2     0          0  all        ok\n");
	free(text);
}

/* sh (320) exec'd: its thread log stops without END; threads says "exec". */
Test(report_events, threads_of_exec_replaced_process_say_exec)
{
	char *pdir = tst_log_subdir(tst_events_dir, "sh.320");
	struct pa_error err = { 0 };
	struct pa_filter f;
	struct tst_log l;
	char *text;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 320, 1, "/bin/sh", NULL);
	tst_run_event(&l, 0, "cpu-clock", NULL, 1, 0, 1000000, PPF_EVENT_TIME_NS, 0);
	tst_log_exec(&l, 5000, "/usr/bin/env");
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 320, 320, 0, "sh");
	tst_log_sample(&l, 100, 0, 0, 1, tst_events_ips);
	tst_log_write(&l, pdir, "thread-320.log");
	pa_run_free(tst_events_run);
	cr_assert_eq(pa_run_load(tst_events_dir, &tst_events_run, &err), 0, "%s", err.reason);
	f = tst_events_choose(320, NULL, PA_EVENTS_SAMPLES);
	text = tst_events_report(&pa_report_threads, &f);
	cr_assert(strstr(text, "     320      320  sh                       1       0         0"
			 "      0  exec          -          -          -       -  sh\n"), "%s", text);
	free(text);
	free(pdir);
}
