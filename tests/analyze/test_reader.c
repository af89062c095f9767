/* Tests of analyze/reader.c on hand-made logs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tst_log.h"
#include "reader.h"
#include "sigsafe/logfile.h"

static char *rd_dir;

static void rd_setup(void)
{
	rd_dir = tst_log_tmpdir();
}

static void rd_teardown(void)
{
	tst_log_rmdir(rd_dir);
	rd_dir = NULL;
}

TestSuite(reader, .init = rd_setup, .fini = rd_teardown, .timeout = 10);

static const uint64_t rd_ips[3] = { 0x401010, 0x402020, 0x403030 };

/* A finished process.log for pid in dir/<name>/; returns that directory. */
static char *rd_process_dir(const char *name, uint32_t pid)
{
	char *pdir = tst_log_subdir(rd_dir, name);
	static const char *const argv[] = { "app", "--fast", NULL };
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_process_end(&l, 9000, 3, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	return pdir;
}

/* A thread log with THREAD and two samples, not yet finished. */
static void rd_thread_start(struct tst_log *l, uint32_t pid, uint32_t tid)
{
	tst_log_begin(l, PPF_FILE_THREAD);
	tst_log_thread(l, pid, tid, 1500, "main");
	tst_log_sample(l, 2000, 0, 0, 3, rd_ips);
	tst_log_sample(l, 3000, 0, PPF_SAMPLE_TRUNCATED, 1, rd_ips + 2);
}

/* Load one thread log expecting success; returns it. */
static struct pa_thread *rd_load_thread(const char *pdir, const char *name,
					struct pa_warnings *warn)
{
	struct pa_error err = { 0 };
	struct pa_thread *t = NULL;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", pdir, name);
	ret = pa_thread_log_load(path, &t, warn, &err);
	cr_assert_eq(ret, 0, "load failed: %s: %s", err.path, err.reason);
	return t;
}

/* Load one thread log expecting an error at offset; returns the error. */
static struct pa_error rd_expect_thread_error(const char *pdir, const char *name,
					      uint64_t offset)
{
	struct pa_error err = { 0 };
	struct pa_thread *t = (struct pa_thread *)1;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", pdir, name);
	cr_assert_lt(pa_thread_log_load(path, &t, NULL, &err), 0);
	cr_assert_null(t);
	cr_assert(strstr(err.path, name), "error names %s, not %s", err.path, name);
	cr_assert(err.has_offset);
	cr_assert_eq(err.offset, offset, "offset %llu, expected %llu",
		     (unsigned long long)err.offset, (unsigned long long)offset);
	return err;
}

/* Loading pdir's process.log fails with a reason that holds needle. */
static void rd_expect_process_error(const char *pdir, const char *needle)
{
	struct pa_error err = { 0 };
	struct pa_process *p;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, NULL, &err), -EINVAL);
	cr_assert(strstr(err.reason, needle), "%s", err.reason);
}

static bool rd_has_warning(const struct pa_warnings *w, const char *needle, uint64_t *offset)
{
	for (size_t i = 0; i < w->n; i++)
		if (strstr(w->v[i].reason, needle)) {
			if (offset)
				*offset = w->v[i].offset;
			return true;
		}
	return false;
}

Test(reader, round_trips_every_record_type)
{
	char *pdir = tst_log_subdir(rd_dir, "app.42");
	static const char *const argv[] = { "app", "-n", "3", NULL };
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	const struct pa_process *p;
	const struct pa_thread *t;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 42, 7, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_event(&l, 1, "page-faults", 99, PPF_EVENT_FREQ);
	tst_log_module(&l, 1, 0x400000, 0x401000, 0x405000, 1000, "/usr/bin/app", bid, 4);
	tst_log_module(&l, 2, 0x7f0000000000, 0x7f0000001000, 0x7f0000009000, 5000,
			  "/usr/lib/libplugin.so", NULL, 0);
	tst_log_unload(&l, 2, 8000);
	tst_log_process_end(&l, 9000, 3, 1, PPF_EXIT_SIGNAL, 15);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	rd_thread_start(&l, 42, 42);
	tst_log_thread_name(&l, 2500, "worker");
	tst_log_thread_name(&l, 2600, "renamed");
	tst_log_thread_end(&l, 8500, 2, 1, 7000000);
	tst_log_write(&l, pdir, "thread-42.log");
	rd_thread_start(&l, 42, 43);
	tst_log_thread_end(&l, 8600, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-43.log");

	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->warnings.n, 0, "unexpected warning: %s",
		     run->warnings.n ? run->warnings.v[0].reason : "");
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	cr_assert_eq(p->pid, 42);
	cr_assert_eq(p->ppid, 7);
	cr_assert_str_eq(p->exe, "/usr/bin/app");
	cr_assert_eq(p->argc, 3);
	cr_assert_str_eq(p->argv[0], "app");
	cr_assert_str_eq(p->argv[2], "3");
	cr_assert_null(p->argv[3]);
	cr_assert_eq(p->mode, PPF_MODE_SIGTRAP);
	cr_assert(p->ended);
	cr_assert_eq(p->exit_how, PPF_EXIT_SIGNAL);
	cr_assert_eq(p->exit_status, 15);
	cr_assert_eq(p->samples_taken, 3);
	cr_assert_eq(p->lost, 1);
	cr_assert_eq(p->end_ns, 9000);
	cr_assert_eq(p->nevents, 2);
	cr_assert_str_eq(p->events[1].name, "page-faults");
	cr_assert_eq(p->events[1].flags, PPF_EVENT_FREQ);
	cr_assert_eq(p->events[0].period, 1000000);
	cr_assert_eq(pa_process_find_event(p, 1), &p->events[1]);
	cr_assert_eq(p->nmodules, 2);
	cr_assert_eq(p->modules[0].bias, 0x400000);
	cr_assert_eq(p->modules[0].build_id_len, 4);
	cr_assert_eq(p->modules[0].build_id[3], 0xef);
	cr_assert_eq(p->modules[0].unload_ns, UINT64_MAX);
	cr_assert_eq(p->modules[1].unload_ns, 8000);
	cr_assert_eq(p->modules[1].load_ns, 5000);
	cr_assert_str_eq(p->modules[1].path, "/usr/lib/libplugin.so");
	cr_assert_eq(p->nthreads, 2);
	t = p->threads[0];
	cr_assert_eq(t->tid, 42);
	cr_assert_str_eq(t->name, "renamed");
	cr_assert(t->ended);
	cr_assert_eq(t->lost, 1);
	cr_assert_eq(t->cpu_ns, 7000000);
	cr_assert_eq(t->nsamples, 2);
	cr_assert_eq(t->samples[0].nframes, 3);
	cr_assert_eq(t->samples[0].ips[2], 0x403030);
	cr_assert_eq(t->samples[1].flags, PPF_SAMPLE_TRUNCATED);
	cr_assert_eq(t->samples[1].time_ns, 3000);
	cr_assert(strstr(t->path, "thread-42.log"));
	cr_assert_eq(p->threads[1]->tid, 43);
	pa_run_free(run);
	free(pdir);
}

Test(reader, warns_on_truncated_tail_and_keeps_data)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	struct tst_log l;
	struct pa_thread *t;
	size_t cut;
	uint64_t off;

	rd_thread_start(&l, 1, 1);
	cut = tst_log_sample(&l, 4000, 0, 0, 3, rd_ips);
	l.len = cut + 20; /* the file ends inside the third sample */
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert_eq(t->nsamples, 2);
	cr_assert(rd_has_warning(&warn, "truncated: record", &off));
	cr_assert_eq(off, cut);
	cr_assert(strstr(warn.v[0].path, "thread-1.log"));
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

