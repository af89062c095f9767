/*
 * Tests of analyze/eventinfo.c and analyze/report_events.c (and the event
 * header of the other reports) on a hand-made run with several events.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "tst_log.h"
#include "profile.h"
#include "reader.h"
#include "report.h"

static char *ev_dir;
static struct pa_run *ev_run;

static const uint64_t ev_ips[1] = { 0x401000 };

/* Append an event record; spec NULL: the same as name. */
static void ev_event(struct tst_log *l, uint32_t index, const char *name, const char *spec,
		     uint32_t type, uint64_t config, uint64_t period, uint32_t flags,
		     uint32_t error)
{
	struct ppf_event e = { .index = index, .type = type, .config = config,
			       .period = period, .flags = flags, .error = error };

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.spec, sizeof(e.spec), "%s", spec ? spec : name);
	tst_log_event_full(l, &e);
}

/*
 * app (300), configured from a file: events 0 "hw" (cycles, unavailable),
 * 1 cpu-clock (1 ms, user), 2 "faults" (page-faults:u, every fault), 3
 * "instr" (counting instructions, user). Thread 300: 4 cpu-clock samples
 * (1 lost, 12 throttled), 2 faults; thread 301: 3 cpu-clock samples, 2 lost.
 */
static void ev_app(void)
{
	const uint32_t u = PPF_EVENT_EXCLUDE_KERNEL;
	char *pdir = tst_log_subdir(ev_dir, "app.300");
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 300, 1, "/usr/bin/app", NULL);
	tst_log_config(&l, PPF_MODE_REQUEST_AUTO, 128,
			  PPF_CONFIG_FROM_FILE | PPF_CONFIG_FOLLOW_EXEC, "/home/u/pp.ini",
			  "[profile]\n");
	ev_event(&l, 0, "hw", "cycles", 0, 0, 1000003, PPF_EVENT_UNAVAILABLE, ENOENT);
	ev_event(&l, 1, "cpu-clock", NULL, 1, 0, 1000000, PPF_EVENT_TIME_NS | u, 0);
	ev_event(&l, 2, "faults", "page-faults:u", 1, 2, 1, u, 0);
	ev_event(&l, 3, "instr", "instructions:u", 0, 1, 0, PPF_EVENT_COUNT | u, 0);
	tst_log_process_end(&l, 9000, 9, 3, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 300, 300, 0, "main");
	for (int i = 0; i < 4; i++)
		tst_log_sample(&l, 100, 1, 0, 1, ev_ips);
	for (int i = 0; i < 2; i++)
		tst_log_sample(&l, 100, 2, 0, 1, ev_ips);
	off = tst_log_thread_event(&l, 1, 0, 4, 1, 0, 0, 0);
	((struct ppf_thread_event *)tst_log_rec(&l, off))->throttled = 12;
	tst_log_thread_event(&l, 2, 0, 2, 0, 0, 0, 0);
	tst_log_thread_event(&l, 3, PPF_THREAD_EVENT_COUNTED, 0, 0, 5000, 10, 10);
	tst_log_thread_end(&l, 9000, 6, 1, 0);
	tst_log_write(&l, pdir, "thread-300.log");

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 300, 301, 0, "worker");
	for (int i = 0; i < 3; i++)
		tst_log_sample(&l, 100, 1, 0, 1, ev_ips);
	tst_log_thread_event(&l, 1, 0, 3, 2, 0, 0, 0);
	tst_log_thread_event(&l, 2, 0, 0, 0, 0, 0, 0);
	tst_log_thread_event(&l, 3, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_end(&l, 9000, 3, 2, 0);
	tst_log_write(&l, pdir, "thread-301.log");
	free(pdir);
}

/*
 * tool (310), written by an older libpprof: no configuration record, one
 * 104-byte cpu-clock event counting user and kernel time; 2 samples.
 */
