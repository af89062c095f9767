/*
 * coverage: how much of the CPU time threads and processes used their
 * samples stand for. An event that counts CPU time at a fixed period
 * (cpu-clock, task-clock) takes one sample per period of the time it
 * counts: user time when it excludes the kernel (the default), kernel
 * (system) time when it excludes user space, both otherwise. Its coverage
 * is samples x period / that time: 1 when every period was sampled, less
 * when samples were throttled, lost, merged while the thread blocked the
 * signal, or never taken. For other events (page faults, a frequency)
 * coverage has no meaning.
 *
 * The CPU time used while sampling was paused (pprof_pause, the toggle
 * signal, the delay: a thread's PPF_REC_THREAD_PAUSED) is left out too.
 *
 * The time used before sampling started (the time before profiling,
 * before.h: of the process, and of its main thread, which ran the
 * constructor) is left out of the time counted: the reports show it as an
 * estimate of its own.
 *
 * The CPU times come from the logs: a thread's END record (its user and
 * system time), else its last PPF_REC_THREAD_PROGRESS (a log whose process
 * ended by a raw exit_group, or was killed); a process's END record (every
 * thread it ran), else the latest of the process's CPU times those records
 * carry, else the sum of its threads'. The samples are the
 * thread's whole log's, whatever time window a report shows (the CPU times
 * are totals too); for a log without END, those read before its last
 * PPF_REC_THREAD_PROGRESS, which its CPU times are as of.
 */
#ifndef PA_COVERAGE_H
#define PA_COVERAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "profile.h"
#include "reader.h"

/* Threads with more CPU time than this and less coverage are noted. */
#define PA_COVERAGE_NOTE_CPU_NS 100000000ull
#define PA_COVERAGE_NOTE_BELOW 0.9

/* The CPU time of a thread or process, and what its samples cover of it. */
/*
 * The user or system part of a thread's or process's CPU time below which
 * the kernel's split, made at its clock ticks (5 of them at HZ = 250), says
 * too little for a share of that part: a 5 ms fork child read 925%
 * covered; a `yes` writing into a pipe used 38 ms in the kernel and "4 ms"
 * (one tick) in user space.
 */
#define PA_COVERAGE_ROUGH_NS 20000000ull

struct pa_coverage {
	uint64_t cpu_ns;     /* CPU time used, 0 when unknown */
	bool split;          /* user_ns and system_ns are known */
	uint64_t user_ns;
	uint64_t system_ns;
	bool has_share;      /* the event counts CPU time at a fixed period, and
				its samples and the time it counts are known */
	double share;        /* samples x period / counted_ns */
	bool rough;          /* with has_share: counted_ns is the kernel's user
				or system part of under PA_COVERAGE_ROUGH_NS,
				split at a few clock ticks: reports show no
				share (the notes, over many such, still count it) */
	uint64_t counted_ns; /* the CPU time the event counts (user, system or
				both, as its scope says) since sampling
				started; with has_share */
	uint64_t before_user_ns;   /* of user_ns and system_ns, what was used */
	uint64_t before_system_ns; /* before sampling started (before.h), not
				      in counted_ns; 0 when not known */
	uint64_t paused_cpu_ns;    /* CPU time used while sampling was paused
				      (PPF_REC_THREAD_PAUSED), not in counted_ns:
				      its user and system parts as the whole's */
	uint64_t samples;    /* the event's samples in the whole log(s), */
	bool samples_known;  /* when known */
};

/*
 * Thread t of proc, for the event f selects in proc (its other selections
 * do not apply: the whole log counts).
 */
void pa_coverage_thread(const struct pa_filter *f, const struct pa_process *proc,
			const struct pa_thread *t, struct pa_coverage *out);

/*
 * Process proc, its threads that f selects (its END record's CPU time when
 * f selects every thread; without END, the process's CPU time its threads'
 * logs last recorded when that is more than theirs, which leaves out
 * threads never sampled; else the sum of theirs).
 */
void pa_coverage_process(const struct pa_filter *f, const struct pa_process *proc,
			 struct pa_coverage *out);

/*
 * The columns threads and processes show: CPU time, user and system time
 * in seconds, and the coverage in percent ('-' where unknown). The
 * heading, and the row (NULL: every column '-') into buf (at least
 * PA_COVERAGE_TEXT_MAX bytes), which it returns.
 */
#define PA_COVERAGE_HEAD "    CPU(s)    USER(s)     SYS(s)   COVER"
#define PA_COVERAGE_TEXT_MAX 64
char *pa_coverage_format(const struct pa_coverage *c, char *buf, size_t size);

/*
 * The same as JSON members: "user_s", "system_s" (null when not known) and
 * "coverage" (the share, 1 for all; null where it has no meaning), into the
 * object open in j. c NULL: all null.
 */
void pa_coverage_json(struct pa_json *j, const struct pa_coverage *c);

/*
 * Why t's sampling signal was blocked while it ran, from its
 * PPF_REC_THREAD_BLOCKED, into why ("own signal held back 3x: 0.120 s
 * unsampled", "signal blocked by a raw mask change"; empty when nothing is
 * to be said).
 */
void pa_coverage_blocked(const struct pa_thread *t, char *why, size_t size);

/*
 * How long sampling was paused, from p (a thread's, or with cpu false a
 * process's), into buf: "paused 1.200 s (2x), 0.800 s of CPU" (a
 * thread's), "paused 1.200 s (2x, delay 1.000 s)"; empty when it never was.
 */
void pa_coverage_paused(const struct pa_paused *p, bool cpu, char *buf, size_t size);

/*
 * The notes a report of run (the processes and threads f selects, for f's
 * event, or the first sampling event when f selects every event) starts
 * with, one line each on out, each line prefix then the note: the threads
 * with more than PA_COVERAGE_NOTE_CPU_NS of CPU time whose coverage is
 * below PA_COVERAGE_NOTE_BELOW by more than chance explains (the worst few
 * named, with what their logs say of why), and the threads that spent
 * more than PA_COVERAGE_NOTE_CPU_NS and a tenth of their CPU time or more
 * in the kernel, which an event that counts user time only does not
 * sample (said as such, not as a loss, with how to sample it). Returns
 * the number of lines.
 */
size_t pa_coverage_notes(FILE *out, const char *prefix, const struct pa_run *run,
			 const struct pa_filter *f);

#endif /* PA_COVERAGE_H */
