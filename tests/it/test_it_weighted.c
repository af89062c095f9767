/*
 * Integration: samples of an event sampled at a frequency whose period the
 * kernel adjusts (page faults) each stand for the faults of their own
 * period, and the reports weigh them by it, in both modes. faultmix has
 * fault_slow fault a page now and then for long and fault_fast fault many
 * pages in a burst, in alternating rounds: the kernel's period swings
 * between them, so the number of samples follows the time each ran, and
 * only the periods follow the faults, which faultmix counts itself.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_wt;

static void it_wt_init(void)
{
	tst_init(&it_wt);
}

static void it_wt_fini(void)
{
	tst_release(&it_wt);
}

TestSuite(it_weighted, .init = it_wt_init, .fini = it_wt_fini, .timeout = 120);

/*
 * Share points the profile may stray from the workload's own count: faults
 * the sampling lost to throttling (in the signal mode their periods go with
 * them), and faults of the process outside the two functions.
 */
#define IT_WT_SLACK 0.10

/* faultmix 2 rounds: 2,000 slow faults 100 us of CPU apart, 20,000 in a burst. */
static void it_wt_run(struct tst_result *r, char *truth, size_t size)
{
	const char *argv[] = { "workloads/faultmix", "2", "2000", "20000", "100", NULL };
	char cfg[TST_CONFIG_ENV_MAX], truth_env[TST_PATH_MAX + 16];
	const char *env[] = { it_wt.env_preload, it_wt.env_output, cfg, truth_env, NULL };

	tst_config_env(&it_wt, "faults.ini",
		       "[sample page-faults]\nevent = page-faults\nfrequency = 1000\n", cfg);
	snprintf(truth, size, "%s/truth", it_wt.tmp);
	snprintf(truth_env, sizeof(truth_env), "PPROF_TRUTH=%s", truth);
	tst_run(&it_wt, "faultmix", argv, env, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "status 0x%x: %s",
		  r->status, r->err);
}

/* The weight (events) of the last sample of the run's first thread, 0 when it has none. */
static uint64_t it_wt_last_period(const struct pa_run *run)
{
	const struct pa_thread *t;
	const struct pa_sample *last = NULL;

	cr_assert_geq(run->nprocesses, 1);
	cr_assert_geq(run->processes[0]->nthreads, 1);
	t = run->processes[0]->threads[0];
	for (size_t i = 0; i < t->nsamples; i++)
		if (!last || t->samples[i].time_ns >= last->time_ns)
			last = &t->samples[i];
	return last ? last->count : 0;
}

/*
 * fault_fast's share of the faults in the profile is its share of the
 * faults the workload counted, within IT_WT_SLACK; the total is the faults
 * (at least those of the two functions), not the samples.
 */
Test(it_weighted, frequency_samples_weigh_by_their_period)
{
	struct pa_profile *prof;
	struct tst_result r;
	struct pa_run *run;
	double slow, fast, truth_share, share;
	char truth[TST_PATH_MAX];
	uint64_t tail;

	it_wt_run(&r, truth, sizeof(truth));
	slow = tst_truth(truth, "fault_slow");
	fast = tst_truth(truth, "fault_fast");
	cr_assert_gt(slow, 0);
	cr_assert_gt(fast, 0);
	truth_share = fast / (slow + fast);
	run = tst_load(&it_wt);
	prof = tst_profile(run, 0, 0);
	cr_assert_gt(prof->samples, 0);
	share = (double)tst_self(prof, "fault_fast") /
		(double)(tst_self(prof, "fault_fast") + tst_self(prof, "fault_slow"));
	cr_expect(fabs(share - truth_share) <= IT_WT_SLACK,
		  "fault_fast: %.1f%% of the profile's faults (%llu of %llu in the two "
		  "functions), %.1f%% of those the workload counted (%.0f of %.0f)",
		  share * 100, (unsigned long long)tst_self(prof, "fault_fast"),
		  (unsigned long long)(tst_self(prof, "fault_fast") +
				       tst_self(prof, "fault_slow")),
		  truth_share * 100, fast, slow + fast);
	/*
	 * Less the faults after the last overflow, in no sample (README): up
	 * to the period the kernel set at that overflow, an eighth of the way
	 * from the last one to the rate's (1.8 times the last sample's seen
	 * after the closing burst; 3 allowed). Counting samples, not events,
	 * would be thousands short still.
	 */
	tail = 3 * it_wt_last_period(run);
	cr_expect((double)prof->samples + (double)tail >= (1 - IT_WT_SLACK) * (slow + fast),
		  "%llu faults in the profile (and up to %llu after its last sample), %.0f "
		  "counted by the workload", (unsigned long long)prof->samples,
		  (unsigned long long)tail, slow + fast);
	pa_profile_free(prof);
	pa_run_free(run);
	tst_result_release(&r);
}

/* The reports' header says the counts are events, weighed by their period. */
Test(it_weighted, header_says_the_counts_are_events)
{
	const char *argv[] = { NULL, "top", it_wt.data, NULL };
	char analyze[TST_PATH_MAX], truth[TST_PATH_MAX];
	struct tst_result r, a;

	it_wt_run(&r, truth, sizeof(truth));
	tst_build_path(analyze, "pprof-analyze");
	argv[0] = analyze;
	tst_run(&it_wt, "top", argv, NULL, &a);
	cr_assert(WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0, "%s", a.err);
	cr_expect(strstr(a.out, "# event page-faults: frequency 1000 Hz (user), ") &&
		  strstr(a.out, " events in its samples (each weighed by its period)"),
		  "%s", a.out);
	cr_expect(strstr(a.out, "fault_fast (faultmix)") != NULL, "%s", a.out);
	tst_result_release(&a);
	tst_result_release(&r);
}
