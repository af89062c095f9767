/*
 * Integration: every configuration shipped in config/ (the directory is
 * read, so a new file is covered without touching this test) leaves alone
 * programs that start others and programs that sleep: a program that
 * forks and execs /bin/true many times (a sampling signal still pending at
 * exec killed about one child in ten to one in two) and a static program
 * with its signals blocked (the samples that came meanwhile killed every
 * one as it unblocked them), python3 started
 * through a shell script that execs it (a pyenv-style shim; it died of
 * SIGTRAP), and a program that treats EINTR as fatal (the signal mode's
 * context-switch samples interrupted every sleep). Each runs as root and as
 * an unprivileged user (uid 65534, by setpriv: kernel-only events are not
 * permitted there under perf_event_paranoid 2), in the mode the suite runs
 * in; its output and exit status must be those of an unprofiled run, and
 * stderr may hold only the lines that name an unavailable event.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"

#define IT_SHIPPED_MAX_CONFIGS 32
#define IT_SHIPPED_NAME_MAX 256
/*
 * Children execloop starts: enough that a lost one shows in every run.
 * Six ways in seven run /bin/true: 108 of 126.
 */
#define IT_SHIPPED_EXECS "126"
#define IT_SHIPPED_TRUES 108u
/* Runs of the python3 shim per configuration and user. */
#define IT_SHIPPED_SHIM_RUNS 10

static struct tst_it it_shipped;

static void it_shipped_init(void)
{
	tst_init(&it_shipped);
}

static void it_shipped_fini(void)
{
	tst_release(&it_shipped);
}

TestSuite(it_shipped, .init = it_shipped_init, .fini = it_shipped_fini, .timeout = 600);

/* Who a run is made as. */
struct it_shipped_user {
	const char *name; /* "root", "uid 65534", or "this user" */
	bool nobody;      /* as TST_NOBODY */
};

