/* report_folded: folded stacks, as flamegraph.pl and speedscope read them. */
#ifndef PA_REPORT_FOLDED_H
#define PA_REPORT_FOLDED_H

#include <stdio.h>

#include "profile.h"

/*
 * One line per distinct stack of prof: frames root first joined by ';', a
 * space, the sample count ("main;work;leaf 12"), in the profile's order
 * (sorted by stack text). Returns 0, or -EIO on a write error.
 */
int pa_report_folded(FILE *out, const struct pa_profile *prof);

#endif /* PA_REPORT_FOLDED_H */
