/*
 * Unit tests for analyze/eventinfo.c on the "events" run (tst_run.h):
 * which event a report shows (--event and its default), the line that
 * heads the reports, and events' settings as text.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "profile.h"
#include "reader.h"
#include "report.h"
#include "tst_log.h"
#include "tst_run.h"

TestSuite(eventinfo, .init = tst_events_setup, .fini = tst_events_teardown, .timeout = 30);

/* pa_events_choose expecting failure with code; returns the message. */
static struct pa_error ei_refuse(uint32_t pid, const char *name, enum pa_events_use use,
				 int code)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	f.pid = pid;
	cr_assert_eq(pa_events_choose(tst_events_run, &f, name, use, &err), code, "%s: %s", name,
		     err.reason);
	cr_assert_str_eq(err.path, "");
	cr_assert_not(err.has_offset);
	return err;
}

Test(eventinfo, default_is_first_opened_sampling_event)
{
	struct pa_filter f = tst_events_choose(0, NULL, PA_EVENTS_SAMPLES);

	cr_assert_str_eq(f.event_name, "cpu-clock", "hw is unavailable and comes first");
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[0]), 1);
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[1]), 0);
	f = tst_events_choose(0, NULL, PA_EVENTS_COUNTS);
	cr_assert_null(f.event_name);
	cr_assert_eq(f.event, -1);
	f = tst_events_choose(0, NULL, PA_EVENTS_ANY);
	cr_assert_eq(f.event, -1);
}

Test(eventinfo, names_match_section_or_spec)
{
	struct pa_filter f = tst_events_choose(0, "faults", PA_EVENTS_SAMPLES);

	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[0]), 2);
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[1]), PA_FILTER_NO_EVENT);
	f = tst_events_choose(0, "page-faults:u", PA_EVENTS_SAMPLES);
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[0]), 2);
	f = tst_events_choose(0, "instructions:u", PA_EVENTS_COUNTS);
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[0]), 3);
	f = tst_events_choose(0, "hw", PA_EVENTS_ANY); /* events lists unavailable ones too */
	cr_assert_eq(pa_filter_event(&f, tst_events_run->processes[0]), 0);
}

Test(eventinfo, refuses_unknown_and_wrong_kind_of_event)
{
	struct pa_error err = ei_refuse(0, "nope", PA_EVENTS_SAMPLES, -ENOENT);

	cr_assert_str_eq(err.reason, "no event named nope (sampling events: cpu-clock, "
			 "faults (page-faults:u))");
	err = ei_refuse(0, "instr", PA_EVENTS_SAMPLES, -EINVAL);
	cr_assert(strstr(err.reason, "instr is a counting event: see `pprof-analyze counters`"),
		  "%s", err.reason);
	err = ei_refuse(0, "faults", PA_EVENTS_COUNTS, -EINVAL);
	cr_assert(strstr(err.reason, "faults is a sampling event"), "%s", err.reason);
	cr_assert(strstr(err.reason, "counting events: instr (instructions:u)"), "%s",
		  err.reason);
	err = ei_refuse(0, "hw", PA_EVENTS_SAMPLES, -EINVAL);
	cr_assert(strstr(err.reason, "event hw could not be opened (unavailable: No such file "
			 "or directory)"), "%s", err.reason);
	err = ei_refuse(310, "faults", PA_EVENTS_SAMPLES, -ENOENT); /* tool has no faults */
	cr_assert(strstr(err.reason, "sampling events: cpu-clock)"), "%s", err.reason);
}

Test(eventinfo, any_name_when_no_process_is_selected)
{
	struct pa_filter f = tst_events_choose(999, "nope", PA_EVENTS_SAMPLES);

	cr_assert_str_eq(f.event_name, "nope");
}

Test(eventinfo, headers_name_the_event_and_period)
{
	struct pa_filter f = tst_events_choose(300, NULL, PA_EVENTS_SAMPLES);
	char *text = tst_events_report(&pa_report_top, &f);

	cr_assert(strncmp(text, "# event cpu-clock: period 1 ms of CPU (user), 7 samples, "
			  "1 process, 2 threads, 3 lost\n", strlen("# event cpu-clock: period 1 "
			  "ms of CPU (user), 7 samples, 1 process, 2 threads, 3 lost\n")) == 0,
		  "%s", text);
	free(text);
	f = tst_events_choose(300, "page-faults:u", PA_EVENTS_SAMPLES);
	text = tst_events_report(&pa_report_threads, &f);
	cr_assert(strncmp(text, "# event faults (page-faults:u): period 1 event (user), "
			  "2 samples\n", 59) == 0, "%s", text);
	cr_assert(strstr(text, "     300      301  worker                   0       0"),
		  "the worker lost no faults: %s", text);
	free(text);
	f = tst_events_choose(0, NULL, PA_EVENTS_SAMPLES);
	text = tst_events_report(&pa_report_processes, &f);
	cr_assert(strncmp(text, "# event cpu-clock: settings differ between processes (see "
			  "`pprof-analyze events`), 9 samples\n", 83) == 0, "%s", text);
	free(text);
}

Test(eventinfo, top_counts_lost_samples_of_its_event)
{
	struct pa_filter f = tst_events_choose(300, "faults", PA_EVENTS_SAMPLES);
	char *text = tst_events_report(&pa_report_top, &f);

	cr_assert(strstr(text, ", 2 samples, 1 process, 2 threads\n"), "no lost faults: %s", text);
	free(text);
}

