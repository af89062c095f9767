/*
 * Integration: a program that runs close to its limits (RLIMIT_AS,
 * RLIMIT_NOFILE) makes every thread and opens every file it would make and
 * open unprofiled. The profiler takes for its threads' sampling state at
 * most its share of each limit (preload/share.h: 1/8 of RLIMIT_AS, 1/4 of
 * RLIMIT_NOFILE), besides what the process itself needs to be profiled at
 * all; threads beyond that run unsampled, and are said, recorded and shown.
 *
 * Nothing here is a machine's number: each test finds the smallest limit at
 * which tightthreads succeeds unprofiled (U), and the profiler's own need
 * (M0: the smallest limit at which tightthreads with no thread succeeds
 * profiled, less the one at which it does unprofiled), then runs it at the
 * limit L whose share the profiler may take: L - L/div = U + M0.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_limits;

static void it_limits_init(void)
{
	tst_init(&it_limits);
}

static void it_limits_fini(void)
{
	tst_release(&it_limits);
}

struct it_limits_case {
	char name[32];
	int resource;     /* RLIMIT_AS or RLIMIT_NOFILE */
	unsigned div;     /* the profiler's share: 1/div of the limit */
	uint64_t step;    /* the precision of a limit found */
	char count[8];    /* tightthreads' arguments: threads, */
	char files[8];    /* files per thread, */
	char stack[8];    /* stack size in KiB (0: the default), */
	char seconds[8];  /* CPU each burns at the end */
};

/* Whether the process directory of a profiled run exists: the profiler ran. */
static bool it_limits_profiled(const char *data)
{
	DIR *d = opendir(data);
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)) != NULL)
		any = strncmp(e->d_name, "tightthreads@", 13) == 0 ||
		      strncmp(e->d_name, "tightthreads.", 13) == 0;
	if (d)
		closedir(d);
	return any;
}

/*
 * Runs tightthreads with count threads under limit, profiled or not: whether
 * it succeeded with nothing on stderr (and, profiled, was profiled: under a
 * small enough limit the loader cannot even map the preload).
 */
static bool it_limits_ok(const struct it_limits_case *c, const char *count, uint64_t limit,
			 bool profiled)
{
	static unsigned runs;
	const char *argv[] = { "workloads/tightthreads", count, c->files, c->stack, "0", NULL };
	char data[TST_PATH_MAX], env_output[TST_PATH_MAX + 16];
	const char *env[] = { it_limits.env_preload, env_output, NULL };
	struct tst_result r;
	bool ok;

	snprintf(data, sizeof(data), "%s/search-%u", it_limits.tmp, runs++);
	snprintf(env_output, sizeof(env_output), "PPROF_OUTPUT=%s", data);
	tst_run_limited(&it_limits, "search", argv, profiled ? env : NULL, c->resource, limit,
			  &r);
	ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.err_len == 0 &&
	     (!profiled || it_limits_profiled(data));
	tst_result_release(&r);
	tst_log_rmdir(strdup(data)); /* it frees its argument */
	return ok;
}

