/*
 * PPF_REC_MODULE_REF against analyze/reader.c: a module whose record is a
 * file at the run's root, written by the preload's writer
 * (pp_records_module_file_sigsafe), reads back as the module the process
 * had, from a process directory or from a process log alone at the root;
 * a file that is missing, cut short at any offset (as a writer killed
 * while writing it in place would leave it) or not what its name says is
 * not trusted: the module is left unnamed with a warning naming the file,
 * and the rest of the run reads. PPF_REC_EVENT_REF likewise for an event.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "config.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "tst_log.h"

TestSuite(reader_modref, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown, .timeout = 60);

static const uint8_t mr_id[20] = { 0xd6, 0x77, 0x6e, 0x1f, 0xdf, 0x34, 0xc1, 0x09, 0x78, 0xa5,
				   0x17, 0x1f, 0x2a, 0x85, 0xe8, 0x07, 0x5b, 0xec, 0x01, 0xae };

/* libburn.so as a process has it: loaded at bias 0x7f0000000000. */
static const struct pp_records_module mr_mod = {
	.id = 3, .bias = 0x7f0000000000, .start = 0x7f0000000000, .end = 0x7f0000005000,
	.pgoff = 0, .load_ns = 2500, .build_id = mr_id, .build_id_len = sizeof(mr_id),
	.path = "/opt/lib/libburn.so",
};

/* The module's file as the preload writes it, its size, and its key and name. */
struct mr_file {
	uint8_t data[4096];
	uint32_t size;
	uint8_t key[PPF_MODULE_KEY_LEN];
	char name[64];
};

static void mr_file(struct mr_file *f)
{
	XXH128_canonical_t sum;
	int n;

	f->size = pp_records_module_file_sigsafe(f->data, sizeof(f->data), &mr_mod);
	cr_assert_gt(f->size, 0);
	XXH128_canonicalFromHash(&sum, XXH3_128bits(f->data, f->size));
	memcpy(f->key, sum.digest, sizeof(f->key));
	n = snprintf(f->name, sizeof(f->name), "%s", PPF_MODULE_FILE_PREFIX);
	for (unsigned i = 0; i < PPF_MODULE_KEY_LEN; i++)
		n += snprintf(f->name + n, sizeof(f->name) - (size_t)n, "%02x", f->key[i]);
}

/* Writes size bytes of data as dir/name. */
static void mr_put(const char *dir, const char *name, const void *data, size_t size)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(write(fd, data, size), (ssize_t)size);
	close(fd);
}

/*
 * A process log of pid naming the module by key (and the program's own
 * module in full), in dir/app@h.<pid>/ or, alone, as dir/app@h.<pid>.log.
 */
static void mr_process_of(const uint8_t *key, bool alone, uint32_t pid)
{
	static const char *const argv[] = { "app", NULL };
	char name[64];
	struct tst_log l;
	char *pdir;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, 0x400000, 0x400000, 0x500000, 0, "/usr/bin/app", NULL, 0);
	tst_log_module_ref(&l, mr_mod.id, mr_mod.bias, mr_mod.load_ns, key);
	tst_log_unload(&l, mr_mod.id, 8000);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	snprintf(name, sizeof(name), alone ? "app@h.%u.log" : "app@h.%u", (unsigned)pid);
	if (alone) {
		tst_log_write(&l, tst_log_dir, name);
		return;
	}
	pdir = tst_log_subdir(tst_log_dir, name);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	free(pdir);
}

static void mr_process(const uint8_t *key, bool alone)
{
	mr_process_of(key, alone, 7);
}

/* The run, which must load, of one process. */
static struct pa_run *mr_load(bool named)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	const struct pa_process *p;

	cr_assert_eq(pa_run_load(tst_log_dir, &run, &err), 0, "%s: offset %llu: %s", err.path,
		     (unsigned long long)err.offset, err.reason);
	cr_assert_eq(run->nprocesses, 1);
	p = run->processes[0];
	/* mr_process's: the program's own module, and libburn.so when its file is read */
	if (p->nmodules && !strcmp(p->modules[0].path, "/usr/bin/app"))
		cr_assert_eq(p->nmodules, named ? 2 : 1);
	return run;
}

