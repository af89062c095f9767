/*
 * Unit tests for analyze/samples.c on the "profile" run (tst_run.h): the
 * walk's order and selection, its frames (callers marked, the profiler's
 * own callers left out), stopping it, and the module a frame was in.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samples.h"
#include "tst_run.h"

TestSuite(samples, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

/* What a walk saw: one line per sample, and when to stop it. */
struct sm_walk {
	char *text;
	size_t len;
	FILE *out;
	size_t calls;
	size_t stop_at; /* 0: never */
};

/*
 * "PID/TID #PROC EVENT: FRAME FRAME ...", callers marked with a '<' before
 * them (the leaf has none).
 */
static int sm_line(void *ctx, const struct pa_samples_item *item)
{
	struct sm_walk *w = ctx;

	fprintf(w->out, "%u/%u #%zu %s:", item->thread->pid, item->thread->tid,
		item->proc_index, item->event ? item->event->name : "?");
	for (size_t k = 0; k < item->nframes; k++)
		fprintf(w->out, " %s%s", item->is_caller[k] ? "<" : "", item->frames[k].name);
	fputc('\n', w->out);
	cr_assert_eq(item->sample->count, 1);
	cr_assert_not_null(item->sym);
	return ++w->calls == w->stop_at ? -ECANCELED : 0;
}

/* The lines of a walk of the profile run under f (event: the default), malloc'd. */
static char *sm_walk(struct pa_filter f, size_t stop_at, int *ret)
{
	struct sm_walk w = { .stop_at = stop_at };
	struct pa_error err = { 0 };

	cr_assert_eq(pa_events_choose(tst_prof_run, &f, f.event_name, PA_EVENTS_SAMPLES, &err),
		     0, "%s", err.reason);
	w.out = open_memstream(&w.text, &w.len);
	cr_assert(w.out);
	*ret = pa_samples_walk(tst_prof_run, &f, sm_line, &w, NULL, &err);
	cr_assert_eq(fclose(w.out), 0);
	return w.text;
}

#define SM_MML "pa_proftest_leaf <pa_proftest_mid <pa_proftest_main\n"
#define SM_MM "pa_proftest_mid <pa_proftest_main\n"
#define SM_REC "pa_proftest_rec <pa_proftest_rec <pa_proftest_rec <pa_proftest_main\n"
#define SM_LM "pa_proftest_leaf <pa_proftest_main\n"
/* Every sample of the run's default event, as the walk gives them. */
#define SM_EVERY \
	"10/10 #0 cpu-clock: " SM_MML "10/10 #0 cpu-clock: " SM_MML \
	"10/10 #0 cpu-clock: " SM_MML "10/10 #0 cpu-clock: " SM_MM \
	"10/10 #0 cpu-clock: " SM_REC "10/10 #0 cpu-clock: " SM_REC \
	"10/11 #0 cpu-clock: " SM_LM "10/11 #0 cpu-clock: " SM_LM \
	"10/11 #0 cpu-clock: " SM_LM "10/11 #0 cpu-clock: " SM_LM \
	"20/20 #1 cpu-clock: " SM_MM "20/20 #1 cpu-clock: " SM_MM \
	"20/20 #1 cpu-clock: " SM_MM "20/20 #1 cpu-clock: " SM_MM \
	"20/20 #1 cpu-clock: " SM_MM

/* Process by process, thread by thread, each thread's samples in log order. */
Test(samples, walks_every_selected_sample_in_order)
{
	struct pa_filter f = PA_FILTER_ALL;
	int ret;
	char *text = sm_walk(f, 0, &ret);

	cr_assert_eq(ret, 0);
	cr_expect_str_eq(text,
		SM_EVERY);
	free(text);
}

/* --tid, --event and --pid select; a window from the start keeps only the first. */
Test(samples, walks_only_what_the_filter_selects)
{
	struct pa_filter f = PA_FILTER_ALL;
	int ret;
	char *text;

	f.tid = 11;
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "10/11 #0 cpu-clock: " SM_LM "10/11 #0 cpu-clock: " SM_LM
			 "10/11 #0 cpu-clock: " SM_LM "10/11 #0 cpu-clock: " SM_LM);
	free(text);
	f.tid = 0;
	f.event_name = "page-faults";
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "10/11 #0 page-faults: " SM_LM);
	free(text);
	f = PA_FILTER_ALL;
	f.pid = 20;
	f.window = (struct pa_window){ .on = true, .from_ns = 0, .to_ns = 1 };
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "20/20 #1 cpu-clock: " SM_MM, "the first sample, at the start");
	free(text);
	f.pid = 99;
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "", "no such process: nothing, not an error");
	cr_expect_eq(ret, 0);
	free(text);
}

