/*
 * counters: totals of counting events (PPF_EVENT_COUNT) from the threads'
 * PPF_REC_THREAD_EVENT records, scaled for multiplexing, and the ratios
 * derived from two of them.
 *
 * A counter that the kernel multiplexed counted only time_running of the
 * time_enabled it was enabled; its estimate is value * time_enabled /
 * time_running. A process's total is the sum of its threads' estimates.
 */
#ifndef PA_COUNTERS_H
#define PA_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

/* One counting event's total in one thread, or summed over threads. */
struct pa_count {
	uint64_t raw;       /* sum of the raw values counted */
	double estimate;    /* sum of value * time_enabled / time_running */
	uint64_t enabled;   /* sum of time_enabled */
	uint64_t running;   /* sum of time_running */
	size_t counted;     /* threads whose value is known */
	size_t late;        /* of them, counted from their first sample on
			       (PPF_THREAD_EVENT_LATE_COUNTER) */
	size_t no_counter;  /* threads with PPF_THREAD_EVENT_NO_COUNTER */
	size_t not_counted; /* threads whose counter never ran (time_running 0) */
	size_t missing;     /* threads without a record (log cut short, or exec) */
};

/* Fill out with thread t's count of event index (zeroed first). */
void pa_count_thread(const struct pa_thread *t, uint32_t index, struct pa_count *out);

/* Add c to sum. */
void pa_count_add(struct pa_count *sum, const struct pa_count *c);

/* Whether c holds a value: at least one thread counted. */
bool pa_count_known(const struct pa_count *c);

/* Share of the enabled time the counters ran, in [0, 1] (1 when unknown). */
double pa_count_share(const struct pa_count *c);

/* Whether c's estimate was scaled up from a multiplexed counter. */
bool pa_count_scaled(const struct pa_count *c);

/* A ratio of two counting events of one process. */
struct pa_ratio {
	const struct pa_event *den; /* the denominator; the numerator is the event asked about */
	const char *what;           /* "instructions per cycle", "of cache references", ... */
	bool percent;               /* print as a percentage */
};

/*
 * The ratio that num heads among proc's opened counting events, told by
 * perf type and config, not by name: instructions / cycles, cache-misses /
 * cache-references, branch-misses / branches, the denominator counting the
 * same privilege levels on the same PMU. Returns true and fills out, or
 * false when num heads none or proc lacks its denominator.
 */
bool pa_counters_ratio(const struct pa_process *proc, const struct pa_event *num,
		       struct pa_ratio *out);

#endif /* PA_COUNTERS_H */
