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

#include "profile.h"

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

#endif /* PA_REPORT_DIFF_H */
