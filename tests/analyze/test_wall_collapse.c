/*
 * wall (analyze/wall.c) on a collapsing load (pa_load_opts.collapse): a
 * process with a wall.log is collapsed like any other, its wall samples
 * summed by stack, so memory grows with distinct stacks, not with
 * samples; yet every report reads the same as on the load that keeps
 * each sample apart (preempted time above the CPU sample nearest in time,
 * CPU samples weighed in time order, the time window), and the CPU-sample
 * list the reader hands wall.c (pa_cpu_when) is freed once used.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventinfo.h"
#include "profile.h"
#include "profile.pb-c.h"
#include "reader.h"
#include "report.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"
#include "tst_run.h"
#include "wall.h"

#define TC_MS 1000000ull
#define TC_CPU 600 /* CPU samples of thread 7 */

static char *tc_dir;

static void tc_setup(void)
{
	tc_dir = tst_log_tmpdir();
}

static void tc_teardown(void)
{
	tst_log_rmdir(tc_dir);
	tc_dir = NULL;
}

TestSuite(wall_collapse, .init = tc_setup, .fini = tc_teardown, .timeout = 20);


static void tc_interval(struct pp_logfile *log, uint32_t tid, uint16_t state, uint64_t out_us,
			uint64_t len_us, uint32_t stack)
{
	struct ppf_wall_interval iv = { .tid = tid, .state = state, .out_ns = out_us * 1000,
					.in_ns = (out_us + len_us) * 1000, .stack = stack,
					.nr = -1 };

	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_INTERVAL, &iv, sizeof(iv)), 0);
}

/*
 * app.7: cpu-clock at 1.5 ms (a CPU sample weighs 1.5 wall periods: which
 * of them carry the half depends on their order), wall at 1 ms. Thread 7
 * takes TC_CPU CPU samples, 1 ms apart, over three stacks in a pattern
 * where which stack carries the half is
 * decided by order, some weighing 3; it is preempted every 7 ms
 * for 2.3 ms, sleeps (seen and unseen) between; thread 8, quiet, waits
 * on a lock.
 */
static void tc_run(void)
{
	static const char *const argv[] = { "app", NULL };
	struct ppf_wall_start st = { .period_ns = TC_MS, .tick_ns = TC_MS, .start_ns = 1000,
				     .ring_pages = 2 };
	struct ppf_wall_end end = { .end_ns = 900 * TC_MS, .looks = 2, .threads = 2,
				    .ticks = 900, .helper_cpu_ns = 5 * TC_MS };
	/* stacks in this test binary, named in reports (tst_run.h) */
	const uint64_t stacks[3][2] = {
		{ tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) },
		{ tst_run_in(pa_proftest_mid), tst_run_in(pa_proftest_main) },
		{ tst_run_in(pa_proftest_rec), tst_run_in(pa_proftest_main) },
	};
	const uint64_t sleep_ips[3] = { 0x7f0000001000, stacks[1][0], stacks[1][1] };
	const uint64_t lock_ips[3] = { 0x7f0000002000, stacks[2][0], stacks[2][1] };
	char *pdir = tst_log_subdir(tc_dir, "app.7");
	struct tst_log_self self;
	struct pp_logfile log;
	struct tst_log l;

	tst_log_self_module((const void *)pa_proftest_main, &self);

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 3 * TC_MS / 2, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, self.bias, self.start, self.end, 0, self.path, self.build_id,
		       self.build_id_len);
	tst_log_quiet(&l, 8, 0, 1000, 900 * TC_MS, 0, 0, "locker");
	tst_log_process_end(&l, 900 * TC_MS, TC_CPU, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1000, "app");
	for (unsigned i = 0; i < TC_CPU; i++) {
		if (i % 11 == 5)
			tst_log_sample_weight(&l, 3, 0);
		tst_log_sample(&l, (uint64_t)(i + 1) * TC_MS, 0, 0, 2,
			       stacks[i % 5 == 4 ? 2 : i % 2]);
	}
	tst_log_thread_end(&l, 900 * TC_MS, TC_CPU, 0, TC_CPU * TC_MS);
	tst_log_write(&l, pdir, "thread-7.log");

	tst_wall_log_start(pdir, &st, &log);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 0, sleep_ips, 3, 0, 0), 0);
	cr_assert_eq(pp_records_stack_sigsafe(&log, 1, lock_ips, 3, 0, 0), 0);
	for (uint64_t ms = 3; ms < TC_CPU; ms += 7) {
		tc_interval(&log, 7, PPF_WALL_RUNNABLE, ms * 1000 + 100, 2300, PPF_WALL_NO_STACK);
		tc_interval(&log, 7, PPF_WALL_SLEEP, ms * 1000 + 2500, 700 + ms % 5 * 100,
			    ms % 3 ? 0 : PPF_WALL_NO_STACK);
		tc_interval(&log, 8, PPF_WALL_FUTEX, ms * 1000, 5000 + ms, ms % 2 ? 1 : 0);
	}
	pp_logfile_closing_sigsafe(&log);
	cr_assert_eq(pp_records_wall_sigsafe(&log, PPF_REC_WALL_END, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
	free(pdir);
}

static struct pa_run *tc_load(bool collapse, const struct pa_window *window)
{
	struct pa_load_opts opts = { .collapse = collapse };
	struct pa_error err = { 0 };
	struct pa_run *run;

	if (window)
		opts.window = *window;
	cr_assert_eq(pa_run_load_opts(tc_dir, &opts, &run, &err), 0, "%s: %s", err.path,
		     err.reason);
	return run;
}

static const struct pa_thread *tc_thread(const struct pa_run *run, uint32_t tid)
{
	const struct pa_process *p = run->processes[0];

	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i]->tid == tid)
			return p->threads[i];
	cr_assert_fail("no thread %u", tid);
	return NULL;
}