static void ev_tool(void)
{
	char *pdir = tst_log_subdir(ev_dir, "tool.310");
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 310, 300, "/usr/bin/tool", NULL);
	tst_log_event_v1(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 9000, 2, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 310, 310, 0, "tool");
	tst_log_sample(&l, 100, 0, 0, 1, ev_ips);
	tst_log_sample(&l, 100, 0, 0, 1, ev_ips);
	tst_log_thread_end(&l, 9000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-310.log");
	free(pdir);
}

static void ev_setup(void)
{
	struct pa_error err = { 0 };

	ev_dir = tst_log_tmpdir();
	ev_app();
	ev_tool();
	cr_assert_eq(pa_run_load(ev_dir, &ev_run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(ev_run->warnings.n, 0, "%s", ev_run->warnings.v[0].reason);
}

static void ev_teardown(void)
{
	pa_run_free(ev_run);
	ev_run = NULL;
	tst_log_rmdir(ev_dir);
	ev_dir = NULL;
}

TestSuite(report_events, .init = ev_setup, .fini = ev_teardown, .timeout = 30);

/* pa_events_choose expecting success. */
static struct pa_filter ev_choose(uint32_t pid, const char *name, enum pa_events_use use)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	f.pid = pid;
	cr_assert_eq(pa_events_choose(ev_run, &f, name, use, &err), 0, "%s", err.reason);
	return f;
}

/* pa_events_choose expecting failure with code; returns the message. */
static struct pa_error ev_refuse(uint32_t pid, const char *name, enum pa_events_use use,
				 int code)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	f.pid = pid;
	cr_assert_eq(pa_events_choose(ev_run, &f, name, use, &err), code, "%s: %s", name,
		     err.reason);
	cr_assert_str_eq(err.path, "");
	cr_assert_not(err.has_offset);
	return err;
}

Test(report_events, default_is_first_opened_sampling_event)
{
	struct pa_filter f = ev_choose(0, NULL, PA_EVENTS_SAMPLES);

	cr_assert_str_eq(f.event_name, "cpu-clock", "hw is unavailable and comes first");
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[0]), 1);
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[1]), 0);
	f = ev_choose(0, NULL, PA_EVENTS_COUNTS);
	cr_assert_null(f.event_name);
	cr_assert_eq(f.event, -1);
	f = ev_choose(0, NULL, PA_EVENTS_ANY);
	cr_assert_eq(f.event, -1);
}

Test(report_events, names_match_section_or_spec)
{
	struct pa_filter f = ev_choose(0, "faults", PA_EVENTS_SAMPLES);

	cr_assert_eq(pa_filter_event(&f, ev_run->processes[0]), 2);
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[1]), PA_FILTER_NO_EVENT);
	f = ev_choose(0, "page-faults:u", PA_EVENTS_SAMPLES);
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[0]), 2);
	f = ev_choose(0, "instructions:u", PA_EVENTS_COUNTS);
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[0]), 3);
	f = ev_choose(0, "hw", PA_EVENTS_ANY); /* events lists unavailable ones too */
	cr_assert_eq(pa_filter_event(&f, ev_run->processes[0]), 0);
}

Test(report_events, refuses_unknown_and_wrong_kind_of_event)
{
	struct pa_error err = ev_refuse(0, "nope", PA_EVENTS_SAMPLES, -ENOENT);

	cr_assert_str_eq(err.reason, "no event named nope (sampling events: cpu-clock, "
			 "faults (page-faults:u))");
	err = ev_refuse(0, "instr", PA_EVENTS_SAMPLES, -EINVAL);
	cr_assert(strstr(err.reason, "instr is a counting event: see `pprof-analyze counters`"),
		  "%s", err.reason);
	err = ev_refuse(0, "faults", PA_EVENTS_COUNTS, -EINVAL);
	cr_assert(strstr(err.reason, "faults is a sampling event"), "%s", err.reason);
	cr_assert(strstr(err.reason, "counting events: instr (instructions:u)"), "%s",
		  err.reason);
	err = ev_refuse(0, "hw", PA_EVENTS_SAMPLES, -EINVAL);
	cr_assert(strstr(err.reason, "event hw could not be opened (unavailable: No such file "
			 "or directory)"), "%s", err.reason);
	err = ev_refuse(310, "faults", PA_EVENTS_SAMPLES, -ENOENT); /* tool has no faults */
	cr_assert(strstr(err.reason, "sampling events: cpu-clock)"), "%s", err.reason);
}

