/*
 * Integration: what a run leaves on disk is what it recorded. A finished
 * log (its thread or process ended) is cut at the end of its last record:
 * no allocated tail of zeros is left behind, and the analyzer reads the
 * cut logs as before.
 */
#include <criterion/criterion.h>
#include <dirent.h>
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

/*
 * Every file of every process directory of the run ends where its records
 * end; returns how many files were looked at.
 */
static unsigned it_smallrun_check_ends(const struct pa_run *run)
{
	unsigned files = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const char *dir = run->processes[i]->dir;
		DIR *d = opendir(dir);
		struct dirent *e;

		cr_assert_not_null(d, "opendir %s", dir);
		while ((e = readdir(d)) != NULL) {
			char path[TST_PATH_MAX];
			size_t len, end;

			if (strcmp(e->d_name, PPF_PROCESS_LOG) != 0 &&
			    strncmp(e->d_name, PPF_THREAD_LOG_PREFIX,
				    strlen(PPF_THREAD_LOG_PREFIX)) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			end = it_smallrun_records_end(path, &len);
			cr_expect_eq(end, len, "%s: %zu bytes, its records end at %zu (a tail "
				     "of %zu bytes left)", path, len, end, len - end);
			files++;
		}
		closedir(d);
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
