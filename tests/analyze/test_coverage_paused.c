/*
 * Tests of analyze/coverage.c and analyze/reader.c on a hand-made run
 * whose sampling was paused: the CPU time a thread used while paused
 * (PPF_REC_THREAD_PAUSED) is not counted against its samples, so a thread
 * sampled whenever it was not paused is not noted as poorly covered, and
 * the notes of threads and processes say how long sampling was paused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "tst_log.h"
#include "tst_run.h"

#define CP_MS 1000000ull

static char *cp_dir;
static struct pa_run *cp_run;

/* A PPF_REC_THREAD_PAUSED or PPF_REC_PROCESS_PAUSED (same layout). */
static void cp_paused(struct tst_log *l, uint32_t type, uint64_t paused_ns, uint64_t other_ns,
		      uint32_t pauses, uint32_t flags)
{
	struct ppf_thread_paused r = { .h = { type, sizeof(r) }, .time_ns = 8500,
				       .paused_ns = paused_ns, .cpu_ns = other_ns,
				       .pauses = pauses, .flags = flags };

	tst_log_raw(l, &r, sizeof(r));
}

/* Thread tid of pid 50: samples of cpu-clock, user_ns of user time, paused_cpu_ns of it paused. */
static void cp_thread(const char *pdir, uint32_t tid, int samples, uint64_t user_ns,
		      uint64_t paused_cpu_ns)
{
	const uint64_t stack[] = { tst_run_in(pa_proftest_leaf), tst_run_in(pa_proftest_main) };
	char file[64];
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 50, tid, 0, "worker");
	tst_prof_samples(&l, samples, 0, 2, stack);
	if (paused_cpu_ns)
		cp_paused(&l, PPF_REC_THREAD_PAUSED, 700 * CP_MS, paused_cpu_ns, 2, 0);
	off = tst_log_thread_end(&l, 9000, (uint64_t)samples, 0, user_ns);
	((struct ppf_thread_end *)tst_log_rec(&l, off))->user_ns = user_ns;
	snprintf(file, sizeof(file), "thread-%u.log", tid);
	tst_log_write(&l, pdir, file);
}

/*
 * pid 50, cpu-clock every 1 ms of user time, paused 0.9 s in all (after a
 * 0.5 s delay):
 *   51  100 samples, 300 ms user, 200 ms of it while paused;
 *   52  100 samples, 300 ms user, never paused (so poorly covered).
 */
static void cp_setup(void)
{
	struct pa_error err = { 0 };
	struct tst_log l;
	char *p50;

	cp_dir = tst_log_tmpdir();
	p50 = tst_log_subdir(cp_dir, "app.50");
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 50, 1, "/bin/app", NULL);
	tst_log_event(&l, 0, "cpu-clock", CP_MS, PPF_EVENT_TIME_NS | PPF_EVENT_EXCLUDE_KERNEL);
	cp_paused(&l, PPF_REC_PROCESS_PAUSED, 900 * CP_MS, 500 * CP_MS, 2,
		  PPF_PAUSED_DELAY | PPF_PAUSED_CALL);
	tst_log_write(&l, p50, PPF_PROCESS_LOG);
	cp_thread(p50, 51, 100, 300 * CP_MS, 200 * CP_MS);
	cp_thread(p50, 52, 100, 300 * CP_MS, 0);
	cr_assert_eq(pa_run_load(cp_dir, &cp_run, &err), 0, "%s: %s", err.path, err.reason);
	free(p50);
}

static void cp_teardown(void)
{
	pa_run_free(cp_run);
	cp_run = NULL;
	tst_log_rmdir(cp_dir);
	cp_dir = NULL;
}

TestSuite(coverage_paused, .init = cp_setup, .fini = cp_teardown, .timeout = 30);

static const struct pa_thread *cp_find(uint32_t tid)
{
	const struct pa_process *proc = tst_log_find_process(cp_run, 50);
	const struct pa_thread *t;

	cr_assert(proc);
	t = tst_log_find_thread(proc, tid);
	cr_assert(t, "no thread %u", tid);
	return t;
}

/* The reader keeps what the paused records say. */
Test(coverage_paused, reader_reads_the_paused_records)
{
	const struct pa_process *proc = tst_log_find_process(cp_run, 50);
	const struct pa_thread *t = cp_find(51);

	cr_assert(proc);
	cr_expect_eq(proc->paused.paused_ns, 900 * CP_MS);
	cr_expect_eq(proc->paused.delay_ns, 500 * CP_MS);
	cr_expect_eq(proc->paused.pauses, 2);
	cr_expect_eq(proc->paused.flags, PPF_PAUSED_DELAY | PPF_PAUSED_CALL);
	cr_expect_eq(t->paused.cpu_ns, 200 * CP_MS);
	cr_expect_eq(t->paused.paused_ns, 700 * CP_MS);
	cr_expect_eq(cp_find(52)->paused.pauses, 0);
}

/* The CPU time used while paused is not counted: 100 samples cover the 100 ms left. */
Test(coverage_paused, paused_cpu_is_not_counted)
{
	struct pa_filter f = PA_FILTER_ALL;
	const struct pa_process *proc = tst_log_find_process(cp_run, 50);
	struct pa_coverage c;

	f.event = 0;
	pa_coverage_thread(&f, proc, cp_find(51), &c);
	cr_expect_eq(c.counted_ns, 100 * CP_MS);
	cr_expect(c.has_share && fabs(c.share - 1.0) < 1e-9, "share %f", c.share);
	pa_coverage_thread(&f, proc, cp_find(52), &c);
	cr_expect(c.has_share && fabs(c.share - 100.0 / 300.0) < 1e-9, "share %f", c.share);
	pa_coverage_process(&f, proc, &c);
	cr_expect_eq(c.counted_ns, 400 * CP_MS);
}

/* The note names the thread never paused, not the one paused while it ran. */
Test(coverage_paused, note_leaves_the_paused_thread_out)
{
	struct pa_filter f = PA_FILTER_ALL;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert(out);
	pa_coverage_notes(out, "# ", cp_run, &f);
	cr_assert_eq(fclose(out), 0);
	cr_expect(strstr(buf, "50/52 worker"), "%s", buf);
	cr_expect(!strstr(buf, "50/51"), "%s", buf);
	free(buf);
}

/* What threads and processes say of it. */
Test(coverage_paused, paused_text)
{
	const struct pa_process *proc = tst_log_find_process(cp_run, 50);
	char buf[128];

	pa_coverage_paused(&cp_find(51)->paused, true, buf, sizeof(buf));
	cr_expect_str_eq(buf, "paused 0.700 s (2x), 0.200 s of CPU");
	pa_coverage_paused(&proc->paused, false, buf, sizeof(buf));
	cr_expect_str_eq(buf, "paused 0.900 s (2x, delay 0.500 s)");
	pa_coverage_paused(&cp_find(52)->paused, true, buf, sizeof(buf));
	cr_expect_str_eq(buf, "");
}
