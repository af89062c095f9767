/*
 * Tests of analyze/coverage.c on a hand-made run whose threads' CPU times
 * are known: the share the samples cover, the user/kernel split a
 * user-only event counts, the notes every report starts with (a busy
 * thread covered below 90%, with what its log says of why; kernel time not
 * sampled), and a log without END taking its last progress record's times.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "tst_log.h"
#include "tst_run.h"

static char *cov_dir;
static struct pa_run *cov_run;

#define COV_MS 1000000ull

static char *cov_notes_of(const struct pa_run *run, size_t *lines);

/* A thread log of pid 40: samples of cpu-clock, then END with its times (end: else none). */
static void cov_thread(const char *pdir, uint32_t tid, const char *name, int samples,
		       uint64_t user_ns, uint64_t system_ns, bool end, uint32_t blocked)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char file[64];
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 40, tid, 0, name);
	tst_prof_samples(&l, samples, 0, 2, stack);
	if (blocked)
		tst_log_thread_blocked(&l, 8000, 0, 0, blocked);
	if (end) {
		off = tst_log_thread_end(&l, 9000, (uint64_t)samples, 0, user_ns + system_ns);
		((struct ppf_thread_end *)tst_log_rec(&l, off))->user_ns = user_ns;
		((struct ppf_thread_end *)tst_log_rec(&l, off))->system_ns = system_ns;
	} else {
		tst_log_thread_progress(&l, 5000, user_ns, system_ns, (uint64_t)samples);
	}
	snprintf(file, sizeof(file), "thread-%u.log", tid);
	tst_log_write(&l, pdir, file);
}

/*
 * A thread log of pid 40 killed after its last progress record: samples
 * before it, the record (user_ns), more samples after, no END.
 */
static void cov_thread_killed_in(const char *pdir, uint32_t pid, uint32_t tid, int before,
				 int after, uint64_t user_ns, bool end)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char file[64];
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, pid, tid, 0, "killed");
	tst_prof_samples(&l, before, 0, 2, stack);
	tst_log_thread_progress(&l, 5000, user_ns, 0, (uint64_t)before);
	tst_prof_samples(&l, after, 0, 2, stack);
	/* A thread no hook saw end: the process's end found no clock to read (0). */
	if (end)
		tst_log_thread_end(&l, 9000, (uint64_t)(before + after), 0, 0);
	snprintf(file, sizeof(file), "thread-%u.log", tid);
	tst_log_write(&l, pdir, file);
}

static void cov_thread_killed(const char *pdir, uint32_t tid, int before, int after,
			      uint64_t user_ns)
{
	cov_thread_killed_in(pdir, 40, tid, before, after, user_ns, false);
}

/*
 * pid 50, with END (650 ms of user time, the process's own, every sample
 * stands in it):
 *   51 200 samples, END, 200 ms;
 *   52 150 samples, its progress record (150 ms), 100 more, no END;
 *   53 150 samples, its progress record (150 ms), 50 more, END without
 *      CPU times (0: a thread no hook saw end).
 */
static void cov_process_50(const char *dir)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char *p50 = tst_log_subdir(dir, "app.50");
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 50, 1, "/bin/app", NULL);
	tst_log_event(&l, 0, "cpu-clock", COV_MS, PPF_EVENT_TIME_NS | PPF_EVENT_EXCLUDE_KERNEL);
	off = tst_log_process_end(&l, 9500, 650, 0, PPF_EXIT_NORMAL, 0);
	((struct ppf_process_end *)tst_log_rec(&l, off))->user_ns = 650 * COV_MS;
	tst_log_write(&l, p50, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 50, 51, 0, "whole");
	tst_prof_samples(&l, 200, 0, 2, stack);
	off = tst_log_thread_end(&l, 9000, 200, 0, 200 * COV_MS);
	((struct ppf_thread_end *)tst_log_rec(&l, off))->user_ns = 200 * COV_MS;
	tst_log_write(&l, p50, "thread-51.log");
	cov_thread_killed_in(p50, 50, 52, 150, 100, 150 * COV_MS, false);
	cov_thread_killed_in(p50, 50, 53, 150, 50, 150 * COV_MS, true);
	free(p50);
}

/*
 * pid 40, cpu-clock every 1 ms of user time:
 *   41 "covered"   200 samples, 200 ms user: all covered;
 *   42 "starved"    10 samples, 300 ms user, its signal blocked by a raw mask change;
 *   43 "syscaller" 100 samples, 100 ms user, 200 ms in the kernel;
 *   44 "idle"        0 samples,  50 ms user: too little to note;
 *   45 "noend"     150 samples, no END: 150 ms user from its progress record;
 *   46 "brief"       5 samples, 1 ms user, 4 ms in the kernel: a split of a
 *                    few clock ticks (a 5 ms fork child);
 *   47 "killed"    150 samples, its progress record (150 ms user), 60 more
 *                    samples, no END: killed after the record;
 *   48 "piper"      12 samples, 10 ms user, 500 ms in the kernel: a user
 *                    part of a few clock ticks in a longer time (yes
 *                    writing into a pipe).
 */
