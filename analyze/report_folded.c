/* report_folded: folded stacks; see report_folded.h. */
#include "grow.h"
#include "report_folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "samples.h"

int pa_report_folded(FILE *out, const struct pa_profile *prof)
{
	for (size_t i = 0; i < prof->nstacks; i++) {
		char *s = pa_stack_fold(&prof->stacks[i]);

		if (!s)
			return -ENOMEM;
		fprintf(out, "%s %" PRIu64 "\n", s, prof->stacks[i].count);
		free(s);
	}
	return ferror(out) ? -EIO : 0;
}

/* Per-thread stacks while counting: folded text interned, a count per line. */
struct pa_folded_threads {
	struct pa_intern *lines;
	uint64_t *counts;
	size_t cap;
	char *buf;   /* the line being built */
	size_t size;
};

/* Append s (and a ';' before it unless at 0) at *at, growing the buffer. */
static int pa_folded_append(struct pa_folded_threads *ft, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + n + 2 > ft->size) {
		size_t nsize = (ft->size + n + 2) * 2;
		char *nb = realloc(ft->buf, nsize);

		if (!nb)
			return -ENOMEM;
		ft->buf = nb;
		ft->size = nsize;
	}
	if (*at)
		ft->buf[(*at)++] = ';';
	memcpy(ft->buf + *at, s, n + 1);
	*at += n;
	return 0;
}

static int pa_folded_count(struct pa_folded_threads *ft, size_t at, uint64_t weight)
{
	size_t before = pa_intern_count(ft->lines);
	int64_t i = pa_intern_add(ft->lines, ft->buf, at + 1);

	if (i < 0)
		return (int)i;
	if ((size_t)i == before &&
	    pa_grow((void **)&ft->counts, &ft->cap, before, sizeof(*ft->counts)) < 0)
		return -ENOMEM;
	if ((size_t)i == before)
		ft->counts[i] = 0;
	ft->counts[i] += weight;
	return 0;
}

static int pa_folded_thread_sample(void *ctx, const struct pa_samples_item *item)
{
	struct pa_folded_threads *ft = ctx;
	const char *exe = pa_process_exe_base(item->proc);
	char root[2][PPF_THREAD_NAME_MAX + 64];
	size_t at = 0;
	int ret = 0;

	snprintf(root[0], sizeof(root[0]), "%.*s (%" PRIu32 ")", PPF_THREAD_NAME_MAX,
		 exe, item->proc->pid);
	snprintf(root[1], sizeof(root[1]), "%.*s (%" PRIu32 ")", PPF_THREAD_NAME_MAX,
		 item->thread->name[0] ? item->thread->name : exe, item->thread->tid);
	if (item->proc->run_dir)
		ret = pa_folded_append(ft, &at, item->proc->run_dir);
	if (ret == 0)
		ret = pa_folded_append(ft, &at, root[0]);
	if (ret == 0)
		ret = pa_folded_append(ft, &at, root[1]);
	for (size_t k = item->nframes; k-- > 0 && ret == 0;)
		ret = pa_folded_append(ft, &at, item->frames[k].name);
	return ret < 0 ? ret : pa_folded_count(ft, at, item->sample->count);
}

struct pa_folded_line {
	const char *text;
	uint64_t count;
};

static int pa_folded_cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct pa_folded_line *)a)->text,
		      ((const struct pa_folded_line *)b)->text);
}

static int pa_folded_write(FILE *out, struct pa_folded_threads *ft)
{
	size_t n = pa_intern_count(ft->lines);
	struct pa_folded_line *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].text = pa_intern_key(ft->lines, i, NULL);
		v[i].count = ft->counts[i];
	}
	qsort(v, n, sizeof(*v), pa_folded_cmp_line);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %" PRIu64 "\n", v[i].text, v[i].count);
	free(v);
	return ferror(out) ? -EIO : 0;
}

int pa_report_folded_threads(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			     struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_folded_threads ft = { .lines = pa_intern_new() };
	int ret = -ENOMEM;

	if (ft.lines)
		ret = pa_samples_walk(run, f, pa_folded_thread_sample, &ft, warn, err);
	if (ret == 0)
		ret = pa_folded_write(out, &ft);
	if (ret == -ENOMEM)
		pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	pa_intern_free(ft.lines);
	free(ft.counts);
	free(ft.buf);
	return ret;
}
