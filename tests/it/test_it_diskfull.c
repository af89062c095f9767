/*
 * Integration: the output directory fills up while 8 busy threads are
 * sampled. On a loop-mounted ext2 (no fallocate: the logs grow by writing
 * zeros), on a full tmpfs, and under a file size limit (ulimit -f), the
 * program's output and exit status stay those of an unprofiled run, one
 * libpprof: line names the cause, and every log is read up to its last
 * whole record: finished (END records), marked as stopped early, with the
 * samples that did not fit counted as lost.
 *
 * Mounting needs root: the mounts are made in a mount namespace of the
 * test's own, so they go away with the test process even when it is killed,
 * and are unmounted in .fini besides. Where they cannot be made the case
 * is skipped with the reason.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"

/*
 * Threads and CPU seconds each: about 300 KB of samples at 100 us (each
 * stack once: 8 bytes a sample), more than the space of the file systems
 * (160 KiB free).
 */
#define DISKFULL_THREADS "8"
#define DISKFULL_SECONDS "0.4"
#define DISKFULL_BYTES (160 << 10)
/* ext2's own tables take about 100 KiB of an image this small. */
#define DISKFULL_EXT2_BYTES (256 << 10)

static struct tst_it it_diskfull;
static int it_diskfull_mounted;

static void it_diskfull_init(void)
{
	tst_init(&it_diskfull);
	it_diskfull_mounted = 0;
}

static void it_diskfull_fini(void)
{
	if (it_diskfull_mounted)
		umount2(it_diskfull.data, MNT_DETACH);
	tst_release(&it_diskfull);
}

struct it_diskfull_case {
	char fs[16];     /* "ext2", "tmpfs" or "ulimit" (no mount) */
	char reason[48]; /* what the libpprof: line and the analyzer say */
	int error;       /* the errno the full logs record */
};

