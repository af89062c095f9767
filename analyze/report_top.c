/* report_top: the flat profile, one line per function. */
#include "report.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <string.h>

#include "eventinfo.h"
#include "jsondoc.h"

/* The event of every selected process, when samples of it are a fixed amount of CPU time. */
static const struct pa_event *pa_report_top_timed(const struct pa_run *run,
						  const struct pa_filter *f)
{
	bool differs;
	const struct pa_event *e = pa_events_shown(run, f, &differs);

	if (!e || differs || !(e->flags & PPF_EVENT_TIME_NS) || !pa_event_sample_period(e))
		return NULL;
	return e;
}

/*
 * Write the flat profile ctx->prof (built from ctx->run): a header line
 * naming the event, its period, the sample, process and thread counts (and
 * lost samples, if any), then one line per function sorted by self samples:
 * self, self %, total, total %, estimated CPU time (samples x period for an
 * event counting nanoseconds at a fixed period, "-" otherwise), name and
 * module. --limit N: at most N function lines (0: all).
 * Returns 0, or -EIO when out reports a write error.
 */
static int pa_report_top_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	size_t limit = ctx->opts->limit;
	const struct pa_event *e = pa_report_top_timed(run, &prof->filter);
	size_t n = limit && limit < prof->nfuncs ? limit : prof->nfuncs;

	pa_events_header(out, run, &prof->filter, prof->samples, true, prof->nprocesses,
			 prof->nthreads, prof->lost);
	fprintf(out, "%9s %7s %9s %7s %10s  %s\n", "self", "self%", "total", "total%",
		"cpu(s)", "function");
	for (size_t i = 0; i < n; i++) {
		const struct pa_func *f = &prof->funcs[i];
		const char *base = f->module ? strrchr(f->module, '/') : NULL;
		char cpu[32] = "-";

		base = base ? base + 1 : f->module;
		if (e)
			snprintf(cpu, sizeof(cpu), "%.3f",
				 (double)f->self * (double)pa_event_sample_period(e) / 1e9);
		fprintf(out, "%9" PRIu64 " %6.2f%% %9" PRIu64 " %6.2f%% %10s  %s",
			f->self, pa_profile_pct(f->self, prof->samples),
			f->total, pa_profile_pct(f->total, prof->samples), cpu, f->name);
		/* Unresolved names already read "<module basename>+0x...". */
		if (base && !pa_profile_names_module(f->name, base))
			fprintf(out, " (%s)", base);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

static const char *pa_report_top_by(enum pa_profile_by by)
{
	switch (by) {
	case PA_PROFILE_BY_INLINE: return "inline";
	case PA_PROFILE_BY_LINE: return "line";
	case PA_PROFILE_BY_LINE_INLINE: return "line_inline";
	default: return "function";
	}
}

/*
 * The same as a JSON document (jsondoc.h) with "by" ("function",
 * "inline", "line" or "line_inline") and one row per function line:
 * {"self", "self_percent", "total", "total_percent", "cpu_s" (null where
 * the text shows '-'), "function", "module", "module_path"}. Returns 0,
 * -ENOMEM, or -EIO when out reports a write error.
 */
static int pa_report_top_write_json(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	const struct pa_run *run = ctx->run;
	const struct pa_profile *prof = ctx->prof;
	size_t limit = ctx->opts->limit;
	const struct pa_event *e = pa_report_top_timed(run, &prof->filter);
	size_t n = limit && limit < prof->nfuncs ? limit : prof->nfuncs;
	struct pa_jsondoc_counts c = pa_jsondoc_profile_counts(prof);
	struct pa_json *j;
	int ret = pa_jsondoc_begin(out, "top", run, &prof->filter, &c, &j);

	if (ret < 0)
		return ret;
	pa_json_key_string(j, "by", pa_report_top_by(prof->by));
	pa_json_key_array(j, "rows");
	for (size_t i = 0; i < n; i++) {
		const struct pa_func *f = &prof->funcs[i];

		pa_json_object_begin(j);
		pa_json_key_uint(j, "self", f->self);
		pa_json_key_double(j, "self_percent", pa_profile_pct(f->self, prof->samples));
		pa_json_key_uint(j, "total", f->total);
		pa_json_key_double(j, "total_percent",
				   pa_profile_pct(f->total, prof->samples));
		pa_json_key(j, "cpu_s");
		if (e)
			pa_json_double(j, (double)f->self * (double)pa_event_sample_period(e) / 1e9);
		else
			pa_json_null(j);
		pa_jsondoc_func(j, f);
		pa_json_object_end(j);
	}
	pa_json_array_end(j);
	return pa_jsondoc_end(j);
}

const struct pa_report pa_report_top = {
	.name = "top",
	.usage = "DIR [--limit N] [--lines] [--inlines] [OPTIONS]",
	.help = "Flat profile: per function, self samples, self %, total\n"
		"(inclusive) samples, total %, estimated CPU time (samples x\n"
		"period, for events that count nanoseconds: cpu-clock and\n"
		"task-clock, whose frequency is a fixed period too; '-'\n"
		"otherwise), name and module. Sorted by self samples.\n"
		"--lines: per source line instead, 'FILE:LINE FUNCTION' (the\n"
		"innermost inlined function's line); --inlines: each inline\n"
		"level is a function of its own.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_PROFILE,
	.write = pa_report_top_write,
	.write_json = pa_report_top_write_json,
};
