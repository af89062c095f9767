/*
 * report_flamegraph: a self-contained interactive flame graph, as an SVG
 * document with its script or as an HTML page holding that SVG. Nothing is
 * loaded from elsewhere when it is viewed. The script is
 * analyze/flamegraph.js, built in; see there for what the page does.
 */
#ifndef PA_REPORT_FLAMEGRAPH_H
#define PA_REPORT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

enum pa_flamegraph_kind { PA_FLAMEGRAPH_SVG, PA_FLAMEGRAPH_HTML };

/*
 * The kind of flame graph a file name asks for: its suffix ".svg" or
 * ".html"/".htm" (any case). Returns false for any other name.
 */
bool pa_report_flamegraph_kind(const char *path, enum pa_flamegraph_kind *kind);

/*
 * Write the flame graph of prof (built from run) to out: one frame per call
 * path, as wide as its inclusive samples, coloured by module; the event
 * line (as top's) as subtitle. Paths with less than min_percent of the
 * samples are left out with everything above them (0: none is).
 * Returns 0, -ENOMEM, or -EIO when out reports a write error.
 */
int pa_report_flamegraph(FILE *out, const struct pa_run *run, const struct pa_profile *prof,
			 enum pa_flamegraph_kind kind, double min_percent);

#endif /* PA_REPORT_FLAMEGRAPH_H */
