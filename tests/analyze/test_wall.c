/*
 * wall (analyze/wall.c): wall.log, as the preload's record writers write
 * it, read into the "wall" event's samples: an off-CPU interval weighs its
 * time over the period under its [off-cpu: STATE] leaf, unseen waits go to
 * the seen ones of about their length (the process's, for a thread with
 * none), preempted time above the thread's CPU stacks, CPU
 * samples count too; a broken log is an error naming its offset. A killed
 * process's log (no end): its open waits last until the helper's last
 * tick, and threads only wall.log knows of are made; lost switch records
 * leave their window's time unknown, and the header says how much.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "eventinfo.h"
#include "profile.pb-c.h"
#include "reader.h"
#include "report.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"
#include "tst_run.h"
#include "wall.h"

#define TW_MS 1000000ull

static char *tw_dir;

static void tw_setup(void)
{
	tw_dir = tst_log_tmpdir();
}

static void tw_teardown(void)
{
	tst_log_rmdir(tw_dir);
	tw_dir = NULL;
}

TestSuite(wall, .init = tw_setup, .fini = tw_teardown, .timeout = 10);

static const uint64_t tw_cpu_ips[2] = { 0x401010, 0x402020 };
static const uint64_t tw_sleep_ips[3] = { 0x7f0000001000, 0x401100, 0x402020 };
static const uint64_t tw_lock_ips[3] = { 0x7f0000002000, 0x401200, 0x402020 };

/* app.7: process 7 sampling cpu-clock at 1 ms; thread 7 took 4 CPU samples, 8 none. */
static char *tw_process(void)
{
	static const char *const argv[] = { "app", NULL };
	char *pdir = tst_log_subdir(tw_dir, "app.7");
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", TW_MS, PPF_EVENT_TIME_NS);
	tst_log_quiet(&l, 8, 0, 1000, 900 * TW_MS, 0, 0, "sleeper");
	tst_log_quiet(&l, 9, 0, 1000, 900 * TW_MS, 0, 0, "unseen");
	tst_log_process_end(&l, 900 * TW_MS, 4, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	for (int i = 0; i < 4; i++)
		tst_log_sample(&l, (uint64_t)(i + 1) * 10 * TW_MS, 0, 0, 2, tw_cpu_ips);
	tst_log_thread_end(&l, 900 * TW_MS, 4, 0, 4 * TW_MS);
	tst_log_write(&l, pdir, "thread-7.log");
	return pdir;
}

static void tw_interval(struct pp_logfile *log, uint32_t tid, uint16_t state, uint64_t out_ms,
			uint64_t len_us, uint32_t stack, int32_t nr)
{
	struct ppf_wall_interval iv = { .tid = tid, .state = state, .out_ns = out_ms * TW_MS,
					.in_ns = out_ms * TW_MS + len_us * 1000, .stack = stack,
					.nr = nr };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)), 0);
}

/*
 * pdir/wall.log by the preload's writers: thread 8 slept 300 ms (seen),
 * waited 0.5 ms on a futex (seen) and 1.5 ms in 3 waits nobody saw;
 * thread 7 was preempted for 3 ms. bad_stack: an interval names a stack
 * the log does not have.
 */
static void tw_wall_log(const char *pdir, bool bad_stack)
{
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct ppf_wall_end end = { .end_ns = 900 * TW_MS, .looks = 2, .threads = 2,
				    .ticks = 900, .helper_cpu_ns = 5 * TW_MS };
	struct pp_logfile log;
	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, tw_sleep_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, tw_lock_ips, 3, 0, 0), 0);
	tw_interval(&log, 8, PPF_WALL_SLEEP, 100, 300000, 0, 230);
	tw_interval(&log, 8, PPF_WALL_FUTEX, 500, 500, 1, 202);
	for (int i = 0; i < 3; i++)
		tw_interval(&log, 8, PPF_WALL_UNKNOWN, 600 + (uint64_t)i, 500, PPF_WALL_NO_STACK, -1);
	tw_interval(&log, 7, PPF_WALL_RUNNABLE, 20, 3000, PPF_WALL_NO_STACK, -1);
	/* thread 9 was never looked at: it waited 2 x 0.5 ms */
	for (int i = 0; i < 2; i++)
		tw_interval(&log, 9, PPF_WALL_UNKNOWN, 610 + (uint64_t)i, 500, PPF_WALL_NO_STACK, -1);
	if (bad_stack)
		tw_interval(&log, 8, PPF_WALL_SLEEP, 700, 100, 5, 230);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
}

