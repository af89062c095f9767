/*
 * The configuration keys of starting and stopping at run time
 * (preload/config.c): delay, a duration, and toggle_signal, any signal by
 * name or number (the profiler's own are refused at start, not here).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "config.h"

static struct pp_config cfg;
static struct pp_config_errors errs;

static void cc_teardown(void)
{
	pp_config_release(&cfg);
}

TestSuite(config_control, .fini = cc_teardown, .timeout = 30);

static int cc_parse(const char *text)
{
	pp_config_release(&cfg);
	memset(&errs, 0, sizeof(errs));
	return pp_config_parse(&cfg, "t.ini", text, &errs);
}

Test(config_control, delay_is_a_duration)
{
	cr_assert_eq(cc_parse("[profile]\n"), 0);
	cr_expect_eq(cfg.delay_ns, 0);
	cr_assert_eq(cc_parse("[profile]\ndelay = 1500ms\n"), 0, "%s", errs.e[0].msg);
	cr_expect_eq(cfg.delay_ns, 1500000000ull);
	cr_expect_eq(cc_parse("[profile]\ndelay = soon\n"), -EINVAL);
	cr_expect(strstr(errs.e[0].msg, "t.ini:2: delay = 'soon'"), "%s", errs.e[0].msg);
	cr_expect_eq(cc_parse("[profile]\ndelay = 2h\n"), -EINVAL);
}

Test(config_control, toggle_signal_by_name_or_number)
{
	cr_assert_eq(cc_parse("[profile]\n"), 0);
	cr_expect_eq(cfg.toggle_signal, 0);
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = SIGUSR2\n"), 0);
	cr_expect_eq(cfg.toggle_signal, SIGUSR2);
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = hup\n"), 0);
	cr_expect_eq(cfg.toggle_signal, SIGHUP);
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = SIGRTMIN+2\n"), 0);
	cr_expect_eq(cfg.toggle_signal, SIGRTMIN + 2);
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = 10\n"), 0);
	cr_expect_eq(cfg.toggle_signal, 10);
	/* Refused at start with one line, not here: the mode decides what the profiler needs. */
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = SIGTRAP\n"), 0);
	cr_expect_eq(cfg.toggle_signal, SIGTRAP);
	cr_assert_eq(cc_parse("[profile]\ntoggle_signal = none\n"), 0);
	cr_expect_eq(cfg.toggle_signal, 0);
	cr_expect_eq(cc_parse("[profile]\ntoggle_signal = SIGNOPE\n"), -EINVAL);
	cr_expect(strstr(errs.e[0].msg, "toggle_signal = 'SIGNOPE'"), "%s", errs.e[0].msg);
	cr_expect_eq(cc_parse("[profile]\ntoggle_signal = 0\n"), -EINVAL);
	cr_expect_eq(cc_parse("[profile]\ntoggle_signal = 999\n"), -EINVAL);
}
