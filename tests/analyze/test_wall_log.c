/*
 * wall (analyze/wall.c): wall.log's harder cases, written by the preload's
 * record writers. Waits whose paused part the helper estimated are said
 * in the header.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "eventinfo.h"
#include "reader.h"
#include "report.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"
#include "tst_run.h"
#include "wall.h"

#define TWL_MS 1000000ull

static char *twl_dir;

static void twl_setup(void)
{
	twl_dir = tst_log_tmpdir();
}

static void twl_teardown(void)
{
	tst_log_rmdir(twl_dir);
	twl_dir = NULL;
}

TestSuite(wall_log, .init = twl_setup, .fini = twl_teardown, .timeout = 30);

/* app.7: process 7 sampling cpu-clock at 1 ms, thread 7 with one CPU sample, thread 8 none. */
static char *twl_process(void)
{
	static const char *const argv[] = { "app", NULL };
	static const uint64_t ips[2] = { 0x401010, 0x402020 };
	char *pdir = tst_log_subdir(twl_dir, "app.7");
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", TWL_MS, PPF_EVENT_TIME_NS);
	tst_log_quiet(&l, 8, 0, 1000, 900 * TWL_MS, 0, 0, "sleeper");
	tst_log_process_end(&l, 900 * TWL_MS, 1, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	tst_log_sample(&l, 10 * TWL_MS, 0, 0, 2, ips);
	tst_log_thread_end(&l, 900 * TWL_MS, 1, 0, TWL_MS);
	tst_log_write(&l, pdir, "thread-7.log");
	return pdir;
}

/* pdir/wall.log, open after its start record, into *log. */
static void twl_wall_begin(const char *pdir, struct pp_logfile *log)
{
	struct ppf_wall_start st = { .period_ns = TWL_MS, .tick_ns = TWL_MS, .start_ns = 1000,
				     .ring_pages = 2 };

	tst_wall_log_start(pdir, &st, log);
}

static void twl_wall_end(struct pp_logfile *log, struct ppf_wall_end *end)
{
	if (end) {
		pp_logfile_closing_sigsafe(log);
		cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_END, end, sizeof(*end)), 0);
	}
	pp_logfile_close_sigsafe(log);
}

static void twl_interval(struct pp_logfile *log, uint32_t tid, uint64_t out_ms, uint64_t in_ms,
			 uint16_t flags)
{
	struct ppf_wall_interval iv = { .tid = tid, .state = PPF_WALL_SLEEP, .flags = flags,
					.out_ns = out_ms * TWL_MS, .in_ns = in_ms * TWL_MS,
					.stack = PPF_WALL_NO_STACK, .nr = -1 };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)), 0);
}

/* The threads report of the wall event over twl_dir. */
static char *twl_threads(struct pa_run **run)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };

	cr_assert_eq(pa_run_load(twl_dir, run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(*run, &f, "wall", PA_EVENTS_SAMPLES, &err), 0);
	return tst_run_report(&pa_report_threads, *run, &f, NULL, NULL);
}

Test(wall_log, waits_with_an_estimated_paused_part_are_said)
{
	struct ppf_wall_end end = { .end_ns = 900 * TWL_MS, .threads = 2 };
	char *pdir = twl_process(), *text;
	struct pp_logfile log;
	struct pa_run *run;
	twl_wall_begin(pdir, &log);

	twl_interval(&log, 8, 100, 200, 0);
	twl_interval(&log, 8, 300, 350, PPF_WALL_PAUSE_GUESSED);
	twl_interval(&log, 8, 400, 420, PPF_WALL_PAUSE_GUESSED);
	twl_wall_end(&log, &end);
	text = twl_threads(&run);
	cr_expect(strstr(text, "; 0.070 s of waits spanned pause switches the helper missed: "
			 "their paused part is estimated"), "%s", text);
	cr_expect(strstr(text, "sleep 0.170 s"), "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

/*
 * thread 8 waits 100-200 ms; an exec at 300 ms ends the log (helper CPU
 * 3 ms so far) and fails; thread 8's wait from 450 ms is still open at
 * 700 ms, the helper's last tick, when the process is killed (no second
 * end); with a second end at 800 ms instead (helper CPU 8 ms), the log ended.
 */
static void twl_exec_failed_log(const char *pdir, bool ended_again)
{
	struct ppf_wall_end exec_end = { .end_ns = 300 * TWL_MS, .threads = 2,
					 .helper_cpu_ns = 3 * TWL_MS };
	struct ppf_wall_end end = { .end_ns = 800 * TWL_MS, .threads = 2,
				    .helper_cpu_ns = 8 * TWL_MS };
	struct ppf_wall_alive alive = { .alive_ns = 700 * TWL_MS };
	struct ppf_wall_interval open = { .tid = 8, .state = PPF_WALL_SLEEP,
					  .out_ns = 450 * TWL_MS, .in_ns = 460 * TWL_MS,
					  .stack = PPF_WALL_NO_STACK, .nr = -1 };
	struct pp_logfile log;
	twl_wall_begin(pdir, &log);

	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_ALIVE, &alive, sizeof(alive)), 0);
	twl_interval(&log, 8, 100, 200, 0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &exec_end,
					     sizeof(exec_end)), 0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_OPEN, &open, sizeof(open)), 0);
	twl_wall_end(&log, ended_again ? &end : NULL);
}

