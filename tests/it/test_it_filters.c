/*
 * Integration: the filters every report takes beyond --pid, --tid, --exe
 * and --event (a time window, --from/--to, and a thread name, --thread),
 * several run directories read as one profile, and diff BASE NEW.
 *
 * The phases workload burns burn_phase_a, then burn_phase_b, and prints
 * when each phase started by the profiler's own clock, so a window can be
 * placed on a phase by the workload's truth rather than by a guess.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"
#include "profile.h"
#include "report_diff.h"
#include "runs.h"

static struct tst_it it_f1, it_f2;

static void it_filters_init(void)
{
	tst_init(&it_f1);
	tst_init(&it_f2);
}

static void it_filters_fini(void)
{
	tst_release(&it_f1);
	tst_release(&it_f2);
}

TestSuite(it_filters, .init = it_filters_init, .fini = it_filters_fini, .timeout = 120);

/* What a phases run said: when each phase began and ended (CLOCK_MONOTONIC ns). */
struct it_filters_phases {
	uint64_t a, b, end;
	double truth_a, truth_b; /* CPU seconds in each burn function */
};

/* Runs phases A B profiled into it->data and reads what it printed. */
static void it_filters_phases(const struct tst_it *it, const char *a, const char *b,
			      struct it_filters_phases *ph)
{
	const char *argv[] = { "workloads/phases", a, b, NULL };
	char truth[TST_PATH_MAX], env[TST_PATH_MAX + 16];
	struct tst_result r;

	snprintf(truth, sizeof(truth), "%s/truth", it->tmp);
	snprintf(env, sizeof(env), "PPROF_TRUTH=%s", truth);
	tst_run_profiled(it, "phases", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "phases: %s", r.err);
	cr_assert_eq(sscanf(r.out, "a %" SCNu64 "\nb %" SCNu64 "\nend %" SCNu64, &ph->a,
			    &ph->b, &ph->end), 3, "phases printed: %s", r.out);
	ph->truth_a = tst_truth(truth, "burn_phase_a");
	ph->truth_b = tst_truth(truth, "burn_phase_b");
	tst_result_release(&r);
}

/* The profile of run's first event within [from, to) ns of each process's start. */
static struct pa_profile *it_filters_window(const struct pa_run *run, uint64_t from,
					    uint64_t to)
{
	struct pa_filter f = { .event = 0, .window = { .on = true, .from_ns = from, .to_ns = to } };
	struct pa_profile *prof = NULL;
	struct pa_error err;

	cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_FUNCTION,
					 &prof, NULL, &err), 0, "%s", err.reason);
	return prof;
}

/* Checks that a window's samples are mostly fn's, and hold most of fn's samples. */
static void it_filters_expect_phase(const struct pa_profile *win, const struct pa_profile *all,
				    const char *fn)
{
	uint64_t in = tst_self(win, fn), whole = tst_self(all, fn);

	cr_assert_gt(win->samples, 50, "%s: only %" PRIu64 " samples in its window", fn,
		     win->samples);
	cr_expect_geq(in * 100, win->samples * 95, "%s: %" PRIu64 " of the window's %" PRIu64
		      " samples", fn, in, win->samples);
	cr_expect_geq(in * 100, whole * 90, "%s: %" PRIu64 " of its %" PRIu64
		      " samples in its window", fn, in, whole);
}

Test(it_filters, window_selects_a_phase)
{
	struct it_filters_phases ph;
	struct pa_run *run;
	struct pa_profile *all, *wa, *wb;
	uint64_t start;

	it_filters_phases(&it_f1, "0.4", "0.4", &ph);
	run = tst_load(&it_f1);
	cr_assert_eq(run->nprocesses, 1);
	start = run->processes[0]->start_ns;
	cr_assert(start <= ph.a && ph.a < ph.b && ph.b < ph.end);
	all = tst_profile(run, 0, 0);
	wa = it_filters_window(run, ph.a - start, ph.b - start);
	wb = it_filters_window(run, ph.b - start, UINT64_MAX);
	it_filters_expect_phase(wa, all, "burn_phase_a");
	it_filters_expect_phase(wb, all, "burn_phase_b");
	/* Two windows that meet count every sample once. */
	pa_profile_free(wa);
	wa = it_filters_window(run, 0, ph.b - start);
	cr_expect_eq(wa->samples + wb->samples, all->samples);
	pa_profile_free(all);
	pa_profile_free(wa);
	pa_profile_free(wb);
	pa_run_free(run);
}

/* The first function line of top's output (after the two header lines). */
static const char *it_filters_top_first(const char *out)
{
	const char *s = strchr(out, '\n');

	s = s ? strchr(s + 1, '\n') : NULL;
	cr_assert(s, "top printed: %s", out);
	return s + 1;
}

/* Whether out's first line holds what. */
static bool it_filters_line_has(const char *out, const char *what)
{
	const char *hit = strstr(out, what);
	const char *eol = strchr(out, '\n');

	return hit && (!eol || hit < eol);
}

