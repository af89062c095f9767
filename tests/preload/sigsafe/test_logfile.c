/*
 * The log writer (preload/logfile.c) against the analyzer's reader: what the
 * writer puts in a thread log is what the reader gives back, across chunk
 * growth and without a final close (a killed process).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof/format.h"
#include "reader.h"
#include "sigsafe/logfile.h"

static char logfile_dir[64];
static int logfile_dirfd = -1;

static void logfile_setup(void)
{
	snprintf(logfile_dir, sizeof(logfile_dir), "/tmp/pp-logfile-XXXXXX");
	cr_assert_not_null(mkdtemp(logfile_dir));
	logfile_dirfd = open(logfile_dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(logfile_dirfd, 0);
}

static void logfile_teardown(void)
{
	char cmd[128];

	close(logfile_dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", logfile_dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(logfile, .init = logfile_setup, .fini = logfile_teardown, .timeout = 30);

/* A deterministic stack for sample i: depth 1..40, addresses from i. */
static unsigned logfile_depth(unsigned i)
{
	return 1 + (i * 7) % 40;
}

static uint64_t logfile_ip(unsigned i, unsigned k)
{
	return 0x400000ull + (uint64_t)i * 0x100 + k;
}

/* Bytes of a log holding the records logfile_write_thread, a name and an end write. */
static uint64_t logfile_bytes(unsigned nsamples)
{
	uint64_t n = sizeof(struct ppf_file_header) + sizeof(struct ppf_thread) +
		     sizeof(struct ppf_thread_name) + sizeof(struct ppf_thread_end);

	for (unsigned i = 0; i < nsamples; i++)
		n += ppf_sample_size(logfile_depth(i));
	return n;
}

static void logfile_write_thread(struct pp_logfile *log, unsigned nsamples)
{
	struct ppf_thread th = { .h = { PPF_REC_THREAD, sizeof(th) } };

	th.pid = 100;
	th.tid = 101;
	th.start_ns = 5;
	snprintf(th.name, sizeof(th.name), "worker");
	cr_assert_eq(pp_logfile_append_sigsafe(log, &th, sizeof(th)), 0);
	for (unsigned i = 0; i < nsamples; i++) {
		unsigned n = logfile_depth(i);
		/* Reserve for the deepest stack, commit what was used. */
		struct ppf_sample *s = pp_logfile_reserve_sigsafe(log,
								  ppf_sample_size(64));

		cr_assert_not_null(s, "reserve failed at sample %u", i);
		s->time_ns = 1000 + i;
		s->event = 0;
		s->nframes = (uint16_t)n;
		for (unsigned k = 0; k < n; k++)
			s->ips[k] = logfile_ip(i, k);
		pp_logfile_commit_sigsafe(log, s, PPF_REC_SAMPLE,
					  ppf_sample_size(n));
	}
}

static void logfile_check_samples(const struct pa_thread *t, unsigned nsamples)
{
	cr_assert_eq(t->pid, 100);
	cr_assert_eq(t->tid, 101);
	cr_assert_eq(t->nsamples, nsamples);
	for (unsigned i = 0; i < nsamples; i++) {
		const struct pa_sample *s = &t->samples[i];

		cr_assert_eq(s->time_ns, 1000 + i);
		cr_assert_eq(s->nframes, logfile_depth(i), "sample %u", i);
		for (unsigned k = 0; k < s->nframes; k++)
			cr_assert_eq(s->ips[k], logfile_ip(i, k), "sample %u frame %u", i, k);
	}
}