/* The smallest limit (to c->step) at which it_limits_ok holds. */
static uint64_t it_limits_smallest(const struct it_limits_case *c, const char *count,
				   bool profiled)
{
	uint64_t lo = 0, hi = 16 * c->step;

	while (!it_limits_ok(c, count, hi, profiled)) {
		lo = hi;
		hi *= 2;
		cr_assert_lt(hi, 1ull << 40, "%s: tightthreads %s never succeeds", c->name, count);
	}
	while (hi - lo > c->step) {
		uint64_t mid = (lo + (hi - lo) / 2) / c->step * c->step;

		if (mid <= lo)
			break;
		if (it_limits_ok(c, count, mid, profiled))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Every libpprof line names the limit at fault, and no other. */
static void it_limits_check_lines(const struct it_limits_case *c, const char *err)
{
	const char *mine = c->resource == RLIMIT_AS ? "RLIMIT_AS" : "RLIMIT_NOFILE";
	const char *other = c->resource == RLIMIT_AS ? "RLIMIT_NOFILE" : "RLIMIT_AS";
	size_t lines = tst_count_lines(err, "libpprof: ");

	cr_expect_leq(lines, 2, "%s: more than a line per cause and the summary:\n%s",
		      c->name, err);
	for (const char *l = err; (l = tst_find_line(l, "libpprof: ")) != NULL; l++) {
		const char *end = strchr(l, '\n');
		int len = end ? (int)(end - l) : (int)strlen(l);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", len, l);
		cr_expect(strstr(line, mine) && !strstr(line, other),
			  "%s: a line that does not name %s alone: %s", c->name, mine, line);
	}
	cr_expect_eq(lines, tst_count_lines(err, ""), "%s: stderr has other lines:\n%s",
		     c->name, err);
}

/* `pprof-analyze threads` and `processes` show the threads that ran unsampled. */
static void it_limits_check_reports(const struct it_limits_case *c,
				    const struct pa_process *proc)
{
	const char *threads[] = { "pprof-analyze", "threads", it_limits.data, NULL };
	const char *processes[] = { "pprof-analyze", "processes", it_limits.data, NULL };
	char tail[64];
	struct tst_result r;
	size_t rows;

	tst_run(&it_limits, "threads", threads, NULL, &r);
	cr_assert_eq(r.status, 0, "%s: threads: %s", c->name, r.err);
	/* Under the '#' lines (the event, its notes), the titles, then the rows. */
	rows = tst_count_lines(r.out, "") - tst_count_lines(r.out, "#") - 1;
	cr_expect_eq(rows, proc->nthreads + proc->nunsampled,
		     "%s: threads lists %zu rows, not %zu + %zu:\n%s", c->name, rows,
		     proc->nthreads, proc->nunsampled, r.out);
	for (size_t i = 0; i < proc->nunsampled; i++) {
		char row[64];

		snprintf(row, sizeof(row), " %u ", proc->unsampled[i].tid);
		cr_expect(strstr(r.out, row), "%s: thread %u is not listed:\n%s", c->name,
			  proc->unsampled[i].tid, r.out);
	}
	cr_expect_eq(proc->nunsampled == 0, strstr(r.out, "(unsampled: ") == NULL,
		     "%s:\n%s", c->name, r.out);
	tst_result_release(&r);
	tst_run(&it_limits, "processes", processes, NULL, &r);
	cr_assert_eq(r.status, 0, "%s: processes: %s", c->name, r.err);
	snprintf(tail, sizeof(tail), ", %zu thread%s unsampled", proc->nunsampled,
		 proc->nunsampled == 1 ? "" : "s");
	cr_expect_eq(proc->nunsampled == 0, strstr(r.out, tail) == NULL,
		     "%s: processes does not say '%s':\n%s", c->name, tail, r.out);
	tst_result_release(&r);
}

/* The tids that have a log and an unsampled record both, or two of either, for a message. */
static void it_limits_twice(const struct pa_process *proc, char *buf, size_t size)
{
	size_t n = proc->nthreads + proc->nunsampled, len = 0;
	uint32_t *tids = calloc(n + 1, sizeof(*tids));

	cr_assert(tids);
	for (size_t i = 0; i < proc->nthreads; i++)
		tids[i] = proc->threads[i]->tid;
	for (size_t i = 0; i < proc->nunsampled; i++)
		tids[proc->nthreads + i] = proc->unsampled[i].tid;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && len + 16 < size; j++)
			if (tids[i] == tids[j])
				len += (size_t)snprintf(buf + len, size - len, " %u", tids[i]);
	free(tids);
}

/* The run's only process, and its threads: every one with a log or recorded unsampled. */
static void it_limits_check_run(const struct it_limits_case *c, long nthreads)
{
	int want = c->resource == RLIMIT_AS ? ENOMEM : EMFILE;
	const struct pa_process *proc;
	struct pa_run *run = tst_load(&it_limits);
	char twice[256];

	cr_assert_eq(run->nprocesses, 1, "%s", c->name);
	proc = run->processes[0];
	cr_assert_neq(proc->mode, PPF_MODE_OFF, "%s: profiling was off", c->name);
	cr_expect(proc->ended, "%s: process.log has no END record", c->name);
	it_limits_twice(proc, twice, sizeof(twice));
	cr_expect_eq(proc->nthreads + proc->nunsampled, (size_t)nthreads + 1,
		     "%s: %zu threads with logs and %zu unsampled, of %ld (listed twice:%s)",
		     c->name, proc->nthreads, proc->nunsampled, nthreads + 1, twice);
	for (size_t i = 0; i < proc->nunsampled; i++)
		cr_expect_eq(proc->unsampled[i].error, want,
			     "%s: thread %u unsampled for errno %d (what %u)", c->name,
			     proc->unsampled[i].tid, proc->unsampled[i].error,
			     proc->unsampled[i].what);
	it_limits_check_reports(c, proc);
	pa_run_free(run);
}

ParameterizedTestParameters(it_limits, program_keeps_what_it_needs)
{
	static struct it_limits_case cases[] = {
		/* Default stacks: a thread's first malloc would reserve a 64 MiB arena. */
		{ "address space, 32 threads", RLIMIT_AS, 8, 64 << 10, "32", "0", "0", "0.005" },
		/* Small stacks: the profiler's state per thread outweighs the program's. */
		{ "address space, 64 KiB stacks", RLIMIT_AS, 8, 64 << 10, "64", "0", "64",
		  "0.005" },
		{ "descriptors", RLIMIT_NOFILE, 4, 1, "64", "1", "0", "0.005" },
	};

	return cr_make_param_array(struct it_limits_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/*
 * At the limit whose share leaves the program exactly what it needs, it
 * makes every thread and opens every file, profiled as unprofiled; each
 * libpprof line names the limit at fault.
 */
ParameterizedTest(struct it_limits_case *c, it_limits, program_keeps_what_it_needs,
		  .init = it_limits_init, .fini = it_limits_fini, .timeout = 300)
{
	const char *argv[] = { "workloads/tightthreads", c->count, c->files, c->stack,
			       c->seconds, NULL };
	const char *env[] = { it_limits.env_preload, it_limits.env_output, NULL };
	uint64_t need, m0, limit;
	struct tst_result plain, r;

	if (c->resource == RLIMIT_AS)
		tst_skip_under_asan("AddressSanitizer cannot start under an address-space "
				      "limit (it reserves terabytes of shadow memory)");
	need = it_limits_smallest(c, c->count, false);
	m0 = it_limits_smallest(c, "0", true) - it_limits_smallest(c, "0", false);
	limit = ((need + m0) * c->div + c->div - 2) / (c->div - 1);
	cr_log_info("%s: unprofiled it needs %llu, the profiler %llu more; limit %llu",
		    c->name, (unsigned long long)need, (unsigned long long)m0,
		    (unsigned long long)limit);
	tst_run_limited(&it_limits, "plain", argv, NULL, c->resource, limit, &plain);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0,
		  "%s: unprofiled at %llu: status 0x%x: %s", c->name,
		  (unsigned long long)limit, plain.status, plain.err);
	tst_run_limited(&it_limits, "profiled", argv, env, c->resource, limit, &r);
	cr_assert_eq(r.status, plain.status, "%s: status 0x%x under the profiler at %llu: %s%s",
		     c->name, r.status, (unsigned long long)limit, r.out, r.err);
	cr_assert_str_eq(r.out, plain.out, "%s", c->name);
	it_limits_check_lines(c, r.err);
	it_limits_check_run(c, strtol(c->count, NULL, 10));
	tst_result_release(&plain);
	tst_result_release(&r);
}

/*
 * PPROF_OUTPUT longer than a path can be (absolute, or relative to the
 * current directory): one line that says so, the program unchanged.
 */
Test(it_limits, output_path_too_long_is_one_line, .init = it_limits_init,
     .fini = it_limits_fini, .timeout = 60)
{
	const char *argv[] = { "workloads/tightthreads", "1", NULL };
	static char value[2][5100];
	struct tst_result plain, r;

	tst_run(&it_limits, "plain", argv, NULL, &plain);
	snprintf(value[0], sizeof(value[0]), "PPROF_OUTPUT=/tmp/%05000d", 0);
	snprintf(value[1], sizeof(value[1]), "PPROF_OUTPUT=%05000d", 0);
	for (int i = 0; i < 2; i++) {
		const char *env[] = { it_limits.env_preload, value[i], NULL };

		tst_run(&it_limits, "profiled", argv, env, &r);
		cr_assert_eq(r.status, plain.status, "%s", r.err);
		cr_assert_str_eq(r.out, plain.out);
		cr_expect_eq(tst_count_lines(r.err, ""), 1, "%s:\n%s", i ? "relative" : "absolute",
			     r.err);
		cr_expect(tst_find_line(r.err, "libpprof: PPROF_OUTPUT="), "%s", r.err);
		cr_expect(strstr(r.err, strerror(ENAMETOOLONG)) && strstr(r.err, "profiling is off"),
			  "the line does not say why: %s", r.err);
		cr_expect(!strstr(r.err, "configuration"), "%s", r.err);
		tst_result_release(&r);
	}
	tst_result_release(&plain);
}
