/*
 * report_flamegraph: a self-contained interactive flame graph, as an SVG
 * document with its script or as an HTML page holding that SVG. Nothing is
 * loaded from elsewhere when it is viewed. The script is
 * analyze/flamegraph.js, built in; see there for what the page does.
 */
#ifndef PA_REPORT_FLAMEGRAPH_H
#define PA_REPORT_FLAMEGRAPH_H

#include <stdbool.h>

enum pa_flamegraph_kind { PA_FLAMEGRAPH_SVG, PA_FLAMEGRAPH_HTML };

/*
 * The kind of flame graph a file name asks for: its suffix ".svg" or
 * ".html"/".htm" (any case). Returns false for any other name.
 */
bool pa_report_flamegraph_kind(const char *path, enum pa_flamegraph_kind *kind);

#endif /* PA_REPORT_FLAMEGRAPH_H */