/* Wall samples of t under leaf (NULL: any), and whose frame 1 is at ip (0: any). */
static uint64_t tw_count(const struct pa_thread *t, uint32_t event, const char *leaf, uint64_t ip)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++) {
		const struct pa_sample *s = &t->samples[i];
		const char *name = pa_wall_frame_name(s->ips[0]);

		if (s->event != event || (leaf && (!name || strcmp(name, leaf) != 0)))
			continue;
		if (!ip || (s->nframes > 1 && s->ips[1] == ip))
			n += s->count;
	}
	return n;
}

/* Wall samples of t on the CPU (no wait's leaf) whose leaf is at ip. */
static uint64_t tw_on_cpu(const struct pa_thread *t, uint32_t event, uint64_t ip)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++) {
		const struct pa_sample *s = &t->samples[i];

		if (s->event == event && !pa_wall_frame_name(s->ips[0]) && s->ips[0] == ip)
			n += s->count;
	}
	return n;
}

static const struct pa_thread *tw_thread(const struct pa_process *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == tid)
			return p->threads[i];
	cr_assert_fail("no thread %u", tid);
	return NULL;
}

Test(wall, intervals_become_weighted_samples_under_their_state)
{
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	const struct pa_thread *t7, *t8;
	const struct pa_event *ev;
	const struct pa_process *p;
	struct pa_run *run;

	tw_wall_log(pdir, false);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_not_null(p->wall, "wall.log was not read");
	ev = pa_process_find_event_named(p, "wall");
	cr_assert_not_null(ev, "no wall event");
	cr_expect(ev->flags & PPF_EVENT_WALL);
	cr_expect_eq(ev->period, TW_MS);
	cr_expect_eq(p->wall->helper_cpu_ns, 5 * TW_MS);
	t8 = tw_thread(p, 8);
	t7 = tw_thread(p, 7);
	/* a 300 ms wait at 1 ms is 300 samples, above the stack read in it */
	cr_expect_eq(tw_count(t8, ev->index, "[off-cpu: sleep]", tw_sleep_ips[0]), 300);
	/* the unseen 1.5 ms went to the short seen wait, not the long one */
	cr_expect_eq(tw_count(t8, ev->index, "[off-cpu: futex]", tw_lock_ips[0]), 2);
	cr_expect_eq(tw_count(t8, ev->index, "[off-cpu: blocked]", 0), 0);
	cr_expect_eq(t8->off_ns[PPF_WALL_SLEEP], 300 * TW_MS);
	cr_expect_eq(t8->off_ns[PPF_WALL_UNKNOWN], 1500000);
	{
		char off[256];

		cr_expect(strstr(pa_wall_format_off(t8, off, sizeof(off)),
				 "off the CPU 0.302 s: sleep 0.300 s, blocked 0.002 s"), "%s", off);
		cr_expect_str_eq(pa_wall_format_off(tw_thread(p, 7), off, sizeof(off)),
				 "off the CPU 0.003 s: runnable 0.003 s");
	}
	/* a thread nobody saw: where the process waited about as long (thread 8's futex) */
	cr_expect_eq(tw_count(tw_thread(p, 9), ev->index, "[off-cpu: futex]", tw_lock_ips[0]), 1);
	/* preempted 3 ms above the CPU stack; the 4 CPU samples count as wall too */
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: runnable]", tw_cpu_ips[0]), 3);
	cr_expect_eq(tw_count(t7, ev->index, NULL, 0), 3 + 4);
	cr_expect_eq(tw_count(t7, 0, NULL, 0), 4, "the CPU samples changed");
	/* still in time order */
	for (size_t i = 1; i < t7->nsamples; i++)
		cr_expect_leq(t7->samples[i - 1].time_ns, t7->samples[i].time_ns);
	cr_expect_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