/* Whether the run warned about file name with reason holding needle. */
static bool mr_warned(const struct pa_run *run, const char *name, const char *needle)
{
	for (size_t i = 0; i < run->warnings.n; i++)
		if (strstr(run->warnings.v[i].path, name) && strstr(run->warnings.v[i].reason, needle))
			return true;
	return false;
}

static void mr_reads_back(bool alone)
{
	struct mr_file f;
	struct pa_run *run;
	const struct pa_module *m;

	mr_file(&f);
	mr_put(tst_log_dir, f.name, f.data, f.size);
	mr_process(f.key, alone);
	run = mr_load(true);
	m = &run->processes[0]->modules[1];
	cr_expect_eq(m->id, mr_mod.id);
	cr_expect_eq(m->bias, mr_mod.bias);
	cr_expect_eq(m->start, mr_mod.start);
	cr_expect_eq(m->end, mr_mod.end);
	cr_expect_eq(m->pgoff, mr_mod.pgoff);
	cr_expect_eq(m->load_ns, mr_mod.load_ns);
	cr_expect_eq(m->unload_ns, 8000, "the unload names the module by its id");
	cr_expect_str_eq(m->path, mr_mod.path);
	cr_expect_eq(m->build_id_len, sizeof(mr_id));
	cr_expect_arr_eq(m->build_id, mr_id, sizeof(mr_id));
	cr_expect_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
}

Test(reader_modref, module_reads_back_from_the_root)
{
	mr_reads_back(false);
}

Test(reader_modref, module_reads_back_beside_a_process_log_alone_at_the_root)
{
	mr_reads_back(true);
}

/*
 * Both halves from the preload's writers: process.log's PPF_REC_MODULE_REF
 * (pp_records_module_ref_sigsafe, then the vDSO's PPF_REC_VDSO after it)
 * and the file at the root.
 */
Test(reader_modref, writers_round_trip)
{
	struct pp_records_module vdso = mr_mod;
	struct pp_logfile log;
	struct mr_file f;
	struct pa_run *run;
	char *pdir = tst_log_subdir(tst_log_dir, "app@h.9");
	int dirfd = open(pdir, O_RDONLY | O_DIRECTORY);
	const struct pa_module *m;

	cr_assert_geq(dirfd, 0);
	mr_file(&f);
	mr_put(tst_log_dir, f.name, f.data, f.size);
	vdso.vdso_image = "vdso.d6776e1f.so";
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS), 0);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, 5, "/usr/bin/app",
						 "app", 4), 0);
	cr_assert_eq(pp_records_module_ref_sigsafe(&log, &vdso, f.key), 0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	free(pdir);
	run = mr_load(false);
	m = &run->processes[0]->modules[0];
	cr_expect_eq(m->id, mr_mod.id);
	cr_expect_eq(m->start, mr_mod.start);
	cr_expect_eq(m->end, mr_mod.end);
	cr_expect_str_eq(m->path, mr_mod.path);
	cr_expect_str_eq(m->vdso_image, "vdso.d6776e1f.so");
	pa_run_free(run);
}

/* The run's root without the file (a process directory copied alone): said, and the rest reads. */
Test(reader_modref, missing_file_leaves_the_module_unnamed_with_a_warning)
{
	struct mr_file f;
	struct pa_run *run;

	mr_file(&f);
	mr_process(f.key, false);
	run = mr_load(false);
	cr_expect(mr_warned(run, f.name, "is left unknown"), "%s",
		  run->warnings.n ? run->warnings.v[0].reason : "no warning");
	cr_expect(mr_warned(run, "app@h.7", "unload of unknown module id 3"));
	pa_run_free(run);
}

/*
 * The file cut at every offset (what a writer killed while writing it in
 * place would leave; the preload writes it under another name and links
 * it), or with one byte changed: never trusted, never a crash.
 */
Test(reader_modref, file_cut_or_changed_is_not_trusted)
{
	struct mr_file f;

	mr_file(&f);
	mr_process(f.key, false);
	for (uint32_t cut = 0; cut <= f.size; cut++) {
		struct pa_run *run;
		uint8_t *copy = malloc(f.size);

		memcpy(copy, f.data, f.size);
		if (cut == f.size)
			copy[f.size - 10] ^= 1; /* whole length, one bit off */
		mr_put(tst_log_dir, f.name, copy, cut == f.size ? f.size : cut);
		free(copy);
		run = mr_load(false);
		cr_expect(mr_warned(run, f.name, "not what its name says"),
			  "cut at %u of %u: %s", cut, f.size,
			  run->warnings.n ? run->warnings.v[0].reason : "no warning");
		pa_run_free(run);
	}
}

