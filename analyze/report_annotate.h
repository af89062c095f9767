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

/*
 * The same as a JSON document (report_json.h; "lost" is null: annotate
 * does not count lost samples) with "function" (func), "self" and "total"
 * (its samples, as the text's second line), "files" (one per "## FILE"
 * section: {"file", "found" (its text could be read), "error" (why not,
 * as the text says; null when found)}) and one row per line the text
 * shows counts on, in its order: {"file" (null for the samples without
 * line info), "line" (null likewise), "self", "total" (0 where the text
 * shows '.'), "source" (the line's text; null where the text shows none)}.
 * Returns as pa_report_annotate does; -ENOMEM as well.
 */
int pa_report_annotate_json(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			    const char *func, struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_ANNOTATE_H */