Test(reader, warns_on_record_past_end)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	struct tst_log l;
	struct pa_thread *t;
	size_t off;
	uint64_t woff;

	rd_thread_start(&l, 1, 1);
	off = tst_log_thread_end(&l, 1, 2, 0, 0);
	tst_log_rec(&l, off)->size = 4096; /* claims more than the file holds */
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert_eq(t->nsamples, 2);
	cr_assert_not(t->ended);
	cr_assert(rd_has_warning(&warn, "truncated: record", &woff));
	cr_assert_eq(woff, off);
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

Test(reader, rejects_record_above_max_size)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_thread_end(&l, 1, 2, 0, 0);
	tst_log_rec(&l, off)->size = PPF_RECORD_MAX + 8;
	tst_log_write(&l, pdir, "thread-1.log");
	rd_expect_thread_error(pdir, "thread-1.log", off);
	free(pdir);
}

Test(reader, rejects_size_not_multiple_of_8)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_sample(&l, 5000, 0, 0, 1, rd_ips);
	tst_log_rec(&l, off)->size = 36;
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "multiple of 8"), "%s", err.reason);
	free(pdir);
}

Test(reader, rejects_size_below_record_header)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_sample(&l, 5000, 0, 0, 1, rd_ips);
	tst_log_rec(&l, off)->size = 0; /* type kept: not the zero end marker */
	tst_log_write(&l, pdir, "thread-1.log");
	rd_expect_thread_error(pdir, "thread-1.log", off);
	free(pdir);
}

Test(reader, rejects_sample_frames_inconsistent_with_size)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct ppf_sample *s;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_sample(&l, 5000, 0, 0, 2, rd_ips);
	s = (struct ppf_sample *)(void *)tst_log_rec(&l, off);
	s->nframes = 3; /* the record holds only 2 */
	tst_log_write(&l, pdir, "thread-1.log");
	rd_expect_thread_error(pdir, "thread-1.log", off);
	free(pdir);
}

Test(reader, rejects_sample_without_frames)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct ppf_sample *s;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_sample(&l, 5000, 0, 0, 1, rd_ips);
	s = (struct ppf_sample *)(void *)tst_log_rec(&l, off);
	s->nframes = 0;
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "frames"), "%s", err.reason);
	free(pdir);
}

Test(reader, rejects_process_record_longer_than_its_size)
{
	char *pdir = tst_log_subdir(rd_dir, "app.5");
	struct pa_error err = { 0 };
	struct pa_process *p = NULL;
	struct tst_log l;
	struct ppf_process *rec;
	char path[4096];
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	off = tst_log_process(&l, 5, 1, "/bin/x", NULL);
	rec = (struct ppf_process *)(void *)tst_log_rec(&l, off);
	rec->cmdline_len = 4096;
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, NULL, &err), -EINVAL);
	cr_assert_str_eq(err.path, path);
	cr_assert(err.has_offset);
	cr_assert_eq(err.offset, off);
	cr_assert(strstr(err.reason, "cmdline_len"), "%s", err.reason);
	free(pdir);
}

Test(reader, skips_unknown_record_type)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	struct tst_log l;
	struct pa_thread *t;
	uint64_t future[3] = { 0 };
	struct ppf_record *r = (struct ppf_record *)(void *)future;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 1, 1, 1500, "main");
	tst_log_sample(&l, 2000, 0, 0, 3, rd_ips);
	r->type = 99;
	r->size = sizeof(future);
	tst_log_raw(&l, future, sizeof(future));
	tst_log_sample(&l, 3000, 0, 0, 1, rd_ips);
	tst_log_thread_end(&l, 4000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert_eq(t->nsamples, 2);
	cr_assert_eq(t->samples[1].time_ns, 3000);
	cr_assert_eq(t->unknown_records, 1);
	cr_assert(t->ended);
	cr_assert(rd_has_warning(&warn, "skipped 1 record of unknown type", NULL));
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

/* Write a thread log whose header field at field_off is replaced by value. */
static struct pa_error rd_bad_header(size_t field_off, const void *value, size_t n)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;

	rd_thread_start(&l, 1, 1);
	memcpy(l.buf + field_off, value, n);
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", 0);
	free(pdir);
	return err;
}

Test(reader, rejects_wrong_magic)
{
	struct pa_error err = rd_bad_header(0, "ELF\177xxxx", 8);

	cr_assert(strstr(err.reason, "magic"), "%s", err.reason);
	cr_assert(strstr(err.reason, PPF_MAGIC), "%s", err.reason);
}

Test(reader, rejects_wrong_version)
{
	uint16_t v = PPF_VERSION + 1;
	struct pa_error err = rd_bad_header(offsetof(struct ppf_file_header, version), &v, 2);

	cr_assert(strstr(err.reason, "version 2 (expected 1)"), "%s", err.reason);
}

Test(reader, rejects_other_byte_order)
{
	uint32_t bom = __builtin_bswap32(PPF_BYTE_ORDER_MARK);
	struct pa_error err = rd_bad_header(offsetof(struct ppf_file_header, byte_order), &bom, 4);

	cr_assert(strstr(err.reason, "byte order"), "%s", err.reason);
}

Test(reader, rejects_wrong_file_kind)
{
	uint16_t kind = PPF_FILE_PROCESS;
	struct pa_error err = rd_bad_header(offsetof(struct ppf_file_header, kind), &kind, 2);

	cr_assert(strstr(err.reason, "expected 2 (thread log)"), "%s", err.reason);
}

Test(reader, keeps_samples_of_unfinalised_zero_padded_log)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	static const char zeros[8192];
	struct tst_log l;
	struct pa_thread *t;
	size_t end;
	uint64_t off;

	rd_thread_start(&l, 1, 1);
	end = tst_log_raw(&l, zeros, sizeof(zeros)); /* preallocated, never written */
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert_eq(t->nsamples, 2);
	cr_assert_eq(t->samples[0].ips[1], 0x402020);
	cr_assert_not(t->ended);
	cr_assert(rd_has_warning(&warn, "not finalised", &off));
	cr_assert_eq(off, end);
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

Test(reader, rejects_directory_without_process_dirs)
{
	struct pa_error err = { 0 };
	struct pa_run *run = (struct pa_run *)1;

	cr_assert_eq(pa_run_load(rd_dir, &run, &err), -ENOENT);
	cr_assert_null(run);
	cr_assert_str_eq(err.path, rd_dir);
	cr_assert(strstr(err.reason, "no process log"), "%s", err.reason);
}

Test(reader, run_error_names_the_bad_file)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;

	struct ppf_record bad = { .type = PPF_REC_THREAD, .size = 12 };

	rd_thread_start(&l, 1, 1);
	/* Its first record's size, not a multiple of 8: damaged at that offset. */
	memcpy(l.buf + sizeof(struct ppf_file_header), &bad, sizeof(bad));
	tst_log_write(&l, pdir, "thread-1.log");
	cr_assert_lt(pa_run_load(rd_dir, &run, &err), 0);
	cr_assert(strstr(err.path, "app.1/thread-1.log"), "%s", err.path);
	cr_assert(err.has_offset);
	cr_assert_eq(err.offset, sizeof(struct ppf_file_header));
	free(pdir);
}

