/*
 * Integration: what a run leaves on disk is what it recorded. A finished
 * log (its thread or process ended) is cut at the end of its last record:
 * no allocated tail of zeros is left behind, and the analyzer reads the
 * cut logs as before. A process that takes no sample makes no directory:
 * its log alone at the root, <exe>.<pid>.log, which `processes` lists.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pprof/format.h"
#include "tst_it.h"

static struct tst_it it_smallrun;

static void it_smallrun_init(void)
{
	tst_init(&it_smallrun);
}

static void it_smallrun_fini(void)
{
	tst_release(&it_smallrun);
}

TestSuite(it_smallrun, .init = it_smallrun_init, .fini = it_smallrun_fini, .timeout = 240);

/* Runs argv under the preload; expects exit 0 and nothing said by the preload. */
static void it_smallrun_run(const char *tag, const char *const *argv)
{
	struct tst_result r;

	tst_run_profiled(&it_smallrun, tag, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: status 0x%x, stderr: %s", argv[0], r.status, r.err);
	cr_expect_null(strstr(r.err, "libpprof:"), "the preload said something: %s", r.err);
	tst_result_release(&r);
}

/*
 * The offset where path's records end: after the last whole record, at a
 * zero record header or at the end of the file. *len gets the file's size.
 */
static size_t it_smallrun_records_end(const char *path, size_t *len)
{
	char *buf = tst_slurp(path, len);
	const struct ppf_file_header *h = (const void *)buf;
	size_t off;

	cr_assert_geq(*len, sizeof(*h), "%s: %zu bytes, no header", path, *len);
	cr_assert_eq(memcmp(h->magic, PPF_MAGIC, PPF_MAGIC_LEN), 0, "%s: no magic", path);
	off = h->header_size;
	while (off + sizeof(struct ppf_record) <= *len) {
		struct ppf_record rec;

		memcpy(&rec, buf + off, sizeof(rec));
		if (rec.type == 0 && rec.size == 0)
			break;
		cr_assert(rec.size >= sizeof(rec) && rec.size <= *len - off,
			  "%s: record of type %u and size %u at offset %zu", path, rec.type,
			  rec.size, off);
		off += rec.size;
	}
	free(buf);
	return off;
}

/* path ends where its records end. */
static void it_smallrun_check_end(const char *path)
{
	size_t len, end = it_smallrun_records_end(path, &len);

	cr_expect_eq(end, len, "%s: %zu bytes, its records end at %zu (a tail of %zu bytes "
		     "left)", path, len, end, len - end);
}

/*
 * Every log of the run (each process's log, in its directory or alone at
 * the root, and the thread logs) ends where its records end; returns how
 * many logs were looked at.
 */
static unsigned it_smallrun_check_ends(const struct pa_run *run)
{
	unsigned files = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *proc = run->processes[i];

		it_smallrun_check_end(proc->path);
		files++;
		for (size_t k = 0; k < proc->nthreads; k++) {
			char path[TST_PATH_MAX], what[64];

			snprintf(what, sizeof(what), "%s%u%s", PPF_THREAD_LOG_PREFIX,
				 proc->threads[k]->tid, PPF_LOG_SUFFIX);
			tst_process_file(proc, what, path, sizeof(path));
			if (access(path, F_OK) != 0)
				continue;
			it_smallrun_check_end(path);
			files++;
		}
	}
	return files;
}

Test(it_smallrun, finished_logs_end_at_their_last_record)
{
	/* A sampled main thread and a thread that takes no sample. */
	const char *argv[] = { "workloads/quietthreads", "busy", "0.3", NULL };
	struct pa_run *run;
	const struct pa_process *proc;

	it_smallrun_run("busy", argv);
	run = tst_load(&it_smallrun);
	cr_assert_eq(run->nprocesses, 1, "%zu processes", run->nprocesses);
	proc = run->processes[0];
	cr_expect(proc->ended, "the process has no END record");
	cr_expect_gt(proc->samples_taken, 0, "0.3 s of CPU and no sample");
	cr_expect_geq(it_smallrun_check_ends(run), 2, "no process.log and thread log looked at");
	pa_run_free(run);
}

/*
 * How many entries of the run's root are directories, process logs and
 * thread logs (*.log files, by their headers' kind).
 */