static void cov_setup(void)
{
	struct pa_error err = { 0 };
	struct tst_log l;
	char *p40;

	cov_dir = tst_log_tmpdir();
	p40 = tst_log_subdir(cov_dir, "app.40");
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 40, 1, "/bin/app", NULL);
	tst_log_event(&l, 0, "cpu-clock", COV_MS, PPF_EVENT_TIME_NS | PPF_EVENT_EXCLUDE_KERNEL);
	tst_log_write(&l, p40, PPF_PROCESS_LOG);
	cov_thread(p40, 41, "covered", 200, 200 * COV_MS, 0, true, 0);
	cov_thread(p40, 42, "starved", 10, 300 * COV_MS, 0, true, PPF_BLOCKED_UNSEEN);
	cov_thread(p40, 43, "syscaller", 100, 100 * COV_MS, 200 * COV_MS, true, 0);
	cov_thread(p40, 44, "idle", 0, 50 * COV_MS, 0, true, 0);
	cov_thread(p40, 45, "noend", 150, 150 * COV_MS, 0, false, 0);
	cov_thread(p40, 46, "brief", 5, 1 * COV_MS, 4 * COV_MS, true, 0);
	cov_thread_killed(p40, 47, 150, 60, 150 * COV_MS);
	cov_thread(p40, 48, "piper", 12, 10 * COV_MS, 500 * COV_MS, true, 0);
	cr_assert_eq(pa_run_load(cov_dir, &cov_run, &err), 0, "%s: %s", err.path, err.reason);
	free(p40);
}

static void cov_teardown(void)
{
	pa_run_free(cov_run);
	cov_run = NULL;
	tst_log_rmdir(cov_dir);
	cov_dir = NULL;
}

TestSuite(coverage, .init = cov_setup, .fini = cov_teardown, .timeout = 30);

static const struct pa_thread *cov_find(uint32_t tid)
{
	const struct pa_process *proc = tst_log_find_process(cov_run, 40);
	const struct pa_thread *t;

	cr_assert(proc);
	t = tst_log_find_thread(proc, tid);
	cr_assert(t, "no thread %u", tid);
	return t;
}

/* The filter of a report of event 0, cpu-clock. */
static struct pa_filter cov_filter(void)
{
	struct pa_filter f = PA_FILTER_ALL;

	f.event = 0;
	return f;
}

static struct pa_coverage cov_of(uint32_t tid)
{
	struct pa_filter f = cov_filter();
	struct pa_coverage c;

	pa_coverage_thread(&f, tst_log_find_process(cov_run, 40), cov_find(tid), &c);
	return c;
}

/* Samples x period over the user time a user-only event counts; the kernel's part is not a loss. */
Test(coverage, share_is_samples_times_period_over_the_time_counted)
{
	struct pa_coverage c = cov_of(41);

	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
	c = cov_of(42);
	cr_expect(c.has_share && fabs(c.share - 10.0 / 300.0) < 1e-9, "share %f", c.share);
	c = cov_of(43);
	cr_expect(c.split && c.user_ns == 100 * COV_MS && c.system_ns == 200 * COV_MS);
	cr_expect_eq(c.counted_ns, 100 * COV_MS);
	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
}

/*
 * Under 20 ms of CPU the kernel's user/system split is a few clock ticks'
 * worth: the share of the user part is kept for the notes but shown as
 * none (500% here); from 20 ms up it is shown.
 */
Test(coverage, a_share_of_a_split_of_a_few_ticks_is_rough)
{
	struct pa_coverage c = cov_of(46);
	char buf[128];

	cr_expect(c.has_share && c.rough, "has %d rough %d", c.has_share, c.rough);
	cr_expect(fabs(c.share - 5.0) < 1e-9, "share %f", c.share);
	pa_coverage_format(&c, buf, sizeof(buf));
	cr_expect(strstr(buf, "%") == NULL && buf[strlen(buf) - 1] == '-', "[%s]", buf);
	c = cov_of(43);
	cr_expect(c.has_share && !c.rough);
	pa_coverage_format(&c, buf, sizeof(buf));
	cr_expect(strstr(buf, "100.0%"), "[%s]", buf);
	/* Rough by its user part, however long its kernel time. */
	c = cov_of(48);
	cr_expect(c.has_share && c.rough, "has %d rough %d", c.has_share, c.rough);
	pa_coverage_format(&c, buf, sizeof(buf));
	cr_expect(strstr(buf, "%") == NULL && buf[strlen(buf) - 1] == '-', "[%s]", buf);
}

/* A log whose process ended without END still has its thread's times, from progress. */
Test(coverage, log_without_end_takes_its_progress_times)
{
	struct pa_coverage c = cov_of(45);

	cr_expect_eq(cov_find(45)->ended, false);
	cr_expect(c.split && c.user_ns == 150 * COV_MS, "user %llu", (unsigned long long)c.user_ns);
	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
}

/*
 * A log without END whose thread took samples after its last progress
 * record: its CPU time is the record's, so its samples are those before it
 * (all 210 set against 150 ms read 140% covered).
 */
