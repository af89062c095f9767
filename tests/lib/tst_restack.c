/* tst_restack: a run written again with each stack once; see tst_restack.h. */
#include "tst_restack.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof/format.h"
#include "sigsafe/logfile.h"
#include "sigsafe/stacks.h"
#include "tst_it.h"

/* Copies the file from to to as it is. */
static void tst_restack_copy(const char *from, const char *to)
{
	size_t len;
	char *data = tst_slurp(from, &len);
	FILE *f = fopen(to, "wb");

	cr_assert(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "copy to %s", to);
	free(data);
}

/*
 * Writes thread log from again as name in dirfd: its records in order,
 * each PPF_REC_SAMPLE through the stack table. Returns the samples.
 */
static size_t tst_restack_thread(const char *from, int dirfd, const char *name)
{
	const struct ppf_file_header *h;
	struct pp_logfile log;
	struct pp_stacks *st;
	size_t len, off, n = 0;
	char *data = tst_slurp(from, &len);
	bool weighted = false;

	h = (const void *)data;
	cr_assert(len >= sizeof(*h) && h->header_size <= len, "%s: no header", from);
	pp_logfile_init_sigsafe(&log);
	pp_stacks_init_sigsafe(&st);
	cr_assert_eq(pp_logfile_create_sigsafe(&log, dirfd, name, PPF_FILE_THREAD), 0, "%s",
		     name);
	for (off = h->header_size; off + sizeof(struct ppf_record) <= len;) {
		const struct ppf_record *r = (const void *)(data + off);

		if (r->size == 0)
			break;
		cr_assert(r->size <= len - off, "%s: offset %zu: record past the end", from, off);
		/* A weighted sample stays whole, right after its weight (as the handler writes it). */
		if (r->type == PPF_REC_SAMPLE && !weighted) {
			const struct ppf_sample *s = (const void *)r;

			cr_assert_eq(pp_stacks_write_sigsafe(&st, &log, s->ips, s->nframes,
							     s->time_ns, s->event, s->flags, 0),
				     0, "%s: offset %zu", from, off);
			n++;
		} else {
			cr_assert_eq(pp_logfile_append_sigsafe(&log, r, r->size), 0,
				     "%s: offset %zu", from, off);
			/* A weighted one (a late sample, under load) is a sample too. */
			n += r->type == PPF_REC_SAMPLE;
		}
		weighted = r->type == PPF_REC_SAMPLE_WEIGHT;
		off += r->size;
	}
	pp_logfile_close_sigsafe(&log);
	pp_stacks_release_sigsafe(&st);
	free(data);
	return n;
}

/* Each entry of from but . and .., as process directories or files. */
/* Whether path is a thread log (in a process directory, or beside its process's log). */
static bool tst_restack_is_thread(const char *path)
{
	struct ppf_file_header h;
	FILE *f = fopen(path, "rb");
	bool is = f && fread(&h, sizeof(h), 1, f) == 1 &&
		  memcmp(h.magic, PPF_MAGIC, PPF_MAGIC_LEN) == 0 && h.kind == PPF_FILE_THREAD;

	if (f)
		fclose(f);
	return is;
}

static size_t tst_restack_dir(const char *from, const char *to, int depth)
{
	DIR *d = opendir(from);
	struct dirent *e;
	size_t n = 0;
	int dirfd;

	cr_assert_not_null(d, "opendir %s", from);
	cr_assert_eq(mkdir(to, 0700), 0, "mkdir %s", to);
	dirfd = open(to, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dirfd, 0);
	while ((e = readdir(d))) {
		char src[PATH_MAX], dst[PATH_MAX];
		struct stat sb;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
		cr_assert_eq(lstat(src, &sb), 0, "%s", src);
		if (S_ISDIR(sb.st_mode) && depth == 0)
			n += tst_restack_dir(src, dst, 1);
		else if (S_ISREG(sb.st_mode) && tst_restack_is_thread(src))
			n += tst_restack_thread(src, dirfd, e->d_name);
		else if (S_ISREG(sb.st_mode))
			tst_restack_copy(src, dst);
	}
	close(dirfd);
	closedir(d);
	return n;
}

size_t tst_restack_run(const char *from, const char *to)
{
	return tst_restack_dir(from, to, 0);
}