/* The number at the start of top's line for fn, as top printed it; 0 if none. */
static uint64_t it_filters_top_self(const char *out, const char *fn)
{
	for (const char *s = out; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		const char *eol = strchr(s, '\n');
		const char *hit = strstr(s, fn);

		if (hit && (!eol || hit < eol))
			return strtoull(s, NULL, 10);
	}
	return 0;
}

Test(it_filters, cli_from_to)
{
	struct it_filters_phases ph;
	struct pa_run *run;
	char from[32], to[32];
	char *out;

	it_filters_phases(&it_f1, "0.3", "0.3", &ph);
	run = tst_load(&it_f1);
	snprintf(to, sizeof(to), "%.3f", (double)(ph.b - run->processes[0]->start_ns) / 1e9);
	snprintf(from, sizeof(from), "%.3f",
		 (double)(ph.b - run->processes[0]->start_ns) / 1e9 + 0.01);
	pa_run_free(run);
	out = tst_analyze(&it_f1, "analyze",
			  (const char *[]){ "top", it_f1.data, "--to", to, NULL }, NULL);
	cr_expect(strstr(it_filters_top_first(out), "burn_phase_a (phases)\n"), "%s", out);
	/* The header says the report is of a window, not of the whole run. */
	cr_expect(strstr(out, ", from 0.000 s to ") &&
		  strstr(out, " s after each process's start\n"), "%s", out);
	/* A sample stamped just after the phase changed may still be burn_phase_b's. */
	cr_expect_leq(it_filters_top_self(out, "burn_phase_b (phases)"), 3, "%s", out);
	free(out);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "top", "--from", from, it_f1.data,
							  NULL }, NULL);
	cr_expect(strstr(it_filters_top_first(out), "burn_phase_b (phases)\n"), "%s", out);
	/* The event's line (other header notes may say "to sample it"). */
	cr_expect(it_filters_line_has(out, ", from ") && !it_filters_line_has(out, " to "), "%s",
		  out);
	free(out);
}

/* The tid of the thread of run named name; asserts there is one. */
static uint32_t it_filters_tid(const struct pa_run *run, const char *name)
{
	for (size_t i = 0; i < run->processes[0]->nthreads; i++)
		if (strcmp(run->processes[0]->threads[i]->name, name) == 0)
			return run->processes[0]->threads[i]->tid;
	cr_assert_fail("no thread named %s", name);
	return 0;
}

Test(it_filters, thread_name)
{
	const char *argv[] = { "workloads/demo", "0.3", NULL };
	struct pa_filter f = { .event = 0, .thread = "beta" };
	struct pa_profile *by_name, *by_tid;
	struct tst_result r;
	struct pa_error err;
	struct pa_run *run;
	char *out;

	tst_run_profiled(&it_f1, "demo", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "demo: %s", r.err);
	tst_result_release(&r);
	run = tst_load(&it_f1);
	cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_FUNCTION,
					 &by_name, NULL, &err), 0, "%s", err.reason);
	by_tid = tst_profile(run, 0, it_filters_tid(run, "beta"));
	/* The same samples as by its tid: all of them in burn_beta's chain. */
	cr_expect_eq(by_name->nthreads, 1);
	cr_expect_gt(by_name->samples, 50);
	cr_expect_eq(by_name->samples, by_tid->samples);
	cr_expect_eq(tst_self(by_name, "burn_beta"), tst_self(by_tid, "burn_beta"));
	cr_expect_eq(tst_self(by_name, "burn_alpha"), 0);
	pa_profile_free(by_name);
	pa_profile_free(by_tid);
	pa_run_free(run);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "threads", it_f1.data, "--thread",
							  "gamma", NULL }, NULL);
	cr_expect_eq(tst_count_lines(out, " "), 2, "one thread row: %s", out);
	cr_expect(strstr(out, " gamma "), "%s", out);
	free(out);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "top", it_f1.data, "--thread",
							  "no-such-thread", NULL }, NULL);
	cr_expect(strstr(out, " 0 samples"), "%s", out);
	free(out);
}

Test(it_filters, several_directories_add_up)
{
	struct it_filters_phases ph;
	struct pa_run *r1, *r2, *both;
	struct pa_profile *p1, *p2, *pb;
	const char *dirs[] = { it_f1.data, it_f2.data };
	struct pa_error err;
	char *out;

	it_filters_phases(&it_f1, "0.2", "0.1", &ph);
	it_filters_phases(&it_f2, "0.1", "0.2", &ph);
	r1 = tst_load(&it_f1);
	r2 = tst_load(&it_f2);
	cr_assert_eq(pa_runs_merge(dirs, 2, NULL, &both, &err), 0, "%s", err.reason);
	cr_expect_eq(both->nprocesses, 2);
	p1 = tst_profile(r1, 0, 0);
	p2 = tst_profile(r2, 0, 0);
	pb = tst_profile(both, 0, 0);
	cr_expect_eq(pb->samples, p1->samples + p2->samples);
	cr_expect_eq(pb->nprocesses, 2);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "top", it_f1.data, it_f2.data,
							  NULL }, NULL);
	for (size_t i = 0; i < 2; i++) {
		const char *fn = i ? "burn_phase_b (phases)" : "burn_phase_a (phases)";
		const char *name = i ? "burn_phase_b" : "burn_phase_a";

		cr_expect_gt(tst_self(p1, name), 0);
		cr_expect_eq(it_filters_top_self(out, fn), tst_self(p1, name) + tst_self(p2, name),
			     "%s: %s", fn, out);
	}
	free(out);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "processes", it_f1.data, it_f2.data,
							  NULL }, NULL);
	cr_expect_eq(tst_count_lines(out, " "), 3, "two process rows: %s", out);
	free(out);
	pa_profile_free(p1);
	pa_profile_free(p2);
	pa_profile_free(pb);
	pa_run_free(r1);
	pa_run_free(r2);
	pa_run_free(both);
}