Test(eventinfo, header_says_when_there_is_no_sampling_event)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *text;

	f.event = PA_FILTER_NO_EVENT;
	f.pid = 300;
	text = tst_events_report(&pa_report_threads, &f);
	cr_assert(strncmp(text, "# no sampling event (counting events only: see "
			  "`pprof-analyze counters`), 0 samples\n", 84) == 0, "%s", text);
	free(text);
	f.pid = 310;
	text = tst_events_report(&pa_report_threads, &f);
	cr_assert(strncmp(text, "# no sampling event was opened, 0 samples\n", 42) == 0, "%s",
		  text);
	free(text);
}

Test(eventinfo, formats_periods_and_encodings)
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

Test(eventinfo, says_what_kind_and_status_each_event_has)
{
	const struct pa_process *app = tst_log_find_process(tst_events_run, 300);
	struct pa_event refused = *pa_process_find_event(app, 1);
	char buf[160];

	cr_expect_str_eq(pa_event_kind(pa_process_find_event(app, 2)), "sample");
	cr_expect_str_eq(pa_event_kind(pa_process_find_event(app, 3)), "count");
	cr_expect_str_eq(pa_event_format_status(pa_process_find_event(app, 1), buf, sizeof(buf)),
			 "ok");
	cr_expect_str_eq(pa_event_format_status(pa_process_find_event(app, 0), buf, sizeof(buf)),
			 "unavailable: No such file or directory");
	refused.flags |= PPF_EVENT_UNAVAILABLE | PPF_EVENT_MODE_REFUSED;
	cr_expect_str_eq(pa_event_format_status(&refused, buf, sizeof(buf)),
			 "unavailable: not sampled in the signal mode (its signal would interrupt "
			 "system calls)");
	cr_expect(pa_event_same_settings(&refused, pa_process_find_event(app, 1)),
		  "being refused is no other setting");
	cr_expect_str_eq(pa_event_format_period(pa_process_find_event(app, 1), buf, 4), "1 m",
			 "cut to the buffer");
}

/* app's cpu-clock counts user time only, tool's user and kernel time. */
Test(eventinfo, shown_event_says_when_processes_set_it_differently)
{
	struct pa_filter f = tst_events_choose(0, "cpu-clock", PA_EVENTS_SAMPLES);
	const struct pa_event *e;
	bool differs;

	e = pa_events_shown(tst_events_run, &f, &differs);
	cr_assert_not_null(e);
	cr_expect_eq(e, pa_process_find_event(tst_log_find_process(tst_events_run, 300), 1),
		     "the first selected process's");
	cr_expect(differs);
	cr_expect_not(pa_event_same_settings(e, pa_process_find_event(
		tst_log_find_process(tst_events_run, 310), 0)));
	f = tst_events_choose(310, "cpu-clock", PA_EVENTS_SAMPLES);
	e = pa_events_shown(tst_events_run, &f, &differs);
	cr_expect_str_eq(e->name, "cpu-clock");
	cr_expect_not(differs, "one process alone");
	f = tst_events_choose(0, NULL, PA_EVENTS_ANY);
	cr_expect_null(pa_events_shown(tst_events_run, &f, &differs), "every event: none shown");
}

/*
 * What one overflow stands for: the period; for a frequency of a time
 * event, the fixed period the kernel runs it at; unknown (0) for a
 * frequency of another event, and for a counting event.
 */
Test(eventinfo, sample_period_of_fixed_and_frequency_events)
{
	struct pa_event e = { .period = 250000, .flags = PPF_EVENT_TIME_NS };

	cr_expect_eq(pa_event_sample_period(&e), 250000);
	e.flags = PPF_EVENT_TIME_NS | PPF_EVENT_FREQ;
	e.period = 4000;
	cr_expect_eq(pa_event_sample_period(&e), 250000);
	e.flags = PPF_EVENT_FREQ;
	cr_expect_eq(pa_event_sample_period(&e), 0);
	e.flags = 0;
	e.period = 100;
	cr_expect_eq(pa_event_sample_period(&e), 100);
	e.flags = PPF_EVENT_COUNT;
	cr_expect_eq(pa_event_sample_period(&e), 0);
}

/*
 * Samples of an event the process does not list (its event.<key> file
 * could not be read, said when read) are not "no sampling event was
 * opened": the header says how many are not counted, and why.
 */
Test(eventinfo, header_says_samples_of_unknown_events_are_not_counted, .init = NULL,
     .fini = NULL)
{
	const uint64_t stack[] = { 0x401000 };
	char *dir = tst_log_tmpdir(), *pdir = tst_log_subdir(dir, "app.7"), *text = NULL;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_run *run;
	struct tst_log l;
	size_t len = 0;
	FILE *out;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", NULL);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_prof_add_thread(pdir, 7, 3, 1, stack);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(pa_events_choose(run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	pa_events_header(out, run, &f, 0, false, 0, 0, 0);
	cr_assert_eq(fclose(out), 0);
	cr_expect(strstr(text, "# no sampling event is known: 3 samples of events the logs "
			 "do not describe") == text, "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
	tst_log_rmdir(dir);
}