Test(wall, leaves_are_named_by_state)
{
	cr_expect_str_eq(pa_wall_frame_name(PA_WALL_IP(PPF_WALL_IO)), "[off-cpu: io]");
	cr_expect_str_eq(pa_wall_frame_name(PA_WALL_IP(PPF_WALL_UNKNOWN)), "[off-cpu: blocked]");
	cr_expect_null(pa_wall_frame_name(UINT64_MAX));
	cr_expect_null(pa_wall_frame_name(0x401000));
	cr_expect_null(pa_wall_frame_name(PA_WALL_IP(PPF_WALL_STATES)));
}

Test(wall, a_stack_the_log_lacks_is_an_error_at_its_offset)
{
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	tw_wall_log(pdir, true);
	cr_assert_lt(pa_run_load(tw_dir, &run, &err), 0);
	cr_expect(strstr(err.path, "wall.log"), "%s", err.path);
	cr_expect(err.has_offset);
	cr_expect(strstr(err.reason, "stack 5 of 2"), "%s", err.reason);
	free(pdir);
}

Test(wall, pprof_has_a_wall_sample_type_in_nanoseconds)
{
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	Perftools__Profiles__Profile *p;
	struct pa_run *run;
	int64_t total = 0;

	tw_wall_log(pdir, false);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = tst_pprof_decode(run, "wall");
	cr_assert_eq(p->n_sample_type, 2);
	cr_expect_str_eq(p->string_table[p->sample_type[1]->type], "wall");
	cr_expect_str_eq(p->string_table[p->sample_type[1]->unit], "nanoseconds");
	cr_expect_eq(p->period, (int64_t)TW_MS);
	for (size_t i = 0; i < p->n_sample; i++)
		total += p->sample[i]->value[1];
	/* 300 + 2 ms off the CPU in thread 8, 1 in 9; 3 preempted and 4 on it in thread 7 */
	cr_expect_eq(total, (int64_t)(310 * TW_MS), "%ld ns", (long)total);
	perftools__profiles__profile__free_unpacked(p, NULL);
	pa_run_free(run);
	free(pdir);
}

Test(wall, reports_close_with_the_helpers_cost)
{
	char *pdir = tw_process(), *text;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_run *run;

	tw_wall_log(pdir, false);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(pa_events_choose(run, &f, "wall", PA_EVENTS_SAMPLES, &err), 0);
	text = tst_run_report(&pa_report_threads, run, &f, NULL, NULL);
	/* 5 ms of CPU over the 0.9 s wall.log covers */
	cr_expect(strstr(text, "# wall: the profiler's helper used 5.6 ms of CPU per second of "
			 "wall time (2 stacks read, 0 dropped)\n"), "%s", text);
	cr_expect(strstr(text, "(off the CPU 0.302 s: sleep 0.300 s, blocked 0.002 s"), "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

/*
 * Preempted time goes above the CPU sample nearest to it in time, also in
 * a load that collapses samples (as the reports read): thread 7 computed
 * (4 samples of one stack, 10-40 ms), then spun in a yield loop (2 samples
 * of another, 500 and 510 ms); preempted 3 ms at 20 ms and 4 ms at 505 ms,
 * each goes to the stack it was in, not shared by their sample counts.
 */
Test(wall, preempted_time_goes_to_the_cpu_stack_nearest_in_time)
{
	static const uint64_t yield_ips[2] = { 0x401300, 0x402020 };
	static const char *const argv[] = { "app", NULL };
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct pa_load_opts opts = { .collapse = true };
	char *pdir = tst_log_subdir(tw_dir, "app.7");
	struct pa_error err = { 0 };
	const struct pa_event *ev;
	const struct pa_thread *t7;
	struct pp_logfile log;
	struct pa_run *run;
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", TW_MS, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 900 * TW_MS, 6, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	for (int i = 0; i < 4; i++)
		tst_log_sample(&l, (uint64_t)(i + 1) * 10 * TW_MS, 0, 0, 2, tw_cpu_ips);
	for (int i = 0; i < 2; i++)
		tst_log_sample(&l, (uint64_t)(500 + 10 * i) * TW_MS, 0, 0, 2, yield_ips);
	tst_log_thread_end(&l, 900 * TW_MS, 6, 0, 6 * TW_MS);
	tst_log_write(&l, pdir, "thread-7.log");
	tst_wall_log_start(pdir, &st, &log);
	tw_interval(&log, 7, PPF_WALL_RUNNABLE, 20, 3000, PPF_WALL_NO_STACK, -1);
	tw_interval(&log, 7, PPF_WALL_RUNNABLE, 505, 4000, PPF_WALL_NO_STACK, -1);
	pp_logfile_close_sigsafe(&log);

	cr_assert_eq(pa_run_load_opts(tw_dir, &opts, &run, &err), 0, "%s: %s", err.path,
		     err.reason);
	ev = pa_process_find_event_named(run->processes[0], "wall");
	cr_assert_not_null(ev, "no wall event");
	t7 = tw_thread(run->processes[0], 7);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: runnable]", tw_cpu_ips[0]), 3);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: runnable]", yield_ips[0]), 4);
	cr_expect_eq(tw_count(t7, 0, NULL, 0), 6, "the CPU samples changed");
	pa_run_free(run);
	free(pdir);
}