Test(reader, loads_process_dir_given_directly_and_sorts)
{
	char *a = rd_process_dir("app.20", 20);
	char *b = rd_process_dir("zz.3", 3);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;

	rd_thread_start(&l, 20, 22);
	tst_log_thread_end(&l, 1, 2, 0, 0);
	tst_log_write(&l, a, "thread-22.log");
	rd_thread_start(&l, 20, 21);
	tst_log_thread_end(&l, 1, 2, 0, 0);
	tst_log_write(&l, a, "thread-21.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(run->nprocesses, 2);
	cr_assert_eq(run->processes[0]->pid, 3);
	cr_assert_eq(run->processes[1]->nthreads, 2);
	cr_assert_eq(run->processes[1]->threads[0]->tid, 21);
	cr_assert_eq(run->processes[1]->pid, 20);
	pa_run_free(run);
	cr_assert_eq(pa_run_load(a, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(run->nprocesses, 1);
	cr_assert_eq(run->processes[0]->pid, 20);
	pa_run_free(run);
	free(a);
	free(b);
}

/* The preload's own writer, killed before closing: the reader keeps it all. */
Test(reader, reads_log_written_by_logfile)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	struct ppf_thread th = { .h = { PPF_REC_THREAD, sizeof(th) }, .pid = 1, .tid = 7 };
	uint64_t rec[8] = { 0 };
	struct ppf_sample *s = (struct ppf_sample *)(void *)rec;
	struct pp_logfile log;
	struct pa_thread *t;
	int dfd = open(pdir, O_RDONLY | O_DIRECTORY);

	cr_assert_geq(dfd, 0);
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dfd, "thread-7.log", PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &th, sizeof(th)), 0);
	s->h.type = PPF_REC_SAMPLE;
	s->h.size = ppf_sample_size(3);
	s->time_ns = 77;
	s->nframes = 3;
	memcpy(s->ips, rd_ips, sizeof(rd_ips));
	cr_assert_eq(pp_logfile_append_sigsafe(&log, s, s->h.size), 0);
	pp_logfile_forget_sigsafe(&log); /* as if SIGKILLed: no END, zero tail */
	close(dfd);
	t = rd_load_thread(pdir, "thread-7.log", &warn);
	cr_assert_eq(t->tid, 7);
	cr_assert_eq(t->nsamples, 1);
	cr_assert_eq(t->samples[0].time_ns, 77);
	cr_assert_eq(t->samples[0].ips[2], 0x403030);
	cr_assert(rd_has_warning(&warn, "not finalised", NULL));
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

/* A process.log for pid in dir/<name>/ that ends with what add() appends. */
static char *rd_exec_dir(const char *name, uint32_t pid, void (*add)(struct tst_log *))
{
	char *pdir = tst_log_subdir(rd_dir, name);
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, "/bin/sh", NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	add(&l);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	return pdir;
}

/* A failed exec, then one that replaced the image. */
static void rd_add_execs(struct tst_log *l)
{
	tst_log_exec(l, 4000, "/no/such/prog");
	tst_log_module(l, 1, 0, 0x401000, 0x405000, 4500, "/bin/sh", NULL, 0);
	tst_log_exec(l, 5000, "/usr/bin/env");
}

Test(reader, reads_exec_records)
{
	char *pdir = rd_exec_dir("sh.8", 8, rd_add_execs);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	const struct pa_process *p;

	rd_thread_start(&l, 8, 8); /* exec ends it without an END record */
	tst_log_write(&l, pdir, "thread-8.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_eq(p->nexecs, 2);
	cr_assert_eq(p->execs[0].time_ns, 4000);
	cr_assert_str_eq(p->execs[0].path, "/no/such/prog");
	cr_assert_eq(p->execs[1].time_ns, 5000);
	cr_assert_str_eq(p->execs[1].path, "/usr/bin/env");
	cr_assert_eq(p->nmodules, 1);
	cr_assert(p->replaced);
	cr_assert_not(p->ended);
	cr_assert_eq(p->threads[0]->nsamples, 2);
	cr_assert_eq(run->warnings.n, 0, "an exec'd process is not unfinished: %s: %s",
		     run->warnings.n ? run->warnings.v[0].path : "",
		     run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

/* Three threads that ran unsampled, out of tid order. */
static void rd_add_unsampled(struct tst_log *l)
{
	tst_log_unsampled(l, 12, PPF_UNSAMPLED_ALTSTACK, ENOMEM, 4200, "worker");
	tst_log_unsampled(l, 11, PPF_UNSAMPLED_SHARE, EMFILE, 4100, "");
	tst_log_unsampled(l, 13, 99, EIO, 4300, "odd");
	tst_log_process_end(l, 9000, 2, 0, PPF_EXIT_NORMAL, 0);
}

Test(reader, reads_unsampled_threads)
{
	char *pdir = rd_exec_dir("app.8", 8, rd_add_unsampled);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	const struct pa_process *p;
	char why[128];

	rd_thread_start(&l, 8, 8);
	tst_log_thread_end(&l, 8000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-8.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_eq(p->nthreads, 1);
	cr_assert_eq(p->nunsampled, 3);
	cr_assert_eq(p->unsampled[0].tid, 11);
	cr_assert_str_eq(p->unsampled[0].name, "");
	pa_unsampled_reason(&p->unsampled[0], why, sizeof(why));
	cr_assert_str_eq(why, "over the profiler's share of RLIMIT_NOFILE");
	cr_assert_eq(p->unsampled[1].tid, 12);
	cr_assert_eq(p->unsampled[1].time_ns, 4200);
	cr_assert_str_eq(p->unsampled[1].name, "worker");
	pa_unsampled_reason(&p->unsampled[1], why, sizeof(why));
	cr_assert_str_eq(why, "no alternate signal stack: Cannot allocate memory");
	pa_unsampled_reason(&p->unsampled[2], why, sizeof(why));
	cr_assert(strstr(why, "reason 99"), "an unknown cause read as: %s", why);
	cr_assert_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

static void rd_add_short_unsampled(struct tst_log *l)
{
	struct ppf_record r = { PPF_REC_THREAD_UNSAMPLED, 24 };
	char body[16] = { 0 };

	tst_log_raw(l, &r, sizeof(r));
	tst_log_raw(l, body, sizeof(body));
}

Test(reader, rejects_short_unsampled_record)
{
	char *pdir = rd_exec_dir("app.9", 9, rd_add_short_unsampled);

	rd_expect_process_error(pdir, "unsampled thread record of 24 bytes");
	free(pdir);
}

/* An exec that failed: the process went on, and was killed later. */
static void rd_add_failed_exec(struct tst_log *l)
{
	tst_log_exec(l, 4000, "/no/such/prog");
	tst_log_unload(l, 99, 4100);
}

Test(reader, failed_exec_is_not_replaced)
{
	char *pdir = rd_exec_dir("sh.8", 8, rd_add_failed_exec);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	const struct pa_process *p;
	size_t unfinished = 0, unended = 0;

	rd_thread_start(&l, 8, 8);
	tst_log_write(&l, pdir, "thread-8.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_eq(p->nexecs, 1);
	cr_assert_not(p->replaced);
	/* One line for the run, not one per log (the process's and its thread's). */
	for (size_t i = 0; i < run->warnings.n; i++) {
		unfinished += strstr(run->warnings.v[i].reason, "not finalised") != NULL;
		unended += strstr(run->warnings.v[i].reason, "1 process ended without an end "
				  "record (raw exit_group or killed): sh.8;") != NULL;
	}
	cr_assert_eq(unfinished, 0);
	cr_assert_eq(unended, 1, "the process without END is said once");
	pa_run_free(run);
	free(pdir);
}

static void rd_add_exec_then_end(struct tst_log *l)
{
	tst_log_exec(l, 4000, "/no/such/prog");
	tst_log_process_end(l, 9000, 0, 0, PPF_EXIT_NORMAL, 127);
}

Test(reader, exec_followed_by_end_is_an_exit)
{
	char *pdir = rd_exec_dir("sh.8", 8, rd_add_exec_then_end);
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_process *p = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, &warn, &err), 0, "%s", err.reason);
	cr_assert_not(p->replaced);
	cr_assert(p->ended);
	cr_assert_eq(p->exit_status, 127);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	pa_process_free(p);
	pa_warnings_release(&warn);
	free(pdir);
}

/* A process.log whose EXEC record is damaged by damage(); the error is at its offset. */
static struct pa_error rd_bad_exec(const char *name, void (*damage)(struct ppf_exec *))
{
	char *pdir = tst_log_subdir(rd_dir, name);
	struct pa_error err = { 0 };
	struct pa_process *p = (struct pa_process *)1;
	struct tst_log l;
	char path[4096];
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 9, 1, "/bin/sh", NULL);
	off = tst_log_exec(&l, 4000, "/bin/true"); /* 24 + 10 bytes, padded to 40 */
	damage((struct ppf_exec *)(void *)tst_log_rec(&l, off));
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, NULL, &err), -EINVAL);
	cr_assert_null(p);
	cr_assert_str_eq(err.path, path);
	cr_assert(err.has_offset);
	cr_assert_eq(err.offset, off, "offset %llu, expected %zu",
		     (unsigned long long)err.offset, off);
	free(pdir);
	return err;
}

static void rd_exec_path_too_long(struct ppf_exec *x)
{
	x->path_len = 17; /* the record has 16 bytes after the fixed part */
}

static void rd_exec_path_unterminated(struct ppf_exec *x)
{
	x->path_len = 4; /* "/bin" without its NUL */
}

static void rd_exec_path_empty(struct ppf_exec *x)
{
	x->path_len = 0;
}

static void rd_exec_too_short(struct ppf_exec *x)
{
	x->h.size = 16; /* less than struct ppf_exec; the rest reads as a record */
}

Test(reader, rejects_bad_exec_sizes)
{
	struct pa_error err;

	err = rd_bad_exec("sh.1", rd_exec_path_too_long);
	cr_assert(strstr(err.reason, "path_len 17"), "%s", err.reason);
	err = rd_bad_exec("sh.2", rd_exec_path_unterminated);
	cr_assert(strstr(err.reason, "NUL"), "%s", err.reason);
	err = rd_bad_exec("sh.3", rd_exec_path_empty);
	cr_assert(strstr(err.reason, "NUL"), "%s", err.reason);
	err = rd_bad_exec("sh.4", rd_exec_too_short);
	cr_assert(strstr(err.reason, "needs at least 24"), "%s", err.reason);
}

Test(reader, rejects_exec_record_in_thread_log)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_exec(&l, 4000, "/bin/true");
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "does not belong"), "%s", err.reason);
	free(pdir);
}

