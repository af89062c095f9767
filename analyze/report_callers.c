/* report_callers: who calls a function, and what it calls, with shares. */
#include "grow.h"
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "eventinfo.h"
#include "jsondoc.h"

/* Suggestions for an unknown name: at most this many, this close. */
#define PA_REPORT_CALLERS_SUGGEST 3
#define PA_REPORT_CALLERS_NAME_MAX 256

/* One caller or callee; func NULL for "[root]" or "[self]". */
struct pa_report_callers_row {
	const struct pa_func *func;
	uint64_t count;
};

struct pa_report_callers_tally {
	struct pa_report_callers_row *rows;
	size_t n, cap;
	uint64_t total;  /* samples with the function anywhere */
	uint64_t sum;    /* of the rows' counts */
};

/* Count one sample for func; -ENOMEM. */
static int pa_report_callers_add(struct pa_report_callers_tally *c, const struct pa_func *func,
				 uint64_t count)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].func == func) {
			c->rows[i].count += count;
			c->sum += count;
			return 0;
		}
	if (pa_grow((void **)&c->rows, &c->cap, c->n,
		    sizeof(*c->rows)) < 0)
		return -ENOMEM;
	c->rows[c->n++] = (struct pa_report_callers_row){ .func = func, .count = count };
	c->sum += count;
	return 0;
}

/*
 * The neighbours of name's frames in one stack (the caller's frame before,
 * the callee's after), each once, into seen[]; NULL stands for "[root]" or
 * "[self]". Returns how many, 0 when name is not in the stack.
 */
static size_t pa_report_callers_neighbours(const struct pa_stack *s, const char *name,
					   bool callees, const struct pa_calltree_index *ix,
					   const struct pa_func **seen, bool *present)
{
	size_t n = 0;

	*present = false;
	for (size_t k = 0; k < s->nframes; k++) {
		const struct pa_func *f;
		size_t j;

		if (strcmp(s->frames[k], name) != 0)
			continue;
		*present = true;
		if (callees)
			f = k + 1 < s->nframes ? pa_calltree_index_get(ix, s->frames[k + 1]) : NULL;
		else
			f = k > 0 ? pa_calltree_index_get(ix, s->frames[k - 1]) : NULL;
		for (j = 0; j < n && seen[j] != f; j++)
			;
		if (j == n)
			seen[n++] = f;
	}
	return n;
}

static int pa_report_callers_count(struct pa_report_callers_tally *c,
				   const struct pa_profile *prof, const char *name,
				   bool callees)
{
	const struct pa_func **seen = malloc(PPF_MAX_FRAMES * sizeof(*seen));
	struct pa_calltree_index *ix = NULL;
	int ret = seen ? pa_calltree_index_new(prof, &ix) : -ENOMEM;

	/* [self] is listed even when it is 0 */
	if (ret == 0 && callees)
		ret = pa_report_callers_add(c, NULL, 0);
	for (size_t i = 0; i < prof->nstacks && ret == 0; i++) {
		const struct pa_stack *s = &prof->stacks[i];
		bool present;
		size_t n = s->nframes <= PPF_MAX_FRAMES ?
			pa_report_callers_neighbours(s, name, callees, ix, seen, &present) : 0;

		if (s->nframes > PPF_MAX_FRAMES || !present)
			continue;
		c->total += s->count;
		for (size_t k = 0; k < n && ret == 0; k++)
			ret = pa_report_callers_add(c, seen[k], s->count);
	}
	pa_calltree_index_free(ix);
	free(seen);
	return ret;
}

static int pa_report_callers_cmp_row(const void *a, const void *b, void *label)
{
	const struct pa_report_callers_row *x = a, *y = b;
	const char *xn = x->func ? x->func->name : label;
	const char *yn = y->func ? y->func->name : label;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(xn, yn);
	if (c || !x->func || !y->func)
		return c;
	return strcmp(x->func->module ? x->func->module : "",
		      y->func->module ? y->func->module : "");
}