/*
 * Time off the CPU with no stack of its own takes the stack of a CPU
 * sample near it, but not a leaf-only one (taken where the handler does
 * not unwind: inside the profiler's scan of a library just loaded, its
 * one frame the profiler's) when one with a stack is near too: thread 7
 * computed at 10 ms (a stack), took a leaf-only sample at 100 ms, was then
 * preempted 3 ms at 101 ms and waited 2 ms at 105 ms where nobody looked
 * (a thin bin: no wait of the thread seen). Both go above the stack of 10
 * ms; before, both went above the leaf alone (a rank's waits in MPI_Init
 * counted out of MPI).
 */
Test(wall, stackless_time_passes_over_leaf_only_samples)
{
	static const uint64_t leaf_ip[1] = { 0x405000 };
	static const char *const argv[] = { "app", NULL };
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = 10 * TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	char *pdir = tst_log_subdir(tw_dir, "app.7");
	struct pa_error err = { 0 };
	const struct pa_event *ev;
	const struct pa_thread *t7;
	struct pp_logfile log;
	struct pa_run *run;
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", TW_MS, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 900 * TW_MS, 2, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	tst_log_sample(&l, 10 * TW_MS, 0, 0, 2, tw_cpu_ips);
	tst_log_sample(&l, 100 * TW_MS, 0, PPF_SAMPLE_LEAF_ONLY, 1, leaf_ip);
	tst_log_thread_end(&l, 900 * TW_MS, 2, 0, 2 * TW_MS);
	tst_log_write(&l, pdir, "thread-7.log");
	tst_wall_log_start(pdir, &st, &log);
	tw_interval(&log, 7, PPF_WALL_RUNNABLE, 101, 3000, PPF_WALL_NO_STACK, -1);
	tw_interval(&log, 7, PPF_WALL_UNKNOWN, 105, 2000, PPF_WALL_NO_STACK, -1);
	pp_logfile_close_sigsafe(&log);

	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	ev = pa_process_find_event_named(run->processes[0], "wall");
	cr_assert_not_null(ev, "no wall event");
	t7 = tw_thread(run->processes[0], 7);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: runnable]", tw_cpu_ips[0]), 3);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: blocked]", tw_cpu_ips[0]), 2);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: runnable]", leaf_ip[0]) +
		     tw_count(t7, ev->index, "[off-cpu: blocked]", leaf_ip[0]), 0,
		     "time off the CPU above the leaf-only sample");
	pa_run_free(run);
	free(pdir);
}

/*
 * pdir/wall.log of a process killed (ended: not) while threads waited:
 * thread 8 slept 300 ms from 100 ms (said open at 101 ms, then closed),
 * went into a futex wait at 500 ms still open at its end; thread 12 (no
 * log of its own) read from 200 ms on; the helper's last tick was at 800
 * ms; thread 7 lost 1,000 switch records from 20 to 70 ms (bad_lost: to
 * before from).
 */