/* ---- configuration, extended events, per-thread event totals ------------ */

/* A process.log in dir/<name>/ holding what add() appends after PROCESS, then END. */
static char *rd_config_dir(const char *name, void (*add)(struct tst_log *))
{
	char *pdir = tst_log_subdir(rd_dir, name);
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", NULL);
	add(&l);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	return pdir;
}

static void rd_add_config_and_events(struct tst_log *l)
{
	struct ppf_event cyc = { .index = 1, .type = 0, .config = 0, .flags = PPF_EVENT_COUNT |
				 PPF_EVENT_UNAVAILABLE | PPF_EVENT_EXCLUDE_KERNEL,
				 .error = ENOENT, .name = "cyc", .spec = "cycles:u" };
	struct ppf_event raw = { .index = 0, .type = 4, .config = 0xc0, .config1 = 0x11,
				 .config2 = 0x22, .period = 100003, .precise_ip = 2,
				 .name = "retired", .spec = "r00c0" };

	tst_log_config(l, PPF_MODE_REQUEST_SIGTRAP, 64,
			  PPF_CONFIG_FOLLOW_EXEC | PPF_CONFIG_FROM_FILE, "/etc/pp.ini",
			  "[profile]\nmode = sigtrap\n");
	tst_log_event_full(l, &raw);
	tst_log_event_full(l, &cyc);
}

/* Load dir/process.log expecting success. */
static struct pa_process *rd_load_process(const char *pdir, struct pa_warnings *warn)
{
	struct pa_error err = { 0 };
	struct pa_process *p = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, warn, &err), 0, "%s", err.reason);
	return p;
}

Test(reader, reads_config_and_extended_events)
{
	char *pdir = rd_config_dir("app.7", rd_add_config_and_events);
	struct pa_warnings warn = { 0 };
	struct pa_process *p = rd_load_process(pdir, &warn);
	const struct pa_event *e;

	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert(p->config.known);
	cr_assert_eq(p->config.mode_request, PPF_MODE_REQUEST_SIGTRAP);
	cr_assert_eq(p->config.max_frames, 64);
	cr_assert_eq(p->config.flags, PPF_CONFIG_FOLLOW_EXEC | PPF_CONFIG_FROM_FILE);
	cr_assert_str_eq(p->config.source, "/etc/pp.ini");
	cr_assert_str_eq(p->config.text, "[profile]\nmode = sigtrap\n");
	cr_assert_eq(p->config.text_len, strlen("[profile]\nmode = sigtrap\n"));
	cr_assert_eq(p->nevents, 2);
	e = pa_process_find_event(p, 0);
	cr_assert_str_eq(e->name, "retired");
	cr_assert_str_eq(e->spec, "r00c0");
	cr_assert_eq(e->type, 4);
	cr_assert_eq(e->config, 0xc0);
	cr_assert_eq(e->config1, 0x11);
	cr_assert_eq(e->config2, 0x22);
	cr_assert_eq(e->period, 100003);
	cr_assert_eq(e->precise_ip, 2);
	cr_assert_eq(e->error, 0);
	e = pa_process_find_event(p, 1);
	cr_assert_eq(e->flags & (PPF_EVENT_COUNT | PPF_EVENT_UNAVAILABLE),
		     PPF_EVENT_COUNT | PPF_EVENT_UNAVAILABLE);
	cr_assert_eq(e->error, ENOENT);
	cr_assert_eq(pa_process_find_event_named(p, "cyc"), e);
	cr_assert_eq(pa_process_find_event_named(p, "cycles:u"), e, "found by its spec");
	cr_assert_null(pa_process_find_event_named(p, "cycles"));
	pa_process_free(p);
	pa_warnings_release(&warn);
	free(pdir);
}

/* An older writer: 104-byte events and no configuration record. */
static void rd_add_v1_event(struct tst_log *l)
{
	tst_log_event_v1(l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_event_v1(l, 1, "page-faults", 1, 0);
}

Test(reader, reads_first_version_event_without_config)
{
	char *pdir = rd_config_dir("app.7", rd_add_v1_event);
	struct pa_warnings warn = { 0 };
	struct pa_process *p = rd_load_process(pdir, &warn);
	const struct pa_event *e = pa_process_find_event(p, 0);

	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_not(p->config.known);
	cr_assert_null(p->config.source);
	cr_assert_eq(p->nevents, 2);
	cr_assert_str_eq(e->name, "cpu-clock");
	cr_assert_str_eq(e->spec, "cpu-clock", "spec is the name in old logs");
	cr_assert_eq(e->period, 1000000);
	cr_assert_eq(e->flags, PPF_EVENT_TIME_NS);
	cr_assert_eq(e->config1, 0);
	cr_assert_eq(e->config2, 0);
	cr_assert_eq(e->precise_ip, 0);
	cr_assert_eq(e->error, 0);
	cr_assert_str_eq(pa_process_find_event(p, 1)->spec, "page-faults");
	pa_process_free(p);
	pa_warnings_release(&warn);
	free(pdir);
}

/* A process.log whose record of the given type is damaged by damage(); the error is at its offset. */
static struct pa_error rd_bad_process_rec(const char *name, uint32_t type,
					  void (*damage)(struct ppf_record *))
{
	char *pdir = tst_log_subdir(rd_dir, name);
	struct pa_error err = { 0 };
	struct pa_process *p = (struct pa_process *)1;
	struct ppf_event e = { .index = 0, .type = 1, .name = "cpu-clock", .spec = "cpu-clock" };
	struct tst_log l;
	char path[4096];
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 9, 1, "/bin/sh", NULL);
	/* "/etc/x.ini" (11 bytes) and "a=1\n" (5 bytes): 16 bytes after the fixed part */
	off = type == PPF_REC_CONFIG ?
		tst_log_config(&l, 0, 128, 0, "/etc/x.ini", "a=1\n") :
		tst_log_event_full(&l, &e);
	damage(tst_log_rec(&l, off));
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	snprintf(path, sizeof(path), "%s/%s", pdir, PPF_PROCESS_LOG);
	cr_assert_eq(pa_process_log_load(path, &p, NULL, &err), -EINVAL);
	cr_assert_null(p);
	cr_assert_str_eq(err.path, path);
	cr_assert(err.has_offset);
	cr_assert_eq(err.offset, off, "offset %llu, expected %zu",
		     (unsigned long long)err.offset, off);
	free(pdir);
	return err;
}

