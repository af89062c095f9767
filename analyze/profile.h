/*
 * profile: aggregates a run's samples, symbolised, into per-function counts
 * and distinct stacks. Reports (report_*.c) and tests read the result.
 *
 * A function is identified by its display name (struct pa_frame.name: the
 * function name, or "module+0xOFFSET" when unresolved, or "[unknown]")
 * together with its module path. self counts the samples whose innermost
 * frame is the function; total counts the samples in which it appears at any
 * depth, once per sample even when it recurses.
 *
 * Caller frames in the profiler itself (module basename PA_PROFILE_SELF_MODULE:
 * its pthread_create trampoline, when the compiler kept it on the stack) are
 * left out of stacks and totals; a leaf frame there stays, so that time spent
 * in the profiler's own code shows.
 */
#ifndef PA_PROFILE_H
#define PA_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

#define PA_PROFILE_SELF_MODULE "libpprof.so"

/*
 * Which samples to count. The event is event_name when set (matched in each
 * process against its events' names, then their specs: pa_filter_event),
 * else the index event.
 */
struct pa_filter {
	uint32_t pid; /* 0: every process */
	uint32_t tid; /* 0: every thread */
	int64_t event; /* event index, -1: every event, PA_FILTER_NO_EVENT: none;
			  unused with event_name */
	const char *event_name; /* NULL, or an event's name or spec; not owned */
	const char *exe; /* NULL: every process; else only processes that run it
			    (pa_process_runs: basename or full path); not owned */
	const char *thread; /* NULL: every thread; else only threads of that name
			       (struct pa_thread.name; "-" for a nameless one); not owned */
	const char *host; /* NULL: every host; else only processes that ran on it
			     (pa_ident_on_host: its name or short name); not owned */
	bool by_rank;     /* only processes of MPI rank rank (struct pa_identity) */
	int32_t rank;
	struct pa_window window; /* only samples in it (from their process's
				    start, struct pa_process.start_ns) */
};

/* The filter that takes everything: pid 0, tid 0, event -1, no names. */
#define PA_FILTER_ALL ((struct pa_filter){ .pid = 0, .tid = 0, .event = -1, \
					   .event_name = NULL, .exe = NULL })

/* No event: pa_filter_event's answer when proc has none by f's name. */
#define PA_FILTER_NO_EVENT (-2)

/* Whether f's pid, exe, host and rank select proc (tid and event select within it). */
bool pa_filter_selects(const struct pa_filter *f, const struct pa_process *proc);

/* Whether f's tid and thread name select thread t. */
bool pa_filter_selects_thread(const struct pa_filter *f, const struct pa_thread *t);

/* Whether f's tid and thread name select the unsampled thread u. */
bool pa_filter_selects_unsampled(const struct pa_filter *f, const struct pa_unsampled *u);

/* How many of proc's unsampled threads f's tid and thread name select. */
size_t pa_filter_count_unsampled(const struct pa_filter *f, const struct pa_process *proc);

/* Whether f selects threads by tid or name (so some processes may have none). */
bool pa_filter_by_thread(const struct pa_filter *f);

/*
 * Whether a selected process with nthreads selected threads counts among a
 * report's processes: it does unless threads are selected and it has none.
 */
bool pa_filter_counts_process(const struct pa_filter *f, size_t nthreads);

/* Whether f's time window holds sample s of process proc. */
bool pa_filter_selects_time(const struct pa_filter *f, const struct pa_process *proc,
			    const struct pa_sample *s);

/*
 * The index in proc of the event f selects: without a name f->event (-1:
 * every event, PA_FILTER_NO_EVENT: none); with one, the index of the event
 * whose name, or failing that whose spec, is f->event_name, or
 * PA_FILTER_NO_EVENT when proc has none.
 */
int64_t pa_filter_event(const struct pa_filter *f, const struct pa_process *proc);

/* The event of proc f selects, NULL for every event or none. */
const struct pa_event *pa_filter_find_event(const struct pa_filter *f,
					    const struct pa_process *proc);

