/* report_threads: one line per thread of a run. */
#ifndef PA_REPORT_THREADS_H
#define PA_REPORT_THREADS_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * One row per thread that filter selects (its pid and tid; the event index
 * selects which samples are counted): pid, tid, name, samples in the log,
 * samples lost, whether the thread ended cleanly, its CPU time when known,
 * and the executable. Returns 0, or -EIO on a write error.
 */
int pa_report_threads(FILE *out, const struct pa_run *run, const struct pa_filter *filter);

#endif /* PA_REPORT_THREADS_H */
