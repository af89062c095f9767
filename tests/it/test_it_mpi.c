/*
 * Integration: MPI and several hosts. A real 4-rank Open MPI program
 * (tests/workloads/mpi/imbalance.c) under mpirun -x LD_PRELOAD, every rank
 * named and its compute matched against its own figures; and two "hosts"
 * (UTS, network and pid namespaces, a shared output root) whose pids
 * clash, kept apart by every report.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ident.h"
#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_mpi;

static void it_mpi_setup(void)
{
	tst_init(&it_mpi);
}

static void it_mpi_teardown(void)
{
	tst_release(&it_mpi);
}

TestSuite(it_mpi, .init = it_mpi_setup, .fini = it_mpi_teardown, .timeout = 600);

#define IT_MPI_RANKS 4
/* CPU seconds of one unit of work: rank r burns (r + 1) units a round. */
#define IT_MPI_UNIT "0.03"
#define IT_MPI_ROUNDS "6"

/* The first of paths that is an executable file, or NULL. */
static const char *it_mpi_which(const char *const *paths)
{
	for (size_t i = 0; paths[i]; i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* The samples of burn_rank (in its stacks, self or not) of rank r. */
static uint64_t it_mpi_burn_samples(const struct pa_run *run, int32_t rank)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	const struct pa_func *fn;
	uint64_t n;

	f.event = 0;
	f.by_rank = true;
	f.rank = rank;
	cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_FUNCTION, &prof, NULL, &err), 0,
		     "%s", err.reason);
	fn = pa_profile_find(prof, "burn_rank");
	n = fn ? fn->total : 0;
	pa_profile_free(prof);
	return n;
}

/*
 * Runs mpirun -np 4 -x LD_PRELOAD -x PPROF_OUTPUT (-x PPROF_MODE in the
 * signal mode) [extra...] imbalance UNIT ROUNDS truth, with env added to
 * the preload's; asserts it exited 0 with every rank's line and no
 * libpprof line. Returns the CPU time the hypervisor took meanwhile.
 * Skips (visibly) where Open MPI is not installed or under ASan.
 */
static double it_mpi_run(const char *const *extra, const char *env, const char *unit,
			 const char *rounds, char *truth, size_t size)
{
	static const char *const mpiruns[] = { "/usr/bin/mpirun", "/usr/local/bin/mpirun", NULL };
	const char *mpirun = it_mpi_which(mpiruns);
	char prog[TST_PATH_MAX];
	const char *mode_env = tst_mode() == PPF_MODE_SIGNAL ? "PPROF_MODE" : NULL;
	const char *argv[32] = { mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "4",
				 "-x", "LD_PRELOAD", "-x", "PPROF_OUTPUT" };
	size_t n = 9;
	struct tst_result r;
	double steal;

	tst_skip_under_asan("mpirun starts its ranks itself, without libasan.so first");
	tst_build_path(prog, "workloads/mpi-imbalance");
	if (!mpirun || access(prog, X_OK) != 0)
		cr_skip_test("Open MPI is not installed here (no mpirun, or no %s: built where "
			     "mpicc is); make test installs openmpi-bin and libopenmpi-dev", prog);
	snprintf(truth, size, "%s/truth", it_mpi.tmp);
	cr_assert_eq(mkdir(truth, 0700), 0);
	if (mode_env) {
		argv[n++] = "-x";
		argv[n++] = mode_env;
	}
	for (size_t i = 0; extra && extra[i] && n < 26; i++)
		argv[n++] = extra[i];
	argv[n++] = prog;
	argv[n++] = unit;
	argv[n++] = rounds;
	argv[n++] = truth;
	argv[n] = NULL;
	steal = tst_steal_s();
	tst_run(&it_mpi, "mpirun", argv,
		(const char *const[]){ it_mpi.env_preload, it_mpi.env_output, env, NULL }, &r);
	steal = tst_steal_s() - steal;
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun: status 0x%x: %s",
		  r.status, r.err);
	cr_assert_eq(tst_count_lines(r.out, "rank "), IT_MPI_RANKS, "%s", r.out);
	cr_expect(!strstr(r.err, "libpprof:"), "%s", r.err);
	tst_result_release(&r);
	return steal;
}

