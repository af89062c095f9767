/*
 * report_speedscope: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per selected thread that has samples, named
 * "EXE (PID) THREAD (TID)", its samples in time order, each a stack of
 * indexes into shared.frames, root first. Weights: the period in
 * nanoseconds (unit "nanoseconds") for an event that counts nanoseconds at
 * a fixed period, else 1 per sample (unit "none"). A frame is a function
 * (as speedscope's own importers make them), one per inline level
 * (pa_symbols_lookup_src), so that stacks count as top --inlines: its name,
 * its source file as "file" and the line where it starts as "line" when the
 * debug info gives them, else the display name (as in top) and the
 * module's path as "file".
 */
#ifndef PA_REPORT_SPEEDSCOPE_H
#define PA_REPORT_SPEEDSCOPE_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the samples of run that f selects to out. Symboliser warnings go
 * to warn (may be NULL). Returns 0, -EIO on a write error, or another
 * negative errno with err filled.
 */
int pa_report_speedscope(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			 struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_SPEEDSCOPE_H */
