/*
 * report_diff: the functions whose share of the samples changed most
 * between two profiles (diff BASE NEW).
 *
 * A function is matched across the profiles by its display name and its
 * module's basename (the runs may come from different build directories).
 * Its share is its self (or total) samples over its profile's samples, in
 * percent; a function one profile lacks has a share of 0 there.
 */
#ifndef PA_REPORT_DIFF_H
#define PA_REPORT_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

struct pa_report_diff_row {
	const char *name;   /* points into base or cur */
	const char *module; /* module basename (points into base or cur), or NULL */
	double base_self;   /* self % in base */
	double cur_self;    /* self % in cur */
	double base_total;  /* total % in base */
	double cur_total;   /* total % in cur */
};

/*
 * One row per function of base or cur, sorted by the larger of |cur_self -
 * base_self| and |cur_total - base_total|, largest first, then by name.
 * Returns 0 and *rows (malloc'd, free() it; its strings live as long as
 * base and cur) and *nrows, or -ENOMEM.
 */
int pa_report_diff_build(const struct pa_profile *base, const struct pa_profile *cur,
			 struct pa_report_diff_row **rows, size_t *nrows);

/*
 * Write the diff: the header line of each run (pa_events_header, after
 * "# base DIR" and "# new DIR"), then one line per row (at most limit;
 * 0: all): self % in base and new, its change, total % in base and new,
 * its change (in percentage points, signed), function (module).
 * Returns 0, -ENOMEM, or -EIO when writing failed.
 */
int pa_report_diff(FILE *out, const struct pa_run *base_run, const struct pa_profile *base,
		   const struct pa_run *cur_run, const struct pa_profile *cur, size_t limit);

/*
 * The same as a JSON document (report_json.h). Its opening members are
 * NEW's (cur's), and "base" and "new" hold each run's: {"dir", "event",
 * "header", "samples", "processes", "threads", "lost"}. One row per line:
 * {"base_self_percent", "new_self_percent", "self_change",
 * "base_total_percent", "new_total_percent", "total_change" (changes in
 * percentage points, new - base), "function", "module" (the basename the
 * functions are matched by; null without)}. Returns 0, -ENOMEM, or -EIO
 * when writing failed.
 */
int pa_report_diff_json(FILE *out, const struct pa_run *base_run, const struct pa_profile *base,
			const struct pa_run *cur_run, const struct pa_profile *cur, size_t limit);

#endif /* PA_REPORT_DIFF_H */