static void it_smallrun_root(unsigned *dirs, unsigned *logs, unsigned *threads)
{
	DIR *d = opendir(it_smallrun.data);
	struct dirent *e;

	cr_assert_not_null(d, "opendir %s", it_smallrun.data);
	*dirs = *logs = *threads = 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		struct ppf_file_header h;
		struct stat st;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		cr_assert_eq(fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW), 0, "%s/%s",
			     it_smallrun.data, e->d_name);
		if (S_ISDIR(st.st_mode))
			(*dirs)++;
		if (!S_ISREG(st.st_mode) || len <= 4 || strcmp(e->d_name + len - 4, ".log") != 0)
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
		cr_assert_geq(fd, 0);
		cr_assert_eq(read(fd, &h, sizeof(h)), (ssize_t)sizeof(h), "%s", e->d_name);
		close(fd);
		*logs += h.kind == PPF_FILE_PROCESS;
		*threads += h.kind == PPF_FILE_THREAD;
	}
	closedir(d);
}

/* pprof-analyze processes on the run: expects exit 0; its stdout, malloc'd. */
static char *it_smallrun_processes(void)
{
	const char *argv[] = { "pprof-analyze", "processes", it_smallrun.data, NULL };
	struct tst_result r;
	char *out;

	tst_run(&it_smallrun, "processes", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "pprof-analyze processes: status 0x%x, stderr: %s", r.status, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

Test(it_smallrun, sampleless_processes_leave_no_directory_and_are_listed)
{
	/* quietthreads, idle, execs /bin/true: two images, neither takes a sample. */
	const char *argv[] = { "workloads/quietthreads", "exec", NULL };
	struct pa_run *run;
	unsigned dirs, logs, threads;
	char *out;

	it_smallrun_run("exec", argv);
	run = tst_load(&it_smallrun);
	cr_assert_eq(run->nprocesses, 2, "%zu processes, not quietthreads and true",
		     run->nprocesses);
	for (size_t i = 0; i < run->nprocesses; i++)
		cr_assert_eq(run->processes[i]->samples_taken, 0,
			     "%s took a sample: the test needs processes that take none",
			     run->processes[i]->exe);
	it_smallrun_root(&dirs, &logs, &threads);
	cr_expect_eq(dirs, 0, "%u directories at the root of a run with no sample", dirs);
	cr_expect_eq(logs, 2, "%u process logs at the root, not 2", logs);
	cr_expect_eq(threads, 0, "%u thread logs in a run with no sample", threads);
	out = it_smallrun_processes();
	cr_expect(strstr(out, "quietthreads") && strstr(out, " exec "),
		  "processes names no quietthreads that went to an exec:\n%s", out);
	cr_expect(strstr(out, "true") && strstr(out, "exit 0"),
		  "processes names no true that exited 0:\n%s", out);
	free(out);
	pa_run_free(run);
}

/*
 * A process that took samples has its thread logs beside its log at the
 * root, <name>.thread-<tid>.log; no process makes a directory.
 */
Test(it_smallrun, sampled_process_logs_its_threads_beside_its_log)
{
	/* The shell takes no sample; quietthreads does. */
	const char *argv[] = { "/bin/sh", "-c", "\"$0\" busy 0.3", NULL, NULL };
	char prog[TST_PATH_MAX];
	struct pa_run *run;
	const struct pa_process *sampled = NULL;
	unsigned dirs, logs, threads;

	tst_build_path(prog, "workloads/quietthreads");
	argv[3] = prog;
	it_smallrun_run("shell", argv);
	run = tst_load(&it_smallrun);
	for (size_t i = 0; i < run->nprocesses; i++)
		if (run->processes[i]->samples_taken)
			sampled = run->processes[i];
	cr_assert_not_null(sampled, "0.3 s of CPU and no sample in %zu processes",
			   run->nprocesses);
	cr_expect_not_null(strstr(sampled->exe, "quietthreads"), "%s took the samples",
			   sampled->exe);
	it_smallrun_root(&dirs, &logs, &threads);
	cr_expect_eq(dirs, 0, "%u directories at the root", dirs);
	cr_expect_eq(logs, run->nprocesses, "%u process logs at the root for %zu processes", logs,
		     run->nprocesses);
	cr_expect_geq(threads, 1, "no thread log at the root");
	for (size_t i = 0; i < sampled->nthreads; i++) {
		char path[TST_PATH_MAX], what[64];

		snprintf(what, sizeof(what), "thread-%u.log", sampled->threads[i]->tid);
		tst_process_file(sampled, what, path, sizeof(path));
		cr_expect(access(path, F_OK) != 0 || strncmp(path, it_smallrun.data,
							     strlen(it_smallrun.data)) == 0,
			  "%s", path);
		threads -= access(path, F_OK) == 0;
	}
	cr_expect_eq(threads, 0, "thread logs at the root that are not the sampled process's");
	cr_expect_geq(it_smallrun_check_ends(run), 3, "too few logs looked at");
	pa_run_free(run);
}
