/* report_annotate: one function's source, with the samples of each line. */
#include "grow.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventinfo.h"
#include "regfile.h"
#include "jsondoc.h"
#include "symbols.h"

/* Lines of source shown before the first counted line and after the last. */
#define PA_REPORT_ANNOTATE_CONTEXT 3

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

/* The lines of one source file (file NULL: those without line info), sorted. */
struct pa_ann_group {
	struct pa_ann_line *v;
	size_t n;
	FILE *src; /* the file's text; NULL when it cannot be read, or without a file */
	char why[64]; /* why it cannot: "No such file or directory", "a FIFO, ..." */
};

/*
 * Where the lines go (text or JSON): file() (if any) once per group, then
 * line() for each line of it, with its source text or NULL.
 */
struct pa_ann_sink {
	void (*file)(struct pa_ann_sink *s, const struct pa_ann_group *g);
	void (*line)(struct pa_ann_sink *s, const struct pa_ann_line *l, const char *text);
	FILE *out;
	struct pa_json *j;
};

/* The bytes of a source line shown; the rest of a longer one is left out, "..." said. */
#define PA_ANN_LINE_MAX 1024

/*
 * The next line of f into buf (PA_ANN_LINE_MAX + 4 bytes), without its
 * newline, cut at PA_ANN_LINE_MAX bytes with "..." after: a source file
 * of one huge line (a generated one, a hostile one) costs no memory.
 * Returns false at the end of the file.
 */
static bool pa_ann_read_line(FILE *f, char *buf)
{
	size_t len;
	int c;

	if (!fgets(buf, PA_ANN_LINE_MAX + 1, f))
		return false;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n') {
		buf[len - 1] = '\0';
		return true;
	}
	if (len < PA_ANN_LINE_MAX)
		return true; /* the last line, without a newline */
	c = getc(f);
	if (c == EOF || c == '\n')
		return true; /* exactly PA_ANN_LINE_MAX bytes */
	while ((c = getc(f)) != EOF && c != '\n')
		;
	memcpy(buf + len, "...", 4);
	return true;
}

/*
 * The lines of group g: its file's text from CONTEXT lines before the
 * first counted line to CONTEXT after the last, then the counted lines
 * that had no text (an unreadable file, past its end, line 0, no file).
 */
static void pa_ann_file(struct pa_ann_sink *s, const struct pa_ann_group *g)
{
	struct pa_ann_line *v = g->v;
	size_t n = g->n, z = 0;
	unsigned first, last = v[n - 1].line + PA_REPORT_ANNOTATE_CONTEXT;
	char text[PA_ANN_LINE_MAX + 4];
	size_t k = 0;

	while (z + 1 < n && v[z].line == 0)
		z++; /* line 0: code the compiler gave no line */
	first = v[z].line > PA_REPORT_ANNOTATE_CONTEXT ? v[z].line - PA_REPORT_ANNOTATE_CONTEXT : 1;

	if (s->file)
		s->file(s, g);
	for (unsigned line = 1; g->src && line <= last; line++) {
		struct pa_ann_line blank = { .file = v[0].file, .line = line };

		if (!pa_ann_read_line(g->src, text))
			break;
		if (line < first)
			continue;
		for (; k < n && v[k].line < line; k++)
			;
		if (k < n && v[k].line == line) {
			v[k].shown = true;
			s->line(s, &v[k], text);
		} else {
			s->line(s, &blank, text);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!v[i].shown)
			s->line(s, &v[i], NULL);
}

/*
 * Opens g's source file: the path comes from the debug information, and a
 * FIFO or a device there must not block or feed getline forever.
 */
static void pa_ann_open(struct pa_ann_group *g)
{
	struct stat st;
	int fd = pa_regfile_open(g->v[0].file, 0, &st, NULL);

	if (fd >= 0 && (g->src = fdopen(fd, "r")))
		return;
	if (fd >= 0) {
		int e = errno;

		close(fd);
		fd = -e;
	}
	if (fd == PA_REGFILE_NOT_REGULAR)
		snprintf(g->why, sizeof(g->why), "%s, not a regular file",
			 pa_regfile_kind(st.st_mode));
	else if (fd < 0)
		snprintf(g->why, sizeof(g->why), "%s", strerror(-fd));
}

static void pa_ann_groups_free(struct pa_ann_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].src)
			fclose(g[i].src);
	free(g);
}

