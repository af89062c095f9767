/* counters: counting-event totals and ratios; see counters.h. */
#include "counters.h"

#include <linux/perf_event.h>
#include <string.h>

#include "eventinfo.h"

/* PERF_TYPE_HARDWARE configs hold the PMU's type above these bits (hybrid CPUs). */
#define PA_COUNTERS_HW_ID_MASK 0xffffffffull

void pa_count_thread(const struct pa_thread *t, uint32_t index, struct pa_count *out)
{
	const struct pa_thread_event *te = pa_thread_find_event(t, index);

	memset(out, 0, sizeof(*out));
	if (!te || !(te->flags & (PPF_THREAD_EVENT_COUNTED | PPF_THREAD_EVENT_NO_COUNTER)))
		out->missing = 1;
	else if (te->flags & PPF_THREAD_EVENT_NO_COUNTER)
		out->no_counter = 1;
	else if (te->time_running == 0 && te->time_enabled > 0)
		out->not_counted = 1; /* enabled, never on the PMU: nothing to scale */
	else {
		out->counted = 1;
		out->late = !!(te->flags & PPF_THREAD_EVENT_LATE_COUNTER);
		out->raw = te->value;
		out->enabled = te->time_enabled;
		out->running = te->time_running;
		out->estimate = te->time_running < te->time_enabled ?
			(double)te->value * ((double)te->time_enabled / (double)te->time_running) :
			(double)te->value;
	}
}

void pa_count_add(struct pa_count *sum, const struct pa_count *c)
{
	sum->raw += c->raw;
	sum->estimate += c->estimate;
	sum->enabled += c->enabled;
	sum->running += c->running;
	sum->counted += c->counted;
	sum->late += c->late;
	sum->no_counter += c->no_counter;
	sum->not_counted += c->not_counted;
	sum->missing += c->missing;
}

bool pa_count_known(const struct pa_count *c)
{
	return c->counted > 0;
}

double pa_count_share(const struct pa_count *c)
{
	return c->running < c->enabled ? (double)c->running / (double)c->enabled : 1.0;
}

bool pa_count_scaled(const struct pa_count *c)
{
	return pa_count_known(c) && c->running < c->enabled;
}

/* The PERF_COUNT_HW_* id e counts, or -1 when it is no generic hardware event. */
static int64_t pa_counters_hw_id(const struct pa_event *e)
{
	if (e->type != PERF_TYPE_HARDWARE)
		return -1;
	return (int64_t)(e->config & PA_COUNTERS_HW_ID_MASK);
}

/* An opened counting event of proc that counts hw id like e does, or NULL. */
static const struct pa_event *pa_counters_peer(const struct pa_process *proc,
					       const struct pa_event *e, int64_t id)
{
	const uint32_t levels = PPF_EVENT_EXCLUDE_KERNEL | PPF_EVENT_EXCLUDE_USER;

	for (size_t i = 0; i < proc->nevents; i++) {
		const struct pa_event *d = &proc->events[i];

		if (!pa_event_samples(d) && pa_event_opened(d) && pa_counters_hw_id(d) == id &&
		    (d->config & ~PA_COUNTERS_HW_ID_MASK) == (e->config & ~PA_COUNTERS_HW_ID_MASK) &&
		    (d->flags & levels) == (e->flags & levels))
			return d;
	}
	return NULL;
}

bool pa_counters_ratio(const struct pa_process *proc, const struct pa_event *num,
		       struct pa_ratio *out)
{
	static const struct {
		int64_t num, den;
		const char *what;
		bool percent;
	} ratios[] = {
		{ PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		  "instructions per cycle", false },
		{ PERF_COUNT_HW_CACHE_MISSES, PERF_COUNT_HW_CACHE_REFERENCES,
		  "of cache references", true },
		{ PERF_COUNT_HW_BRANCH_MISSES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		  "of branches", true },
	};
	int64_t id = pa_counters_hw_id(num);

	if (pa_event_samples(num) || !pa_event_opened(num))
		return false;
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		if (ratios[i].num != id)
			continue;
		out->den = pa_counters_peer(proc, num, ratios[i].den);
		out->what = ratios[i].what;
		out->percent = ratios[i].percent;
		return out->den != NULL;
	}
	return false;
}
