/*
 * window: the time window of --from/--to. A sample is in it when it was
 * taken from from_ns (included) to to_ns (excluded) after its process
 * started; one stamped before its process started (clock skew) counts as
 * taken at the start. The reader leaves out what is outside while it
 * reads (struct pa_load_opts), the profile and the reports when they
 * count (struct pa_filter).
 */
#ifndef PA_WINDOW_H
#define PA_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

struct pa_window {
	bool on;          /* false: no window, every sample is in */
	uint64_t from_ns;
	uint64_t to_ns;   /* UINT64_MAX: no end */
};

/* Whether w holds a sample taken at time_ns by a process started at start_ns. */
bool pa_window_holds(const struct pa_window *w, uint64_t start_ns, uint64_t time_ns);

#endif /* PA_WINDOW_H */