static void rd_event_below_v1(struct ppf_record *r)
{
	r->size = PPF_EVENT_V1_SIZE - 8; /* the rest reads as a record of type 0 */
}

static void rd_event_name_unterminated(struct ppf_record *r)
{
	memset(((struct ppf_event *)(void *)r)->name, 'x', PPF_NAME_MAX);
}

static void rd_event_spec_unterminated(struct ppf_record *r)
{
	memset(((struct ppf_event *)(void *)r)->spec, 'x', PPF_NAME_MAX);
}

/* What fuzz_reader found: pa_event.spec, "never empty", was empty. */
static void rd_event_name_empty(struct ppf_record *r)
{
	memset(((struct ppf_event *)(void *)r)->name, 0, PPF_NAME_MAX);
	memset(((struct ppf_event *)(void *)r)->spec, 0, PPF_NAME_MAX);
}

Test(reader, rejects_damaged_event_records)
{
	struct pa_error err;

	err = rd_bad_process_rec("a.1", PPF_REC_EVENT, rd_event_below_v1);
	cr_assert(strstr(err.reason, "event record of 96 bytes, needs at least 104"), "%s",
		  err.reason);
	err = rd_bad_process_rec("a.2", PPF_REC_EVENT, rd_event_name_unterminated);
	cr_assert(strstr(err.reason, "name is not NUL-terminated"), "%s", err.reason);
	err = rd_bad_process_rec("a.3", PPF_REC_EVENT, rd_event_spec_unterminated);
	cr_assert(strstr(err.reason, "spec is not NUL-terminated"), "%s", err.reason);
	err = rd_bad_process_rec("a.4", PPF_REC_EVENT, rd_event_name_empty);
	cr_assert(strstr(err.reason, "event record 0: empty name"), "%s", err.reason);
}

static void rd_config_too_short(struct ppf_record *r)
{
	r->size = 24; /* less than struct ppf_config */
}

static void rd_config_lengths_too_long(struct ppf_record *r)
{
	((struct ppf_config *)(void *)r)->text_len = 6; /* 11 + 6 > 16 */
}

static void rd_config_lengths_overflow(struct ppf_record *r)
{
	((struct ppf_config *)(void *)r)->source_len = UINT32_MAX; /* wraps in 32 bits */
}

static void rd_config_source_unterminated(struct ppf_record *r)
{
	((struct ppf_config *)(void *)r)->source_len = 5; /* "/etc/" */
}

static void rd_config_source_empty(struct ppf_record *r)
{
	((struct ppf_config *)(void *)r)->source_len = 0;
}

static void rd_config_text_unterminated(struct ppf_record *r)
{
	((struct ppf_config *)(void *)r)->text_len = 4; /* "a=1\n" without its NUL */
}

Test(reader, rejects_damaged_config_records)
{
	struct pa_error err;

	err = rd_bad_process_rec("c.1", PPF_REC_CONFIG, rd_config_too_short);
	cr_assert(strstr(err.reason, "config record of 24 bytes, needs at least 32"), "%s",
		  err.reason);
	err = rd_bad_process_rec("c.2", PPF_REC_CONFIG, rd_config_lengths_too_long);
	cr_assert(strstr(err.reason, "source_len 11 + text_len 6 exceed the 16 bytes"), "%s",
		  err.reason);
	err = rd_bad_process_rec("c.3", PPF_REC_CONFIG, rd_config_lengths_overflow);
	cr_assert(strstr(err.reason, "exceed"), "%s", err.reason);
	err = rd_bad_process_rec("c.4", PPF_REC_CONFIG, rd_config_source_unterminated);
	cr_assert(strstr(err.reason, "source is not"), "%s", err.reason);
	err = rd_bad_process_rec("c.5", PPF_REC_CONFIG, rd_config_source_empty);
	cr_assert(strstr(err.reason, "source is not"), "%s", err.reason);
	err = rd_bad_process_rec("c.6", PPF_REC_CONFIG, rd_config_text_unterminated);
	cr_assert(strstr(err.reason, "text is not NUL-terminated"), "%s", err.reason);
}

static void rd_add_two_configs(struct tst_log *l)
{
	tst_log_config(l, 0, 128, 0, "(embedded default)", "");
	tst_log_config(l, 0, 128, 0, "(embedded default)", "");
}

Test(reader, rejects_second_config_record)
{
	char *pdir = rd_config_dir("app.7", rd_add_two_configs);

	rd_expect_process_error(pdir, "second config record");
	free(pdir);
}

static void rd_add_empty_text_config(struct tst_log *l)
{
	struct ppf_config c = { .h = { PPF_REC_CONFIG, 56 }, .max_frames = 128,
				.source_len = 19, .text_len = 0 };
	char rec[56] = { 0 };

	memcpy(rec, &c, sizeof(c));
	memcpy(rec + sizeof(c), "(embedded default)", 19);
	tst_log_raw(l, rec, sizeof(rec));
}

Test(reader, accepts_config_without_text)
{
	char *pdir = rd_config_dir("app.7", rd_add_empty_text_config);
	struct pa_process *p = rd_load_process(pdir, NULL);

	cr_assert(p->config.known);
	cr_assert_str_eq(p->config.source, "(embedded default)");
	cr_assert_str_eq(p->config.text, "");
	cr_assert_eq(p->config.text_len, 0);
	pa_process_free(p);
	free(pdir);
}

Test(reader, reads_thread_event_totals)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	const struct pa_thread_event *te;
	struct tst_log l;
	struct pa_thread *t;

	rd_thread_start(&l, 1, 1);
	tst_log_thread_event(&l, 0, 0, 2, 5, 0, 0, 0);
	tst_log_thread_event(&l, 3, PPF_THREAD_EVENT_COUNTED, 0, 0, 123456, 800, 500);
	tst_log_thread_event(&l, 4, PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 0, 0, 0);
	tst_log_thread_end(&l, 4000, 2, 5, 0);
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(t->nevents, 3);
	te = pa_thread_find_event(t, 0);
	cr_assert_eq(te->samples, 2);
	cr_assert_eq(te->lost, 5);
	te = pa_thread_find_event(t, 3);
	cr_assert_eq(te->flags, PPF_THREAD_EVENT_COUNTED);
	cr_assert_eq(te->value, 123456);
	cr_assert_eq(te->time_enabled, 800);
	cr_assert_eq(te->time_running, 500);
	cr_assert_eq(pa_thread_find_event(t, 4)->flags, PPF_THREAD_EVENT_NO_COUNTER);
	cr_assert_null(pa_thread_find_event(t, 1));
	cr_assert(t->ended);
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

/*
 * Throttled counts (added to the end records and per-event totals after
 * their first version) are read; records of the first version still load,
 * with none throttled.
 */