Test(wall_log, records_after_an_execs_end_say_the_log_went_on)
{
	char *pdir = twl_process(), *text;
	const struct pa_process *p;
	struct pa_run *run;

	twl_exec_failed_log(pdir, false);
	text = twl_threads(&run);
	p = run->processes[0];
	cr_expect_not(p->wall->ended);
	/* the wait open at the kill lasted until the helper's last tick */
	cr_expect_eq(p->wall->cut_waits, 1);
	cr_expect(strstr(text, "sleep 0.350 s"), "%s", text);
	/* 3 ms of the helper's CPU over the 0.3 s up to the exec's end */
	cr_expect(strstr(text, "# wall: the profiler's helper used 10.0 ms of CPU per second"),
		  "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

Test(wall_log, the_last_end_holds_the_totals)
{
	char *pdir = twl_process(), *text;
	const struct pa_process *p;
	struct pa_run *run;

	twl_exec_failed_log(pdir, true);
	text = twl_threads(&run);
	p = run->processes[0];
	cr_expect(p->wall->ended);
	cr_expect_eq(p->wall->end_ns, 800 * TWL_MS);
	cr_expect_eq(p->wall->cut_waits, 0);
	/* 8 ms over 0.8 s */
	cr_expect(strstr(text, "# wall: the profiler's helper used 10.0 ms of CPU per second"),
		  "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

/* The thread of tid among p's, or NULL. */
static const struct pa_thread *twl_thread(const struct pa_process *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == tid)
			return p->threads[i];
	return NULL;
}

/*
 * A killed process's wall.log (no end): threads 12 and 13 have no log of
 * their own; 12 ended at 500 ms (its PPF_REC_WALL_THREAD says so), 13 was
 * still there; thread 14's record is a first writer's (no end_ns).
 */
Test(wall_log, a_thread_wall_log_alone_knows_ended_when_it_says_so)
{
	struct ppf_wall_thread ended = { .tid = 12, .end_ns = 500 * TWL_MS };
	struct ppf_wall_thread alive = { .tid = 13 };
	struct ppf_wall_thread v1 = { .tid = 14 };
	char *pdir = twl_process();
	const struct pa_thread *t12, *t13, *t14;
	struct pa_error err = { 0 };
	struct pp_logfile log;
	struct pa_run *run;
	twl_wall_begin(pdir, &log);

	twl_interval(&log, 12, 100, 400, 0);
	twl_interval(&log, 13, 100, 400, 0);
	twl_interval(&log, 14, 100, 400, 0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_THREAD, &ended, sizeof(ended)),
		     0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_THREAD, &alive, sizeof(alive)),
		     0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_THREAD, &v1,
					     PPF_WALL_THREAD_V1_SIZE), 0);
	twl_wall_end(&log, NULL);
	cr_assert_eq(pa_run_load(twl_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	t12 = twl_thread(run->processes[0], 12);
	t13 = twl_thread(run->processes[0], 13);
	t14 = twl_thread(run->processes[0], 14);
	cr_assert(t12 && t13 && t14);
	cr_expect(t12->ended);
	cr_expect_eq(t12->end_ns, 500 * TWL_MS);
	cr_expect_not(t13->ended);
	cr_expect_not(t14->ended);
	pa_run_free(run);
	free(pdir);
}

#define TWL_OLDER 1000000u
#define TWL_NEW_THREADS 100000u

/*
 * A crafted wall.log: TWL_OLDER older-thread records and waits of
 * TWL_NEW_THREADS threads no other log names (each its own new thread,
 * named from its older-thread record). Read once, in linear-logarithmic
 * time: at one pass over the records per new thread it would take
 * minutes, past this test's time limit.
 */
Test(wall_log, many_threads_only_wall_log_knows_are_read_at_once, .timeout = 30)
{
	char *pdir = twl_process();
	struct pa_error err = { 0 };
	const struct pa_thread *t;
	struct pp_logfile log;
	struct pa_run *run;
	twl_wall_begin(pdir, &log);

	for (uint32_t i = 0; i < TWL_OLDER; i++) {
		/* tids from 1000 on, the last ones first: the reader sorts them */
		struct ppf_wall_older o = { .tid = 1000 + TWL_OLDER - 1 - i };

		snprintf(o.name, sizeof(o.name), "old-%u", o.tid);
		cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_OLDER, &o, sizeof(o)), 0);
	}
	for (uint32_t i = 0; i < TWL_NEW_THREADS; i++)
		twl_interval(&log, 1000 + i * (TWL_OLDER / TWL_NEW_THREADS), 100, 101, 0);
	twl_wall_end(&log, NULL);
	cr_assert_eq(pa_run_load(twl_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	/* threads 7 and 8 of the logs, and the new ones */
	cr_expect_eq(run->processes[0]->nthreads, 2 + TWL_NEW_THREADS);
	t = twl_thread(run->processes[0], 1000 + 7 * (TWL_OLDER / TWL_NEW_THREADS));
	cr_assert(t);
	cr_expect_str_eq(t->name, "old-1070");
	pa_run_free(run);
	free(pdir);
}
