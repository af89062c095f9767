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

/* Write s as a JSON string, quotes included. Shared with other JSON reports. */
void pa_report_json_string(FILE *out, const char *s);

#endif /* PA_REPORT_SPEEDSCOPE_H */