/*
 * A damaged file that many processes name (a build's hundreds of processes
 * all name libc's): said once for the run, and left unknown in each.
 */
Test(reader_modref, a_damaged_file_is_said_once_for_all_processes_naming_it)
{
	struct pa_error err = { 0 };
	struct mr_file f;
	struct pa_run *run;
	size_t said = 0;

	mr_file(&f);
	f.data[f.size - 10] ^= 1;
	mr_put(tst_log_dir, f.name, f.data, f.size);
	for (uint32_t pid = 7; pid < 12; pid++)
		mr_process_of(f.key, true, pid);
	cr_assert_eq(pa_run_load(tst_log_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	cr_assert_eq(run->nprocesses, 5);
	for (size_t i = 0; i < run->warnings.n; i++)
		said += strstr(run->warnings.v[i].path, f.name) != NULL;
	cr_expect_eq(said, 1, "warnings naming %s: %zu", f.name, said);
	cr_expect(mr_warned(run, f.name, "left unknown in every process that names it"));
	for (size_t i = 0; i < run->nprocesses; i++)
		cr_expect_eq(run->processes[i]->nmodules, 1, "pid %u: only its own module",
			     run->processes[i]->pid);
	pa_run_free(run);
}

/*
 * A file under the right name grown far past what one record can be (a
 * sparse file of 4 GiB): refused by its size, not read and hashed whole.
 */
Test(reader_modref, a_file_larger_than_one_record_is_not_read)
{
	char path[4096];
	struct mr_file f;
	struct pa_run *run;

	mr_file(&f);
	mr_process(f.key, false);
	mr_put(tst_log_dir, f.name, f.data, f.size);
	snprintf(path, sizeof(path), "%s/%s", tst_log_dir, f.name);
	cr_assert_eq(truncate(path, 4ll << 30), 0);
	run = mr_load(false);
	cr_expect(mr_warned(run, f.name, "more than the header and the one record"), "%s",
		  run->warnings.n ? run->warnings.v[0].reason : "no warning");
	pa_run_free(run);
}

/* A process log naming a module ref in a thread log's place: the record does not belong there. */
Test(reader_modref, module_ref_in_a_thread_log_is_an_error_at_its_offset)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err = { 0 };
	struct pa_thread *t = NULL;
	struct mr_file f;
	struct tst_log l;
	size_t off;

	mr_file(&f);
	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 8, 100, "worker");
	off = tst_log_module_ref(&l, 1, 0, 0, f.key);
	cr_assert_lt(pa_thread_log_parse("mem/thread-8.log", l.buf, l.len, NULL, NULL, &t, &warn,
					 &err), 0);
	cr_expect(strstr(err.reason, "does not belong in a thread log"), "%s", err.reason);
	cr_expect_eq(err.offset, off);
	free(l.buf);
	pa_warnings_release(&warn);
}

/* Key and name of the size bytes at data as a file of the root with prefix. */
static void mr_name(const void *data, uint32_t size, const char *prefix, uint8_t *key,
		    char *name, size_t cap)
{
	XXH128_canonical_t sum;
	int n;

	XXH128_canonicalFromHash(&sum, XXH3_128bits(data, size));
	memcpy(key, sum.digest, PPF_MODULE_KEY_LEN);
	n = snprintf(name, cap, "%s", prefix);
	for (unsigned i = 0; i < PPF_MODULE_KEY_LEN; i++)
		n += snprintf(name + n, cap - (size_t)n, "%02x", key[i]);
}

/*
 * An event's record at the root (pp_records_event_file_sigsafe) named by
 * its key from process.log (pp_records_event_ref_sigsafe) reads back as the
 * event; without the file, the event is unknown, with a warning naming it.
 */
