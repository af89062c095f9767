/*
 * Tests of analyze/reader.c's PPF_REC_VDSO on hand-made logs: the vDSO's
 * module names its image at the run's root; a damaged record is an error at
 * its offset; one naming no module is a warning.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "reader.h"
#include "tst_log.h"

TestSuite(reader_vdso, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown, .timeout = 10);

static const uint8_t rv_id[4] = { 0xa5, 0x99, 0x80, 0x71 };

/* A process.log in dir/<name>/ of two modules (ids 1, 2), then what add writes. */
static void rv_process(const char *name, void (*add)(struct tst_log *))
{
	static const char *const argv[] = { "app", NULL };
	char *pdir = tst_log_subdir(tst_log_dir, name);
	struct tst_log l;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/usr/bin/app", argv);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, 0x400000, 0x400000, 0x500000, 0, "/usr/bin/app", NULL, 0);
	tst_log_module(&l, 2, 0x7fff0000, 0x7fff0000, 0x7fff2000, 0, "/old/run/vdso.a5998071.so",
		       rv_id, sizeof(rv_id));
	add(&l);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	free(pdir);
}

static size_t rv_at; /* offset of the record the add function wrote */

static void rv_add_vdso(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 2, "vdso.a5998071.so");
}

/* The vDSO's module has its image's name; the others have none. */
Test(reader_vdso, the_vdso_module_names_its_image_at_the_root)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	const struct pa_process *p;

	rv_process("app.7", rv_add_vdso);
	cr_assert_eq(pa_run_load(tst_log_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	p = run->processes[0];
	cr_assert_eq(p->nmodules, 2);
	cr_assert_null(p->modules[0].vdso_image);
	cr_assert_str_eq(p->modules[1].vdso_image, "vdso.a5998071.so");
	cr_assert_str_eq(p->modules[1].path, "/old/run/vdso.a5998071.so");
	cr_assert_eq(run->warnings.n, 0, "%s", run->warnings.n ? run->warnings.v[0].reason : "");
	pa_run_free(run);
}

static void rv_add_unknown_module(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 9, "vdso.a5998071.so");
}

/* A record naming a module the log does not have is said and ignored. */
Test(reader_vdso, a_record_of_an_unknown_module_is_a_warning)
{
	struct pa_error err = { 0 };
	struct pa_run *run;
	bool warned = false;

	rv_process("app.7", rv_add_unknown_module);
	cr_assert_eq(pa_run_load(tst_log_dir, &run, &err), 0, "%s: %s", err.path, err.reason);
	for (size_t i = 0; i < run->warnings.n; i++)
		warned |= strstr(run->warnings.v[i].reason, "unknown module id 9") &&
			  run->warnings.v[i].offset == rv_at;
	cr_assert(warned, "no warning at offset %zu", rv_at);
	cr_assert_null(run->processes[0]->modules[1].vdso_image);
	pa_run_free(run);
}

static void rv_add_path(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 2, "../../etc/passwd");
}

static void rv_add_dotdot(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 2, "..");
}

static void rv_add_unterminated(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 2, "vdso.a5998071.so");
	l->buf[rv_at + sizeof(struct ppf_vdso) + strlen("vdso.a5998071.so")] = 'x';
}

static void rv_add_long(struct tst_log *l)
{
	struct ppf_vdso *v;

	rv_at = tst_log_vdso(l, 2, "vdso.a5998071.so");
	v = (struct ppf_vdso *)(void *)(l->buf + rv_at);
	v->name_len = 4096;
}

static void rv_add_short(struct tst_log *l)
{
	rv_at = tst_log_vdso(l, 2, "vdso.a5998071.so");
	tst_log_rec(l, rv_at)->size = 16;
}

/* Loading the process log add damages fails at rv_at with a reason holding needle. */
static void rv_expect_error(void (*add)(struct tst_log *), const char *needle)
{
	static int n;
	char path[4200], name[32];
	struct pa_error err = { 0 };
	struct pa_process *p = NULL;

	snprintf(name, sizeof(name), "app.%d", ++n);
	rv_process(name, add);
	snprintf(path, sizeof(path), "%s/%s/%s", tst_log_dir, name, PPF_PROCESS_LOG);
	cr_assert_lt(pa_process_log_load(path, &p, NULL, &err), 0, "%s loaded", needle);
	cr_assert_null(p);
	cr_assert(err.has_offset && err.offset == rv_at, "offset %llu, record at %zu: %s",
		  (unsigned long long)err.offset, rv_at, err.reason);
	cr_assert(strstr(err.reason, needle), "%s", err.reason);
}

/*
 * A name that is not one file's name at the root (a path out of it), not
 * NUL-terminated, longer than its record, or a record too short for its
 * fixed part: an error naming the record's offset.
 */
Test(reader_vdso, a_damaged_record_is_an_error_at_its_offset)
{
	rv_expect_error(rv_add_path, "is not a file name");
	rv_expect_error(rv_add_dotdot, "is not a file name");
	rv_expect_error(rv_add_unterminated, "NUL");
	rv_expect_error(rv_add_long, "4096");
	rv_expect_error(rv_add_short, "needs at least 24");
}

/* The record belongs in process.log only. */
Test(reader_vdso, a_record_in_a_thread_log_is_an_error)
{
	char path[4200];
	struct pa_error err = { 0 };
	struct pa_thread *t = NULL;
	struct tst_log l;
	size_t at;

	tst_log_begin(&l, PPF_FILE_THREAD);
	tst_log_thread(&l, 7, 7, 1500, "main");
	at = tst_log_vdso(&l, 2, "vdso.a5998071.so");
	tst_log_write(&l, tst_log_dir, "thread-7.log");
	snprintf(path, sizeof(path), "%s/thread-7.log", tst_log_dir);
	cr_assert_lt(pa_thread_log_load(path, &t, NULL, &err), 0);
	cr_assert(err.has_offset && err.offset == at);
	cr_assert(strstr(err.reason, "does not belong"), "%s", err.reason);
}
