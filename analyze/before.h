/*
 * before: the CPU time a process used before it was sampled (the dynamic
 * loader's relocations, the constructors of libraries that ran before the
 * profiler's, the profiler's own start; PPF_REC_PROCESS_CPU), shown in the
 * reports as an entry of its own, "[before profiling]".
 *
 * For an event that counts CPU time (cpu-clock, task-clock; at a period,
 * or a frequency: pa_event_sample_period), that time is turned into
 * samples, estimated: the part the event counts (user space, the kernel
 * or both) divided by the period. The
 * reports of samples count them as one sample whose only frame is
 * PA_BEFORE_IP (which symbols.h names PA_BEFORE_NAME), with flag
 * PA_SAMPLE_ESTIMATED, in the process's pseudo-thread before_thread (tid
 * 0, not among its threads). The reader sets each process's before and
 * before_thread (reader.h).
 */
#ifndef PA_BEFORE_H
#define PA_BEFORE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "reader.h"

#define PA_BEFORE_IP UINT64_MAX
#define PA_BEFORE_NAME "[before profiling]"
/* In pa_sample.flags, never on disk: the sample is an estimate. */
#define PA_SAMPLE_ESTIMATED 0x8000u

/* The part of proc's time before profiling that event ev counts, in ns. */
uint64_t pa_before_event_ns(const struct pa_process *proc, const struct pa_event *ev);

/*
 * Samples of ev that proc's time before profiling stands for: that time
 * over ev's period (pa_event_sample_period), rounded, for an event that
 * counts CPU time; else 0.
 */
uint64_t pa_before_event_samples(const struct pa_process *proc, const struct pa_event *ev);

/*
 * The estimated samples of proc that filter f selects, events of index idx
 * (pa_filter_event's answer), one pa_sample per event with any, into out
 * (room for PA_BEFORE_MAX). None when f selects threads (the time is no
 * thread's) or its window starts after the process's start. Their ips
 * point to static storage. Returns how many.
 */
#define PA_BEFORE_MAX 16
size_t pa_before_samples(const struct pa_process *proc, const struct pa_filter *f, int64_t idx,
			 struct pa_sample *out);

/* The estimated samples of every process of run that f selects (pa_before_samples). */
uint64_t pa_before_run_samples(const struct pa_run *run, const struct pa_filter *f);

#endif /* PA_BEFORE_H */
