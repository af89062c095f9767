/*
 * Integration: code a JIT compiler made, named by its perf map. jitcode
 * runs two pieces of machine code it copied into an anonymous mapping and
 * names them in /tmp/perf-<pid>.map, as node, Java's perf-map-agent or
 * LuaJIT do; it measures the CPU time it spent in each. The preload keeps
 * a copy of the map beside the process's log when the process ends, so
 * the run names that code after /tmp's is gone; the analyzer reads /tmp's
 * when the run has no copy (a process killed before its end).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"

static struct tst_it it_jit;

static void it_jit_init(void)
{
	tst_init(&it_jit);
}

static void it_jit_fini(void)
{
	tst_release(&it_jit);
}

TestSuite(it_jit, .init = it_jit_init, .fini = it_jit_fini, .timeout = 120);

struct it_jit_run {
	int pid;
	char map[64];
	double one_s, two_s; /* the CPU time jitcode measured in each piece */
	char copy[TST_PATH_MAX + 16];
};

/* Runs jitcode profiled; fills *out from what it printed. */
static void it_jit_run(struct it_jit_run *out)
{
	const char *argv[] = { "workloads/jitcode", "0.3", NULL };
	char dir[TST_PATH_MAX];
	struct tst_result r;

	tst_run_profiled(&it_jit, "jit", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert_eq(sscanf(r.out, "jitcode: pid %d map %63s one %lf two %lf", &out->pid,
			    out->map, &out->one_s, &out->two_s), 4, "%s", r.out);
	tst_process_dir(&it_jit, "jitcode", out->pid, dir);
	snprintf(out->copy, sizeof(out->copy), "%s.perf.map", dir);
	tst_result_release(&r);
}

/*
 * Each piece's self samples against the time jitcode measured in it, and
 * how many of them kept jit_caller as their caller (frame pointers: the
 * pieces have no unwind tables). named: whether the map should name them.
 */
static void it_jit_check(const struct it_jit_run *jr, bool named)
{
	struct pa_run *run = tst_load(&it_jit);
	struct pa_profile *p = tst_profile(run, 0, 0);
	double period = tst_period_s(run->processes[0]);
	uint64_t one = tst_self(p, "jit_one"), two = tst_self(p, "JIT two [tier 1]");
	uint64_t unknown = tst_self(p, "[unknown]");

	if (!named) {
		cr_expect_eq(one + two, 0, "no map, yet named");
		cr_expect_geq(unknown, 0.6 * (jr->one_s + jr->two_s) / period,
			      "%llu samples [unknown] for %.3f s in JIT code",
			      (unsigned long long)unknown, jr->one_s + jr->two_s);
	} else {
		cr_expect_geq(one, 0.6 * jr->one_s / period, "jit_one: %llu samples for %.3f s",
			      (unsigned long long)one, jr->one_s);
		cr_expect_leq(one, 1.4 * jr->one_s / period + 5, "jit_one: %llu samples for %.3f s",
			      (unsigned long long)one, jr->one_s);
		cr_expect_geq(two, 0.6 * jr->two_s / period, "JIT two: %llu samples for %.3f s",
			      (unsigned long long)two, jr->two_s);
		cr_expect_leq(two, 1.4 * jr->two_s / period + 5, "JIT two: %llu samples for %.3f s",
			      (unsigned long long)two, jr->two_s);
		cr_expect_lt(unknown, 0.05 * (double)(one + two) + 2, "%llu samples [unknown]",
			     (unsigned long long)unknown);
		cr_expect_geq(tst_stack_count(p, "jit_caller;jit_one"), one / 2,
			      "jit_one's caller lost: %llu of %llu",
			      (unsigned long long)tst_stack_count(p, "jit_caller;jit_one"),
			      (unsigned long long)one);
	}
	pa_profile_free(p);
	pa_run_free(run);
}

Test(it_jit, jit_code_is_named_from_the_runs_copy_of_its_perf_map)
{
	struct it_jit_run jr;
	struct stat st;

	it_jit_run(&jr);
	/* Gone from /tmp (a reboot, tmp cleaned): the run's copy names the code. */
	cr_assert_eq(unlink(jr.map), 0, "%s", jr.map);
	cr_assert_eq(stat(jr.copy, &st), 0, "no copy of the map at %s", jr.copy);
	cr_expect_eq(st.st_mode & 0777, 0600);
	it_jit_check(&jr, true);
	/* Without any map the same samples are [unknown]: the names came from it. */
	cr_assert_eq(unlink(jr.copy), 0);
	it_jit_check(&jr, false);
}

Test(it_jit, jit_code_is_named_from_tmp_when_the_run_has_no_copy)
{
	struct it_jit_run jr;

	it_jit_run(&jr);
	/* As a process killed before its end leaves the run. */
	cr_assert_eq(unlink(jr.copy), 0, "%s", jr.copy);
	it_jit_check(&jr, true);
	cr_assert_eq(unlink(jr.map), 0, "%s", jr.map);
}
