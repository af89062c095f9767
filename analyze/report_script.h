/*
 * report_script: samples in the text layout of `perf script`, which
 * speedscope, the Firefox Profiler and the FlameGraph scripts
 * (stackcollapse-perf.pl) read:
 *
 *   COMM TID SECONDS.MICROS: PERIOD EVENT:
 *   \t    ADDRESS FUNCTION+0xOFF (MODULE)
 *   ...one line per frame, innermost first
 *   (a blank line)
 *
 * COMM is the thread's name (the executable's basename when it has none),
 * SECONDS the sample's CLOCK_MONOTONIC time, PERIOD the event's fixed
 * period (1 for a frequency event), EVENT its name. ADDRESS is the ELF
 * address in MODULE (as perf prints it; the run-time address when no
 * module holds it); an unresolved frame prints "[unknown]" as its function,
 * an address outside every module "[unknown]" as its module too. Samples
 * come thread by thread, each thread's in time order.
 */
#ifndef PA_REPORT_SCRIPT_H
#define PA_REPORT_SCRIPT_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the samples of run that f selects to out. Symboliser warnings go
 * to warn (may be NULL). Returns 0, -EIO on a write error, or another
 * negative errno with err filled.
 */
int pa_report_script(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		     struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_SCRIPT_H */
