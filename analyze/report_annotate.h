/* report_annotate: one function's source, with the samples of each line. */
#ifndef PA_REPORT_ANNOTATE_H
#define PA_REPORT_ANNOTATE_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the samples of function func (a function name as top shows it, an
 * inlined function's included) per source line to out, for the samples of
 * run that f selects. A sample counts for the innermost frame that is func
 * (inline levels included), at that frame's line: "self" when that frame is
 * in the sample's leaf address (func or code inlined into it ran), "total"
 * in any case. After the report's header line, each source file holding
 * such lines gets a "## FILE" line then its text with both counts per line
 * ('.' for none), from CONTEXT lines before the first counted line to
 * CONTEXT after the last. A file that cannot be read is said so, and only
 * its counted lines are listed. Counts without line info come last.
 * Symboliser warnings go to warn (may be NULL).
 * Returns 0; -ENOENT with err filled when no selected sample has func;
 * -EIO when out reports a write error; or a negative errno with err filled.
 */
#define PA_REPORT_ANNOTATE_CONTEXT 3
int pa_report_annotate(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		       const char *func, struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_ANNOTATE_H */