static void tw_killed_log(const char *pdir, bool ended, bool bad_lost)
{
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct ppf_wall_alive alive = { .alive_ns = 800 * TW_MS };
	struct ppf_wall_lost lost = { .tid = 7, .lost = 1000, .from_ns = 20 * TW_MS,
				      .to_ns = (bad_lost ? 10 : 70) * TW_MS };
	struct ppf_wall_end end = { .end_ns = 900 * TW_MS, .threads = 3, .lost = 1000 };
	struct ppf_wall_interval opens[3] = {
		{ .tid = 8, .state = PPF_WALL_SLEEP, .out_ns = 100 * TW_MS, .in_ns = 101 * TW_MS,
		  .stack = 0, .nr = 230 },
		{ .tid = 8, .state = PPF_WALL_FUTEX, .out_ns = 500 * TW_MS, .in_ns = 501 * TW_MS,
		  .stack = 1, .nr = 202 },
		{ .tid = 12, .state = PPF_WALL_IO, .out_ns = 200 * TW_MS, .in_ns = 201 * TW_MS,
		  .stack = 0, .nr = 0 },
	};
	struct pp_logfile log;
	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_ALIVE, &alive, sizeof(alive)), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, tw_sleep_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, tw_lock_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_LOST, &lost, sizeof(lost)), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_OPEN, &opens[i],
						     sizeof(opens[i])), 0);
	tw_interval(&log, 8, PPF_WALL_SLEEP, 100, 300000, 0, 230);
	if (ended) {
		pp_logfile_closing_sigsafe(&log);
		cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	}
	pp_logfile_close_sigsafe(&log);
}

Test(wall, a_killed_processs_open_waits_last_until_its_last_tick)
{
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	const struct pa_thread *t8, *t12;
	const struct pa_event *ev;
	const struct pa_process *p;
	struct pa_run *run;

	tw_killed_log(pdir, false, false);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	ev = pa_process_find_event_named(p, "wall");
	cr_assert(p->wall && ev);
	cr_expect_eq(p->wall->cut_waits, 2);
	t8 = tw_thread(p, 8);
	/* the sleep closed by its interval counts once; the futex wait until 800 ms */
	cr_expect_eq(t8->off_ns[PPF_WALL_SLEEP], 300 * TW_MS);
	cr_expect_eq(t8->off_ns[PPF_WALL_FUTEX], 300 * TW_MS);
	cr_expect_eq(tw_count(t8, ev->index, "[off-cpu: futex]", tw_lock_ips[0]), 300);
	/* thread 12 had no log: wall.log alone makes it, nameless */
	t12 = tw_thread(p, 12);
	cr_expect_str_eq(t12->name, "");
	cr_expect_eq(t12->off_ns[PPF_WALL_IO], 600 * TW_MS);
	cr_expect_eq(tw_count(t12, ev->index, "[off-cpu: io]", tw_sleep_ips[0]), 600);
	/* the lost records' window, counted without an end record too */
	cr_expect_eq(tw_thread(p, 7)->wall_lost_ns, 50 * TW_MS);
	cr_expect_eq(p->wall->lost_ns, 50 * TW_MS);
	cr_expect_eq(p->wall->lost, 1000);
	pa_run_free(run);
	free(pdir);
}

