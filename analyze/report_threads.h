/* report_threads: one line per thread of a run. */
#ifndef PA_REPORT_THREADS_H
#define PA_REPORT_THREADS_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * A header line naming the event and its period (pa_events_header), then
 * one row per thread that filter selects (its pid and tid; the event
 * selects which samples are counted): pid, tid, name, samples in the log,
 * samples lost (of that event when the log says, else of all events), late
 * samples, how its log ended ("yes": END record; "full": END record, after
 * the log stopped early because it could not grow, a full disk, with the
 * samples after that counted as lost; "exec": its process's image was
 * replaced by exec, which ends threads without one; "no": killed or still
 * running), its CPU time when known, and the executable. Returns
 * 0, or -EIO on a write error.
 */
int pa_report_threads(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

/*
 * The same as a JSON document (report_json.h; "processes" and "threads"
 * count the rows' processes and the rows, "lost" sums the rows') with one
 * row per thread: {"pid", "tid", "name" (null where the text shows '-'),
 * "samples", "lost", "late", "ended" ("yes", "full", "exec", "no"), "cpu_s" (null
 * when unknown), "exe"}. Returns 0, -ENOMEM, or -EIO on a write error.
 */
int pa_report_threads_json(FILE *out, const struct pa_run *run,
			   const struct pa_filter *filter);

#endif /* PA_REPORT_THREADS_H */