ParameterizedTestParameters(it_diskfull, program_runs_on_and_logs_read)
{
	static struct it_diskfull_case cases[] = {
		{ "ext2", "No space left on device", ENOSPC },
		{ "tmpfs", "No space left on device", ENOSPC },
		{ "ulimit", "File too large", EFBIG },
	};

	return cr_make_param_array(struct it_diskfull_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/* Runs a command that must succeed to set the file system up; else skips. */
static void it_diskfull_setup_cmd(const char *tag, const char *const *argv)
{
	struct tst_result r;

	tst_run(&it_diskfull, tag, argv, NULL, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		cr_skip_test("cannot set up a small %s here (%s: status 0x%x): %s", tag,
			     argv[0], r.status, r.err);
	tst_result_release(&r);
}

/*
 * Mounts a small file system of kind fs on it->data, in a mount namespace
 * of this test process's own. Skips the test when that cannot be done.
 */
static void it_diskfull_mount(const char *fs)
{
	char img[TST_PATH_MAX];
	const char *mkfs[] = { "/sbin/mkfs.ext2", "-q", "-F", img, NULL };
	const char *loop[] = { "/bin/mount", "-o", "loop", img, it_diskfull.data, NULL };
	FILE *f;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		cr_skip_test("cannot make a mount namespace to mount a small %s in (%s; "
			     "needs root)", fs, strerror(errno));
	cr_assert_eq(mkdir(it_diskfull.data, 0700), 0);
	if (strcmp(fs, "tmpfs") == 0) {
		if (mount("tmpfs", it_diskfull.data, "tmpfs", 0, "size=160k,mode=0700") != 0)
			cr_skip_test("cannot mount a 160 KiB tmpfs: %s", strerror(errno));
		it_diskfull_mounted = 1;
		return;
	}
	snprintf(img, sizeof(img), "%s/ext2.img", it_diskfull.tmp);
	f = fopen(img, "w");
	cr_assert(f && ftruncate(fileno(f), DISKFULL_EXT2_BYTES) == 0 && fclose(f) == 0, "%s: %s",
		  img, strerror(errno));
	it_diskfull_setup_cmd("ext2", mkfs);
	it_diskfull_setup_cmd("ext2", loop);
	it_diskfull_mounted = 1;
}

/* The widethreads process of the run, asserted to be there. */
static const struct pa_process *it_diskfull_process(const struct pa_run *run)
{
	for (size_t i = 0; i < run->nprocesses; i++)
		if (pa_process_runs(run->processes[i], "widethreads"))
			return run->processes[i];
	cr_assert_fail("no widethreads process in the run");
	return NULL;
}

/*
 * What the analyzer reads: a finished process, every thread log finished
 * and read up to its last record (as many samples as the writer counted),
 * some stopped early for c's reason with their later samples counted as
 * lost, and one warning saying so.
 */
static void it_diskfull_check_logs(const struct it_diskfull_case *c)
{
	struct pa_run *run = tst_load(&it_diskfull);
	const struct pa_process *proc = it_diskfull_process(run);
	size_t full = 0, said = 0;

	cr_expect(proc->ended, "%s: process.log has no END record", c->fs);
	cr_expect_eq(proc->nthreads, 9, "%s: %zu thread logs", c->fs, proc->nthreads);
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];
		uint64_t read = tst_samples_read(t);

		cr_expect(t->ended, "%s: thread %u: no END record", c->fs, t->tid);
		cr_expect_eq(read, t->samples_taken, "%s: thread %u: %llu overflows read in "
			     "%zu samples, %llu written", c->fs, t->tid, (unsigned long long)read,
			     t->nsamples, (unsigned long long)t->samples_taken);
		if (!t->full.full)
			continue;
		full++;
		cr_expect_eq(t->full.error, c->error, "%s: thread %u stopped with errno %d",
			     c->fs, t->tid, t->full.error);
		cr_expect_gt(t->lost, 0, "%s: thread %u stopped early, lost nothing",
			     c->fs, t->tid);
	}
	cr_expect_gt(full, 0, "%s: no thread log stopped early", c->fs);
	for (size_t i = 0; i < run->warnings.n; i++) {
		const char *w = run->warnings.v[i].reason;

		said += strstr(w, "stopped early") && strstr(w, c->reason);
		cr_expect(!strstr(w, "not finalised"), "%s: %s: %s", c->fs,
			  run->warnings.v[i].path, w);
	}
	cr_expect_eq(said, 1, "%s: %zu warnings that logs stopped early", c->fs, said);
	pa_run_free(run);
}

/* `pprof-analyze threads` reads the run, exit 0, and marks the full logs. */
static void it_diskfull_check_report(const struct it_diskfull_case *c)
{
	const char *argv[] = { "pprof-analyze", "threads", it_diskfull.data, NULL };
	struct tst_result r;

	tst_run(&it_diskfull, "threads", argv, NULL, &r);
	cr_expect_eq(r.status, 0, "%s: pprof-analyze threads: status 0x%x: %s", c->fs,
		     r.status, r.err);
	cr_expect(strstr(r.out, "  full "), "%s: no log shown as full:\n%s", c->fs, r.out);
	cr_expect(strstr(r.err, "stopped early"), "%s: stderr: %s", c->fs, r.err);
	tst_result_release(&r);
}

/*
 * The command line of the case: widethreads, under a file size limit for
 * "ulimit" (through sh: ulimit -f counts 512-byte blocks in dash, so 16
 * KiB per file). plain: a short run, for the output of an unprofiled one
 * (which does not depend on how long the threads burn).
 */
static void it_diskfull_argv(const struct it_diskfull_case *c, bool plain, char *buf,
			     size_t size, const char **argv)
{
	const char *seconds = plain ? "0.01" : DISKFULL_SECONDS;
	char wide[TST_PATH_MAX];

	tst_build_path(wide, "workloads/widethreads");
	if (strcmp(c->fs, "ulimit") == 0) {
		snprintf(buf, size, "ulimit -f 32 && exec %s %s %s", wide,
			 DISKFULL_THREADS, seconds);
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = buf;
		argv[3] = NULL;
		return;
	}
	argv[0] = "workloads/widethreads";
	argv[1] = DISKFULL_THREADS;
	argv[2] = seconds;
	argv[3] = NULL;
}

ParameterizedTest(struct it_diskfull_case *c, it_diskfull, program_runs_on_and_logs_read,
		  .init = it_diskfull_init, .fini = it_diskfull_fini, .timeout = 240)
{
	char cmd[TST_PATH_MAX * 2], plain_cmd[TST_PATH_MAX * 2];
	char config[TST_CONFIG_ENV_MAX];
	const char *argv[4], *plain_argv[4];
	struct tst_result r, plain;

	if (strcmp(c->fs, "ulimit") != 0)
		it_diskfull_mount(c->fs);
	it_diskfull_argv(c, false, cmd, sizeof(cmd), argv);
	it_diskfull_argv(c, true, plain_cmd, sizeof(plain_cmd), plain_argv);
	tst_config_env(&it_diskfull, "fast.ini", "[sample cpu-clock]\nperiod = 100us\n",
			 config);
	tst_run(&it_diskfull, "plain", plain_argv, NULL, &plain);
	cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s",
		  plain.err);
	tst_run_profiled(&it_diskfull, "wide", argv, config, &r);
	cr_assert_eq(r.status, plain.status, "%s: status 0x%x, unprofiled 0x%x: %s", c->fs,
		     r.status, plain.status, r.err);
	cr_assert_str_eq(r.out, plain.out);
	cr_expect_eq(tst_count_lines(r.err, "libpprof: "), 1, "%s: stderr: %s", c->fs, r.err);
	cr_expect(strstr(r.err, c->reason) && strstr(r.err, it_diskfull.data),
		  "%s: the line does not name the directory and '%s': %s", c->fs,
		  c->reason, r.err);
	cr_expect_eq(tst_count_lines(r.err, ""), 1, "%s: more on stderr than the line: %s",
		     c->fs, r.err);
	it_diskfull_check_logs(c);
	it_diskfull_check_report(c);
	tst_result_release(&r);
	tst_result_release(&plain);
}