/* The profile run loaded again as speedscope and script load it (pa_load_opts.stream). */
static void sm_reload_streamed(void)
{
	struct pa_load_opts lo = { .stream = true };
	struct pa_error err = { 0 };

	pa_run_free(tst_prof_run);
	cr_assert_eq(pa_run_load_opts(tst_prof_dir, &lo, &tst_prof_run, &err), 0, "%s: %s",
		     err.path, err.reason);
}

/*
 * Streamed, every thread is read collapsed (thread 10's six samples are
 * three entries with counts) and the walk reads each sample again from
 * the log, one by one: the same walk, in the same order, as when every
 * sample was kept; filters, windows and a stopping callback as before.
 */
Test(samples, a_streamed_run_walks_every_sample_from_the_logs)
{
	struct pa_filter f = PA_FILTER_ALL;
	const struct pa_thread *t10;
	char *text;
	int ret;

	sm_reload_streamed();
	t10 = tst_prof_run->processes[0]->threads[0];
	cr_assert_eq(t10->tid, 10);
	cr_expect(t10->stream);
	cr_expect_eq(t10->nsamples, 3, "collapsed: %zu", t10->nsamples);
	text = sm_walk(f, 0, &ret);
	cr_assert_eq(ret, 0);
	cr_expect_str_eq(text,
		SM_EVERY);
	free(text);
	f.pid = 20;
	f.window = (struct pa_window){ .on = true, .from_ns = 0, .to_ns = 1 };
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "20/20 #1 cpu-clock: " SM_MM, "the first sample, at the start");
	free(text);
	text = sm_walk(PA_FILTER_ALL, 2, &ret);
	cr_expect_eq(ret, -ECANCELED);
	cr_expect_str_eq(text, "10/10 #0 cpu-clock: " SM_MML "10/10 #0 cpu-clock: " SM_MML);
	free(text);
}

/* Each sample as read again: its time and what it stands for. */
static int sm_times(void *ctx, const struct pa_samples_item *item)
{
	fprintf(ctx, "%llu x%llu\n", (unsigned long long)item->sample->time_ns,
		(unsigned long long)item->sample->count);
	return 0;
}

/*
 * Writes thread tid's log of process 62 in dir (live: no END, as while the
 * thread runs): samples at 1000, 1500 (late, standing for 3 overflows),
 * 2000, then extra more, 100 ns apart.
 */
static void sm_log62(const char *dir, uint32_t tid, int extra)
{
	const uint64_t leaf_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 62, tid, 0, "main");
	tst_log_sample(&l, 1000, 0, 0, 2, leaf_main);
	tst_log_sample_weight(&l, 3, 0);
	tst_log_sample(&l, 1500, 0, PPF_SAMPLE_LATE, 2, leaf_main);
	tst_log_sample(&l, 2000, 0, 0, 2, leaf_main);
	for (int i = 0; i < extra; i++)
		tst_log_sample(&l, 2100 + 100 * (uint64_t)i, 0, 0, 2, leaf_main);
	tst_log_write(&l, dir, "thread-62.log");
}

/* The walk of process 62 as sm_times prints it, malloc'd; *ret its return. */
static char *sm_walk62(int *ret, struct pa_error *err)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	f.pid = 62;
	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, err), 0, "%s",
		     err->reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	*ret = pa_samples_walk(tst_prof_run, &f, sm_times, out, NULL, err);
	cr_assert_eq(fclose(out), 0);
	return text;
}

/*
 * A streamed thread's samples keep their own times and counts (a late
 * sample's weight record). Its log read again is read as far as it was
 * loaded: samples written since (the thread still runs) are left out, as
 * the load's totals leave them out. A log that changed otherwise (fewer
 * samples, another thread's) is an error that names it.
 */
Test(samples, a_streamed_thread_is_read_again_as_far_as_it_was_loaded)
{
	char *p62 = tst_log_subdir(tst_prof_dir, "app.62"), path[4096];
	struct pa_error err = { 0 };
	char *text;
	int ret;

	tst_prof_process_log(p62, 62, 0, false);
	sm_log62(p62, 62, 0);
	sm_reload_streamed();
	text = sm_walk62(&ret, &err);
	cr_expect_eq(ret, 0, "%s", err.reason);
	cr_expect_str_eq(text, "1000 x1\n1500 x3\n2000 x1\n");
	free(text);
	sm_log62(p62, 62, 2);
	text = sm_walk62(&ret, &err);
	cr_expect_eq(ret, 0, "%s", err.reason);
	cr_expect_str_eq(text, "1000 x1\n1500 x3\n2000 x1\n", "the samples written since");
	free(text);
	sm_log62(p62, 63, 0);
	text = sm_walk62(&ret, &err);
	cr_expect_lt(ret, 0, "another thread's log taken for this one's");
	cr_expect(strstr(err.path, "thread-62.log") && strstr(err.reason, "changed"), "%s: %s",
		  err.path, err.reason);
	free(text);
	sm_log62(p62, 62, 0);
	snprintf(path, sizeof(path), "%s/thread-62.log", p62);
	cr_assert_eq(truncate(path, 64), 0);
	text = sm_walk62(&ret, &err);
	cr_expect_lt(ret, 0, "a log with fewer samples walked as it is");
	cr_expect(strstr(err.path, "thread-62.log"), "%s", err.path);
	free(text);
	free(p62);
}

