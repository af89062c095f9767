/* report_events: the run's events and their settings, one row per event. */
#ifndef PA_REPORT_EVENTS_H
#define PA_REPORT_EVENTS_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the sampling mode and configuration of the processes filter
 * selects (one "# mode ..." line when they agree, else one per process:
 * the mode in force, the mode the configuration asked for, where the
 * configuration came from, max_frames, follow_exec, unavailable, strict;
 * "unknown" for logs without a configuration record), then one row per
 * event: NAME, EVENT (the spec as written), KIND (sample or count), ENCODING
 * (pa_event_format_encoding), PERIOD (pa_event_format_period), SCOPE (user,
 * kernel, user+kernel), PRECISE (precise_ip), SAMPLES (sample records of the
 * event in the selected threads), LOST (samples the writer dropped,
 * pa_filter_count_lost), PROCESSES ("all", or the pids that have the
 * event so) and STATUS ("ok" or "unavailable: REASON"). Events of several
 * processes with the same name, spec and settings share a row. The event
 * of filter, when it names one, selects the rows. Returns 0, -ENOMEM, or
 * -EIO on a write error.
 */
int pa_report_events(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

/*
 * The same as a JSON document (report_json.h; "header" and "lost" are
 * null, "samples" sums the rows', "processes" and "threads" count the
 * selected ones) with "configs", one object per selected process: {"pid",
 * "exe", "mode", "signal" (the signal mode's, else null), "requested",
 * "source", "max_frames", "follow_exec", "unavailable", "strict" (null
 * when the log has no configuration record), "text" (the text report's
 * line)}; and one row per event row: {"name", "event", "kind",
 * "encoding", "type", "config", "config1", "config2", "period", "unit",
 * "period_text", "scope", "precise", "samples", "lost" (null for counting
 * events), "processes" (how many), "all_processes", "pids" (every one),
 * "status", "available", "error" (strerror, null when available)}.
 * Returns 0, -ENOMEM, or -EIO on a write error.
 */
int pa_report_events_json(FILE *out, const struct pa_run *run,
			  const struct pa_filter *filter);

#endif /* PA_REPORT_EVENTS_H */