static int it_shipped_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The *.ini files of config/, sorted; returns how many. */
static size_t it_shipped_configs(char (*names)[IT_SHIPPED_NAME_MAX])
{
	char dir[TST_PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/config", PP_TEST_SOURCE_DIR);
	d = opendir(dir);
	cr_assert(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
			continue;
		cr_assert_lt(n, IT_SHIPPED_MAX_CONFIGS);
		cr_assert_lt(len, IT_SHIPPED_NAME_MAX);
		memcpy(names[n++], e->d_name, len + 1);
	}
	closedir(d);
	cr_assert_gt(n, 0, "no configuration in %s", dir);
	qsort(names, n, IT_SHIPPED_NAME_MAX, it_shipped_cmp);
	return n;
}

/*
 * The users to run as: root and TST_NOBODY when this is root (the latter
 * where it can reach the library); else this user, already unprivileged.
 * Says what is left out.
 */
static size_t it_shipped_users(struct it_shipped_user *users)
{
	char why[TST_PATH_MAX + 128];

	if (geteuid() != 0) {
		cr_log_warn("not root: the runs as root are left out; running as "
			    "this user (uid %d) only", (int)geteuid());
		users[0] = (struct it_shipped_user){ "this user", false };
		return 1;
	}
	users[0] = (struct it_shipped_user){ "root", false };
	if (!tst_nobody_ok(&it_shipped, why, sizeof(why))) {
		cr_log_warn("%s: the unprivileged runs are left out", why);
		return 1;
	}
	users[1] = (struct it_shipped_user){ "uid 65534", true };
	return 2;
}

/* Runs prog as u: with config from config/ into output, else unprofiled. */
static void it_shipped_run(const char *tag, const struct it_shipped_user *u,
			   const char *config, const char *output,
			   const char *const *prog, struct tst_result *r)
{
	char env_config[TST_PATH_MAX + 32];

	snprintf(env_config, sizeof(env_config), "PPROF_CONFIG=%s/config/%s",
		 PP_TEST_SOURCE_DIR, config ? config : "");
	tst_run_user(&it_shipped, tag, u->nobody, config ? output : NULL,
		       env_config, prog, r);
}

/* The line naming a statically linked program the run started (once per run). */
#define IT_SHIPPED_STATIC " is statically linked: no dynamic loader reads LD_PRELOAD"

/*
 * Every line of err names an event the machine or the mode cannot give, or
 * a statically linked program the run started.
 */
static void it_shipped_expect_quiet(const char *err, const char *what)
{
	for (const char *p = err; *p;) {
		const char *nl = strchr(p, '\n');
		const char *stat = strstr(p, IT_SHIPPED_STATIC);
		bool named = strncmp(p, "libpprof: cannot open ", 22) == 0 ||
			     strncmp(p, "libpprof: cannot sample ", 24) == 0 ||
			     (strncmp(p, "libpprof: ", 10) == 0 && stat && (!nl || stat < nl));

		cr_expect(named, "%s: a line on stderr other than an unavailable "
			  "event's:\n%s", what, err);
		if (!named)
			return;
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* The profiled run did what the unprofiled one did. */
static void it_shipped_expect_same(const struct tst_result *r,
				   const struct tst_result *plain, const char *what)
{
	cr_expect_eq(r->status, plain->status, "%s: status 0x%x, unprofiled 0x%x; "
		     "stderr:\n%s", what, r->status, plain->status, r->err);
	cr_expect_str_eq(r->out, plain->out, "%s: stdout differs; stderr:\n%s", what,
			 r->err);
	it_shipped_expect_quiet(r->err, what);
}

/*
 * Checks one profiled run of prog: check(what, output, r) after each. The
 * unprofiled run it is compared with is made once per user.
 */
typedef void (*it_shipped_check_fn)(const char *what, const char *output,
				    const struct tst_result *r,
				    const struct tst_result *plain);

static void it_shipped_each(const char *name, const char *const *prog, unsigned runs,
			    it_shipped_check_fn check)
{
	static char configs[IT_SHIPPED_MAX_CONFIGS][IT_SHIPPED_NAME_MAX];
	struct it_shipped_user users[2];
	size_t nconfigs = it_shipped_configs(configs), nusers = it_shipped_users(users);

	for (size_t u = 0; u < nusers; u++) {
		struct tst_result plain;
		char tag[IT_SHIPPED_NAME_MAX + 64], output[TST_PATH_MAX];

		snprintf(tag, sizeof(tag), "%s-plain-%zu", name, u);
		it_shipped_run(tag, &users[u], NULL, NULL, prog, &plain);
		cr_assert_eq(plain.err_len, 0, "%s unprofiled as %s: %s", name,
			     users[u].name, plain.err);
		for (size_t c = 0; c < nconfigs; c++) {
			char what[2 * IT_SHIPPED_NAME_MAX + 64];

			snprintf(tag, sizeof(tag), "%s-%s-%zu", name, configs[c], u);
			snprintf(what, sizeof(what), "%s with %s as %s", name, configs[c],
				 users[u].name);
			tst_output_dir(&it_shipped, tag, users[u].nobody, output);
			for (unsigned k = 0; k < runs; k++) {
				struct tst_result r;

				it_shipped_run(tag, &users[u], configs[c], output, prog, &r);
				check(what, output, &r, &plain);
				tst_result_release(&r);
			}
		}
		tst_result_release(&plain);
	}
}

/* The processes of the run in output whose executable's name is base. */
static size_t it_shipped_count_exe(const char *output, const char *base,
				   size_t *ended_ok)
{
	struct pa_run *run = NULL;
	struct pa_error err;
	size_t n = 0;

	cr_assert_eq(pa_run_load(output, &run, &err), 0, "%s: %s: %s", output,
		     err.path, err.reason);
	*ended_ok = 0;
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		const char *slash = strrchr(p->exe, '/');

		if (strcmp(slash ? slash + 1 : p->exe, base) != 0)
			continue;
		n++;
		*ended_ok += p->ended && p->exit_how == PPF_EXIT_NORMAL &&
			     p->exit_status == 0;
	}
	pa_run_free(run);
	return n;
}

static void it_shipped_check_execloop(const char *what, const char *output,
				      const struct tst_result *r,
				      const struct tst_result *plain)
{
	size_t ended_ok, n;

	it_shipped_expect_same(r, plain, what);
	/* Its children exec the static unblocker time and again: said once. */
	n = 0;
	for (const char *p = r->err; (p = strstr(p, IT_SHIPPED_STATIC)) != NULL; p++)
		n++;
	cr_expect_eq(n, 1, "%s: %zu lines name the statically linked unblocker:\n%s", what, n,
		     r->err);
	/* Every child was followed into /bin/true, and ended there itself. */
	n = it_shipped_count_exe(output, "true", &ended_ok);
	cr_expect_eq(n, IT_SHIPPED_TRUES, "%s: %zu processes of /bin/true "
		     "recorded, %u started", what, n, IT_SHIPPED_TRUES);
	cr_expect_eq(ended_ok, n, "%s: %zu of %zu /bin/true processes recorded "
		     "an exit with status 0", what, ended_ok, n);
}

static void it_shipped_check_output(const char *what, const char *output,
				    const struct tst_result *r,
				    const struct tst_result *plain)
{
	(void)output;
	it_shipped_expect_same(r, plain, what);
}

Test(it_shipped, fork_and_exec_children_live)
{
	char prog[TST_PATH_MAX];
	const char *argv[] = { prog, IT_SHIPPED_EXECS, NULL };

	tst_skip_under_asan("a child exec'd with an empty environment gets libpprof.so "
			      "back but not libasan.so, which an ASan-built preload needs "
			      "first in LD_PRELOAD");
	tst_build_path(prog, "workloads/execloop");
	it_shipped_each("execloop", argv, 1, it_shipped_check_execloop);
}

Test(it_shipped, python_through_a_shell_shim)
{
	char shim[TST_PATH_MAX];
	const char *argv[] = { shim, "shim", NULL };
	FILE *f;

	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("/usr/bin/python3 is not installed (make deps installs it)");
	snprintf(shim, sizeof(shim), "%s/python3-shim", it_shipped.tmp);
	f = fopen(shim, "w");
	cr_assert(f, "%s: %s", shim, strerror(errno));
	fputs("#!/bin/sh\n"
	      "exec /usr/bin/python3 -c 'import sys; print(\"python3 says hello to\", "
	      "sys.argv[1])' \"$1\"\n", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(shim, 0755), 0);
	it_shipped_each("shim", argv, IT_SHIPPED_SHIM_RUNS, it_shipped_check_output);
}

Test(it_shipped, sleeping_calls_are_not_interrupted)
{
	char prog[TST_PATH_MAX];
	const char *argv[] = { prog, "30", NULL };

	tst_build_path(prog, "workloads/sleeper");
	it_shipped_each("sleeper", argv, 1, it_shipped_check_output);
}
