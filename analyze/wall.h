/*
 * wall: the wall-clock event's samples, from a process's wall.log
 * (format.h, PPF_REC_WALL_*; written with [sample wall]).
 *
 * The reader calls pa_wall_load for each process directory it loads. Each
 * time a thread was off the CPU (an exact interval from its switch
 * records) becomes samples of the event named "wall" (pa_event flag
 * PPF_EVENT_WALL, period in ns of wall time) that weigh the interval's
 * length over the period: a 300 ms wait at 1 ms is 300. Their frames are
 * a synthetic leaf, PA_WALL_IP(state), named "[off-cpu: STATE]"
 * (pa_wall_frame_name), above the stack the profiler read while the
 * thread waited: the address after the system call, then its callers.
 * - A wait nobody looked at (shorter than the helper's tick, mostly) has
 *   no stack: its time is spread over the thread's waits that have one,
 *   in proportion to their time; a thread with none shows it as
 *   "[off-cpu: blocked]" alone.
 * - A preempted thread (runnable, waiting for a CPU) cannot be looked at:
 *   its time goes under "[off-cpu: runnable]" above the stack of the
 *   thread's CPU sample nearest to it in time (the last before it or the
 *   first after it); for this the reader keeps the samples of a process
 *   with a wall.log in time order (pa_wall_present), or, when it collapses
 *   them, lists its CPU-event samples one by one in time order beside
 *   (pa_thread.cpu_when, 16 bytes each), which pa_wall_load frees.
 * - A process killed while threads waited (wall.log without its end): each
 *   wait the helper said was still open (PPF_REC_WALL_OPEN) lasted until
 *   its last tick (PPF_REC_WALL_ALIVE), as far as is known.
 * - Time on the CPU: each sample of the process's first CPU-time event
 *   (cpu-clock, task-clock) is also a wall sample, weighing its period
 *   over the wall period.
 * Weights are whole samples: what is left over is carried from one sample
 * of the same stack to the next, and the rest rounded at the end.
 *
 * So every report takes `--event wall` (samples are ordinary pa_samples
 * of the threads, in time order; collapsed as pa_load_opts says: the
 * weights of one stack, state and module epoch summed into one sample
 * whose time is the latest, those outside its window left out, so memory
 * grows with distinct stacks, not with time); a consumer that wants the off-CPU time
 * itself reads pa_thread.off_ns and pa_process.wall.
 */
#ifndef PA_WALL_H
#define PA_WALL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof/format.h"

struct pa_event;
struct pa_load_opts;
struct pa_process;
struct pa_thread;
struct pa_warnings;
struct pa_error;

/* The leaf frame of a wall sample of a thread off the CPU in state s. */
#define PA_WALL_IP(s) (UINT64_MAX - 1 - (uint64_t)(s))
#define PA_WALL_EVENT_NAME "wall"

/* What a process's wall.log says beyond its intervals. */
struct pa_wall_info {
	uint64_t period_ns;     /* wall time a sample stands for */
	uint64_t tick_ns;       /* how often the helper looked, at the start */
	uint64_t start_ns;
	bool ended;             /* the log ends with PPF_REC_WALL_END (a log has one at
				   each exec too: records after one, or a tick of the
				   helper after it, say the exec failed and the log
				   went on); the fields below are the last one's */
	uint64_t end_ns;
	uint64_t looks;
	uint64_t looks_dropped;
	uint64_t helper_cpu_ns;
	uint32_t threads;       /* threads the event saw */
	uint32_t no_ring;       /* of which had no ring (look-only) */
	uint64_t lost;          /* switch records the kernel dropped */
	uint64_t ticks;         /* times the helper looked */
	uint64_t degraded;      /* times its cost cap stepped in */
	uint64_t looks_only;    /* looks at threads without a ring */
	uint32_t event;         /* the wall event's pa_event.index */
	uint64_t intervals;     /* read */
	uint64_t alive_ns;      /* PPF_REC_WALL_ALIVE: the helper's last tick (0: none) */
	uint64_t cut_waits;     /* without PPF_REC_WALL_END (killed): waits still open
				   (PPF_REC_WALL_OPEN) taken to have lasted until alive_ns */
	uint64_t lost_ns;       /* threads' time not known (PPF_REC_WALL_LOST), all threads */
	uint64_t guessed_ns;    /* waits' time with PPF_WALL_PAUSE_GUESSED: their paused
				   part (left out) estimated */
	uint64_t yield_dropped; /* yield stretches the helper could not keep */
	uint64_t yields;        /* yield stretches read (PPF_REC_WALL_YIELD) */
	uint64_t yields_no_stack; /* of which without their stack */
	uint64_t trimmed_ns;    /* the kernel's switch path taken out of waits (time the
				   threads' CPU clocks counted in them) */
	uint64_t unsampled_ns;  /* threads' CPU time their CPU samples did not stand for
				   (in the kernel, mostly), counted on the CPU */
	uint32_t cpu_rings;     /* the switch records' rings were per CPU (0: per thread) */
};

/*
 * Reads dir/wall.log, when there is one, into proc (loaded with its
 * threads, sorted): proc->wall, the "wall" event in proc->events, each
 * thread's off_ns and wall samples; opts: as the threads were read
 * (NULL: every sample apart). Returns 0 (no wall.log: nothing done) or a
 * negative errno with err filled.
 */
int pa_wall_load(struct pa_process *proc, const struct pa_load_opts *opts,
		 struct pa_warnings *warn, struct pa_error *err);
/*
 * The same from size bytes at data (copied), read as the wall.log named
 * name (tests, tests/fuzz/fuzz_reader.c); proc must not have one yet.
 */
int pa_wall_log_parse(struct pa_process *proc, const char *name, const void *data, size_t size,
		      struct pa_warnings *warn, struct pa_error *err);

/* The process's first sampling event that counts CPU time (its wall samples on the CPU), or NULL. */
const struct pa_event *pa_wall_cpu_event(const struct pa_process *proc);

/* Whether proc has a wall.log (pa_process_file). */
bool pa_wall_present(const struct pa_process *proc);

/* "[off-cpu: sleep]" for the leaf PA_WALL_IP(s); NULL for any other address. */
const char *pa_wall_frame_name(uint64_t ip);

/* The thread's time off the CPU (wall.log), all states; 0 without one. */
uint64_t pa_wall_off_ns(const struct pa_thread *t);

/*
 * "off the CPU 1.234 s: sleep 1.000 s, futex 0.234 s" (states with any
 * time, most first) into buf (size > 0); "" when t was never seen off the
 * CPU. Returns buf.
 */
char *pa_wall_format_off(const struct pa_thread *t, char *buf, size_t size);

/*
 * The closing note of a report of the wall event: one line, prefix first,
 * with the profiler's helper's CPU per second of wall time over the
 * processes f selects that have a wall.log, the stacks it read (and
 * dropped), the threads without a ring, switch records lost, the waits
 * whose paused part is an estimate and the times the cost cap stepped in;
 * nothing when none has one.
 */
struct pa_run;
struct pa_filter;
void pa_wall_notes(FILE *out, const char *prefix, const struct pa_run *run,
		   const struct pa_filter *f);

/* "sleep", "futex", ... for enum ppf_wall_state s ("?" out of range). */
const char *pa_wall_state_name(unsigned s);

#endif /* PA_WALL_H */
