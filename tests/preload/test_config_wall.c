/*
 * [sample wall] (preload/config.c): the wall-clock event, a period of wall
 * time and nothing else; beside cpu-clock, or alone with the default's
 * CPU samples.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "config.h"

static struct pp_config cfg;
static struct pp_config_errors errs;

static void cw_teardown(void)
{
	pp_config_release(&cfg);
}

TestSuite(config_wall, .fini = cw_teardown, .timeout = 30);

static int cw_parse(const char *text)
{
	pp_config_release(&cfg);
	memset(&errs, 0, sizeof(errs));
	return pp_config_parse(&cfg, "t.ini", text, &errs);
}

/* Whether some message holds what. */
static int cw_said(const char *what)
{
	for (unsigned i = 0; i < errs.n; i++)
		if (strstr(errs.e[i].msg, what))
			return 1;
	return 0;
}

Test(config_wall, off_unless_asked)
{
	cr_assert_eq(cw_parse("[sample cpu-clock]\n"), 0);
	cr_expect_eq(cfg.wall_ns, 0);
	cr_assert_eq(pp_config_default(&cfg, &errs), 0);
	cr_expect_eq(cfg.wall_ns, 0);
}

Test(config_wall, period_of_wall_time_beside_cpu_clock)
{
	cr_assert_eq(cw_parse("[sample cpu-clock]\n[sample wall]\nperiod = 5ms\n"), 0, "%s",
		     errs.e[0].msg);
	cr_expect_eq(cfg.wall_ns, 5000000ull);
	/* wall is not a perf event: only cpu-clock is opened */
	cr_expect_eq(cfg.nevents, 1);
	cr_expect_str_eq(cfg.events[0].spec, "cpu-clock");
	/* a label of one's own, and the default period */
	cr_assert_eq(cw_parse("[sample cpu-clock]\n[sample offcpu]\nevent = wall\n"), 0);
	cr_expect_eq(cfg.wall_ns, 1000000ull);
}

Test(config_wall, alone_keeps_the_default_cpu_samples)
{
	cr_assert_eq(cw_parse("[sample wall]\nperiod = 2ms\n"), 0, "%s", errs.e[0].msg);
	cr_expect_eq(cfg.wall_ns, 2000000ull);
	cr_assert_eq(cfg.nevents, 1);
	cr_expect_str_eq(cfg.events[0].spec, "cpu-clock");
}

/* Where the switch records go: a ring per CPU (the default) or per thread. */
Test(config_wall, rings_per_cpu_or_per_thread)
{
	cr_assert_eq(cw_parse("[sample wall]\n"), 0, "%s", errs.e[0].msg);
	cr_expect_eq(cfg.wall_rings, PP_WALL_RINGS_AUTO);
	cr_assert_eq(cw_parse("[sample wall]\nrings = thread\n"), 0, "%s", errs.e[0].msg);
	cr_expect_eq(cfg.wall_rings, PP_WALL_RINGS_THREAD);
	cr_assert_eq(cw_parse("[sample wall]\nrings = CPU\n"), 0, "%s", errs.e[0].msg);
	cr_expect_eq(cfg.wall_rings, PP_WALL_RINGS_CPU);
	cr_expect_eq(cw_parse("[sample wall]\nrings = process\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: rings = process: thread (a ring of switch records per "
			  "thread, the default) or cpu (one per CPU, inherited by the threads)"),
		  "%s", errs.e[0].msg);
	cr_expect_eq(cw_parse("[sample cpu-clock]\nrings = thread\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: [sample cpu-clock]: rings is a key of [sample wall] only"),
		  "%s", errs.e[0].msg);
}

Test(config_wall, bad_values_are_named)
{
	cr_expect_eq(cw_parse("[sample wall]\nperiod = 100us\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: period = '100us' is out of range: expected a duration "
			  "of wall time from 1ms to 3600s"), "%s", errs.e[0].msg);
	cr_expect_eq(cw_parse("[sample wall]\nperiod = often\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: period = 'often'"), "%s", errs.e[0].msg);
	cr_expect_eq(cw_parse("[sample wall]\nfrequency = 100\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: [sample wall] (wall time) takes only a period and rings; "
			  "not frequency"), "%s", errs.e[0].msg);
	cr_expect_eq(cw_parse("[count wall]\n"), -EINVAL);
	cr_expect(cw_said("t.ini:1: [count wall]: wall is sampled, not counted"), "%s",
		  errs.e[0].msg);
	cr_expect_eq(cw_parse("[sample wall]\n[sample w2]\nevent = wall\n"), -EINVAL);
	cr_expect(cw_said("t.ini:2: [sample w2] is the wall event a second time"), "%s",
		  errs.e[0].msg);
}