Test(report_events, any_name_when_no_process_is_selected)
{
	struct pa_filter f = ev_choose(999, "nope", PA_EVENTS_SAMPLES);

	cr_assert_str_eq(f.event_name, "nope");
}

/* A report as a malloc'd string. */
static char *ev_report(const char *which, const struct pa_filter *f)
{
	struct pa_error err = { 0 };
	struct pa_profile *prof = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_report_ctx ctx = { .out = out, .opts = &PA_REPORT_OPTS_DEFAULT, .filter = f,
				     .run = ev_run };

	cr_assert(out);
	if (strcmp(which, "events") == 0) {
		cr_assert_eq(pa_report_events.write(&ctx), 0);
	} else if (strcmp(which, "threads") == 0) {
		cr_assert_eq(pa_report_threads.write(&ctx), 0);
	} else if (strcmp(which, "processes") == 0) {
		cr_assert_eq(pa_report_processes.write(&ctx), 0);
	} else {
		cr_assert_eq(pa_profile_build_by(ev_run, f, PA_PROFILE_BY_FUNCTION,
						 &prof, NULL, &err), 0, "%s", err.reason);
		ctx.prof = prof;
		cr_assert_eq(pa_report_top.write(&ctx), 0);
		pa_profile_free(prof);
	}
	cr_assert_eq(fclose(out), 0);
	return text;
}

Test(report_events, events_output_matches_golden)
{
	struct pa_filter f = ev_choose(0, NULL, PA_EVENTS_ANY);
	char *text = ev_report("events", &f);

	tst_log_golden(text, "events.txt");
	free(text);
}

Test(report_events, events_of_one_process_share_a_config_line)
{
	struct pa_filter f = ev_choose(300, "faults", PA_EVENTS_ANY);
	char *text = ev_report("events", &f);

	cr_assert_str_eq(text,
		"# mode sigtrap (requested auto); configuration /home/u/pp.ini: max_frames 128, "
		"follow_exec yes, unavailable skip, strict no\n"
		"NAME    EVENT          KIND    ENCODING      PERIOD   SCOPE        PRECISE  "
		"SAMPLES  LOST  THROTTLED  PROCESSES  STATUS\n"
		"faults  page-faults:u  sample  software:0x2  1 event  user               0  "
		"      2     0          0  all        ok\n");
	free(text);
}

Test(report_events, headers_name_the_event_and_period)
{
	struct pa_filter f = ev_choose(300, NULL, PA_EVENTS_SAMPLES);
	char *text = ev_report("top", &f);

	cr_assert(strncmp(text, "# event cpu-clock: period 1 ms of CPU (user), 7 samples, "
			  "1 process, 2 threads, 3 lost\n", strlen("# event cpu-clock: period 1 "
			  "ms of CPU (user), 7 samples, 1 process, 2 threads, 3 lost\n")) == 0,
		  "%s", text);
	free(text);
	f = ev_choose(300, "page-faults:u", PA_EVENTS_SAMPLES);
	text = ev_report("threads", &f);
	cr_assert(strncmp(text, "# event faults (page-faults:u): period 1 event (user), "
			  "2 samples\n", 59) == 0, "%s", text);
	cr_assert(strstr(text, "     300      301  worker                   0       0"),
		  "the worker lost no faults: %s", text);
	free(text);
	f = ev_choose(0, NULL, PA_EVENTS_SAMPLES);
	text = ev_report("processes", &f);
	cr_assert(strncmp(text, "# event cpu-clock: settings differ between processes (see "
			  "`pprof-analyze events`), 9 samples\n", 83) == 0, "%s", text);
	free(text);
}