/*
 * a's lines sorted, in groups of one file each (no line info last), each
 * file opened. Returns 0 with *g (pa_ann_groups_free it) and *n, or -ENOMEM.
 */
static int pa_ann_groups(struct pa_ann *a, struct pa_ann_group **g, size_t *n)
{
	qsort(a->v, a->n, sizeof(*a->v), pa_ann_cmp_line);
	*n = 0;
	*g = calloc(a->n + 1, sizeof(**g));
	if (!*g)
		return -ENOMEM;
	for (size_t i = 0, j; i < a->n; i = j) {
		struct pa_ann_group *gr = &(*g)[(*n)++];

		for (j = i + 1; j < a->n && pa_ann_same_file(a->v[j].file, a->v[i].file); j++)
			;
		gr->v = &a->v[i];
		gr->n = j - i;
		if (gr->v[0].file)
			pa_ann_open(gr);
	}
	return 0;
}

static void pa_ann_text_file(struct pa_ann_sink *s, const struct pa_ann_group *g)
{
	if (!g->v[0].file) {
		fprintf(s->out, "## (no line information)\n%9s %9s\n", "self", "total");
		return;
	}
	fprintf(s->out, "## %s\n", g->v[0].file);
	if (!g->src)
		fprintf(s->out, "# source file not found (%s): samples per line only\n",
			g->why);
	fprintf(s->out, "%9s %9s %6s  %s\n", "self", "total", "line", "source");
}

/* "SELF TOTAL" ('.' for none), then the line number and text when there are. */
static void pa_ann_text_line(struct pa_ann_sink *s, const struct pa_ann_line *l,
			     const char *text)
{
	char self[24] = ".", total[24] = ".";

	if (l->self)
		snprintf(self, sizeof(self), "%" PRIu64, l->self);
	if (l->total)
		snprintf(total, sizeof(total), "%" PRIu64, l->total);
	fprintf(s->out, "%9s %9s", self, total);
	if (l->file)
		fprintf(s->out, " %6u", l->line);
	if (text)
		fprintf(s->out, "  %s", text);
	fputc('\n', s->out);
}

static int pa_ann_write_text(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			     const struct pa_ann *a, const struct pa_ann_group *g, size_t ng)
{
	struct pa_ann_sink s = { .file = pa_ann_text_file, .line = pa_ann_text_line, .out = out };

	pa_events_header(out, run, f, a->samples, false, 0, 0, 0);
	fprintf(out, "# annotate %s: %" PRIu64 " samples in it (self), %" PRIu64
		" with it on the stack (total)\n", a->func, a->self, a->total);
	for (size_t i = 0; i < ng; i++)
		pa_ann_file(&s, &g[i]);
	return ferror(out) ? -EIO : 0;
}

static void pa_ann_json_line(struct pa_ann_sink *s, const struct pa_ann_line *l,
			     const char *text)
{
	pa_json_object_begin(s->j);
	pa_json_key_string(s->j, "file", l->file);
	pa_json_key(s->j, "line");
	if (l->file)
		pa_json_uint(s->j, l->line);
	else
		pa_json_null(s->j);
	pa_json_key_uint(s->j, "self", l->self);
	pa_json_key_uint(s->j, "total", l->total);
	pa_json_key_string(s->j, "source", text);
	pa_json_object_end(s->j);
}

/* The processes and threads f selects, counted as a profile counts them. */
static struct pa_jsondoc_counts pa_ann_json_counts(const struct pa_run *run,
						       const struct pa_filter *f,
						       uint64_t samples)
{
	struct pa_jsondoc_counts c = { .samples = samples };

	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		size_t n = 0;

		if (!pa_filter_selects(f, proc))
			continue;
		for (size_t t = 0; t < proc->nthreads; t++)
			n += pa_filter_selects_thread(f, proc->threads[t]);
		c.nthreads += n;
		c.nprocesses += pa_filter_counts_process(f, n);
	}
	return c;
}