/*
 * mpirun -np 4 -x LD_PRELOAD -x PPROF_OUTPUT imbalance: each rank is
 * profiled and named (RANK in processes, a row in ranks, nothing missing),
 * and the samples of each rank's burn_rank match the CPU time the rank
 * measured there, within what sampling explains: 4 standard deviations of
 * a count of that many periods, 5% for the kernel's split of ticks, and
 * the CPU time the hypervisor took meanwhile.
 */
Test(it_mpi, every_rank_named_and_its_compute_matches_its_own_figures)
{
	char truth[TST_PATH_MAX], file[TST_PATH_MAX + 32];
	const char *ranks_args[] = { "ranks", NULL }, *procs_args[] = { "processes", NULL };
	struct pa_run *run;
	double steal, period = 0.001;
	char *text;

	steal = it_mpi_run(NULL, NULL, IT_MPI_UNIT, IT_MPI_ROUNDS, truth, sizeof(truth));
	text = tst_analyze(&it_mpi, "ranks", ranks_args, it_mpi.data);
	cr_expect(strstr(text, " 4 ranks of world size 4\n"), "%s", text);
	cr_expect(!strstr(text, "have no profile"), "%s", text);
	/* No wall event: no WAIT column, and a note saying how to get one. */
	cr_expect(!strstr(text, "WAIT(s)") && strstr(text, "run with [sample wall]"), "%s", text);
	for (int k = 0; k < IT_MPI_RANKS; k++) {
		char row[16];

		snprintf(row, sizeof(row), "%6d  ", k);
		cr_expect(tst_find_line(text, row), "rank %d has no row:\n%s", k, text);
	}
	free(text);
	text = tst_analyze(&it_mpi, "processes", procs_args, it_mpi.data);
	cr_expect(strstr(text, " RANK "), "%s", text);
	free(text);

	run = tst_load(&it_mpi);
	for (int k = 0; k < IT_MPI_RANKS; k++) {
		double want, got, tol;

		snprintf(file, sizeof(file), "%s/rank-%d.truth", truth, k);
		want = tst_truth(file, "burn_rank") / period;
		got = (double)it_mpi_burn_samples(run, k);
		tol = 4 * sqrt(want) + 0.05 * want + (steal + 0.005) / period;
		cr_expect(fabs(got - want) <= tol,
			  "rank %d: %.0f samples of burn_rank, its own figure %.0f periods "
			  "(tolerance %.0f, steal %.3f s)", k, got, want, tol, steal);
	}
	pa_run_free(run);
}

/* The system CPU time of rank's main thread, in s (0 when not known). */
static double it_mpi_rank_system_s(const struct pa_run *run, int32_t rank)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		for (size_t k = 0; p->id.rank == rank && k < p->nthreads; k++)
			if (p->threads[k]->tid == p->pid)
				return (double)p->threads[k]->system_ns / 1e9;
	}
	return 0;
}

/*
 * The WAIT(s) and INMPI(s) of rank's row of the ranks report's text; the
 * test fails without a row that has both.
 */
static void it_mpi_row_wait(const char *text, int rank, double *wait, double *in_mpi)
{
	char row[16], host[256], cpu[32];
	const char *line;
	unsigned long procs, samples, mpi, compute;
	double pct;

	snprintf(row, sizeof(row), "%6d  ", rank);
	line = tst_find_line(text, row);
	cr_assert(line, "rank %d has no row:\n%s", rank, text);
	cr_assert_eq(sscanf(line, "%*d %255s %lu %lu %lu %lf%% %lu %31s %lf %lf", host, &procs,
			    &samples, &mpi, &pct, &compute, cpu, wait, in_mpi), 9,
		     "rank %d: no WAIT(s) and INMPI(s) in its row:\n%s", rank, text);
}

