/* report_diff: change of share between two profiles; see report_diff.h. */
#include "report_diff.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "jsondoc.h"

/* One function of one side, before matching. */
struct pa_report_diff_entry {
	const char *name;
	const char *module; /* basename or NULL */
	int side;           /* 0: base, 1: cur */
	uint64_t self, total;
};

static const char *pa_report_diff_base(const char *module)
{
	const char *s = module ? strrchr(module, '/') : NULL;

	return s ? s + 1 : module;
}

static int pa_report_diff_cmp_key(const void *a, const void *b)
{
	const struct pa_report_diff_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

static double pa_report_diff_abs(double x)
{
	return x < 0 ? -x : x;
}

/* The larger change of a row's two shares. */
static double pa_report_diff_change(const struct pa_report_diff_row *r)
{
	double s = pa_report_diff_abs(r->cur_self - r->base_self);
	double t = pa_report_diff_abs(r->cur_total - r->base_total);

	return s > t ? s : t;
}

static int pa_report_diff_cmp_row(const void *a, const void *b)
{
	const struct pa_report_diff_row *x = a, *y = b;
	double cx = pa_report_diff_change(x), cy = pa_report_diff_change(y);

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return pa_report_diff_cmp_key(&(struct pa_report_diff_entry){ .name = x->name,
						.module = x->module },
				      &(struct pa_report_diff_entry){ .name = y->name,
						.module = y->module });
}

/* Every function of both profiles, sorted by (name, module basename). */
static struct pa_report_diff_entry *pa_report_diff_entries(const struct pa_profile *base,
							   const struct pa_profile *cur,
							   size_t *n)
{
	const struct pa_profile *side[2] = { base, cur };
	struct pa_report_diff_entry *v = malloc((base->nfuncs + cur->nfuncs + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < side[s]->nfuncs; i++) {
			const struct pa_func *f = &side[s]->funcs[i];

			v[(*n)++] = (struct pa_report_diff_entry){ .name = f->name,
				.module = pa_report_diff_base(f->module), .side = s,
				.self = f->self, .total = f->total };
		}
	qsort(v, *n, sizeof(*v), pa_report_diff_cmp_key);
	return v;
}

int pa_report_diff_build(const struct pa_profile *base, const struct pa_profile *cur,
			 struct pa_report_diff_row **rows, size_t *nrows)
{
	const struct pa_profile *side[2] = { base, cur };
	size_t n, i = 0;
	struct pa_report_diff_entry *v = pa_report_diff_entries(base, cur, &n);
	struct pa_report_diff_row *r = malloc((n + 1) * sizeof(*r));

	*rows = NULL;
	*nrows = 0;
	if (!v || !r) {
		free(v);
		free(r);
		return -ENOMEM;
	}
	while (i < n) {
		/* Entries of one function: the same key (two module paths may share a basename). */
		uint64_t self[2] = { 0, 0 }, total[2] = { 0, 0 };
		size_t k = i;

		for (; k < n && pa_report_diff_cmp_key(&v[i], &v[k]) == 0; k++) {
			self[v[k].side] += v[k].self;
			total[v[k].side] += v[k].total;
		}
		r[(*nrows)++] = (struct pa_report_diff_row){ .name = v[i].name,
			.module = v[i].module,
			.base_self = pa_profile_pct(self[0], side[0]->samples),
			.cur_self = pa_profile_pct(self[1], side[1]->samples),
			.base_total = pa_profile_pct(total[0], side[0]->samples),
			.cur_total = pa_profile_pct(total[1], side[1]->samples) };
		i = k;
	}
	free(v);
	qsort(r, *nrows, sizeof(*r), pa_report_diff_cmp_row);
	*rows = r;
	return 0;
}

static void pa_report_diff_row(FILE *out, const struct pa_report_diff_row *r)
{
	fprintf(out, "%9.2f%% %9.2f%% %+8.2f%% %9.2f%% %9.2f%% %+8.2f%%  %s", r->base_self,
		r->cur_self, r->cur_self - r->base_self, r->base_total, r->cur_total,
		r->cur_total - r->base_total, r->name);
	if (r->module && !pa_profile_names_module(r->name, r->module))
		fprintf(out, " (%s)", r->module);
	fputc('\n', out);
}

/*
 * Write the diff of ctx->base_prof (BASE) and ctx->prof (NEW): the header
 * line of each run (pa_events_header, after "# base DIR" and "# new DIR"),
 * then one line per row (--limit N: at most N; 0: all): self % in base and
 * new, its change, total % in base and new, its change (in percentage
 * points, signed), function (module).
 * Returns 0, -ENOMEM, or -EIO when writing failed.
 */
static int pa_report_diff_text(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *base_run = ctx->base_run, *cur_run = ctx->run;
	const struct pa_profile *base = ctx->base_prof, *cur = ctx->prof;
	size_t limit = ctx->opts->limit;
	struct pa_report_diff_row *rows;
	size_t nrows;

	if (pa_report_diff_build(base, cur, &rows, &nrows) < 0)
		return -ENOMEM;
	fprintf(out, "# base %s\n", base_run->dir);
	pa_events_header(out, base_run, &base->filter, base->samples, true, base->nprocesses,
			 base->nthreads, base->lost);
	fprintf(out, "# new %s\n", cur_run->dir);
	pa_events_header(out, cur_run, &cur->filter, cur->samples, true, cur->nprocesses,
			 cur->nthreads, cur->lost);
	fprintf(out, "# change of share in percentage points (new - base), largest first\n");
	fprintf(out, "%10s %10s %9s %10s %10s %9s  %s\n", "base self", "new self", "change",
		"base total", "new total", "change", "function");
	for (size_t i = 0; i < nrows && (!limit || i < limit); i++)
		pa_report_diff_row(out, &rows[i]);
	free(rows);
	return ferror(out) ? -EIO : 0;
}

/* One run's opening members, in an object of their own under key. */
static int pa_report_diff_json_run(struct pa_json *j, const char *key, const struct pa_run *run,
				   const struct pa_profile *prof)
{
	struct pa_jsondoc_counts c = pa_jsondoc_profile_counts(prof);
	int ret;

	pa_json_key_object(j, key);
	pa_json_key_string(j, "dir", run->dir);
	ret = pa_jsondoc_opening(j, run, &prof->filter, &c);
	pa_json_object_end(j);
	return ret;
}

static void pa_report_diff_json_row(struct pa_json *j, const struct pa_report_diff_row *r)
{
	pa_json_object_begin(j);
	pa_json_key_double(j, "base_self_percent", r->base_self);
	pa_json_key_double(j, "new_self_percent", r->cur_self);
	pa_json_key_double(j, "self_change", r->cur_self - r->base_self);
	pa_json_key_double(j, "base_total_percent", r->base_total);
	pa_json_key_double(j, "new_total_percent", r->cur_total);
	pa_json_key_double(j, "total_change", r->cur_total - r->base_total);
	pa_json_key_string(j, "function", r->name);
	pa_json_key_string(j, "module", r->module);
	pa_json_object_end(j);
}

/*
 * The same as a JSON document (jsondoc.h). Its opening members are
 * NEW's (cur's), and "base" and "new" hold each run's: {"dir", "event",
 * "header", "samples", "processes", "threads", "lost"}. One row per line:
 * {"base_self_percent", "new_self_percent", "self_change",
 * "base_total_percent", "new_total_percent", "total_change" (changes in
 * percentage points, new - base), "function", "module" (the basename the
 * functions are matched by; null without)}. Returns 0, -ENOMEM, or -EIO
 * when writing failed.
 */
static int pa_report_diff_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *base_run = ctx->base_run, *cur_run = ctx->run;
	const struct pa_profile *base = ctx->base_prof, *cur = ctx->prof;
	size_t limit = ctx->opts->limit;
	struct pa_jsondoc_counts c = pa_jsondoc_profile_counts(cur);
	struct pa_report_diff_row *rows;
	struct pa_json *j = NULL;
	size_t nrows;
	int ret = pa_report_diff_build(base, cur, &rows, &nrows);

	if (ret < 0)
		return ret;
	ret = pa_jsondoc_begin(out, "diff", cur_run, &cur->filter, &c, &j);
	if (ret == 0)
		ret = pa_report_diff_json_run(j, "base", base_run, base);
	if (ret == 0)
		ret = pa_report_diff_json_run(j, "new", cur_run, cur);
	if (ret < 0)
		goto out_free;
	pa_json_key_array(j, "rows");
	for (size_t i = 0; i < nrows && (!limit || i < limit); i++)
		pa_report_diff_json_row(j, &rows[i]);
	pa_json_array_end(j);
	free(rows);
	return pa_jsondoc_end(j);
out_free:
	pa_json_free(j);
	free(rows);
	return ret;
}

/* A failed diff's error: out of memory, or a JSON writer misused. */
static int pa_report_diff_failed(const struct pa_report_ctx *ctx, int ret)
{
	if (ret == -ENOMEM)
		pa_error_set(ctx->err, ret, ctx->run->dir, false, 0, "out of memory");
	else if (ret == -EINVAL)
		pa_error_set(ctx->err, ret, ctx->run->dir, false, 0, "JSON output: %s",
			     strerror(-ret));
	return ret;
}

static int pa_report_diff_write(const struct pa_report_ctx *ctx)
{
	return pa_report_diff_failed(ctx, pa_report_diff_text(ctx));
}

static int pa_report_diff_write_json(const struct pa_report_ctx *ctx)
{
	return pa_report_diff_failed(ctx, pa_report_diff_json(ctx));
}

const struct pa_report pa_report_diff = {
	.name = "diff",
	.usage = "BASE NEW [--limit N] [OPTIONS]",
	.help = "The functions whose share of the samples changed most from\n"
		"run BASE to run NEW: self % in BASE and NEW and its change,\n"
		"total % in BASE and NEW and its change (percentage points,\n"
		"NEW - BASE), function (module); sorted by the larger of the\n"
		"two changes. Functions match by name and module basename.\n"
		"The filters apply to both runs; --limit N: N functions.\n",
	.help_args = "BASE NEW",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_TWO_RUNS,
	.write = pa_report_diff_write,
	.write_json = pa_report_diff_write_json,
};
