/*
 * Integration: a process whose profiling is off from the start (an error
 * in the configuration) still runs the programs it starts: its exec
 * wrappers, which look for the profiler in the new program's LD_PRELOAD,
 * know no path for it (found only when profiling starts) and must not
 * search for an empty name (that spun for ever inside execvp).
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_o;

static void it_offexec_init(void)
{
	tst_init(&it_o);
}

static void it_offexec_fini(void)
{
	tst_release(&it_o);
}

TestSuite(it_offexec, .init = it_offexec_init, .fini = it_offexec_fini, .timeout = 60);

Test(it_offexec, configuration_error_then_exec_runs)
{
	char cfg[TST_CONFIG_ENV_MAX];
	const char *argv[] = { "/bin/sh", "-c", "/bin/echo child ran", NULL };
	const char *env[] = { it_o.env_preload, it_o.env_output, cfg, NULL };
	struct tst_result r;
	pid_t pid;

	tst_config_env(&it_o, "bad.ini", "[profile]\nno_such_key = 1\n", cfg);
	pid = tst_spawn(&it_o, "sh", argv, env);
	tst_wait_bounded(&it_o, "sh", pid, 30, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status %d: %s", r.status,
		  r.err);
	cr_expect_str_eq(r.out, "child ran\n");
	cr_expect(strstr(r.err, "unknown key 'no_such_key'"), "stderr: %s", r.err);
	tst_result_release(&r);
}