/*
 * The same program under [sample wall], its ranks busy-polling in their
 * waits (mpi_yield_when_idle 0): the wall time each rank spent in MPI calls
 * in the ranks report (INMPI: on the CPU or off it; WAIT, the part off
 * it, no more) matches the rank's own figure (MPI_Init to MPI_Finalize,
 * every call) within 10%, plus 4 standard deviations of a count of that
 * many periods, the CPU time the hypervisor took, and the rank's time in
 * the kernel (the wall event counts it above the stacks around it, some of
 * it onto the compute);
 * the waiting line names the rank whose own figure is the largest when
 * the figures are that far apart.
 */
Test(it_mpi, each_ranks_time_in_mpi_calls_matches_its_own_figure)
{
	static const char *const extra[] = { "-x", "PPROF_CONFIG", "--mca",
					     "mpi_yield_when_idle", "0", NULL };
	const char *ranks_args[] = { "ranks", NULL };
	char truth[TST_PATH_MAX], file[TST_PATH_MAX + 32], cfg[TST_CONFIG_ENV_MAX], line[64];
	double steal, period = 0.001, want[IT_MPI_RANKS], tol[IT_MPI_RANKS];
	int most = 0, second = -1;
	struct pa_run *run;
	char *text;

	tst_config_env(&it_mpi, "wall.ini", "[sample wall]\nperiod = 1ms\n", cfg);
	steal = it_mpi_run(extra, cfg, IT_MPI_UNIT, IT_MPI_ROUNDS, truth, sizeof(truth));
	run = tst_load(&it_mpi);
	text = tst_analyze(&it_mpi, "ranks", ranks_args, it_mpi.data);
	for (int k = 0; k < IT_MPI_RANKS; k++) {
		double wait, in_mpi, sys = it_mpi_rank_system_s(run, k);

		snprintf(file, sizeof(file), "%s/rank-%d.truth", truth, k);
		want[k] = tst_truth(file, "mpi_wall");
		tol[k] = 0.10 * want[k] + 4 * sqrt(want[k] / period) * period + steal + sys;
		it_mpi_row_wait(text, k, &wait, &in_mpi);
		cr_expect(fabs(in_mpi - want[k]) <= tol[k],
			  "rank %d: %.3f s in MPI calls, its own figure %.3f s (tolerance %.3f s: "
			  "steal %.3f s, its kernel time %.3f s)\n%s", k, in_mpi, want[k], tol[k],
			  steal, sys, text);
		cr_expect(wait >= 0 && wait <= in_mpi + period, "rank %d: WAIT %.3f s, INMPI %.3f s",
			  k, wait, in_mpi);
		if (k && want[k] > want[most]) {
			second = most;
			most = k;
		} else if (k && (second < 0 || want[k] > want[second])) {
			second = k;
		}
	}
	pa_run_free(run);
	snprintf(line, sizeof(line), "# waiting: rank %d spent the longest in MPI calls", most);
	if (want[most] - want[second] > tol[most] + tol[second])
		cr_expect(strstr(text, line), "rank %d waited longest (%.3f s, then rank %d %.3f s):"
			  "\n%s", most, want[most], second, want[second], text);
	free(text);
}

/*
 * The same program with its ranks yielding in their waits (Open MPI's way
 * when there are more ranks than cores; asked for here, so that it does
 * so on any machine): a wait loop that calls sched_yield, mostly in the
 * kernel and preempted at every call. Each rank's INMPI matches its own
 * figure within 10%, 10 periods (the loops' user time is sampled), the
 * CPU time the hypervisor took, and the rank's own time in the kernel in
 * MPI_Init and MPI_Finalize, which goes with the time MPI_Init spends in
 * the constructors of the components it loads, whose stacks stop inside
 * the objects being loaded (README: the handler's copy of the loaded
 * objects does not list them yet) and so are not in MPI; the time in the
 * loops counts through the preload's sched_yield (before it, ranks were
 * 16-59% short).
 */