Test(reader, reads_throttled_counts_and_first_version_totals)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct ppf_thread_event te = { .h = { PPF_REC_THREAD_EVENT, PPF_THREAD_EVENT_V1_SIZE },
				       .samples = 2, .lost = 1, .throttled = 99 };
	struct ppf_thread_end end = { .h = { PPF_REC_THREAD_END, PPF_THREAD_END_V1_SIZE },
				      .end_ns = 4000, .samples = 2, .lost = 1, .throttled = 99 };
	struct tst_log l;
	struct pa_thread *t;
	size_t off;

	rd_thread_start(&l, 1, 1);
	tst_log_raw(&l, &te, PPF_THREAD_EVENT_V1_SIZE);
	tst_log_raw(&l, &end, PPF_THREAD_END_V1_SIZE);
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", NULL);
	cr_assert(t->ended);
	cr_assert_eq(t->lost, 1);
	cr_assert_eq(t->throttled, 0, "a first-version end record has no throttled count");
	cr_assert_eq(pa_thread_find_event(t, 0)->throttled, 0);
	pa_thread_free(t);

	rd_thread_start(&l, 1, 1);
	off = tst_log_thread_event(&l, 0, 0, 2, 1, 0, 0, 0);
	((struct ppf_thread_event *)tst_log_rec(&l, off))->throttled = 7;
	off = tst_log_thread_end(&l, 4000, 2, 1, 0);
	((struct ppf_thread_end *)tst_log_rec(&l, off))->throttled = 7;
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", NULL);
	cr_assert_eq(t->throttled, 7);
	cr_assert_eq(pa_thread_find_event(t, 0)->throttled, 7);
	pa_thread_free(t);
	free(pdir);
}

Test(reader, rejects_damaged_thread_event_records)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_thread_event(&l, 0, 0, 2, 0, 0, 0, 0);
	tst_log_rec(&l, off)->size = 48; /* one field short; the rest reads as type 0 */
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "thread event record of 48 bytes, needs at least 56"),
		  "%s", err.reason);

	rd_thread_start(&l, 1, 1);
	off = tst_log_thread_event(&l, 2, PPF_THREAD_EVENT_COUNTED |
				      PPF_THREAD_EVENT_NO_COUNTER, 0, 0, 1, 1, 1);
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "both counted and no counter"), "%s", err.reason);

	rd_thread_start(&l, 1, 1);
	tst_log_thread_event(&l, 2, PPF_THREAD_EVENT_COUNTED, 0, 0, 1, 1, 1);
	off = tst_log_thread_event(&l, 2, PPF_THREAD_EVENT_COUNTED, 0, 0, 1, 1, 1);
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "second thread event record for event 2"), "%s",
		  err.reason);
	free(pdir);
}

Test(reader, rejects_records_of_the_other_log_kind)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_config(&l, 0, 128, 0, "(embedded default)", "");
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "record type 7 does not belong in a thread log"), "%s",
		  err.reason);
	free(pdir);
}

Test(reader, rejects_unsampled_record_in_thread_log)
{
	char *pdir = rd_process_dir("app.2", 2);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 2, 2);
	off = tst_log_unsampled(&l, 3, PPF_UNSAMPLED_LOG, EMFILE, 100, "x");
	tst_log_write(&l, pdir, "thread-2.log");
	err = rd_expect_thread_error(pdir, "thread-2.log", off);
	cr_assert(strstr(err.reason, "record type 8 does not belong in a thread log"), "%s",
		  err.reason);
	free(pdir);
}

static void rd_add_thread_event(struct tst_log *l)
{
	tst_log_thread_event(l, 0, 0, 1, 0, 0, 0, 0);
}

Test(reader, rejects_thread_event_in_process_log)
{
	char *pdir = rd_config_dir("app.7", rd_add_thread_event);

	rd_expect_process_error(pdir, "record type 20 does not belong in a process log");
	free(pdir);
}

Test(reader, warns_on_totals_of_unknown_event)
{
	char *pdir = rd_process_dir("app.1", 1); /* lists event 0 only */
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;

	rd_thread_start(&l, 1, 1);
	tst_log_thread_event(&l, 0, 0, 2, 0, 0, 0, 0);
	tst_log_thread_event(&l, 9, PPF_THREAD_EVENT_COUNTED, 0, 0, 7, 1, 1);
	tst_log_thread_end(&l, 4000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-1.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(run->warnings.n, 1);
	cr_assert(strstr(run->warnings.v[0].reason, "totals for event 9"), "%s",
		  run->warnings.v[0].reason);
	cr_assert(strstr(run->warnings.v[0].path, "thread-1.log"));
	pa_run_free(run);
	free(pdir);
}

/* The preload's writer appends per-event totals the reader reads back. */
Test(reader, reads_thread_event_written_by_logfile)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct ppf_thread th = { .h = { PPF_REC_THREAD, sizeof(th) }, .pid = 1, .tid = 8 };
	struct ppf_thread_event te = { .h = { PPF_REC_THREAD_EVENT, sizeof(te) }, .event = 0,
				       .flags = PPF_THREAD_EVENT_COUNTED, .value = 42,
				       .time_enabled = 10, .time_running = 5 };
	struct ppf_thread_end end = { .h = { PPF_REC_THREAD_END, sizeof(end) }, .end_ns = 9 };
	struct pp_logfile log;
	struct pa_thread *t;
	int dfd = open(pdir, O_RDONLY | O_DIRECTORY);

	cr_assert_geq(dfd, 0);
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dfd, "thread-8.log", PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &th, sizeof(th)), 0);
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &te, sizeof(te)), 0);
	cr_assert_eq(pp_logfile_append_sigsafe(&log, &end, sizeof(end)), 0);
	pp_logfile_forget_sigsafe(&log);
	close(dfd);
	t = rd_load_thread(pdir, "thread-8.log", NULL);
	cr_assert_eq(t->nevents, 1);
	cr_assert_eq(t->events[0].value, 42);
	cr_assert_eq(t->events[0].time_running, 5);
	cr_assert(t->ended);
	pa_thread_free(t);
	free(pdir);
}

/* Load rd_dir with opts, expecting one process with one thread; returns the run. */
static struct pa_run *rd_load_opts(const struct pa_load_opts *opts)
{
	struct pa_error err = { 0 };
	struct pa_run *run = NULL;

	cr_assert_eq(pa_run_load_opts(rd_dir, opts, &run, &err), 0, "%s", err.reason);
	cr_assert_eq(run->nprocesses, 1);
	cr_assert_eq(run->processes[0]->nthreads, 1);
	return run;
}

/*
 * Collapsing: samples equal in event, flags and addresses become one entry
 * counting them, in order of first appearance, stamped with the latest
 * time; a difference in any of those keeps samples apart.
 */
Test(reader, collapse_merges_only_identical_samples)
{
	const uint64_t other[3] = { 0x401010, 0x402020, 0x403038 };
	struct pa_load_opts lo = { .collapse = true };
	char *pdir = rd_process_dir("app.7", 7);
	const struct pa_thread *t;
	struct tst_log l;
	struct pa_run *run;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1500, "main");
	tst_log_sample(&l, 2000, 0, 0, 3, rd_ips);            /* A */
	tst_log_sample(&l, 2100, 0, 0, 3, other);             /* B: last frame differs */
	tst_log_sample(&l, 2200, 0, 0, 3, rd_ips);            /* A */
	tst_log_sample(&l, 2300, 1, 0, 3, rd_ips);            /* C: other event */
	tst_log_sample(&l, 2400, 0, PPF_SAMPLE_LATE, 3, rd_ips); /* D: flagged late */
	tst_log_sample(&l, 2500, 0, 0, 2, rd_ips);            /* E: a prefix of A */
	tst_log_sample(&l, 2600, 0, 0, 3, rd_ips);            /* A */
	tst_log_thread_end(&l, 3000, 7, 0, 0);
	tst_log_write(&l, pdir, "thread-7.log");

	run = rd_load_opts(&lo);
	t = run->processes[0]->threads[0];
	cr_assert_eq(t->nsamples, 5, "%zu entries", t->nsamples);
	cr_expect_eq(t->samples[0].count, 3);
	cr_expect_eq(t->samples[0].time_ns, 2600, "the latest time of A");
	cr_expect_eq(memcmp(t->samples[0].ips, rd_ips, sizeof(rd_ips)), 0);
	cr_expect_eq(t->samples[1].ips[2], 0x403038);
	cr_expect_eq(t->samples[2].event, 1);
	cr_expect_eq(t->samples[3].flags, PPF_SAMPLE_LATE);
	cr_expect_eq(t->samples[4].nframes, 2);
	for (size_t i = 1; i < 5; i++)
		cr_expect_eq(t->samples[i].count, 1, "entry %zu", i);
	cr_expect(t->ended && t->samples_taken == 7);
	pa_run_free(run);

	run = rd_load_opts(NULL);
	cr_expect_eq(run->processes[0]->threads[0]->nsamples, 7, "not collapsed unless asked");
	pa_run_free(run);
	free(pdir);
}

