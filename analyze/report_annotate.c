/* report_annotate: samples per source line of one function; see report_annotate.h. */
#include "grow.h"
#include "report_annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "symbols.h"

/* The samples of one source line of the function. */
struct pa_ann_line {
	char *file; /* NULL: no line info */
	unsigned line;
	uint64_t self;
	uint64_t total;
	bool shown; /* printed with its source text */
};

struct pa_ann {
	const char *func;
	struct pa_ann_line *v;
	size_t n, cap;
	uint64_t samples; /* selected samples */
	uint64_t self, total;
};

static bool pa_ann_same_file(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Count w samples at (file, line); -ENOMEM. */
static int pa_ann_count(struct pa_ann *a, const char *file, unsigned line, bool self,
			uint64_t w)
{
	struct pa_ann_line *l = NULL;

	for (size_t i = 0; i < a->n && !l; i++)
		if (a->v[i].line == line && pa_ann_same_file(a->v[i].file, file))
			l = &a->v[i];
	if (!l) {
		if (pa_grow((void **)&a->v, &a->cap, a->n,
			    sizeof(*a->v)) < 0)
			return -ENOMEM;
		l = &a->v[a->n];
		memset(l, 0, sizeof(*l));
		l->line = line;
		if (file && !(l->file = strdup(file)))
			return -ENOMEM;
		a->n++;
	}
	l->self += self ? w : 0;
	l->total += w;
	a->self += self ? w : 0;
	a->total += w;
	return 0;
}

/* Count sample s at its innermost frame that is a->func, if any; -ENOMEM. */
static int pa_ann_sample(struct pa_ann *a, struct pa_symbols *sym, const struct pa_sample *s)
{
	a->samples += s->count;
	for (size_t i = 0; i < s->nframes; i++) {
		const struct pa_srcframe *src;
		struct pa_frame fr;
		size_t n;

		if (pa_symbols_lookup_src(sym, s->ips[i], i > 0, s->time_ns, &src, &n) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			if (strcmp(src[k].function, a->func) == 0)
				return pa_ann_count(a, src[k].file, src[k].line, i == 0, s->count);
		if (n)
			continue;
		if (pa_symbols_lookup_at(sym, s->ips[i], i > 0, s->time_ns, &fr) < 0)
			return -ENOMEM;
		if (strcmp(fr.name, a->func) == 0)
			return pa_ann_count(a, NULL, 0, i == 0, s->count);
	}
	return 0;
}

static int pa_ann_process(struct pa_ann *a, const struct pa_filter *f,
			  const struct pa_process *proc, struct pa_warnings *warn,
			  struct pa_error *err)
{
	int64_t idx = pa_filter_event(f, proc);
	struct pa_symbols *sym = NULL;
	int ret = 0;

	for (size_t t = 0; t < proc->nthreads && ret == 0; t++) {
		const struct pa_thread *th = proc->threads[t];

		if (!pa_filter_selects_thread(f, th))
			continue;
		for (size_t i = 0; i < th->nsamples && ret == 0; i++) {
			const struct pa_sample *s = &th->samples[i];

			if ((idx != -1 && (idx < 0 || s->event != (uint64_t)idx)) ||
			    !pa_filter_selects_time(f, proc, s))
				continue;
			if (!sym && (ret = pa_symbols_new(proc, &sym, warn, err)) < 0)
				return ret;
			ret = pa_ann_sample(a, sym, s);
			if (ret < 0)
				pa_error_set(err, ret, proc->dir, false, 0, "out of memory");
		}
	}
	pa_symbols_free(sym);
	return ret;
}

static int pa_ann_cmp_line(const void *x, const void *y)
{
	const struct pa_ann_line *a = x, *b = y;
	int c;

	if (!a->file != !b->file)
		return a->file ? -1 : 1; /* no line info last */
	c = a->file ? strcmp(a->file, b->file) : 0;
	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static void pa_ann_counts(FILE *out, uint64_t self, uint64_t total)
{
	char s[24] = ".", t[24] = ".";

	if (self)
		snprintf(s, sizeof(s), "%" PRIu64, self);
	if (total)
		snprintf(t, sizeof(t), "%" PRIu64, total);
	fprintf(out, "%9s %9s", s, t);
}

/*
 * The lines v[0..n) of one file: its text from CONTEXT lines before the
 * first to CONTEXT after the last, or the counted lines alone when it
 * cannot be read.
 */
static void pa_ann_file(FILE *out, struct pa_ann_line *v, size_t n)
{
	size_t z = 0;
	unsigned first, last = v[n - 1].line + PA_REPORT_ANNOTATE_CONTEXT;
	FILE *src = fopen(v[0].file, "r");
	char *text = NULL;
	size_t cap = 0, k = 0;

	while (z + 1 < n && v[z].line == 0)
		z++; /* line 0: code the compiler gave no line */
	first = v[z].line > PA_REPORT_ANNOTATE_CONTEXT ? v[z].line - PA_REPORT_ANNOTATE_CONTEXT : 1;

	fprintf(out, "## %s\n", v[0].file);
	if (!src)
		fprintf(out, "# source file not found (%s): samples per line only\n",
			strerror(errno));
	fprintf(out, "%9s %9s %6s  %s\n", "self", "total", "line", "source");
	for (unsigned line = 1; src && line <= last; line++) {
		ssize_t len = getline(&text, &cap, src);

		if (len < 0)
			break;
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';
		if (line < first)
			continue;
		for (; k < n && v[k].line < line; k++)
			;
		if (k < n && v[k].line == line) {
			v[k].shown = true;
			pa_ann_counts(out, v[k].self, v[k].total);
		} else {
			pa_ann_counts(out, 0, 0);
		}
		fprintf(out, " %6u  %s\n", line, text);
	}
	free(text);
	if (src)
		fclose(src);
	/* Counted lines without text: unreadable file, past its end, or line 0. */
	for (size_t i = 0; i < n; i++) {
		if (v[i].shown)
			continue;
		pa_ann_counts(out, v[i].self, v[i].total);
		fprintf(out, " %6u\n", v[i].line);
	}
}

static int pa_ann_write(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			struct pa_ann *a)
{
	pa_events_header(out, run, f, a->samples, false, 0, 0, 0);
	fprintf(out, "# annotate %s: %" PRIu64 " samples in it (self), %" PRIu64
		" with it on the stack (total)\n", a->func, a->self, a->total);
	qsort(a->v, a->n, sizeof(*a->v), pa_ann_cmp_line);
	for (size_t i = 0, j; i < a->n; i = j) {
		for (j = i + 1; j < a->n && pa_ann_same_file(a->v[j].file, a->v[i].file); j++)
			;
		if (a->v[i].file) {
			pa_ann_file(out, &a->v[i], j - i);
			continue;
		}
		fprintf(out, "## (no line information)\n%9s %9s\n", "self", "total");
		pa_ann_counts(out, a->v[i].self, a->v[i].total);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int pa_report_annotate(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		       const char *func, struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_ann a = { .func = func };
	int ret = 0;

	for (size_t i = 0; i < run->nprocesses && ret == 0; i++)
		if (pa_filter_selects(f, run->processes[i]))
			ret = pa_ann_process(&a, f, run->processes[i], warn, err);
	if (ret == 0 && a.total == 0)
		ret = pa_error_set(err, -ENOENT, run->dir, false, 0,
				   "no sample has function %s (names as top shows them)", func);
	if (ret == 0)
		ret = pa_ann_write(out, run, f, &a);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i].file);
	free(a.v);
	return ret;
}