Test(it_mpi, yielding_ranks_time_in_mpi_calls_matches_their_own_figure)
{
	static const char *const extra[] = { "-x", "PPROF_CONFIG", "--mca",
					     "mpi_yield_when_idle", "1", NULL };
	const char *ranks_args[] = { "ranks", NULL };
	char truth[TST_PATH_MAX], file[TST_PATH_MAX + 32], cfg[TST_CONFIG_ENV_MAX];
	double steal, period = 0.001;
	char *text;

	tst_config_env(&it_mpi, "wall.ini", "[sample wall]\nperiod = 1ms\n", cfg);
	steal = it_mpi_run(extra, cfg, IT_MPI_UNIT, IT_MPI_ROUNDS, truth, sizeof(truth));
	text = tst_analyze(&it_mpi, "ranks", ranks_args, it_mpi.data);
	for (int k = 0; k < IT_MPI_RANKS; k++) {
		double wait, in_mpi, want, sys, tol;

		snprintf(file, sizeof(file), "%s/rank-%d.truth", truth, k);
		want = tst_truth(file, "mpi_wall");
		sys = tst_truth(file, "mpi_init_system");
		/* INMPI is exact time but for the loops' sampled user time: a few periods. */
		tol = 0.10 * want + 10 * period + steal + sys;
		it_mpi_row_wait(text, k, &wait, &in_mpi);
		cr_expect(fabs(in_mpi - want) <= tol,
			  "rank %d: %.3f s in MPI calls, its own figure %.3f s (tolerance %.3f s: "
			  "steal %.3f s, its kernel time in MPI_Init and MPI_Finalize %.3f s)\n%s",
			  k, in_mpi, want, tol, steal, sys, text);
		cr_expect(wait >= 0 && wait <= in_mpi + period, "rank %d: WAIT %.3f s, INMPI %.3f s",
			  k, wait, in_mpi);
	}
	free(text);
}

/* Whether this process may make namespaces (root, and unshare works here). */
static bool it_mpi_can_unshare(char *why, size_t size)
{
	const char *argv[] = { "/usr/bin/unshare", "--uts", "--net", "--pid", "--fork",
			       "--mount-proc", "/bin/true", NULL };
	struct tst_result r;
	bool ok;

	if (geteuid() != 0) {
		snprintf(why, size, "not root: cannot make UTS, network and pid namespaces");
		return false;
	}
	if (access(argv[0], X_OK) != 0) {
		snprintf(why, size, "no %s (util-linux)", argv[0]);
		return false;
	}
	tst_run(&it_mpi, "unshare-check", argv, NULL, &r);
	ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
	if (!ok)
		snprintf(why, size, "unshare cannot make namespaces here (status 0x%x): %.200s",
			 r.status, r.err);
	tst_result_release(&r);
	return ok;
}

/* Runs forker as host (its UTS namespace's name), in a pid namespace of its own. */
static void it_mpi_host(const char *host)
{
	char forker[TST_PATH_MAX], script[4 * TST_PATH_MAX];
	const char *argv[] = { "/usr/bin/unshare", "--uts", "--net", "--pid", "--fork",
			       "--mount-proc", "/bin/sh", "-c", script, NULL };
	struct tst_result r;

	tst_build_path(forker, "workloads/forker");
	/* sh is pid 1 and hostname pid 2: forker is pid 3, its child 4, on every host. */
	snprintf(script, sizeof(script), "hostname %s && %s %s 0.1; status=$?; exit $status",
		 host, it_mpi.env_preload, forker);
	tst_run(&it_mpi, host, argv, (const char *const[]){ it_mpi.env_output, NULL }, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: status 0x%x: %s",
		  host, r.status, r.err);
	cr_assert_str_eq(r.out, "parent 3 child 4\n", "%s", r.out);
	tst_result_release(&r);
}

/*
 * Two hosts (UTS, network and pid namespaces) write into one output root;
 * on each, forker (pid 3) forks a child (pid 4). Every report keeps the four
 * processes apart, and each child under its own host's parent.
 */