/* The diff row of fn; asserts there is one. */
static const struct pa_report_diff_row *it_filters_row(const struct pa_report_diff_row *rows,
						       size_t n, const char *fn)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, fn) == 0)
			return &rows[i];
	cr_assert_fail("no diff row for %s", fn);
	return NULL;
}

static double it_filters_pct(uint64_t n, uint64_t total)
{
	return 100.0 * (double)n / (double)total;
}

Test(it_filters, diff_follows_the_shares)
{
	struct it_filters_phases base, cur;
	struct pa_run *rb, *rc;
	struct pa_profile *pb, *pc;
	struct pa_report_diff_row *rows;
	size_t n;
	char *out;

	it_filters_phases(&it_f1, "0.2", "0.6", &base);
	it_filters_phases(&it_f2, "0.6", "0.2", &cur);
	rb = tst_load(&it_f1);
	rc = tst_load(&it_f2);
	pb = tst_profile(rb, 0, 0);
	pc = tst_profile(rc, 0, 0);
	cr_assert_eq(pa_report_diff_build(pb, pc, &rows, &n), 0);
	cr_assert_geq(n, 2);
	for (size_t i = 0; i < 2; i++) {
		const char *fn = i ? "burn_phase_b" : "burn_phase_a";
		const struct pa_report_diff_row *r = it_filters_row(rows, n, fn);
		double top_delta = it_filters_pct(tst_self(pc, fn), pc->samples) -
				   it_filters_pct(tst_self(pb, fn), pb->samples);
		double tb = i ? base.truth_b : base.truth_a, tc = i ? cur.truth_b : cur.truth_a;
		double truth_delta = 100.0 * (tc / (cur.truth_a + cur.truth_b) -
					      tb / (base.truth_a + base.truth_b));

		/* The change is what each run's own top says, and near the truth's. */
		cr_expect_float_eq(r->cur_self - r->base_self, top_delta, 1e-9, "%s", fn);
		cr_expect_float_eq(r->cur_total - r->base_total, top_delta, 1e-9, "%s", fn);
		cr_expect_float_eq(r->cur_self - r->base_self, truth_delta, 10.0,
				   "%s: %.2f points, truth %.2f", fn, r->cur_self - r->base_self,
				   truth_delta);
		/* A large change comes first: A's share went up, B's down by as much. */
		cr_expect(strcmp(rows[i].name, "burn_phase_a") == 0 ||
			  strcmp(rows[i].name, "burn_phase_b") == 0, "row %zu: %s", i, rows[i].name);
	}
	cr_expect_gt(it_filters_row(rows, n, "burn_phase_a")->cur_self -
		     it_filters_row(rows, n, "burn_phase_a")->base_self, 25.0);
	cr_expect_lt(it_filters_row(rows, n, "burn_phase_b")->cur_self -
		     it_filters_row(rows, n, "burn_phase_b")->base_self, -25.0);
	free(rows);
	out = tst_analyze(&it_f1, "analyze", (const char *[]){ "diff", it_f1.data, it_f2.data,
							  "--limit", "2", NULL }, NULL);
	/* Each run's base line and event line, then the table's own header line (a
	 * machine with much system time adds a kernel-time note, which is not counted). */
	cr_expect_eq(tst_count_lines(out, "# base "), 1, "%s", out);
	cr_expect_eq(tst_count_lines(out, "# new "), 1, "%s", out);
	cr_expect_eq(tst_count_lines(out, "# event "), 2, "%s", out);
	cr_expect_eq(tst_count_lines(out, "# change of share"), 1, "%s", out);
	cr_expect_eq(tst_count_lines(out, "#") - tst_count_lines(out, "# kernel time not sampled"),
		     5, "%s", out);
	cr_expect_eq(tst_count_lines(out, " "), 3, "header and two rows: %s", out);
	cr_expect(tst_find_line(out, " ") && strstr(out, "burn_phase_a (phases)") &&
		  strstr(out, "burn_phase_b (phases)"), "%s", out);
	free(out);
	pa_profile_free(pb);
	pa_profile_free(pc);
	pa_run_free(rb);
	pa_run_free(rc);
}