/*
 * Addresses mean other functions once a module was unloaded (another may
 * be loaded there): equal samples on either side of an unload stay apart.
 */
Test(reader, collapse_keeps_samples_apart_across_a_module_unload)
{
	struct pa_load_opts lo = { .collapse = true };
	char *pdir = tst_log_subdir(rd_dir, "app.8");
	const struct pa_thread *t;
	struct tst_log l;
	struct pa_run *run;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 8, 1, "/usr/bin/app", NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, 0, 0x400000, 0x410000, 1000, "/usr/lib/a.so", NULL, 0);
	tst_log_unload(&l, 1, 2500);
	tst_log_module(&l, 2, 0, 0x400000, 0x410000, 2600, "/usr/lib/b.so", NULL, 0);
	tst_log_process_end(&l, 9000, 4, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 8, 8, 1500, "main");
	tst_log_sample(&l, 2000, 0, 0, 3, rd_ips);
	tst_log_sample(&l, 2400, 0, 0, 3, rd_ips);
	tst_log_sample(&l, 2700, 0, 0, 3, rd_ips);
	tst_log_sample(&l, 2800, 0, 0, 3, rd_ips);
	tst_log_thread_end(&l, 3000, 4, 0, 0);
	tst_log_write(&l, pdir, "thread-8.log");

	run = rd_load_opts(&lo);
	t = run->processes[0]->threads[0];
	cr_assert_eq(t->nsamples, 2, "%zu entries", t->nsamples);
	cr_expect(t->samples[0].count == 2 && t->samples[0].time_ns == 2400);
	cr_expect(t->samples[1].count == 2 && t->samples[1].time_ns == 2800);
	pa_run_free(run);
	free(pdir);
}

/* A time window leaves out, while reading, what it does not select. */
Test(reader, window_keeps_only_samples_inside_it)
{
	/* The process starts at 1000 ns (tst_log_process). */
	struct pa_load_opts windows[] = {
		{ .window = { .on = true, .from_ns = 1000, .to_ns = 3000 } },
		{ .window = { .on = true, .from_ns = 1000, .to_ns = 3000 }, .collapse = true },
	};
	char *pdir = rd_process_dir("app.9", 9);
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 9, 9, 1500, "main");
	tst_log_sample(&l, 500, 0, 0, 3, rd_ips);  /* before the start: at 0 */
	tst_log_sample(&l, 1999, 0, 0, 3, rd_ips); /* at 999 ns */
	tst_log_sample(&l, 2000, 0, 0, 3, rd_ips); /* at 1000: the first in */
	tst_log_sample(&l, 3999, 0, 0, 2, rd_ips); /* at 2999: the last in */
	tst_log_sample(&l, 4000, 0, 0, 3, rd_ips); /* at 3000: out */
	tst_log_thread_end(&l, 5000, 5, 0, 0);
	tst_log_write(&l, pdir, "thread-9.log");

	for (size_t w = 0; w < 2; w++) {
		struct pa_run *run = rd_load_opts(&windows[w]);
		const struct pa_thread *t = run->processes[0]->threads[0];

		cr_assert_eq(t->nsamples, 2, "window %zu: %zu entries", w, t->nsamples);
		cr_expect(t->samples[0].time_ns == 2000 && t->samples[0].count == 1);
		cr_expect(t->samples[1].time_ns == 3999 && t->samples[1].nframes == 2);
		pa_run_free(run);
	}
	free(pdir);
}

/* What no writer makes, named like a log: kind for tst_log_odd_file, what the warning says. */
struct rd_odd_case {
	char kind[16];
	char what[48];
};

static struct rd_odd_case rd_odd_cases[] = {
	{ "fifo", "is a FIFO, not a regular file" },
	{ "directory", "is a directory, not a regular file" },
	{ "socket", "is a socket, not a regular file" },
	{ "symlink", "is a symbolic link, not a regular file" },
	{ "device", "is a character device, not a regular file" },
};

/* Makes dir/name of c's kind; skips the test, saying why, where it cannot. */
static void rd_odd_file(const char *dir, const char *name, const struct rd_odd_case *c)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!tst_log_odd_file(path, c->kind))
		cr_skip_test("cannot make a %s here (mknod needs CAP_MKNOD)", c->kind);
}

/* Whether w has a warning on a path ending in suffix whose reason holds needle. */
static bool rd_has_warning_on(const struct pa_warnings *w, const char *suffix,
			      const char *needle)
{
	for (size_t i = 0; i < w->n; i++) {
		size_t n = strlen(w->v[i].path), k = strlen(suffix);

		if (n >= k && strcmp(w->v[i].path + n - k, suffix) == 0 &&
		    strstr(w->v[i].reason, needle))
			return true;
	}
	return false;
}

ParameterizedTestParameters(reader, skips_thread_log_that_is_not_a_regular_file)
{
	return cr_make_param_array(struct rd_odd_case, rd_odd_cases,
				   sizeof(rd_odd_cases) / sizeof(rd_odd_cases[0]));
}

/* A FIFO named thread-N.log used to hang the load; the others, to fail it whole. */
ParameterizedTest(struct rd_odd_case *c, reader, skips_thread_log_that_is_not_a_regular_file,
		  .init = rd_setup, .fini = rd_teardown, .timeout = 10)
{
	char *pdir = rd_process_dir("app.5", 5);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;

	rd_thread_start(&l, 5, 5);
	tst_log_thread_end(&l, 8500, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-5.log");
	rd_odd_file(pdir, "thread-6.log", c);
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s: %s", c->kind, err.path,
		     err.reason);
	cr_assert_eq(run->nprocesses, 1);
	cr_assert_eq(run->processes[0]->nthreads, 1, "%s", c->kind);
	cr_expect_eq(run->processes[0]->threads[0]->tid, 5);
	cr_expect_eq(run->processes[0]->threads[0]->nsamples, 2);
	cr_expect(rd_has_warning_on(&run->warnings, "app.5/thread-6.log", c->what),
		  "%s: no warning \"%s\" on thread-6.log (%zu warnings, first: %s)", c->kind,
		  c->what, run->warnings.n, run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
	free(pdir);
}

ParameterizedTestParameters(reader, skips_process_whose_process_log_is_not_a_regular_file)
{
	return cr_make_param_array(struct rd_odd_case, rd_odd_cases,
				   sizeof(rd_odd_cases) / sizeof(rd_odd_cases[0]));
}

/* Another process of the run is read; one with nothing else is an error naming it. */
ParameterizedTest(struct rd_odd_case *c, reader,
		  skips_process_whose_process_log_is_not_a_regular_file,
		  .init = rd_setup, .fini = rd_teardown, .timeout = 10)
{
	char *good = rd_process_dir("app.7", 7);
	char *odd = tst_log_subdir(rd_dir, "app.8");
	struct pa_error err = { 0 };
	struct pa_run *run;

	rd_odd_file(odd, PPF_PROCESS_LOG, c);
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s: %s", c->kind, err.path,
		     err.reason);
	cr_assert_eq(run->nprocesses, 1);
	cr_expect_eq(run->processes[0]->pid, 7);
	cr_expect(rd_has_warning_on(&run->warnings, "app.8/" PPF_PROCESS_LOG, c->what),
		  "%s: no warning \"%s\" on app.8/process.log (%zu warnings)", c->kind, c->what,
		  run->warnings.n);
	pa_run_free(run);
	cr_assert_lt(pa_run_load(odd, &run, &err), 0, "%s: app.8 alone loaded", c->kind);
	cr_expect(strstr(err.path, "app.8/" PPF_PROCESS_LOG), "%s", err.path);
	cr_expect(strstr(err.reason, c->what), "%s: %s", c->kind, err.reason);
	free(good);
	free(odd);
}

