/*
 * pprof-analyze's memory follows the distinct stacks of a run, not its
 * samples: a run with four times the samples of the same stacks must not
 * make `top` (or `folded`) take more memory in proportion. Runs are made
 * by hand (tst_log): 64 stacks of 32 frames, repeated; and, for many
 * processes of few stacks (an MPI job), by build/bench/rankgen.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

#define AM_STACKS 64
#define AM_FRAMES 32

/* A run of one process, one thread and n samples in dir/app.5/; returns the log's size. */
static off_t am_make_run(const char *dir, unsigned n)
{
	char *pdir = tst_log_subdir(dir, "app.5");
	uint64_t ips[AM_FRAMES];
	struct tst_log l;
	char path[4096];
	struct stat st;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 5, 1, "/usr/bin/app", NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 1000 + 1000ull * n, n, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 5, 5, 1000, "main");
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < AM_FRAMES; k++)
			ips[k] = 0x10000000u + 0x100u * k + (k == 0 ? i % AM_STACKS : 0);
		tst_log_sample(&l, 1000 + 1000ull * i, 0, 0, AM_FRAMES, ips);
	}
	tst_log_thread_end(&l, 1000 + 1000ull * n, n, 0, 0);
	tst_log_write(&l, pdir, "thread-5.log");
	snprintf(path, sizeof(path), "%s/thread-5.log", pdir);
	cr_assert_eq(stat(path, &st), 0);
	free(pdir);
	return st.st_size;
}

/*
 * Runs `pprof-analyze REPORT DIR` and returns its peak RSS in KiB; checks
 * its header line when n is not 0.
 */
static long am_peak_kib(const char *report, const char *dir, unsigned n)
{
	char analyze[TST_PATH_MAX], out[4096], want[64];
	struct rusage ru;
	int status, fd;
	pid_t pid;

	tst_build_path(analyze, "pprof-analyze");
	snprintf(out, sizeof(out), "%s.%s.out", dir, report);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		execl(analyze, analyze, report, dir, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s: status 0x%x",
		  report, dir, status);
	if (n && strcmp(report, "top") == 0) {
		char *text = tst_slurp(out, NULL);

		snprintf(want, sizeof(want), " %u,%03u samples,", n / 1000, n % 1000);
		cr_assert(strstr(text, want), "top should count %u samples:\n%s", n, text);
		free(text);
	}
	unlink(out);
	return ru.ru_maxrss;
}

TestSuite(analyze_memory, .timeout = 120);

Test(analyze_memory, grows_with_distinct_stacks_not_samples)
{
	const unsigned small = 100000, large = 400000;
	char *dir = tst_log_tmpdir();
	char *a = tst_log_subdir(dir, "small"), *b = tst_log_subdir(dir, "large");
	long grown_log = (long)((am_make_run(b, large) - am_make_run(a, small)) / 1024);

	for (size_t r = 0; r < 2; r++) {
		const char *report = r ? "folded" : "top";
		long ka = am_peak_kib(report, a, small), kb = am_peak_kib(report, b, large);

		/* Holding samples or their mapped log grows by at least the log's growth. */
		cr_expect_lt(kb - ka, grown_log / 8,
			     "%s: peak %ld KiB for %u samples, %ld KiB for %u (the log grew "
			     "by %ld KiB)", report, ka, small, kb, large, grown_log);
	}
	free(a);
	free(b);
	tst_log_rmdir(dir);
}

/* Writes a run of ranks ranks x 3 threads (1,000 + 2 x 100 samples each) into dir/name. */
static char *am_make_ranks(const char *dir, const char *name, unsigned ranks)
{
	char gen[TST_PATH_MAX], count[16], *out = tst_log_subdir(dir, name);
	int status;
	pid_t pid;

	tst_build_path(gen, "bench/rankgen");
	snprintf(count, sizeof(count), "%u", ranks);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(gen, gen, out, count, "3", "1000", (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rankgen %u: status 0x%x", ranks,
		  status);
	return out;
}

/*
 * Many small processes (ranks of 3 threads, the same few stacks in each):
 * what the analyzer holds per process is its records, not room for a
 * thousand frames or an error message each. Seen: 23 KiB more per rank
 * (a 4 KiB frame block per thread, 4 KiB of error per process, the
 * doubling's slack of events), 4 KiB after.
 */
#define AM_RANK_KIB 12

Test(analyze_memory, small_processes_hold_little_each)
{
	const unsigned few = 128, many = 640;
	char *dir = tst_log_tmpdir();
	char *a = am_make_ranks(dir, "few", few), *b = am_make_ranks(dir, "many", many);

	for (size_t r = 0; r < 2; r++) {
		const char *report = r ? "ranks" : "top";
		long ka = am_peak_kib(report, a, 0), kb = am_peak_kib(report, b, 0);
		double per_rank = (double)(kb - ka) / (many - few);

		cr_expect(per_rank < AM_RANK_KIB,
			  "%s: peak %ld KiB for %u ranks, %ld KiB for %u: %.1f KiB more a rank",
			  report, ka, few, kb, many, per_rank);
	}
	free(a);
	free(b);
	tst_log_rmdir(dir);
}