/*
 * Thread 64's log with a sample block of two samples: open (room for
 * 32, the rest unwritten, as while the thread runs) or closed (cut to
 * its two entries, then END, as when the thread ended).
 */
static void sm_log64(const char *dir, bool open)
{
	const uint64_t leaf_main[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	const struct ppf_block_entry e[32] = { { 0, 0 }, { 0, 500 } };
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 64, 64, 0, "main");
	tst_log_stack(&l, 0, 2, leaf_main);
	off = tst_log_block(&l, 1000, 0, 0, open ? 32 : 2, e);
	((struct ppf_sample_block *)tst_log_rec(&l, off))->count = 2;
	if (!open)
		tst_log_thread_end(&l, 9000, 2, 0, 2000000);
	tst_log_write(&l, dir, "thread-64.log");
}

/*
 * A thread that ends between the load and the walk gives its open sample
 * block's room back: its log is then shorter, and still holds every
 * sample the load read.
 */
Test(samples, a_streamed_thread_that_ended_since_is_read_again)
{
	char *p64 = tst_log_subdir(tst_prof_dir, "app.64");
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	tst_prof_process_log(p64, 64, 0, false);
	sm_log64(p64, true);
	sm_reload_streamed();
	sm_log64(p64, false);
	f.pid = 64;
	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	out = open_memstream(&text, &len);
	cr_assert(out);
	cr_expect_eq(pa_samples_walk(tst_prof_run, &f, sm_times, out, NULL, &err), 0, "%s: %s",
		     err.path, err.reason);
	cr_assert_eq(fclose(out), 0);
	cr_expect_str_eq(text, "1000 x1\n1500 x1\n");
	free(text);
	free(p64);
}

Test(samples, callback_error_stops_the_walk)
{
	int ret;
	char *text = sm_walk(PA_FILTER_ALL, 2, &ret);

	cr_expect_eq(ret, -ECANCELED);
	cr_expect_str_eq(text, "10/10 #0 cpu-clock: " SM_MML "10/10 #0 cpu-clock: " SM_MML);
	free(text);
}

/*
 * Process 50's libpprof.so (tst_prof_add_libpprof): a caller frame there
 * is left out, a leaf there stays.
 */
Test(samples, leaves_out_the_profilers_caller_frames)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *text;
	int ret;

	tst_prof_add_libpprof();
	f.pid = 50;
	text = sm_walk(f, 0, &ret);
	cr_expect_str_eq(text, "50/50 #2 cpu-clock: " SM_LM "50/50 #2 cpu-clock: " SM_LM
			 "50/50 #2 cpu-clock: " SM_MM "50/50 #2 cpu-clock: " SM_MM
			 "50/50 #2 cpu-clock: " SM_MM);
	free(text);
}

/*
 * /lib/a.so was unloaded at 2500 ns and /lib/b.so loaded at 2600 ns in
 * its place: a frame is in the one loaded when its sample was taken.
 */
Test(samples, frame_is_in_the_module_loaded_at_its_time)
{
	struct pa_module mods[] = {
		{ .start = 0x1000, .end = 0x2000, .load_ns = 0, .unload_ns = UINT64_MAX,
		  .path = "/bin/app" },
		{ .start = 0x400000, .end = 0x410000, .load_ns = 1000, .unload_ns = 2500,
		  .path = "/lib/a.so" },
		{ .start = 0x400000, .end = 0x410000, .load_ns = 2600, .unload_ns = UINT64_MAX,
		  .path = "/lib/b.so" },
	};
	struct pa_process proc = { .modules = mods, .nmodules = 3 };
	struct pa_frame fr = { .ip = 0x400100, .module = "/lib/a.so" };

	cr_expect_eq(pa_samples_module(&proc, &fr, 2000), &mods[1]);
	cr_expect_eq(pa_samples_module(&proc, &fr, 3000), &mods[2]);
	cr_expect_eq(pa_samples_module(&proc, &fr, 2550), &mods[1], "none loaded: the first");
	fr.ip = 0x1800;
	cr_expect_eq(pa_samples_module(&proc, &fr, 3000), &mods[0]);
	fr.module = NULL;
	cr_expect_null(pa_samples_module(&proc, &fr, 3000), "a frame without a module");
}
