/*
 * Integration: the wall-clock event ([sample wall]) that never starts, in
 * the mode under test. When the process's events are refused (seccomp_run
 * makes perf_event_open fail), the program runs unprofiled and its wall
 * helper leaves without loading anything into it: no libunwind-x86_64 in
 * the program's memory map.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_wof;

static void it_wof_init(void)
{
	tst_init(&it_wof);
}

static void it_wof_fini(void)
{
	tst_release(&it_wof);
}

TestSuite(it_wall_off, .init = it_wof_init, .fini = it_wof_fini, .timeout = 60);

Test(it_wall_off, a_wall_event_that_never_starts_loads_nothing)
{
	char cfg[TST_CONFIG_ENV_MAX], errno_arg[16], env_cmd[] = "/usr/bin/env";
	char sh[] = "/bin/sh", dash_c[] = "-c";
	/* The shell's own map, after its helper had time to wake: the count of libunwind-x86_64 lines. */
	char script[] = "sleep 0.5; grep -c libunwind-x86_64 /proc/$$/maps; true";
	const char *argv[] = { "workloads/seccomp_run", errno_arg, env_cmd, it_wof.env_preload,
			       cfg, sh, dash_c, script, NULL };
	const char *env[] = { it_wof.env_output, NULL };
	struct tst_result r;

	snprintf(errno_arg, sizeof(errno_arg), "%d", EACCES);
	tst_config_env(&it_wof, "wall.ini", "[sample cpu-clock]\n[sample wall]\nperiod = 1ms\n",
		       cfg);
	tst_run(&it_wof, "refused", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s",
		  r.status, r.err);
	cr_expect(strstr(r.err, "profiling is off"), "stderr: %s", r.err);
	cr_expect_str_eq(r.out, "0\n", "libunwind-x86_64 lines in the shell's map: %s", r.out);
	tst_result_release(&r);
}
