/*
 * wall: the wall-clock event ([sample wall]). Each thread opens a dummy
 * perf event of its own with context_switch = 1 and a small ring buffer:
 * the kernel writes a record each time the thread leaves the CPU and comes
 * back, with its time, and whether it was preempted. One helper thread per
 * process (every signal blocked, never signalled) empties the rings, and
 * looks at each blocked thread once per wait: /proc/self/task/T/syscall
 * gives the user sp and pc the thread entered the kernel with, and
 * libunwind's remote interface unwinds that stack from a copy read with
 * process_vm_readv. No signal ever reaches a blocked thread: no system
 * call of the program returns early. The helper writes wall.log (format.h:
 * PPF_REC_WALL_*); the analyzer turns its intervals into `wall` samples.
 *
 * A thread whose ring cannot be mapped (the locked-memory limit: EPERM) is
 * looked at once per tick instead (look-only), and counted. Threads older
 * than the profiler (a library constructor's) get their rings from
 * pp_wall_start (perf_event_open with their tid). Paused time
 * (sigsafe/pause.h) is no wall time: the intervals written leave it out.
 * The helper is made before the process's sampling events, which it thus
 * does not inherit: its CPU time is never sampled as the program's; wall.log
 * says how much it used.
 *
 * Nothing here runs in signal context; everything is off unless the
 * configuration has [sample wall].
 */
#ifndef PP_WALL_H
#define PP_WALL_H

#include <stdint.h>

/*
 * Makes the helper thread (the constructor, and a fork child), before the
 * process's events are opened; it waits for pp_wall_start. period_ns 0:
 * does nothing.
 */
void pp_wall_prepare(uint64_t period_ns);

/*
 * Whether thread tid is one of the wall event's own (its helper, procio's
 * thread): threads older than the profiler are all others.
 */
int pp_wall_is_helper(int tid);

/*
 * Starts the event in this process (the constructor, and a fork child):
 * its wall.log beside the process's log (<name>.wall.log in dir's root:
 * sigsafe/threads.h), the switch events and their rings (one per CPU,
 * inherited by the threads the calling thread makes; thread_rings, or
 * when those cannot be made: one per thread) and the helper thread.
 * period_ns 0: does nothing. When it cannot, says why in one line and the
 * program runs on without it.
 */
struct pp_thread_dir;
void pp_wall_start(uint64_t period_ns, int thread_rings, struct pp_thread_dir *dir);

/*
 * Whether the calling thread inherited the process's per-CPU switch events
 * (pp_wall_start's thread, and the threads made by one that did): a thread
 * it makes does too (the pthread_create hook, in the maker).
 */
int pp_wall_inherited(void);

/*
 * The calling thread starts (the pthread_create hook): its slot, and a
 * ring of its own unless inherited (pp_wall_inherited in its maker).
 */
void pp_wall_thread_begin(int inherited);

/*
 * The calling thread ends (before its CPU time is written: closing its
 * ring costs it): its last waits, and its ring closed. Else its key's
 * destructor does it.
 */
void pp_wall_thread_ends(void);

/*
 * The calling thread made a thread (the pthread_create hook): when its ring
 * is over half full, it empties it itself.
 */
void pp_wall_thread_made(void);

/*
 * Stops the event (the process ends, or execs): the helper stops, the
 * rings are emptied a last time, the waits still open are written as
 * ending now, then the totals; wall.log is closed.
 */
void pp_wall_stop(void);

/*
 * The process calls exec: the records so far end (as pp_wall_stop writes
 * them, the waits still open ending now), the helper waits. The log and
 * the rings stay: pp_wall_exec_failed goes on from there.
 */
void pp_wall_exec_begin(void);
void pp_wall_exec_failed(void);

/*
 * pthread_atfork's prepare and parent handlers: the helper is kept out of
 * the loader's lock (dl_iterate_phdr) while the process forks, lest the
 * child inherit that lock held by a thread it does not have.
 */
void pp_wall_fork_prepare(void);
void pp_wall_fork_parent(void);

/*
 * The preload's sched_yield: calls real and, while the event runs and
 * sampling is not paused, adds the call to the calling thread's yield
 * stretch (format.h, PPF_REC_WALL_YIELD), which the helper writes once it
 * ends; caller, the return address into sched_yield's caller, is where
 * its stack starts. Async-signal-safe; errno as real left it.
 */
int pp_wall_sched_yield(int (*real)(void), uint64_t caller);

/* In a fork child: drops the parent's rings, log and helper (none run here). */
void pp_wall_fork_child(void);

#endif
