/* report_top: the flat profile; see report_top.h. */
#include "report_top.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <string.h>

/* Whether name is an unresolved frame of module base: "base+0x...". */
static bool pa_report_top_names_module(const char *name, const char *base)
{
	size_t n = strlen(base);

	return strncmp(name, base, n) == 0 && strncmp(name + n, "+0x", 3) == 0;
}

/* The event the profile counts, from the first selected process that has it. */
static const struct pa_event *pa_report_top_event(const struct pa_run *run,
						  const struct pa_filter *f)
{
	if (f->event < 0)
		return NULL;
	for (size_t p = 0; p < run->nprocesses; p++) {
		const struct pa_process *proc = run->processes[p];
		const struct pa_event *e;

		if (!pa_filter_selects(f, proc))
			continue;
		e = pa_process_find_event(proc, (uint32_t)f->event);
		if (e)
			return e;
	}
	return NULL;
}

static bool pa_report_top_timed(const struct pa_event *e)
{
	return e && (e->flags & PPF_EVENT_TIME_NS) && !(e->flags & PPF_EVENT_FREQ);
}

static void pa_report_top_header(FILE *out, const struct pa_event *e,
				 const struct pa_profile *prof)
{
	if (prof->filter.event < 0)
		fprintf(out, "all events");
	else if (!e)
		fprintf(out, "event #%" PRId64 " (not recorded)", prof->filter.event);
	else if (pa_report_top_timed(e))
		fprintf(out, "event %s, period %" PRIu64 " ns (1 sample = %.3f ms CPU)",
			e->name, e->period, (double)e->period / 1e6);
	else if (e->flags & PPF_EVENT_FREQ)
		fprintf(out, "event %s, frequency %" PRIu64 " Hz", e->name, e->period);
	else
		fprintf(out, "event %s, period %" PRIu64, e->name, e->period);
	fprintf(out, ": %" PRIu64 " sample%s, %zu process%s, %zu thread%s",
		prof->samples, prof->samples == 1 ? "" : "s",
		prof->nprocesses, prof->nprocesses == 1 ? "" : "es",
		prof->nthreads, prof->nthreads == 1 ? "" : "s");
	if (prof->lost)
		fprintf(out, ", %" PRIu64 " lost", prof->lost);
	fputc('\n', out);
}

static double pa_report_top_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

int pa_report_top(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		  size_t limit)
{
	const struct pa_event *e = pa_report_top_event(run, &prof->filter);
	size_t n = limit && limit < prof->nfuncs ? limit : prof->nfuncs;

	pa_report_top_header(out, e, prof);
	fprintf(out, "%9s %7s %9s %7s %10s  %s\n", "self", "self%", "total", "total%",
		"cpu(s)", "function");
	for (size_t i = 0; i < n; i++) {
		const struct pa_func *f = &prof->funcs[i];
		const char *base = f->module ? strrchr(f->module, '/') : NULL;
		char cpu[32] = "-";

		base = base ? base + 1 : f->module;
		if (pa_report_top_timed(e))
			snprintf(cpu, sizeof(cpu), "%.3f",
				 (double)f->self * (double)e->period / 1e9);
		fprintf(out, "%9" PRIu64 " %6.2f%% %9" PRIu64 " %6.2f%% %10s  %s",
			f->self, pa_report_top_pct(f->self, prof->samples),
			f->total, pa_report_top_pct(f->total, prof->samples), cpu, f->name);
		/* Unresolved names already read "<module basename>+0x...". */
		if (base && !pa_report_top_names_module(f->name, base))
			fprintf(out, " (%s)", base);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