/* ---- logs that stopped early (PPF_REC_LOG_FULL) ------------------------- */

static void rd_add_log_full(struct tst_log *l)
{
	tst_log_event(l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_log_full(l, 2500001000, ENOSPC);
}

/*
 * A full disk: process.log and one of two thread logs stopped early, then
 * were finished. Each is read whole and marked; the run gets one warning
 * for the process, naming the reason and the time, and nothing is called
 * unfinished.
 */
Test(reader, reads_logs_that_stopped_early)
{
	char *pdir = rd_config_dir("app.7", rd_add_log_full);
	struct pa_error err = { 0 };
	struct tst_log l;
	struct pa_run *run;
	const struct pa_process *p;

	rd_thread_start(&l, 7, 7);
	tst_log_log_full(&l, 3000001000, ENOSPC);
	tst_log_thread_end(&l, 9000, 2, 40, 0);
	tst_log_write(&l, pdir, "thread-7.log");
	rd_thread_start(&l, 7, 8);
	tst_log_thread_end(&l, 9000, 2, 0, 0);
	tst_log_write(&l, pdir, "thread-8.log");
	cr_assert_eq(pa_run_load(rd_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert(p->ended);
	cr_assert(p->full.full);
	cr_assert_eq(p->full.error, ENOSPC);
	cr_assert_eq(p->nthreads, 2);
	cr_assert(p->threads[0]->full.full);
	cr_assert_eq(p->threads[0]->full.time_ns, 3000001000);
	cr_assert(p->threads[0]->ended);
	cr_assert_eq(p->threads[0]->nsamples, 2);
	cr_assert_eq(p->threads[0]->lost, 40);
	cr_assert_not(p->threads[1]->full.full);
	cr_assert_eq(run->warnings.n, 1, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	cr_assert_str_eq(run->warnings.v[0].path, pdir);
	cr_assert_str_eq(run->warnings.v[0].reason, "1 of 2 thread logs stopped early, unable "
			 "to grow (No space left on device), the first 3.000 s after the "
			 "process started: their samples after that were not written "
			 "(counted as lost); process.log stopped 2.500 s after the process "
			 "started: modules loaded after that are not named");
	pa_run_free(run);
	free(pdir);
}

/* A log that stopped early and then lost its END (killed later) says both, not "killed". */
Test(reader, unfinished_full_log_says_it_stopped_early)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct pa_warnings warn = { 0 };
	struct tst_log l;
	struct pa_thread *t;
	uint64_t off = 0;

	rd_thread_start(&l, 1, 1);
	tst_log_log_full(&l, 5000, EDQUOT);
	tst_log_write(&l, pdir, "thread-1.log");
	t = rd_load_thread(pdir, "thread-1.log", &warn);
	cr_assert(t->full.full);
	cr_assert_not(t->ended);
	cr_assert_eq(t->nsamples, 2);
	cr_assert(rd_has_warning(&warn, "not finalised (no END record) after it stopped early, "
				 "unable to grow (Disk quota exceeded)", &off), "%s",
		  warn.n ? warn.v[0].reason : "");
	cr_assert_not(rd_has_warning(&warn, "killed", NULL));
	pa_thread_free(t);
	pa_warnings_release(&warn);
	free(pdir);
}

Test(reader, rejects_short_log_full_record)
{
	char *pdir = rd_process_dir("app.1", 1);
	struct tst_log l;
	struct pa_error err;
	size_t off;

	rd_thread_start(&l, 1, 1);
	off = tst_log_log_full(&l, 5000, ENOSPC);
	tst_log_rec(&l, off)->size = 16;
	tst_log_write(&l, pdir, "thread-1.log");
	err = rd_expect_thread_error(pdir, "thread-1.log", off);
	cr_assert(strstr(err.reason, "log full record of 16 bytes, needs at least 24"), "%s",
		  err.reason);
	free(pdir);
}

/*
 * Logs parsed from memory read as the same files do in a process
 * directory: the thread log with the process's checks (its pid, its
 * events) and, collapsed, its module unloads; and from a copy, so that the
 * caller's buffer may go at once.
 */
Test(reader, parses_logs_from_memory_as_from_files)
{
	const struct pa_load_opts lo = { .collapse = true };
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_process *proc;
	struct pa_thread *t;
	struct tst_log pl, tl;

	tst_log_begin(&pl, PPF_FILE_PROCESS);
	tst_log_process(&pl, 8, 1, "/usr/bin/app", NULL);
	tst_log_event(&pl, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&pl, 1, 0, 0x400000, 0x410000, 1000, "/usr/lib/a.so", NULL, 0);
	tst_log_unload(&pl, 1, 2500);
	tst_log_process_end(&pl, 9000, 4, 0, PPF_EXIT_NORMAL, 0);
	tst_log_begin(&tl, PPF_FILE_THREAD);
	tst_log_thread(&tl, 9, 9, 1500, "main"); /* pid 9 in process 8 */
	for (uint64_t ns = 2000; ns < 3000; ns += 250)
		tst_log_sample(&tl, ns, 0, 0, 3, rd_ips); /* two before the unload */
	tst_log_thread_event(&tl, 9, PPF_THREAD_EVENT_COUNTED, 0, 0, 7, 1, 1);
	tst_log_thread_end(&tl, 3000, 4, 0, 0);

	cr_assert_eq(pa_process_log_parse("mem/process.log", pl.buf, pl.len, &proc, &warn,
					  &err), 0, "%s", err.reason);
	free(pl.buf);
	cr_expect(proc->pid == 8 && proc->ended && proc->nmodules == 1 &&
		  proc->modules[0].unload_ns == 2500);
	cr_expect_str_eq(proc->path, "mem/process.log");

	cr_assert_eq(pa_thread_log_parse("mem/thread-9.log", tl.buf, tl.len, proc, &lo, &t,
					 &warn, &err), 0, "%s", err.reason);
	cr_expect_eq(t->nsamples, 2, "%zu entries: the unload keeps them apart", t->nsamples);
	cr_expect(t->samples[0].count == 2 && t->samples[1].count == 2);
	cr_expect(rd_has_warning(&warn, "thread log of pid 9 in the directory of pid 8", NULL));
	cr_expect(rd_has_warning(&warn, "totals for event 9", NULL));
	pa_thread_free(t);
	pa_warnings_release(&warn);

	cr_assert_eq(pa_thread_log_parse("mem/thread-9.log", tl.buf, tl.len, NULL, NULL, &t,
					 &warn, &err), 0, "%s", err.reason);
	free(tl.buf);
	cr_assert_eq(t->nsamples, 4, "every sample, without a process");
	for (size_t i = 0; i < t->nsamples; i++)
		cr_expect_eq(memcmp(t->samples[i].ips, rd_ips, sizeof(rd_ips)), 0);
	cr_expect_eq(warn.n, 0, "no process, nothing to check against");
	cr_expect_str_eq(t->path, "mem/thread-9.log");
	pa_thread_free(t);
	pa_process_free(proc);
	pa_warnings_release(&warn);
}
