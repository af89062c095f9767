/*
 * jsondoc: the JSON report writer's helpers (pa_report_json_*): what the
 * reports' --format json documents share: the document's opening (report
 * name, the event and the counts the text reports' header line gives) and
 * a function's name and module.
 *
 * Every document is one object:
 *   {"report": NAME, "event": EVENT or null, "header": TEXT,
 *    "samples": N, "processes": N, "threads": N, "lost": N or null,
 *    ...the report's own members..., "rows": [...]}
 * EVENT is {"name", "spec", "kind", "period", "unit", "period_text",
 * "scope", "settings_differ"}; README.md ("JSON output") has the rest.
 */
#ifndef PA_JSONDOC_H
#define PA_JSONDOC_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "profile.h"
#include "reader.h"

/* What the opening of a document says about the samples it covers. */
struct pa_jsondoc_counts {
	uint64_t samples;
	size_t nprocesses;
	size_t nthreads;
	uint64_t lost;
	bool has_lost;       /* false: "lost" is null */
	bool header_counts;  /* the text header names processes, threads, lost */
	bool no_header;      /* the text report has no header line: "header" is null */
};

/* The counts of a profile's samples, as the text reports' header line gives them. */
struct pa_jsondoc_counts pa_jsondoc_profile_counts(const struct pa_profile *prof);

/*
 * Start the document of report (a command's name) on out: a writer, in
 * *j, with the top-level object open and its opening members written (f:
 * the samples shown, as for pa_events_header). Returns 0, or -ENOMEM.
 */
int pa_jsondoc_begin(FILE *out, const char *report, const struct pa_run *run,
			 const struct pa_filter *f, const struct pa_jsondoc_counts *c,
			 struct pa_json **j);

/*
 * The opening members after "report" ("event", "header", "samples",
 * "processes", "threads", "lost") into the object open in j: what
 * pa_jsondoc_begin writes, for a report that describes several runs
 * (diff). Returns 0, or -ENOMEM.
 */
int pa_jsondoc_opening(struct pa_json *j, const struct pa_run *run,
			   const struct pa_filter *f, const struct pa_jsondoc_counts *c);

/*
 * Close the top-level object, finish and free j. Returns pa_json_end's
 * answer (0, -EINVAL for a bug, -EIO for a write error).
 */
int pa_jsondoc_end(struct pa_json *j);

/* The members "function" (display name), "module" (basename) and "module_path" (null without). */
void pa_jsondoc_func(struct pa_json *j, const struct pa_func *f);

#endif /* PA_JSONDOC_H */