Test(report_events, top_counts_lost_samples_of_its_event)
{
	struct pa_filter f = ev_choose(300, "faults", PA_EVENTS_SAMPLES);
	char *text = ev_report("top", &f);

	cr_assert(strstr(text, ", 2 samples, 1 process, 2 threads\n"), "no lost faults: %s", text);
	free(text);
}

Test(report_events, header_says_when_there_is_no_sampling_event)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *text;

	f.event = PA_FILTER_NO_EVENT;
	f.pid = 300;
	text = ev_report("threads", &f);
	cr_assert(strncmp(text, "# no sampling event (counting events only: see "
			  "`pprof-analyze counters`), 0 samples\n", 84) == 0, "%s", text);
	free(text);
	f.pid = 310;
	text = ev_report("threads", &f);
	cr_assert(strncmp(text, "# no sampling event was opened, 0 samples\n", 42) == 0, "%s",
		  text);
	free(text);
}

Test(report_events, formats_periods_and_encodings)
{
	struct pa_event e = { .type = 4, .config = 0xc0, .config1 = 0x3, .period = 1500000,
			      .flags = PPF_EVENT_TIME_NS };
	char buf[128];

	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "1.5 ms of CPU");
	e.period = 250000;
	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "250 us of CPU");
	e.period = 2000000000;
	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "2 s of CPU");
	e.flags = PPF_EVENT_FREQ;
	e.period = 1000;
	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "1000 Hz");
	e.flags = 0;
	e.period = 10000;
	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "10000 events");
	e.flags = PPF_EVENT_COUNT;
	cr_assert_str_eq(pa_event_format_period(&e, buf, sizeof(buf)), "-");
	cr_assert_str_eq(pa_event_format_encoding(&e, buf, sizeof(buf)), "raw:0xc0,config1=0x3");
	e.type = 11;
	e.config1 = 0;
	e.config2 = 0x10;
	cr_assert_str_eq(pa_event_format_encoding(&e, buf, sizeof(buf)), "11:0xc0,config2=0x10");
	e.flags = PPF_EVENT_EXCLUDE_USER;
	cr_assert_str_eq(pa_event_scope(&e), "kernel");
	e.flags = PPF_EVENT_EXCLUDE_USER | PPF_EVENT_EXCLUDE_KERNEL;
	cr_assert_str_eq(pa_event_scope(&e), "none");
	cr_assert_str_eq(pa_events_format_count(0, buf, sizeof(buf)), "0");
	cr_assert_str_eq(pa_events_format_count(999, buf, sizeof(buf)), "999");
	cr_assert_str_eq(pa_events_format_count(1234567, buf, sizeof(buf)), "1,234,567");
	cr_assert_str_eq(pa_events_format_count(UINT64_MAX, buf, sizeof(buf)),
			 "18,446,744,073,709,551,615");
}

/* sh (320) exec'd: its thread log stops without END; threads says "exec". */
Test(report_events, threads_of_exec_replaced_process_say_exec)
{
	char *pdir = tst_log_subdir(ev_dir, "sh.320");
	struct pa_error err = { 0 };
	struct pa_filter f;
	struct tst_log l;
	char *text;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 320, 1, "/bin/sh", NULL);
	ev_event(&l, 0, "cpu-clock", NULL, 1, 0, 1000000, PPF_EVENT_TIME_NS, 0);
	tst_log_exec(&l, 5000, "/usr/bin/env");
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 320, 320, 0, "sh");
	tst_log_sample(&l, 100, 0, 0, 1, ev_ips);
	tst_log_write(&l, pdir, "thread-320.log");
	pa_run_free(ev_run);
	cr_assert_eq(pa_run_load(ev_dir, &ev_run, &err), 0, "%s", err.reason);
	f = ev_choose(320, NULL, PA_EVENTS_SAMPLES);
	text = ev_report("threads", &f);
	cr_assert(strstr(text, "     320      320  sh                       1       0         0"
			 "      0  exec          -          -          -       -  sh\n"), "%s", text);
	free(text);
	free(pdir);
}
