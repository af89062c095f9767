/* report_callers: who calls a function, and what it calls, with shares. */
#ifndef PA_REPORT_CALLERS_H
#define PA_REPORT_CALLERS_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the callers (callees false: the callees) of the function named
 * name (in any module) in prof to out: the event line (as top's), a line
 * with name's inclusive samples, a column header, then one line per caller
 * (callee) function sorted by samples: the samples in which it calls name
 * (name calls it) directly, and their share of name's inclusive samples.
 * A sample counts once per caller (callee) however often it recurses, so
 * the shares of a recursive function can add up to more than 100% (a last
 * line then says so). Callers list "[root]" for samples in which name is
 * the outermost frame; callees always list "[self]", the samples in which
 * name is the innermost frame.
 * Returns 0; -ENOENT with err filled ("no function named ...", with the
 * closest names) when no stack has name; -ENOMEM; -EIO on a write error.
 */
int pa_report_callers(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
		      const char *name, bool callees, struct pa_error *err);

/*
 * The same as a JSON document (report_json.h), "report" being "callers" or
 * "callees", with "function" (name), "total" (its inclusive samples),
 * "total_percent" (of all samples), "recursive" (the shares may add up to
 * more than 100%) and one row per caller (callee): {"samples",
 * "share_percent" (of name's total), "function", "module", "module_path"};
 * "[root]" and "[self]" have module and module_path null. Returns as
 * pa_report_callers does (-ENOMEM without err filled when the writer
 * cannot be made).
 */
int pa_report_callers_json(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
			   const char *name, bool callees, struct pa_error *err);

#endif /* PA_REPORT_CALLERS_H */