Test(logfile, round_trip_across_window_moves)
{
	/* About 10 MiB of samples: the writer moves its window twice. */
	const unsigned nsamples = 60000;
	struct ppf_thread_end end = { .h = { PPF_REC_THREAD_END, sizeof(end) } };
	struct ppf_thread_name nm = { .h = { PPF_REC_THREAD_NAME, sizeof(nm) } };
	struct pa_thread *t = NULL;
	struct pa_warnings warn = { 0 };
	struct pa_error err;
	struct pp_logfile log;
	char path[128];
	struct stat st;

	cr_assert_eq(pp_logfile_create_sigsafe(&log, logfile_dirfd, "thread-101.log",
					       PPF_FILE_THREAD), 0);
	logfile_write_thread(&log, nsamples);
	snprintf(nm.name, sizeof(nm.name), "renamed");
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &nm, sizeof(nm)), 0);
	end.samples = nsamples;
	end.lost = 3;
	end.end_ns = 99999;
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);

	snprintf(path, sizeof(path), "%s/thread-101.log", logfile_dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_gt(logfile_bytes(nsamples), 2 * PP_LOGFILE_WINDOW,
		     "the test must move the window");
	cr_assert_eq((uint64_t)st.st_size, logfile_bytes(nsamples),
		     "a closed log ends at its last record (%llu bytes, %llu written)",
		     (unsigned long long)st.st_size, (unsigned long long)logfile_bytes(nsamples));
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	logfile_check_samples(t, nsamples);
	cr_assert(t->ended);
	cr_assert_eq(t->samples_taken, nsamples);
	cr_assert_eq(t->lost, 3);
	cr_assert_str_eq(t->name, "renamed");
	cr_assert_eq(warn.n, 0, "a finished log loads without warnings");
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

Test(logfile, unclosed_log_keeps_every_sample)
{
	/* What a SIGKILL leaves: the mapping is gone, no END, zeros after. */
	struct pa_thread *t = NULL;
	struct pa_warnings warn = { 0 };
	struct pa_error err;
	struct pp_logfile log;
	char path[128];

	cr_assert_eq(pp_logfile_create_sigsafe(&log, logfile_dirfd, "thread-101.log",
					       PPF_FILE_THREAD), 0);
	logfile_write_thread(&log, 2000);
	pp_logfile_forget_sigsafe(&log);

	snprintf(path, sizeof(path), "%s/thread-101.log", logfile_dir);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	logfile_check_samples(t, 2000);
	cr_assert_not(t->ended);
	cr_assert_geq(warn.n, 1, "an unfinished log is reported");
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

Test(logfile, create_refuses_existing_file)
{
	struct pp_logfile log, again;

	cr_assert_eq(pp_logfile_create_sigsafe(&log, logfile_dirfd, "thread-7.log",
					       PPF_FILE_THREAD), 0);
	cr_assert_lt(pp_logfile_create_sigsafe(&again, logfile_dirfd, "thread-7.log",
					       PPF_FILE_THREAD), 0);
	cr_assert_eq(again.fd, -1);
	pp_logfile_close_sigsafe(&log);
}

Test(logfile, format_name)
{
	char buf[64];

	pp_logfile_format_name_sigsafe(buf, "thread-", 4194303, ".log");
	cr_assert_str_eq(buf, "thread-4194303.log");
	pp_logfile_format_name_sigsafe(buf, "thread-", 0, ".log");
	cr_assert_str_eq(buf, "thread-0.log");
}

/*
 * The app closes our descriptor and opens a file of its own, which gets the
 * same number: the writer must never grow, map or close the app's file.
 */
Test(logfile, never_touches_a_reused_descriptor)
{
	struct pp_logfile log;
	struct stat st;
	char path[128];
	int fd, app_fd, reserved = 0;

	cr_assert_eq(pp_logfile_create_sigsafe(&log, logfile_dirfd, "thread-5.log",
					       PPF_FILE_THREAD), 0);
	fd = log.fd;
	close(fd);
	snprintf(path, sizeof(path), "%s/app-file", logfile_dir);
	app_fd = open(path, O_RDWR | O_CREAT, 0600);
	/* Our descriptors sit high: the app takes the number with dup2. */
	if (app_fd != fd) {
		cr_assert_eq(dup2(app_fd, fd), fd);
		close(app_fd);
		app_fd = fd;
	}
	cr_assert_eq(write(app_fd, "app", 3), 3);
	/* Enough records to need more room than the first allocation. */
	for (unsigned i = 0; i < 2 * PP_LOGFILE_STEP / 64; i++)
		reserved += pp_logfile_append_sigsafe(&log, &(struct ppf_thread_name){
			.h = { PPF_REC_THREAD_NAME, sizeof(struct ppf_thread_name) } },
			sizeof(struct ppf_thread_name)) == 0;
	cr_assert_lt(reserved, 2 * PP_LOGFILE_STEP / 64, "the log grew through a foreign fd");
	pp_logfile_close_sigsafe(&log);
	cr_assert_eq(fstat(app_fd, &st), 0, "the writer closed the app's descriptor");
	cr_assert_eq(st.st_size, 3, "the app's file was resized to %lld", (long long)st.st_size);
	close(app_fd);
}

/* Writes samples (logfile_write_thread's) into log until it refuses one; returns how many. */
static unsigned logfile_fill(struct pp_logfile *log)
{
	unsigned i;

	for (i = 0; i < 1000000; i++) {
		struct ppf_sample *s = pp_logfile_reserve_sigsafe(log, ppf_sample_size(64));

		if (!s)
			break;
		s->time_ns = 1000 + i;
		s->nframes = (uint16_t)logfile_depth(i);
		for (unsigned k = 0; k < s->nframes; k++)
			s->ips[k] = logfile_ip(i, k);
		pp_logfile_commit_sigsafe(log, s, PPF_REC_SAMPLE, ppf_sample_size(s->nframes));
	}
	return i;
}

/*
 * A log that cannot grow (here: RLIMIT_FSIZE, which would raise SIGXFSZ,
 * killing this process, if the writer went past it) records that it is
 * full, refuses ordinary records from then on, still takes its closing
 * records, and reads back whole. The first full log of a process says so
 * in one line, and only the first.
 */
Test(logfile, full_log_still_takes_its_closing_records)
{
	const rlim_t limit = 150000; /* not a multiple of the page size */
	struct rlimit lim = { limit, limit };
	struct ppf_thread th = { .h = { PPF_REC_THREAD, sizeof(th) }, .pid = 100, .tid = 101 };
	struct ppf_thread_end end = { .h = { PPF_REC_THREAD_END, sizeof(end) } };
	struct ppf_thread_name nm = { .h = { PPF_REC_THREAD_NAME, sizeof(nm) } };
	struct pa_thread *t = NULL;
	struct pa_warnings warn = { 0 };
	struct pa_error err;
	struct pp_logfile log, other;
	char path[128], said[256] = "";
	unsigned n;
	struct stat st;
	int saved_err = dup(STDERR_FILENO), errfd;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/stderr", logfile_dir);
	errfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(saved_err >= 0 && errfd >= 0 && dup2(errfd, STDERR_FILENO) == STDERR_FILENO);
	pp_logfile_set_full_line_sigsafe("cannot write more to the logs in DIR", "THEN");
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, logfile_dirfd, "thread-101.log",
					       PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_logfile_create_sigsafe(&other, logfile_dirfd, "thread-102.log",
					       PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &th, sizeof(th)), 0);
	n = logfile_fill(&log);
	cr_assert_gt(n, 0);
	cr_assert_eq(log.full, -EFBIG);
	cr_assert_neq(pp_logfile_append_sigsafe(&log, &nm, sizeof(nm)), 0,
		      "a full log took an ordinary record");
	logfile_fill(&other);
	cr_assert_eq(other.full, -EFBIG);
	pp_logfile_close_sigsafe(&other);
	pp_logfile_closing_sigsafe(&log);
	snprintf(nm.name, sizeof(nm.name), "closing");
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &nm, sizeof(nm)), 0);
	end.samples = n;
	end.lost = 7;
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &end, sizeof(end)), 0);
	pp_logfile_close_sigsafe(&log);
	cr_assert_eq(dup2(saved_err, STDERR_FILENO), STDERR_FILENO);

	snprintf(path, sizeof(path), "%s/thread-101.log", logfile_dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_leq((uint64_t)st.st_size, limit);
	cr_assert_eq(pa_thread_log_load(path, &t, &warn, &err), 0, "%s", err.reason);
	logfile_check_samples(t, n);
	cr_assert(t->ended);
	cr_assert(t->full.full);
	cr_assert_eq(t->full.error, EFBIG);
	cr_assert_str_eq(t->name, "closing");
	cr_assert_eq(t->lost, 7);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	pa_thread_free(t);
	pa_warnings_release(&warn);

	len = pread(errfd, said, sizeof(said) - 1, 0);
	close(errfd);
	cr_assert_geq(len, 0);
	cr_assert_str_eq(said, "libpprof: cannot write more to the logs in DIR: File too "
			 "large (the file size limit, ulimit -f); THEN\n");
}