Test(it_mpi, two_hosts_with_clashing_pids_are_kept_apart)
{
	const char *const reports[][4] = {
		{ "processes", NULL }, { "threads", NULL }, { "folded", "--per-thread", NULL },
		{ "script", NULL }, { "processes", "--pid", "4", NULL },
	};
	struct pa_run *run;
	char why[512], dir[TST_PATH_MAX + 64], *text;

	if (!it_mpi_can_unshare(why, sizeof(why)))
		cr_skip_test("cannot simulate two hosts: %s", why);
	it_mpi_host("ppfhosta");
	it_mpi_host("ppfhostb");
	/* Logs of their own, named for their hosts. */
	snprintf(dir, sizeof(dir), "%s/forker@ppfhosta.3.log", it_mpi.data);
	cr_expect_eq(access(dir, R_OK), 0, "no %s", dir);
	snprintf(dir, sizeof(dir), "%s/forker@ppfhostb.4.log", it_mpi.data);
	cr_expect_eq(access(dir, R_OK), 0, "no %s", dir);
	snprintf(dir, sizeof(dir), "%s/forker@ppfhostb.4.thread-4.log", it_mpi.data);
	cr_expect_eq(access(dir, R_OK), 0, "no %s", dir);

	run = tst_load(&it_mpi);
	cr_assert_eq(run->nprocesses, 4);
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];

		cr_expect(p->id.known && (strcmp(p->id.host, "ppfhosta") == 0 ||
					  strcmp(p->id.host, "ppfhostb") == 0),
			  "pid %u: host %s", p->pid, p->id.host ? p->id.host : "(none)");
	}
	pa_run_free(run);

	text = tst_analyze(&it_mpi, "processes", reports[0], it_mpi.data);
	/* Each child (pid 4) is indented under its own host's parent (pid 3). */
	for (int h = 0; h < 2; h++) {
		char parent[128], child[128];
		const char *host = h ? "ppfhostb" : "ppfhosta";
		const char *p, *c;

		snprintf(parent, sizeof(parent), "       3        1 %s ", host);
		snprintf(child, sizeof(child), "       4        3 %s ", host);
		p = tst_find_line(text, parent);
		c = tst_find_line(text, child);
		cr_expect(p && c, "%s", text);
		cr_expect(c && strstr(c, "    forker  exit 0"), "%s", text);
		cr_expect(p && c && strchr(p, '\n') + 1 == c, "the child of %s is not under its "
			  "parent:\n%s", host, text);
	}
	free(text);
	text = tst_analyze(&it_mpi, "threads", reports[1], it_mpi.data);
	cr_expect_eq(tst_count_lines(text, "       3        3 ppfhost"), 2, "%s", text);
	cr_expect_eq(tst_count_lines(text, "       4        4 ppfhost"), 2, "%s", text);
	free(text);
	text = tst_analyze(&it_mpi, "folded", reports[2], it_mpi.data);
	cr_expect(strstr(text, "forker (3, ppfhosta);forker (3);") &&
		  strstr(text, "forker (3, ppfhostb);forker (3);") &&
		  strstr(text, "forker (4, ppfhosta);forker (4);") &&
		  strstr(text, "forker (4, ppfhostb);forker (4);"), "%s", text);
	free(text);
	text = tst_analyze(&it_mpi, "script", reports[3], it_mpi.data);
	cr_expect(tst_count_lines(text, "ppfhosta:forker 3 ") > 0 &&
		  tst_count_lines(text, "ppfhostb:forker 3 ") > 0 &&
		  tst_count_lines(text, "ppfhosta:forker 4 ") > 0 &&
		  tst_count_lines(text, "ppfhostb:forker 4 ") > 0, "script: COMM without the host");
	free(text);
	text = tst_analyze(&it_mpi, "processes-pid", reports[4], it_mpi.data);
	cr_expect_eq(tst_count_lines(text, "       4        3 ppfhost"), 2, "%s", text);
	free(text);
	{
		const char *args[] = { "processes", "--pid", "4", "--host", "ppfhostb", NULL };

		text = tst_analyze(&it_mpi, "processes-host", args, it_mpi.data);
		cr_expect_eq(tst_count_lines(text, "       4        3 ppfhostb"), 1, "%s", text);
		cr_expect_eq(tst_count_lines(text, "       4        3 ppfhosta"), 0, "%s", text);
		free(text);
	}
}
