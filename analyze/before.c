/* The CPU time before profiling, as an entry of the reports; see before.h. */
#include "before.h"
#include "eventinfo.h"

static const uint64_t pa_before_ips[1] = { PA_BEFORE_IP };

uint64_t pa_before_event_ns(const struct pa_process *proc, const struct pa_event *ev)
{
	uint64_t ns = 0;

	if (!proc->before.known)
		return 0;
	if (!(ev->flags & PPF_EVENT_EXCLUDE_USER))
		ns += proc->before.user_ns;
	if (!(ev->flags & PPF_EVENT_EXCLUDE_KERNEL))
		ns += proc->before.system_ns;
	return ns;
}

uint64_t pa_before_event_samples(const struct pa_process *proc, const struct pa_event *ev)
{
	/* A time event's period, in frequency mode too (eventinfo.h). */
	uint64_t period = pa_event_sample_period(ev), ns;

	if (!(ev->flags & PPF_EVENT_TIME_NS) || (ev->flags & PPF_EVENT_UNAVAILABLE) || !period)
		return 0;
	ns = pa_before_event_ns(proc, ev);
	return (ns + period / 2) / period;
}

size_t pa_before_samples(const struct pa_process *proc, const struct pa_filter *f, int64_t idx,
			 struct pa_sample *out)
{
	size_t n = 0;

	if (!proc->before_thread || pa_filter_by_thread(f) || idx == PA_FILTER_NO_EVENT)
		return 0;
	for (size_t i = 0; i < proc->nevents && n < PA_BEFORE_MAX; i++) {
		const struct pa_event *ev = &proc->events[i];
		uint64_t k = pa_before_event_samples(proc, ev);

		if (!k || (idx >= 0 && ev->index != (uint64_t)idx))
			continue;
		out[n] = (struct pa_sample){ .time_ns = proc->start_ns, .event = ev->index,
					     .flags = PA_SAMPLE_ESTIMATED, .nframes = 1,
					     .count = k > UINT32_MAX ? UINT32_MAX : (uint32_t)k,
					     .ips = pa_before_ips };
		if (pa_filter_selects_time(f, proc, &out[n]))
			n++;
	}
	return n;
}

uint64_t pa_before_run_samples(const struct pa_run *run, const struct pa_filter *f)
{
	struct pa_sample est[PA_BEFORE_MAX];
	uint64_t total = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *proc = run->processes[i];
		size_t n;

		if (!pa_filter_selects(f, proc))
			continue;
		n = pa_before_samples(proc, f, pa_filter_event(f, proc), est);
		for (size_t k = 0; k < n; k++)
			total += est[k].count;
	}
	return total;
}