static int pa_ann_write_json(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			     const struct pa_ann *a, const struct pa_ann_group *g, size_t ng)
{
	struct pa_jsondoc_counts c = pa_ann_json_counts(run, f, a->samples);
	/* no heading per file: "files" comes before the rows */
	struct pa_ann_sink s = { .line = pa_ann_json_line };
	int ret = pa_jsondoc_begin(out, "annotate", run, f, &c, &s.j);

	if (ret < 0)
		return ret;
	pa_json_key_string(s.j, "function", a->func);
	pa_json_key_uint(s.j, "self", a->self);
	pa_json_key_uint(s.j, "total", a->total);
	pa_json_key_array(s.j, "files");
	for (size_t i = 0; i < ng && g[i].v[0].file; i++) {
		pa_json_object_begin(s.j);
		pa_json_key_string(s.j, "file", g[i].v[0].file);
		pa_json_key_bool(s.j, "found", g[i].src != NULL);
		pa_json_key_string(s.j, "error", g[i].src ? NULL : g[i].why);
		pa_json_object_end(s.j);
	}
	pa_json_array_end(s.j);
	pa_json_key_array(s.j, "rows");
	for (size_t i = 0; i < ng; i++)
		pa_ann_file(&s, &g[i]);
	pa_json_array_end(s.j);
	return pa_jsondoc_end(s.j);
}

/* a's report, as text or JSON. */
static int pa_ann_write(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			struct pa_ann *a, bool json, struct pa_error *err)
{
	struct pa_ann_group *g;
	size_t ng;
	int ret = pa_ann_groups(a, &g, &ng);

	if (ret < 0)
		return pa_error_set(err, ret, run->dir, false, 0, "out of memory");
	if (json)
		ret = pa_ann_write_json(out, run, f, a, g, ng);
	else
		ret = pa_ann_write_text(out, run, f, a, g, ng);
	pa_ann_groups_free(g, ng);
	return ret;
}

static int pa_ann_report(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			 const char *func, bool json, struct pa_warnings *warn,
			 struct pa_error *err)
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
		ret = pa_ann_write(out, run, f, &a, json, err);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i].file);
	free(a.v);
	return ret;
}

/*
 * Write the samples of function FUNC (ctx->opts->func: a function name as
 * top shows it, an inlined function's included) per source line, for the
 * samples of ctx->run that ctx->filter selects. A sample counts for the
 * innermost frame that is FUNC (inline levels included), at that frame's
 * line: "self" when that frame is in the sample's leaf address (FUNC or
 * code inlined into it ran), "total" in any case. After the report's
 * header line, each source file holding such lines gets a "## FILE" line
 * then its text with both counts per line ('.' for none), from
 * PA_REPORT_ANNOTATE_CONTEXT lines before the first counted line to as
 * many after the last. A file that cannot be read is said so, and only its
 * counted lines are listed. Counts without line info come last.
 * Symboliser warnings go to ctx->warn (may be NULL).
 * Returns 0; -ENOENT with ctx->err filled when no selected sample has
 * FUNC; -EIO when out reports a write error; or a negative errno with
 * ctx->err filled.
 */
static int pa_report_annotate_write(const struct pa_report_ctx *ctx)
{
	return pa_ann_report(ctx->out, ctx->run, ctx->filter, ctx->opts->func, false, ctx->warn,
			     ctx->err);
}

/*
 * The same as a JSON document (jsondoc.h; "lost" is null: annotate
 * does not count lost samples) with "function" (FUNC), "self" and "total"
 * (its samples, as the text's second line), "files" (one per "## FILE"
 * section: {"file", "found" (its text could be read), "error" (why not,
 * as the text says; null when found)}) and one row per line the text
 * shows counts on, in its order: {"file" (null for the samples without
 * line info), "line" (null likewise), "self", "total" (0 where the text
 * shows '.'), "source" (the line's text; null where the text shows none)}.
 * Returns as pa_report_annotate_write does; -ENOMEM as well.
 */
static int pa_report_annotate_write_json(const struct pa_report_ctx *ctx)
{
	return pa_ann_report(ctx->out, ctx->run, ctx->filter, ctx->opts->func, true, ctx->warn,
			     ctx->err);
}

const struct pa_report pa_report_annotate = {
	.name = "annotate",
	.usage = "FUNC DIR [OPTIONS]",
	.help = "The source of function FUNC (as top names it; inlined\n"
		"functions too) with, per line, the samples in it (self) and\n"
		"with it on the stack (total), 3 lines of context around the\n"
		"counted ones; a source file that cannot be read is said so\n"
		"and its counted lines are listed without text.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.takes_func = true,
	.write = pa_report_annotate_write,
	.write_json = pa_report_annotate_write_json,
};
