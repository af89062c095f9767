/* report_folded: folded stacks, as flamegraph.pl and speedscope read them. */
#include "grow.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"
#include "intern.h"
#include "samples.h"
#include "textsafe.h"

/*
 * One line per distinct stack of ctx->prof: frames root first joined by
 * ';', a space, the sample count ("main;work;leaf 12"), in the profile's
 * order (sorted by stack text). Returns 0, or -EIO on a write error.
 */
/*
 * One line per distinct text, in the order the profile's stacks first give
 * it: two stacks whose frames print alike (a function of one name in two
 * libraries) are one line, their counts summed, as the format wants.
 */
static int pa_report_folded_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_profile *prof = ctx->prof;
	struct pa_intern *lines = pa_intern_new();
	uint64_t *counts = calloc(prof->nstacks ? prof->nstacks : 1, sizeof(*counts));
	int ret = lines && counts ? 0 : -ENOMEM;

	for (size_t i = 0; i < prof->nstacks && ret == 0; i++) {
		char *s = pa_stack_fold(&prof->stacks[i]);
		int64_t at = s ? pa_intern_add(lines, s, strlen(s) + 1) : -ENOMEM;

		free(s);
		if (at < 0)
			ret = (int)at;
		else
			counts[at] += prof->stacks[i].count;
	}
	for (size_t i = 0; ret == 0 && i < pa_intern_count(lines); i++)
		fprintf(out, "%s %" PRIu64 "\n", (const char *)pa_intern_key(lines, i, NULL),
			counts[i]);
	pa_intern_free(lines);
	free(counts);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}

/* Per-thread stacks while counting: folded text interned, a count per line. */
struct pa_folded_threads {
	struct pa_intern *lines;
	uint64_t *counts;
	size_t cap;
	char *buf;   /* the line being built */
	size_t size;
	struct pa_ident_run id; /* where the run's processes ran (their tags) */
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
	/* A thread, program or directory named with a ';' or a newline would split it. */
	pa_text_clean(ft->buf + *at, n, true);
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
	char root[2][PPF_THREAD_NAME_MAX + 160], tag[96];
	size_t at = 0;
	int ret = 0;

	/* "EXE (PID, rank3@node2)": the pid alone may be another host's. */
	pa_ident_tag(&ft->id, item->proc, tag, sizeof(tag));
	snprintf(root[0], sizeof(root[0]), "%.*s (%" PRIu32 "%s%s)", PPF_THREAD_NAME_MAX,
		 exe, item->proc->pid, tag[0] ? ", " : "", tag);
	snprintf(root[1], sizeof(root[1]), "%.*s (%" PRIu32 ")", PPF_THREAD_NAME_MAX,
		 item->thread->name[0] ? item->thread->name : exe, item->thread->tid);
	if (item->proc->run_dir)
		ret = pa_folded_append(ft, &at, item->proc->run_dir);
	if (ret == 0)
		ret = pa_folded_append(ft, &at, root[0]);
	/* The time before profiling is the process's, no thread's (before.h). */
	if (ret == 0 && item->thread != item->proc->before_thread)
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

/*
 * The same per thread (folded --per-thread): each stack of ctx->run's
 * samples that ctx->filter selects starts with two root frames, "EXE (PID)"
 * (the executable's basename) and "THREAD (TID)" (the thread's name, or EXE
 * when it has none): "demo (4242);worker (4243);main;work;leaf 12". Lines
 * sorted by text. Symboliser warnings go to ctx->warn (may be NULL).
 * Returns 0, -EIO on a write error, or another negative errno with
 * ctx->err filled.
 */
static int pa_report_folded_threads_write(const struct pa_report_ctx *ctx)
{
	struct pa_folded_threads ft = { .lines = pa_intern_new() };
	int ret = -ENOMEM;

	pa_ident_scan(ctx->run, &ft.id);
	if (ft.lines)
		ret = pa_samples_walk(ctx->run, ctx->filter, pa_folded_thread_sample, &ft,
				      ctx->warn, ctx->err);
	if (ret == 0)
		ret = pa_folded_write(ctx->out, &ft);
	if (ret == -ENOMEM)
		pa_error_set(ctx->err, ret, ctx->run->dir, false, 0, "out of memory");
	pa_intern_free(ft.lines);
	free(ft.counts);
	free(ft.buf);
	return ret;
}

/* folded --per-thread walks the samples itself: no profile. */
static const struct pa_report pa_report_folded_threads = {
	.name = "folded",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.notes_apart = true,
	.write = pa_report_folded_threads_write,
};

static const struct pa_report *pa_report_folded_variant(const struct pa_report_opts *o)
{
	return o->per_thread ? &pa_report_folded_threads : &pa_report_folded;
}

const struct pa_report pa_report_folded = {
	.name = "folded",
	.usage = "DIR [--per-thread] [OPTIONS]",
	.help = "Folded stacks, one line per distinct stack, root first,\n"
		"frames joined by ';', then a space and the sample count;\n"
		"input for flamegraph.pl or speedscope. No header line.\n"
		"--per-thread: two root frames per stack, 'EXE (PID)' and\n"
		"'THREAD (TID)'; with several DIRs, the DIR before them.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.notes_apart = true,
	.variant = pa_report_folded_variant,
	.write = pa_report_folded_write,
};