/* Levenshtein distance of a and b, at most PA_REPORT_CALLERS_NAME_MAX bytes each. */
static size_t pa_report_callers_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[PA_REPORT_CALLERS_NAME_MAX + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* How far name is from want: 0 when it contains want, SIZE_MAX when not close. */
static size_t pa_report_callers_score(const char *name, const char *want)
{
	size_t d, limit = strlen(want) / 3 + 2;

	if (strstr(name, want))
		return 0;
	if (strlen(name) > PA_REPORT_CALLERS_NAME_MAX || strlen(want) > PA_REPORT_CALLERS_NAME_MAX)
		return SIZE_MAX;
	d = pa_report_callers_distance(name, want);
	return d <= limit ? d : SIZE_MAX;
}

/* Fill err for a name no stack has, with the closest names the profile has. */
static int pa_report_callers_unknown(const struct pa_profile *prof, const char *name,
				     struct pa_error *err)
{
	const char *best[PA_REPORT_CALLERS_SUGGEST] = { 0 };
	size_t score[PA_REPORT_CALLERS_SUGGEST], n = 0;
	char list[PA_ERROR_REASON_MAX / 2] = "";

	/* funcs come most samples first: on a tie the busier name wins */
	for (size_t i = 0; i < prof->nfuncs; i++) {
		size_t s = pa_report_callers_score(prof->funcs[i].name, name), k;
		bool dup = false;

		for (k = 0; k < n; k++)
			dup |= strcmp(best[k], prof->funcs[i].name) == 0;
		if (s == SIZE_MAX || dup || (n == PA_REPORT_CALLERS_SUGGEST && s >= score[n - 1]))
			continue;
		if (n < PA_REPORT_CALLERS_SUGGEST)
			n++;
		for (k = n - 1; k > 0 && score[k - 1] > s; k--) {
			best[k] = best[k - 1];
			score[k] = score[k - 1];
		}
		best[k] = prof->funcs[i].name;
		score[k] = s;
	}
	for (size_t k = 0; k < n; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 k ? ", " : "; closest: ", best[k]);
	return pa_error_set(err, -ENOENT, "", false, 0, "no function named %s in the profile%s",
			    name, list);
}

/* What stands for no function: the outermost frame's caller, the innermost's callee. */
static const char *pa_report_callers_label(bool callees)
{
	return callees ? "[self]" : "[root]";
}

static void pa_report_callers_print(FILE *out, const struct pa_report_callers_tally *c,
				    const char *name, bool callees)
{
	fprintf(out, "%9s %7s  %s\n", "samples", "share", callees ? "callee" : "caller");
	for (size_t i = 0; i < c->n; i++) {
		fprintf(out, "%9" PRIu64 " %6.2f%%  ", c->rows[i].count,
			pa_profile_pct(c->rows[i].count, c->total));
		if (c->rows[i].func)
			pa_calltree_print_func(out, c->rows[i].func);
		else
			fputs(pa_report_callers_label(callees), out);
		fputc('\n', out);
	}
	if (c->sum > c->total)
		fprintf(out, "# %s is recursive: a sample counts once for each different %s, "
			"so the shares add up to more than 100%%\n", name,
			callees ? "callee" : "caller");
}

/*
 * The rows of name's callers (callees) into *c, sorted; the caller frees
 * c->rows whatever the answer. Returns 0, or an error with err filled.
 */
static int pa_report_callers_tally(struct pa_report_callers_tally *c,
				   const struct pa_profile *prof, const char *name,
				   bool callees, struct pa_error *err)
{
	int ret = pa_report_callers_count(c, prof, name, callees);

	if (ret < 0)
		return pa_error_set(err, ret, "", false, 0, "out of memory");
	if (c->total == 0)
		return pa_report_callers_unknown(prof, name, err);
	qsort_r(c->rows, c->n, sizeof(*c->rows), pa_report_callers_cmp_row,
		(void *)pa_report_callers_label(callees));
	return 0;
}

/*
 * Write the callers (callees false: the callees) of the function named
 * name, FUNC (in any module), in ctx->prof: the event line (as top's), a line
 * with name's inclusive samples, a column header, then one line per caller
 * (callee) function sorted by samples: the samples in which it calls name
 * (name calls it) directly, and their share of name's inclusive samples.
 * A sample counts once per caller (callee) however often it recurses, so
 * the shares of a recursive function can add up to more than 100% (a last
 * line then says so). Callers list "[root]" for samples in which name is
 * the outermost frame; callees always list "[self]", the samples in which
 * name is the innermost frame.
 * Returns 0; -ENOENT with err filled ("no function named ...", with the
 * closest names) when no stack has name; -ENOMEM; -EIO on a write error.
 */
static int pa_report_callers_text(const struct pa_report_ctx *ctx, bool callees)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	const char *name = ctx->opts->func;
	struct pa_error *err = ctx->err;
	struct pa_report_callers_tally c = { 0 };
	int ret = pa_report_callers_tally(&c, prof, name, callees, err);

	if (ret == 0) {
		pa_events_header(out, run, &prof->filter, prof->samples, true,
				 prof->nprocesses, prof->nthreads, prof->lost);
		fprintf(out, "# %s of %s: %" PRIu64 " samples (%.2f%% of all); "
			"shares are of those\n", callees ? "callees" : "callers", name, c.total,
			pa_profile_pct(c.total, prof->samples));
		pa_report_callers_print(out, &c, name, callees);
		ret = ferror(out) ? -EIO : 0;
	}
	free(c.rows);
	return ret;
}