Test(reader_modref, event_ref_reads_back_and_a_missing_file_is_said)
{
	const struct pp_config_event ce = { .name = "cycles", .spec = "cycles:u", .type = 0,
					    .config = 0, .period = 100000, .exclude_kernel = 1 };
	uint8_t file[512], key[PPF_MODULE_KEY_LEN];
	char name[64], *pdir = tst_log_subdir(tst_log_dir, "app@h.9");
	int dirfd = open(pdir, O_RDONLY | O_DIRECTORY);
	uint32_t size = pp_records_event_file_sigsafe(file, sizeof(file), 1, &ce, 0, 0);
	struct pp_logfile log;
	struct pa_run *run;
	const struct pa_process *p;

	cr_assert_geq(dirfd, 0);
	cr_assert_gt(size, 0);
	mr_name(file, size, PPF_EVENT_FILE_PREFIX, key, name, sizeof(name));
	mr_put(tst_log_dir, name, file, size);
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS), 0);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, 5, "/usr/bin/app",
						 "app", 4), 0);
	cr_assert_eq(pp_records_event_ref_sigsafe(&log, key), 0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	free(pdir);

	run = mr_load(false);
	p = run->processes[0];
	cr_assert_eq(p->nevents, 1);
	cr_expect_eq(p->events[0].index, 1);
	cr_expect_str_eq(p->events[0].name, "cycles");
	cr_expect_str_eq(p->events[0].spec, "cycles:u");
	cr_expect_eq(p->events[0].period, 100000);
	cr_expect_eq(p->events[0].flags, PPF_EVENT_EXCLUDE_KERNEL);
	cr_expect(!mr_warned(run, "", "event"));
	pa_run_free(run);

	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", tst_log_dir, name);
		cr_assert_eq(unlink(path), 0);
	}
	run = mr_load(false);
	cr_expect_eq(run->processes[0]->nevents, 0);
	cr_expect(mr_warned(run, name, "the event it holds"), "%s",
		  run->warnings.n ? run->warnings.v[0].reason : "no warning");
	pa_run_free(run);
}

/*
 * A process directory of an older run that is a symbolic link to a
 * directory elsewhere: its shared files are still the run's, beside the
 * link (not beside the link's target).
 */
Test(reader_modref, a_linked_process_directory_finds_the_runs_files)
{
	const struct pp_config_event ce = { .name = "cycles", .spec = "cycles:u", .type = 0,
					    .config = 0, .period = 100000, .exclude_kernel = 1 };
	uint8_t file[512], key[PPF_MODULE_KEY_LEN];
	char name[64], away[4096], link_path[4096];
	char *elsewhere = tst_log_tmpdir();
	char *pdir = tst_log_subdir(elsewhere, "app@h.9");
	int dirfd = open(pdir, O_RDONLY | O_DIRECTORY);
	uint32_t size = pp_records_event_file_sigsafe(file, sizeof(file), 1, &ce, 0, 0);
	struct pp_logfile log;
	struct pa_run *run;

	cr_assert_geq(dirfd, 0);
	mr_name(file, size, PPF_EVENT_FILE_PREFIX, key, name, sizeof(name));
	mr_put(tst_log_dir, name, file, size);
	pp_logfile_init_sigsafe(&log);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, PPF_PROCESS_LOG, PPF_FILE_PROCESS), 0);
	cr_assert_eq(pp_records_process_sigsafe(&log, (int)getppid(),
						PPF_MODE_SIGTRAP, 5, "/usr/bin/app",
						 "app", 4), 0);
	cr_assert_eq(pp_records_event_ref_sigsafe(&log, key), 0);
	pp_logfile_close_sigsafe(&log);
	close(dirfd);
	snprintf(away, sizeof(away), "%s", pdir);
	snprintf(link_path, sizeof(link_path), "%s/app@h.9", tst_log_dir);
	cr_assert_eq(symlink(away, link_path), 0);
	run = mr_load(false);
	cr_assert_eq(run->processes[0]->nevents, 1, "the event's file was looked for elsewhere");
	cr_expect_str_eq(run->processes[0]->events[0].name, "cycles");
	pa_run_free(run);
	/* Named directly, with the slash a shell's completion adds. */
	{
		char named[4200];
		struct pa_error err = { 0 };

		snprintf(named, sizeof(named), "%s/", link_path);
		cr_assert_eq(pa_run_load(named, &run, &err), 0, "%s: %s", err.path, err.reason);
		cr_expect_eq(run->processes[0]->nevents, 1, "%s: the event's file was looked for "
			     "elsewhere", named);
		pa_run_free(run);
	}
	unlink(link_path);
	tst_log_rmdir(elsewhere);
	free(pdir);
}
