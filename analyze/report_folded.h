/* report_folded: folded stacks, as flamegraph.pl and speedscope read them. */
#ifndef PA_REPORT_FOLDED_H
#define PA_REPORT_FOLDED_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * One line per distinct stack of prof: frames root first joined by ';', a
 * space, the sample count ("main;work;leaf 12"), in the profile's order
 * (sorted by stack text). Returns 0, or -EIO on a write error.
 */
int pa_report_folded(FILE *out, const struct pa_profile *prof);

/*
 * The same per thread (folded --per-thread): each stack of run's samples
 * that f selects starts with two root frames, "EXE (PID)" (the executable's
 * basename) and "THREAD (TID)" (the thread's name, or EXE when it has none):
 * "demo (4242);worker (4243);main;work;leaf 12". Lines sorted by text.
 * Symboliser warnings go to warn (may be NULL). Returns 0, -EIO on a write
 * error, or another negative errno with err filled.
 */
int pa_report_folded_threads(FILE *out, const struct pa_run *run, const struct pa_filter *f,
			     struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_FOLDED_H */