/* The samples of thread t (of process proc) of the event and time window f selects. */
uint64_t pa_filter_count_samples(const struct pa_filter *f, const struct pa_process *proc,
				 const struct pa_thread *t);

/*
 * The samples of the event f selects that thread t lost: its
 * PPF_REC_THREAD_EVENT count when it has one, else (older logs, or every
 * event) what its PPF_REC_THREAD_END counted for all events.
 */
uint64_t pa_filter_count_lost(const struct pa_filter *f, const struct pa_process *proc,
			      const struct pa_thread *t);

/*
 * Likewise, the overflows the writer throttled (did not take, to bound its
 * own cost): PPF_REC_THREAD_EVENT's count, else PPF_REC_THREAD_END's.
 */
uint64_t pa_filter_count_throttled(const struct pa_filter *f, const struct pa_process *proc,
				   const struct pa_thread *t);

struct pa_func {
	const char *name;   /* display name, see above; never NULL */
	const char *module; /* module path, NULL if none */
	uint64_t self;      /* samples with this function innermost */
	uint64_t total;     /* samples containing it (inclusive) */
};

struct pa_stack {
	const char **frames; /* display names, root first (frames[0] is the outermost) */
	size_t nframes;
	uint64_t count;      /* samples with exactly this stack */
};

/*
 * What the frames of pa_profile's functions and stacks are (source frames:
 * pa_symbols_lookup_src). BY_INLINE: every inline level of an address is a
 * function of its own. BY_LINE: a frame is "FILE:LINE FUNCTION" (FILE's
 * basename; the innermost inline level's function and line), or the
 * function's display name when there is no line info. BY_LINE_INLINE: the
 * same for every inline level.
 */
enum pa_profile_by {
	PA_PROFILE_BY_FUNCTION = 0,
	PA_PROFILE_BY_INLINE,
	PA_PROFILE_BY_LINE,
	PA_PROFILE_BY_LINE_INLINE,
};

struct pa_profile {
	struct pa_filter filter;
	enum pa_profile_by by;
	uint64_t samples;   /* samples counted, estimated ones included */
	uint64_t estimated; /* of them, estimated for the time before profiling
			       (before.h) */
	uint64_t lost;      /* samples the writer lost in the selected threads */
	size_t nprocesses;  /* processes selected by the pid and exe filters */
	size_t nthreads;    /* threads selected by the pid, exe and tid filters */
	struct pa_func *funcs; /* sorted by self desc, then total desc, then name */
	size_t nfuncs;
	struct pa_stack *stacks; /* sorted by their folded text (pa_stack_fold) */
	size_t nstacks;
};

/*
 * Symbolise (one pa_symbols per selected process) and count every sample of
 * run that filter selects (NULL: PA_FILTER_ALL), with frames as by says.
 * Symboliser warnings go to warn (may be NULL). Returns 0 and *out, to be
 * freed with pa_profile_free, or a negative errno with err filled. A filter
 * that selects nothing is not an error: the profile is empty.
 */
int pa_profile_build_by(const struct pa_run *run, const struct pa_filter *filter,
			enum pa_profile_by by, struct pa_profile **out,
			struct pa_warnings *warn, struct pa_error *err);
void pa_profile_free(struct pa_profile *prof);

/* The first function with that display name (any module), or NULL. */
const struct pa_func *pa_profile_find(const struct pa_profile *prof, const char *name);

/*
 * Samples in which caller calls callee directly (callee is the frame just
 * inside caller), counted once per sample.
 */
uint64_t pa_profile_call_count(const struct pa_profile *prof, const char *caller,
			       const char *callee);

/*
 * The stack as folded text, frames root first joined by ';' (no count).
 * Returns a malloc'd string, or NULL on allocation failure.
 */
char *pa_stack_fold(const struct pa_stack *stack);

/* n as a percentage of total (0 when total is 0). */
double pa_profile_pct(uint64_t n, uint64_t total);

/* Whether name is an unresolved frame of module base: "base+0x...". */
bool pa_profile_names_module(const char *name, const char *base);

#endif /* PA_PROFILE_H */
