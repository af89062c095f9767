/* report_processes: one line per process of a run, laid out as a tree. */
#ifndef PA_REPORT_PROCESSES_H
#define PA_REPORT_PROCESSES_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * A header line naming the event and its period (pa_events_header), then
 * one row per process that filter selects (its pid and exe; with a tid, only
 * the process holding that thread, counting that thread alone; the event
 * index selects which samples are counted): pid, ppid, start (seconds after
 * the run's first process started), wall-clock duration, samples in the
 * logs, threads, the executable's basename, and how the process ended:
 *   "exit N"          exit status N
 *   "signal SIGNAME"  killed by that signal (SIGABRT for abort())
 *   "exec PATH"       its image was replaced by exec; the new image is the
 *                     next row with the same pid
 *   "killed?"         no END record: killed, or still running
 *   "unknown (log full)"  no END record, after process.log stopped early
 *                     (it could not grow): how the process ended is unknown
 *   "unknown"         an END record that does not say how
 * prefixed by "off, " when profiling was off in the process ("off, exit 0").
 *
 * Rows come in tree order: a process is listed under its parent (the
 * selected process with pid = its ppid that started last before it), its
 * exe indented by two spaces per level; siblings and roots are sorted by pid
 * then start time. Returns 0, -ENOMEM, or -EIO on a write error.
 */
int pa_report_processes(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

/*
 * The same as a JSON document (report_json.h; "processes" counts the rows,
 * "threads" sums theirs, "lost" is null) with one row per process, in the
 * same order: {"pid", "ppid", "depth" (0 for a root), "parent" (the index
 * in rows of its parent's row, null for a root), "start_s", "wall_s" (null
 * when unknown), "samples", "threads", "exe" (null when unknown), "ended"
 * (the ENDED text), "how" ("exit", "signal", "exec", "killed" or
 * "unknown", which a process.log without END that stopped early says too),
 * "exit_status", "signal" ("SIGABRT", or the number when it
 * has no name), "exec_path" (null when they do not apply),
 * "profiling_off"}. Returns 0, -ENOMEM, or -EIO on a write error.
 */
int pa_report_processes_json(FILE *out, const struct pa_run *run,
			     const struct pa_filter *filter);

#endif /* PA_REPORT_PROCESSES_H */