static void pa_report_callers_json_rows(struct pa_json *j, const struct pa_report_callers_tally *c,
					bool callees)
{
	const struct pa_func none = { .name = pa_report_callers_label(callees) };

	pa_json_key_array(j, "rows");
	for (size_t i = 0; i < c->n; i++) {
		pa_json_object_begin(j);
		pa_json_key_uint(j, "samples", c->rows[i].count);
		pa_json_key_double(j, "share_percent",
				   pa_profile_pct(c->rows[i].count, c->total));
		pa_jsondoc_func(j, c->rows[i].func ? c->rows[i].func : &none);
		pa_json_object_end(j);
	}
	pa_json_array_end(j);
}

/*
 * The same as a JSON document (jsondoc.h), "report" being "callers" or
 * "callees", with "function" (name), "total" (its inclusive samples),
 * "total_percent" (of all samples), "recursive" (the shares may add up to
 * more than 100%) and one row per caller (callee): {"samples",
 * "share_percent" (of name's total), "function", "module", "module_path"};
 * "[root]" and "[self]" have module and module_path null. Returns as
 * pa_report_callers_text does (-ENOMEM without err filled when the writer
 * cannot be made).
 */
static int pa_report_callers_json(const struct pa_report_ctx *ctx, bool callees)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	const char *name = ctx->opts->func;
	struct pa_error *err = ctx->err;
	struct pa_jsondoc_counts counts = pa_jsondoc_profile_counts(prof);
	struct pa_report_callers_tally c = { 0 };
	struct pa_json *j;
	int ret = pa_report_callers_tally(&c, prof, name, callees, err);

	if (ret == 0)
		ret = pa_jsondoc_begin(out, callees ? "callees" : "callers", run,
					   &prof->filter, &counts, &j);
	if (ret == 0) {
		pa_json_key_string(j, "function", name);
		pa_json_key_uint(j, "total", c.total);
		pa_json_key_double(j, "total_percent", pa_profile_pct(c.total, prof->samples));
		pa_json_key_bool(j, "recursive", c.sum > c.total);
		pa_report_callers_json_rows(j, &c, callees);
		ret = pa_jsondoc_end(j);
	}
	free(c.rows);
	return ret;
}

static int pa_report_callers_write(const struct pa_report_ctx *ctx)
{
	return pa_report_callers_text(ctx, false);
}

static int pa_report_callers_write_json(const struct pa_report_ctx *ctx)
{
	return pa_report_callers_json(ctx, false);
}

static int pa_report_callees_write(const struct pa_report_ctx *ctx)
{
	return pa_report_callers_text(ctx, true);
}

static int pa_report_callees_write_json(const struct pa_report_ctx *ctx)
{
	return pa_report_callers_json(ctx, true);
}

const struct pa_report pa_report_callers = {
	.name = "callers",
	.usage = "FUNC DIR [OPTIONS]",
	.help = "The functions that call FUNC directly, with samples and\n"
		"their share of FUNC's total samples; [root] when FUNC is the\n"
		"outermost frame. A sample counts once per caller, so the\n"
		"shares of a recursive FUNC may add up to more than 100%.\n"
		"A FUNC no stack has is an error (exit 1) naming the closest.\n",
	.help_args = "FUNC",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.takes_func = true,
	.write = pa_report_callers_write,
	.write_json = pa_report_callers_write_json,
};

const struct pa_report pa_report_callees = {
	.name = "callees",
	.usage = "FUNC DIR [OPTIONS]",
	.help = "The functions FUNC calls directly, likewise, and [self]:\n"
		"the samples in which FUNC is the innermost frame.\n",
	.help_args = "FUNC",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.takes_func = true,
	.write = pa_report_callees_write,
	.write_json = pa_report_callees_write_json,
};
