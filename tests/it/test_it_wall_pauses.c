/*
 * Integration: the wall-clock event ([sample wall]) across thousands of
 * pause switches, in the mode under test. pauseflood's thread waits in
 * read() while main pauses and resumes sampling 3,000 times, every 20-200
 * us: the wait's wall time is its profiled part only, as the program
 * measures it from its own pause and resume calls, however many switches
 * the wait spans (far more than the helper keeps) and however many come
 * before the helper reads them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_wpa;

static void it_wpa_init(void)
{
	tst_init(&it_wpa);
}

static void it_wpa_fini(void)
{
	tst_release(&it_wpa);
}

TestSuite(it_wall_pauses, .init = it_wpa_init, .fini = it_wpa_fini, .timeout = 180);


/*
 * pauseflood at period (ms) with pauses of min_us..max_us: the wait's
 * wall time lies between its length less the pauses counted from the
 * calls' starts and ends (outer) and less them counted between the calls
 * (inner), within two periods (the sample rounding and the switch's own
 * edges).
 */
static void it_wpa_flood(unsigned period_ms, const char *min_us, const char *max_us)
{
	char cfg[TST_CONFIG_ENV_MAX], text[128], prog[TST_PATH_MAX], truth[TST_PATH_MAX];
	char truth_env[TST_PATH_MAX + 16];
	const char *env[] = { it_wpa.env_preload, it_wpa.env_output, cfg, truth_env, NULL };
	const char *argv[] = { prog, "3000", min_us, max_us, NULL };
	double period_s = period_ms / 1e3, waited, outer, inner, got;
	unsigned pauses = 0;
	struct tst_result r;

	tst_build_path(prog, "workloads/pauseflood");
	snprintf(text, sizeof(text), "[sample cpu-clock]\n[sample wall]\nperiod = %ums\n",
		 period_ms);
	tst_config_env(&it_wpa, "wall.ini", text, cfg);
	snprintf(truth, sizeof(truth), "%s/truth", it_wpa.tmp);
	snprintf(truth_env, sizeof(truth_env), "PPROF_TRUTH=%s", truth);
	tst_run(&it_wpa, "pauseflood", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	cr_expect(sscanf(r.out, "pauseflood: done %u", &pauses) == 1 && pauses == 3000,
		  "stdout: %s", r.out);
	cr_expect_null(strstr(r.err, "libpprof:"), "stderr: %s", r.err);
	tst_result_release(&r);
	waited = tst_truth(truth, "wait_flooded");
	outer = tst_truth(truth, "paused_outer");
	inner = tst_truth(truth, "paused_inner");
	got = (double)tst_wall_off(&it_wpa, "wait_flooded") * period_s;
	cr_expect(got >= waited - outer - 2 * period_s && got <= waited - inner + 2 * period_s,
		  "wait_flooded: %.3f s of wall time; it waited %.3f s, %.3f..%.3f s of it "
		  "paused (%u pauses, period %u ms)", got, waited, inner, outer, pauses,
		  period_ms);
}

Test(it_wall_pauses, a_wait_across_thousands_of_pauses_counts_its_profiled_part)
{
	it_wpa_flood(1, "20", "200");
}

Test(it_wall_pauses, switches_the_helper_has_not_read_yet_are_not_lost)
{
	it_wpa_flood(10, "20", "200");
}
