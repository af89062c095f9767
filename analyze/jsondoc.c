/* jsondoc: the shared parts of the reports' JSON documents; see jsondoc.h. */
#include "jsondoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "eventinfo.h"

/* The unit of e's period: "ns" (of CPU), "Hz" or "events". */
static const char *pa_jsondoc_unit(const struct pa_event *e)
{
	if (e->flags & PPF_EVENT_FREQ)
		return "Hz";
	return e->flags & PPF_EVENT_TIME_NS ? "ns" : "events";
}

/* The event f shows, as an object; null when it shows every event or none. */
static void pa_jsondoc_event(struct pa_json *j, const struct pa_run *run,
				 const struct pa_filter *f)
{
	const struct pa_event *e = NULL;
	bool differs = false, fixed;
	char period[64];

	if (f->event_name || (f->event != -1 && f->event != PA_FILTER_NO_EVENT))
		e = pa_events_shown(run, f, &differs);
	if (!e) {
		pa_json_null(j);
		return;
	}
	fixed = !differs && pa_event_samples(e);
	pa_json_object_begin(j);
	pa_json_key_string(j, "name", e->name);
	pa_json_key_string(j, "spec", e->spec);
	pa_json_key_string(j, "kind", pa_event_kind(e));
	pa_json_key(j, "period");
	if (fixed)
		pa_json_uint(j, e->period);
	else
		pa_json_null(j);
	pa_json_key_string(j, "unit", fixed ? pa_jsondoc_unit(e) : NULL);
	pa_json_key_string(j, "period_text", fixed ?
			   pa_event_format_period(e, period, sizeof(period)) : NULL);
	pa_json_key_string(j, "scope", differs ? NULL : pa_event_scope(e));
	pa_json_key_bool(j, "settings_differ", differs);
	pa_json_object_end(j);
}

/*
 * The text report's header line, without "# " and the newline (its notes,
 * the lines after it, are pa_jsondoc_notes's).
 */
static int pa_jsondoc_header(struct pa_json *j, const struct pa_run *run,
				 const struct pa_filter *f, const struct pa_jsondoc_counts *c)
{
	char *text = NULL;
	size_t len = 0, skip;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	pa_events_header(m, run, f, c->samples, c->header_counts, c->nprocesses,
			 c->nthreads, c->header_counts && c->has_lost ? c->lost : 0);
	if (fclose(m) != 0) {
		free(text);
		return -ENOMEM;
	}
	len = strcspn(text, "\n");
	skip = len >= 2 && strncmp(text, "# ", 2) == 0 ? 2 : 0;
	pa_json_key(j, "header");
	pa_json_string_len(j, text + skip, len - skip);
	free(text);
	return 0;
}

/* "notes": the coverage notes (pa_coverage_notes), one string each. */
static int pa_jsondoc_notes(struct pa_json *j, const struct pa_run *run,
			    const struct pa_filter *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -ENOMEM;
	pa_coverage_notes(m, "", run, f);
	if (fclose(m) != 0) {
		free(text);
		return -ENOMEM;
	}
	pa_json_key_array(j, "notes");
	for (const char *line = text; *line; ) {
		size_t n = strcspn(line, "\n");

		pa_json_string_len(j, line, n);
		line += n + (line[n] == '\n');
	}
	pa_json_array_end(j);
	free(text);
	return 0;
}

struct pa_jsondoc_counts pa_jsondoc_profile_counts(const struct pa_profile *prof)
{
	return (struct pa_jsondoc_counts){
		.samples = prof->samples, .nprocesses = prof->nprocesses,
		.nthreads = prof->nthreads, .lost = prof->lost, .has_lost = true,
		.header_counts = true,
	};
}

int pa_jsondoc_opening(struct pa_json *j, const struct pa_run *run,
			   const struct pa_filter *f, const struct pa_jsondoc_counts *c)
{
	int ret;

	pa_json_key(j, "event");
	pa_jsondoc_event(j, run, f);
	if (c->no_header)
		pa_json_key_null(j, "header");
	ret = c->no_header ? 0 : pa_jsondoc_header(j, run, f, c);
	if (ret < 0)
		return ret;
	pa_json_key_uint(j, "samples", c->samples);
	pa_json_key_uint(j, "processes", c->nprocesses);
	pa_json_key_uint(j, "threads", c->nthreads);
	pa_json_key(j, "lost");
	if (c->has_lost)
		pa_json_uint(j, c->lost);
	else
		pa_json_null(j);
	return pa_jsondoc_notes(j, run, f);
}

int pa_jsondoc_begin(FILE *out, const char *report, const struct pa_run *run,
			 const struct pa_filter *f, const struct pa_jsondoc_counts *c,
			 struct pa_json **j)
{
	int ret;

	*j = pa_json_new(out);
	if (!*j)
		return -ENOMEM;
	pa_json_object_begin(*j);
	pa_json_key_string(*j, "report", report);
	ret = pa_jsondoc_opening(*j, run, f, c);
	if (ret < 0) {
		pa_json_free(*j);
		*j = NULL;
	}
	return ret;
}

int pa_jsondoc_end(struct pa_json *j)
{
	int ret;

	pa_json_object_end(j);
	ret = pa_json_end(j);
	pa_json_free(j);
	return ret;
}

void pa_jsondoc_func(struct pa_json *j, const struct pa_func *f)
{
	const char *base = f->module ? strrchr(f->module, '/') : NULL;

	pa_json_key_string(j, "function", f->name);
	pa_json_key_string(j, "module", base ? base + 1 : f->module);
	pa_json_key_string(j, "module_path", f->module);
}
