/* report_counters: totals of counting events, per process and per thread. */
#ifndef PA_REPORT_COUNTERS_H
#define PA_REPORT_COUNTERS_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the totals of the opened counting events that filter selects (its
 * pid, exe and tid; its event: one event, or all of them) in the style of
 * perf stat:
 *
 *   # counters: 2 events, 1 process, 3 threads (multiplexed counters scaled: ...)
 *   pid 4242 (app), 3 threads:
 *        3,000,000,000  instructions  # 1.50 instructions per cycle
 *        2,000,000,000  cycles        (scaled, counted 62.5% of the time)
 *     tid 4242 (main):
 *        1,000,000,000  instructions  # 1.00 instructions per cycle
 *   ...
 *
 * A process's line is the sum of its selected threads' (see counters.h);
 * "-" stands for a count that is not known (no counter in that thread, a
 * counter that never ran, no totals because the log ends first), with the
 * reason in parentheses and the threads counted in a note at the end.
 * Counting events that could not be opened are listed in comment lines.
 * With no counting event to show, a single comment line says so.
 * Returns 0, or -EIO on a write error.
 */
int pa_report_counters(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

/*
 * The same as JSON (--format json): the common opening (report_json.h;
 * "header" is null), then "rows": for each selected process, one row per
 * counting event shown with "tid": null (the process total), then the same
 * rows for each selected thread. A row: pid, tid, name (executable or
 * thread name), event, spec, value (the scaled estimate, rounded; null when
 * not known), raw, time_enabled, time_running, scaled, counted_share,
 * threads_counted, unknown_because (null when known), ratio, ratio_of,
 * ratio_percent (null when the event heads no ratio). Returns 0, -ENOMEM or
 * -EIO.
 */
int pa_report_counters_json(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

#endif /* PA_REPORT_COUNTERS_H */
