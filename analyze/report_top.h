/* report_top: the flat profile, one line per function. */
#ifndef PA_REPORT_TOP_H
#define PA_REPORT_TOP_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the flat profile of prof (built from run) to out: a header line
 * naming the event, its period, the sample, process and thread counts (and
 * lost samples, if any), then one line per function sorted by self samples:
 * self, self %, total, total %, estimated CPU time (samples x period for an
 * event counting nanoseconds at a fixed period, "-" otherwise), name and
 * module. limit: at most that many function lines, 0 for all.
 * Returns 0, or -EIO when out reports a write error.
 */
int pa_report_top(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		  size_t limit);

/*
 * The same as a JSON document (report_json.h) with "by" ("function",
 * "inline", "line" or "line_inline") and one row per function line:
 * {"self", "self_percent", "total", "total_percent", "cpu_s" (null where
 * the text shows '-'), "function", "module", "module_path"}. Returns 0,
 * -ENOMEM, or -EIO when out reports a write error.
 */
int pa_report_top_json(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		       size_t limit);

#endif /* PA_REPORT_TOP_H */
