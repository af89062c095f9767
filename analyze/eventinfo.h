/*
 * eventinfo: what the reports say about a run's events (struct pa_event):
 * their kind and settings as text, which event a report shows (--event and
 * its default), and the line that heads every text report but folded.
 *
 * Formatting functions write a NUL-terminated string of at most size bytes
 * (size > 0) into the caller's buf and return buf.
 */
#ifndef PA_EVENTINFO_H
#define PA_EVENTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "reader.h"

/* Whether e takes samples (not PPF_EVENT_COUNT). */
bool pa_event_samples(const struct pa_event *e);

/* Whether e was opened (not PPF_EVENT_UNAVAILABLE). */
bool pa_event_opened(const struct pa_event *e);

/*
 * Whether a and b are set alike: encoding, period, flags (but for
 * PPF_EVENT_UNAVAILABLE) and precise_ip.
 */
bool pa_event_same_settings(const struct pa_event *a, const struct pa_event *b);

/* "sample" or "count". */
const char *pa_event_kind(const struct pa_event *e);

/*
 * The period: "1 ms of CPU" (PPF_EVENT_TIME_NS at a fixed period), "1000 Hz"
 * (PPF_EVENT_FREQ), "10000 events", or "-" for a counting event.
 */
char *pa_event_format_period(const struct pa_event *e, char *buf, size_t size);

/*
 * The event count one overflow of sampling event e stands for when every
 * overflow stands for the same: its period; for a frequency asked of an
 * event that counts nanoseconds (cpu-clock, task-clock), 1 s / frequency,
 * the fixed period the kernel runs it at (perf_swevent_init_hrtimer: an
 * hrtimer has no period to adjust). 0 when it is not known: a frequency of
 * another event, whose period the kernel adjusts as it goes.
 */
uint64_t pa_event_sample_period(const struct pa_event *e);

/*
 * Whether e's samples each stand for a period of their own (a frequency
 * asked of an event that is not a time event: the kernel adjusts the
 * period as it goes). Its samples' counts (pa_sample.count) are then
 * events, each sample weighed by its period as the writer recorded it
 * (a sample without one, in a log of an older writer: once).
 */
bool pa_event_weighted(const struct pa_event *e);

/* What it counts: "user", "kernel", "user+kernel" or "none". */
const char *pa_event_scope(const struct pa_event *e);

/*
 * The perf encoding: "TYPE:0xCONFIG" with TYPE "hardware", "software",
 * "tracepoint", "hw-cache", "raw", "breakpoint" or the PMU's number, then
 * ",config1=0x..." and ",config2=0x..." when they are not zero.
 */
char *pa_event_format_encoding(const struct pa_event *e, char *buf, size_t size);

/* "ok", or "unavailable: REASON" (strerror of e->error). */
char *pa_event_format_status(const struct pa_event *e, char *buf, size_t size);

/* n with a comma every three digits: "3,312". */
char *pa_events_format_count(uint64_t n, char *buf, size_t size);

/* Which kind of event a report shows. */
enum pa_events_use {
	PA_EVENTS_SAMPLES, /* top, folded, threads, processes */
	PA_EVENTS_COUNTS,  /* counters */
	PA_EVENTS_ANY,     /* events */
};

/*
 * Point f at the event a report of kind use shows, among the processes f
 * selects. name is --event's value (an event's name or spec), or NULL for
 * the default: for PA_EVENTS_SAMPLES the first sampling event that was
 * opened (PA_FILTER_NO_EVENT when there is none: the report is empty and
 * its header says why), otherwise every event. With a name, f->event_name
 * becomes name (not copied: it must outlive f). Returns 0, or -ENOENT (no
 * such event: err lists the sampling events there are) or -EINVAL (a
 * counting event for a sampling report or the other way round, or an event
 * that could be opened in no process) with err filled. When f selects no
 * process, any name is accepted.
 */
int pa_events_choose(const struct pa_run *run, struct pa_filter *f, const char *name,
		     enum pa_events_use use, struct pa_error *err);

/*
 * The event f selects in the first process f selects that has it (NULL if
 * none, or f selects every event; else it points into run); *differs says whether another selected
 * process has it with other settings (encoding, period, flags).
 */
const struct pa_event *pa_events_shown(const struct pa_run *run, const struct pa_filter *f,
				       bool *differs);

/*
 * The lines that head a report of samples f selects:
 *   "# event NAME[ (SPEC)]: period PERIOD (SCOPE), N samples"
 * then ", N processes, N threads" when with_counts, and ", N lost" when
 * lost. It says so when the period differs between processes, when f
 * selects every event, and when there is no sampling event. Then, each on
 * a line of its own starting with "# ", the notes on how much of the CPU
 * time the samples cover (pa_coverage_notes), when there are any.
 */
void pa_events_header(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		      uint64_t samples, bool with_counts, size_t nprocesses,
		      size_t nthreads, uint64_t lost);

#endif /* PA_EVENTINFO_H */