Test(wall, open_waits_of_an_ended_log_are_its_intervals_alone)
{
	char *pdir = tw_process(), *text;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pa_run *run;

	tw_killed_log(pdir, true, false);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_expect_eq(p->wall->cut_waits, 0);
	cr_expect_eq(tw_thread(p, 8)->off_ns[PPF_WALL_FUTEX], 0);
	cr_expect_eq(tw_thread(p, 8)->off_ns[PPF_WALL_SLEEP], 300 * TW_MS);
	cr_assert_eq(pa_events_choose(run, &f, "wall", PA_EVENTS_SAMPLES, &err), 0);
	text = tst_run_report(&pa_report_threads, run, &f, NULL, NULL);
	cr_expect(strstr(text, "; 1000 switch records lost: 0.050 s of threads' time not known "
			 "on or off the CPU"), "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

Test(wall, a_bad_lost_window_is_an_error_at_its_offset)
{
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	tw_killed_log(pdir, true, true);
	cr_assert_lt(pa_run_load(tw_dir, &run, &err), 0);
	cr_expect(strstr(err.path, "wall.log"), "%s", err.path);
	cr_expect(err.has_offset);
	cr_expect(strstr(err.reason, "records lost of thread 7"), "%s", err.reason);
	free(pdir);
}

/*
 * The kernel's switch path out of waits: thread 8 (PPF_REC_WALL_THREAD:
 * from 100 to 200 ms, 40 ms of CPU) waited 10 x 8 ms in that span, 20 ms
 * more than its 60 ms of wall less CPU; each wait gives up 2 ms at its end.
 * A wait before its span (a tid's earlier thread) and thread 9's waits (no
 * CPU time known) are left whole.
 */
Test(wall, waits_sum_to_the_threads_wall_less_cpu_time)
{
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = TW_MS, .start_ns = 1000,
				     .ring_pages = 2, .cpu_rings = 2 };
	struct ppf_wall_thread th = { .tid = 8, .end_ns = 200 * TW_MS, .born_ns = 100 * TW_MS,
				      .cpu_ns = 40 * TW_MS };
	struct ppf_wall_end end = { .end_ns = 900 * TW_MS, .threads = 2 };
	char *pdir = tw_process(), *text;
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	const struct pa_process *p;
	struct pp_logfile log;
	struct pa_run *run;

	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, tw_sleep_ips, 3, 0, 0), 0);
	tw_interval(&log, 8, PPF_WALL_SLEEP, 50, 5000, 0, 230);
	for (int i = 0; i < 10; i++)
		tw_interval(&log, 8, PPF_WALL_SLEEP, 105 + 9 * (uint64_t)i, 8000, 0, 230);
	tw_interval(&log, 9, PPF_WALL_SLEEP, 105, 8000, 0, 230);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_THREAD, &th, sizeof(th)), 0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert(p->wall);
	cr_expect_eq(p->wall->cpu_rings, 2);
	cr_expect_eq(p->wall->trimmed_ns, 20 * TW_MS);
	cr_expect_eq(tw_thread(p, 8)->off_ns[PPF_WALL_SLEEP], (5 + 60) * TW_MS);
	cr_expect_eq(tw_thread(p, 9)->off_ns[PPF_WALL_SLEEP], 8 * TW_MS);
	cr_assert_eq(pa_events_choose(run, &f, "wall", PA_EVENTS_SAMPLES, &err), 0);
	/*
	 * Its 40 ms of CPU time, none of it sampled, on the CPU above its
	 * waits' stack: its wall time is its life, 100 ms, and the 5 ms wait
	 * before it.
	 */
	cr_expect_eq(tw_count(tw_thread(p, 8), p->wall->event, NULL, 0), 105);
	cr_expect_eq(tw_on_cpu(tw_thread(p, 8), p->wall->event, tw_sleep_ips[0] - 1), 40);
	cr_expect_eq(p->wall->unsampled_ns, 40 * TW_MS);
	text = tst_run_report(&pa_report_threads, run, &f, NULL, NULL);
	cr_expect(strstr(text, "; 0.020 s at the end of waits was the kernel's switch path, "
			 "which the threads' CPU clocks count: on the CPU; 0.040 s of the threads' "
			 "CPU time was not sampled (in the kernel, mostly): counted on the stacks "
			 "around it"), "%s", text);
	free(text);
	pa_run_free(run);
	free(pdir);
}

/*
 * Short waits seen too rarely to stand for the unseen ones: thread 7 (CPU
 * samples at 10-40 ms, of one stack) waited 40 x 0.5 ms between 11 and 50
 * ms, one seen (in a sleep: its thread's start, say); the 39 unseen go
 * above the CPU samples' stack as blocked (not looked at), not onto the
 * one seen. Waits of a tick or longer are spread over the seen as before.
 */