/* r's text on run for f (its event chosen as pprof-analyze chooses it), malloc'd. */
static char *tc_text(const struct pa_report *r, struct pa_run *run, const struct pa_filter *f0)
{
	struct pa_filter f = *f0;
	struct pa_profile *prof = NULL;
	struct pa_error err = { 0 };
	char *text;

	f.event_name = NULL;
	cr_assert_eq(pa_events_choose(run, &f, f0->event_name, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	if (r->needs == PA_REPORT_NEEDS_PROFILE)
		cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_FUNCTION, &prof, NULL,
						 &err), 0, "%s", err.reason);
	text = tst_run_report(r, run, &f, prof, NULL);
	pa_profile_free(prof);
	return text;
}

/* r's text on both loads, for event (NULL: the default) and window, the same. */
static void tc_same(const struct pa_report *r, const char *event, const struct pa_window *window)
{
	struct pa_run *apart = tc_load(false, window), *collapsed = tc_load(true, window);
	struct pa_filter f = PA_FILTER_ALL;
	char *a, *c;

	f.event_name = event;
	if (window)
		f.window = *window;
	a = tc_text(r, apart, &f);
	c = tc_text(r, collapsed, &f);
	cr_expect_str_eq(c, a, "%s --event %s: collapsed, then apart", r->name,
			 event ? event : "(default)");
	free(a);
	free(c);
	pa_run_free(apart);
	pa_run_free(collapsed);
}

Test(wall_collapse, reports_read_the_same_collapsed_or_not)
{
	tc_run();
	tc_same(&pa_report_folded, "wall", NULL);
	tc_same(&pa_report_top, "wall", NULL);
	tc_same(&pa_report_folded, NULL, NULL);
	tc_same(&pa_report_top, NULL, NULL);
	tc_same(&pa_report_threads, "wall", NULL);
}

Test(wall_collapse, reports_in_a_time_window_read_the_same)
{
	struct pa_window w = { .on = true, .from_ns = 100 * TC_MS, .to_ns = 333 * TC_MS };

	tc_run();
	tc_same(&pa_report_folded, "wall", &w);
	tc_same(&pa_report_top, "wall", &w);
	tc_same(&pa_report_folded, NULL, &w);
}

/* pprof's profile, packed again: the same bytes, stacks numbered in the same order. */
Test(wall_collapse, pprof_is_the_same_collapsed_or_not)
{
	struct pa_run *apart, *collapsed;

	tc_run();
	apart = tc_load(false, NULL);
	collapsed = tc_load(true, NULL);
	for (int k = 0; k < 2; k++) {
		const char *event = k ? "wall" : NULL;
		Perftools__Profiles__Profile *a = tst_pprof_decode(apart, event);
		Perftools__Profiles__Profile *c = tst_pprof_decode(collapsed, event);
		size_t na = perftools__profiles__profile__get_packed_size(a);
		size_t nc = perftools__profiles__profile__get_packed_size(c);
		uint8_t *pa = malloc(na), *pc = malloc(nc);

		cr_assert(pa && pc);
		perftools__profiles__profile__pack(a, pa);
		perftools__profiles__profile__pack(c, pc);
		cr_expect_eq(nc, na, "pprof --event %s: %zu bytes collapsed, %zu apart",
			     event ? event : "(default)", nc, na);
		cr_expect(nc == na && memcmp(pa, pc, na) == 0, "pprof --event %s differs",
			  event ? event : "(default)");
		free(pa);
		free(pc);
		perftools__profiles__profile__free_unpacked(a, NULL);
		perftools__profiles__profile__free_unpacked(c, NULL);
	}
	pa_run_free(apart);
	pa_run_free(collapsed);
}

/*
 * What the issue is about: a collapsed thread of a wall process holds an
 * entry per distinct stack (3 on the CPU, a few off it), not one per
 * sample, and the list of its CPU samples is gone after the load.
 */
Test(wall_collapse, a_thread_holds_its_distinct_stacks_not_its_samples)
{
	struct pa_run *apart, *collapsed;
	const struct pa_thread *t;

	tc_run();
	apart = tc_load(false, NULL);
	collapsed = tc_load(true, NULL);
	cr_assert_geq(tc_thread(apart, 7)->nsamples, TC_CPU, "the load apart lost samples");
	t = tc_thread(collapsed, 7);
	cr_expect_leq(t->nsamples, 3 + 3 + 3 + 1, "%zu entries for 3 CPU stacks and their "
		      "wall samples (3 on the CPU, 3 preempted, sleep)", t->nsamples);
	cr_expect_null(t->cpu_when, "the CPU-sample list outlived the load");
	cr_expect_leq(tc_thread(collapsed, 8)->nsamples, 2);
	pa_run_free(apart);
	pa_run_free(collapsed);
}

Test(wall_collapse, a_count_past_32_bits_is_listed_in_parts_that_sum_to_it)
{
	struct pa_cpu_when *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t big = 2ull * UINT32_MAX + 5, sum = 0;

	cr_assert_eq(pa_cpu_when_add(&v, &n, &cap, 10, 4, 1), 0);
	cr_assert_eq(pa_cpu_when_add(&v, &n, &cap, 20, 7, big), 0);
	cr_assert_eq(n, 4);
	cr_expect(v[0].time_ns == 10 && v[0].entry == 4 && v[0].count == 1);
	for (size_t i = 1; i < n; i++) {
		cr_expect(v[i].time_ns == 20 && v[i].entry == 7);
		sum += v[i].count;
	}
	cr_expect_eq(sum, big);
	free(v);
}