Test(coverage, samples_after_the_last_progress_record_are_not_set_against_its_time)
{
	struct pa_coverage c = cov_of(47);

	cr_expect_eq(cov_find(47)->ended, false);
	cr_expect_eq(cov_find(47)->nsamples, 210);
	cr_expect(c.split && c.user_ns == 150 * COV_MS, "user %llu", (unsigned long long)c.user_ns);
	cr_expect_eq(c.samples, 150);
	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
}

/*
 * An END without CPU times keeps the thread's progress times: its samples
 * are those before the record too. A process with END sets every sample of
 * its threads against its own time, which runs past their records.
 */
Test(coverage, a_process_with_end_counts_every_sample_its_threads_took)
{
	struct pa_filter f = cov_filter();
	struct pa_error err = { 0 };
	char *dir = tst_log_tmpdir();
	const struct pa_process *p;
	struct pa_run *run;
	struct pa_coverage c;
	size_t lines;
	char *notes;

	/* A run of its own: its 150 ms in no thread's log would be a note of the run above. */
	cov_process_50(dir);
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = tst_log_find_process(run, 50);
	cr_assert(p);
	for (size_t i = 0; i < p->nthreads; i++) {
		pa_coverage_thread(&f, p, p->threads[i], &c);
		cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "%u: share %f (%llu samples)",
			  p->threads[i]->tid, c.share, (unsigned long long)c.samples);
	}
	pa_coverage_process(&f, p, &c);
	cr_expect_eq(c.samples, 650);
	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
	/*
	 * The threads' logs hold 500 ms of CPU time in their records and 150
	 * samples after them: 150 ms more, none of the 650 ms in no log.
	 */
	notes = cov_notes_of(run, &lines);
	cr_expect_null(strstr(notes, "CPU time in no thread's log"), "%s", notes);
	free(notes);
	pa_run_free(run);
	tst_log_rmdir(dir);
}

/* The process's figures are its threads' sums when it has no END of its own. */
Test(coverage, process_sums_its_threads)
{
	struct pa_filter f = cov_filter();
	struct pa_coverage c;

	pa_coverage_process(&f, tst_log_find_process(cov_run, 40), &c);
	cr_expect_eq(c.user_ns, (200 + 300 + 100 + 50 + 150 + 1 + 150 + 10) * COV_MS);
	cr_expect_eq(c.system_ns, (200 + 4 + 500) * COV_MS);
	/* 47's: those its CPU time covers. */
	cr_expect_eq(c.samples, 200 + 10 + 100 + 0 + 150 + 5 + 150 + 12);
}

/* The notes of a report of every event, as text; their number in *lines. */
static char *cov_notes_of(const struct pa_run *run, size_t *lines)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *buf = NULL, *text;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert(out);
	*lines = pa_coverage_notes(out, "# ", run, &f);
	cr_assert_eq(fclose(out), 0);
	text = strdup(buf);
	free(buf);
	cr_assert(text);
	return text;
}

static char *cov_notes(size_t *lines)
{
	return cov_notes_of(cov_run, lines);
}

/*
 * The busy thread covered below 90% is named with its log's reason; the
 * covered, the idle and the kernel-heavy (its user time is covered) are
 * not. The kernel-heavy one is named as kernel time not sampled, with how
 * to sample it.
 */
Test(coverage, notes_name_the_poorly_covered_and_the_kernel_time)
{
	size_t lines;
	char *text = cov_notes(&lines);
	const char *kernel = strstr(text, "# kernel time not sampled");
	const char *at = strstr(text, "# coverage below 90%");
	char *poor;

	cr_expect_eq(lines, 2, "%s", text);
	cr_assert(at && kernel, "%s", text);
	poor = strndup(at, strcspn(at, "\n"));
	cr_assert(poor);
	cr_expect(strstr(poor, "40/42 starved"), "%s", poor);
	cr_expect(strstr(poor, "signal blocked by a raw mask change"), "%s", poor);
	cr_expect(!strstr(poor, "covered") && !strstr(poor, "idle") && !strstr(poor, "syscaller"),
		  "%s", poor);
	cr_expect(strstr(kernel, "40/43 syscaller 0.200 s"), "%s", kernel);
	cr_expect(strstr(kernel, "exclude_kernel = no"), "%s", kernel);
	free(poor);
	free(text);
}

/* The marker's text, as threads and the note show it. */
Test(coverage, blocked_says_why_the_signal_was_blocked)
{
	char why[96];
	struct pa_thread t = { .holds = 3, .held_cpu_ns = 120 * COV_MS };

	pa_coverage_blocked(&t, why, sizeof(why));
	cr_expect_str_eq(why, "own signal held back 3x: 0.120 s unsampled");
	t.blocked_flags = PPF_BLOCKED_UNSEEN;
	pa_coverage_blocked(&t, why, sizeof(why));
	cr_expect_str_eq(why, "signal blocked by a raw mask change");
	t = (struct pa_thread){ 0 };
	pa_coverage_blocked(&t, why, sizeof(why));
	cr_expect_str_eq(why, "");
}
