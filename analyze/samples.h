/*
 * samples: every sample a filter selects, one at a time, symbolised, for
 * the output formats that keep what the aggregated profile (profile.h)
 * drops: the process and thread of each sample, its time, and its frames'
 * addresses and modules.
 *
 * Frames follow profile.h's rule: caller frames in the profiler itself
 * (PA_PROFILE_SELF_MODULE) are left out, a leaf frame there stays.
 */
#ifndef PA_SAMPLES_H
#define PA_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "reader.h"
#include "symbols.h"

/* One selected sample. Everything points into the run or the symboliser. */
struct pa_samples_item {
	const struct pa_process *proc;
	size_t proc_index;             /* proc's index in run->processes */
	const struct pa_thread *thread;
	const struct pa_sample *sample;
	const struct pa_event *event;  /* the sample's event in proc, NULL if unlisted */
	const struct pa_frame *frames; /* innermost first */
	const bool *is_caller;         /* per frame: a return address (looked up at ip - 1) */
	size_t nframes;                /* at least 1 */
	struct pa_symbols *sym;        /* proc's symboliser, for pa_symbols_lookup_src */
	/*
	 * Which distinct stack of proc this sample has (its addresses as
	 * recorded, numbered from 0 in order of first sight), and whether it
	 * is the first sample with it; PA_SAMPLES_NO_STACK when the frames of
	 * proc's addresses depend on when they were taken (a module was
	 * unloaded): then every sample is new.
	 */
	size_t stack;
	bool stack_new;
};

#define PA_SAMPLES_NO_STACK ((size_t)-1)

/*
 * How a walk goes. frames_of_new: a sample whose stack was seen before
 * (stack_new false) comes without frames (frames NULL, nframes 0): a
 * report that keeps what it made of each stack skips their symbolisation.
 */
struct pa_samples_opts {
	bool frames_of_new;
};

/*
 * Call fn(ctx, item) for every sample of run that f selects, process by
 * process (run order), thread by thread (by tid), each thread's samples in
 * log order, which is time order. item and its strings are valid during
 * the call only. Symboliser warnings go to warn (may be NULL). Returns 0;
 * fn's negative return, which stops the walk; or a negative errno with err
 * filled.
 */
int pa_samples_walk(const struct pa_run *run, const struct pa_filter *f,
		    int (*fn)(void *ctx, const struct pa_samples_item *item), void *ctx,
		    struct pa_warnings *warn, struct pa_error *err);
/* The same, as o says (NULL: as pa_samples_walk). */
int pa_samples_walk_opts(const struct pa_run *run, const struct pa_filter *f,
			 const struct pa_samples_opts *o,
			 int (*fn)(void *ctx, const struct pa_samples_item *item), void *ctx,
			 struct pa_warnings *warn, struct pa_error *err);

/*
 * The overflows (pa_sample.count, summed) of the samples of thread t of
 * proc a walk with filter f gives, its estimates when t is
 * proc->before_thread (before.h): for a report that writes a total first.
 */
uint64_t pa_samples_total(const struct pa_filter *f, const struct pa_process *proc,
			  const struct pa_thread *t);

/* Whether the frames of proc's addresses never depend on when they were taken. */
bool pa_samples_time_free(const struct pa_process *proc);

/*
 * The module of proc that holds frame fr of a sample taken at time_ns: the
 * one whose range holds fr->ip and that was loaded at that time, else the
 * first whose range holds it; NULL when fr has no module.
 */
const struct pa_module *pa_samples_module(const struct pa_process *proc,
					  const struct pa_frame *fr, uint64_t time_ns);

#endif /* PA_SAMPLES_H */