Test(wall, unseen_short_waits_of_a_thin_bin_take_the_nearby_cpu_stack)
{
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = 4 * TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct ppf_wall_end end = { .end_ns = 900 * TW_MS, .threads = 1 };
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	const struct pa_thread *t7;
	const struct pa_event *ev;
	struct pp_logfile log;
	struct pa_run *run;

	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, tw_sleep_ips, 3, 0, 0), 0);
	tw_interval(&log, 7, PPF_WALL_SLEEP, 11, 500, 0, 230);
	for (int i = 1; i < 40; i++)
		tw_interval(&log, 7, PPF_WALL_UNKNOWN, 11 + (uint64_t)i, 500, PPF_WALL_NO_STACK, -1);
	/* longer than the tick: one seen, one not */
	tw_interval(&log, 7, PPF_WALL_SLEEP, 100, 10000, 0, 230);
	tw_interval(&log, 7, PPF_WALL_UNKNOWN, 200, 10000, PPF_WALL_NO_STACK, -1);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	ev = pa_process_find_event_named(run->processes[0], "wall");
	cr_assert_not_null(ev);
	t7 = tw_thread(run->processes[0], 7);
	/* 39 x 0.5 ms above the CPU stack (its leaf frame below the marker) */
	cr_expect_geq(tw_count(t7, ev->index, "[off-cpu: blocked]", tw_cpu_ips[0]), 19);
	cr_expect_leq(tw_count(t7, ev->index, "[off-cpu: blocked]", tw_cpu_ips[0]), 20);
	/* the seen sleeps: 0.5 ms, and 2 x 10 ms (the unseen long one spread onto it) */
	cr_expect_geq(tw_count(t7, ev->index, "[off-cpu: sleep]", tw_sleep_ips[0]), 20);
	cr_expect_leq(tw_count(t7, ev->index, "[off-cpu: sleep]", tw_sleep_ips[0]), 21);
	pa_run_free(run);
	free(pdir);
}

/*
 * CPU time the samples do not stand for (the kernel's, with cpu-clock's
 * exclude_kernel): thread 7 (PPF_REC_WALL_THREAD: from 5 to 100 ms, 19 ms
 * of CPU; CPU samples of 1 ms at 10, 20, 30 and 40 ms) waited from 11 to
 * 19, 21 to 29, 31 to 39 and 41 to 60 ms in a sleep and 62 to 95 ms on a
 * lock. Its stretches on the CPU hold 15 ms its samples do not: 5 (from 5
 * to 11) and 1 (each of the next three) onto the samples in them, 2 (60 to
 * 62, none in it) onto the lock wait it ends in, 5 (95 to 100) onto the
 * lock wait it began with. Its wall time is its life.
 */
Test(wall, cpu_time_the_samples_miss_is_counted_on_the_cpu_where_it_was)
{
	struct ppf_wall_start st = { .period_ns = TW_MS, .tick_ns = TW_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct ppf_wall_thread th = { .tid = 7, .end_ns = 100 * TW_MS, .born_ns = 5 * TW_MS,
				      .cpu_ns = 19 * TW_MS };
	struct ppf_wall_end end = { .end_ns = 900 * TW_MS, .threads = 1 };
	char *pdir = tw_process();
	struct pa_error err = { 0 };
	const struct pa_thread *t7;
	const struct pa_event *ev;
	struct pp_logfile log;
	struct pa_run *run;

	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, tw_sleep_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, tw_lock_ips, 3, 0, 0), 0);
	for (int i = 0; i < 3; i++)
		tw_interval(&log, 7, PPF_WALL_SLEEP, 11 + 10 * (uint64_t)i, 8000, 0, 230);
	tw_interval(&log, 7, PPF_WALL_SLEEP, 41, 19000, 0, 230);
	tw_interval(&log, 7, PPF_WALL_FUTEX, 62, 33000, 1, 202);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_THREAD, &th, sizeof(th)), 0);
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
	cr_assert_eq(pa_run_load(tw_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	ev = pa_process_find_event_named(run->processes[0], "wall");
	cr_assert_not_null(ev);
	t7 = tw_thread(run->processes[0], 7);
	cr_expect_eq(run->processes[0]->wall->unsampled_ns, 15 * TW_MS);
	cr_expect_eq(tw_on_cpu(t7, ev->index, tw_cpu_ips[0]), 4 + 8);
	cr_expect_eq(tw_on_cpu(t7, ev->index, tw_lock_ips[0] - 1), 2 + 5);
	cr_expect_eq(tw_on_cpu(t7, ev->index, tw_sleep_ips[0] - 1), 0);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: sleep]", 0), 3 * 8 + 19);
	cr_expect_eq(tw_count(t7, ev->index, "[off-cpu: futex]", 0), 33);
	cr_expect_eq(tw_count(t7, ev->index, NULL, 0), 95);
	pa_run_free(run);
	free(pdir);
}
