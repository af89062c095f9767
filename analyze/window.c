/* window: the time window of --from/--to; see window.h. */
#include "window.h"

bool pa_window_holds(const struct pa_window *w, uint64_t start_ns, uint64_t time_ns)
{
	uint64_t t;

	if (!w->on)
		return true;
	t = time_ns > start_ns ? time_ns - start_ns : 0;
	return t >= w->from_ns && t < w->to_ns;
}
