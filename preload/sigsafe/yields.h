/*
 * yields: the stretches threads spend calling sched_yield, for the wall
 * event (format.h, PPF_REC_WALL_YIELD). A wait loop that yields (MPI
 * libraries on an oversubscribed node, spin-then-yield locks) runs mostly
 * in the kernel's sched_yield, which user-only sampling does not see, and
 * is preempted at every call another thread is ready; the analyzer gives
 * a stretch's whole time to the stacks sampled in it.
 *
 * The preload's sched_yield (hooks.c, through wall.c) times each call;
 * the calling thread keeps its open stretch in its own TLS. A stretch ends
 * at a call more than PPF_WALL_YIELD_GAP_NS after the last one returned, at
 * the thread's end, or when the event stops or pauses; it then goes into a
 * lock-free ring (many writers, the program's signal handlers too; one
 * reader, the wall helper, under its mutex). A full ring drops the stretch
 * and counts it (ppf_wall_yield.dropped), as does a slot a writer claimed
 * and never filled (cancelled, or jumped out of a handler), given up after
 * PP_YIELDS_STUCK takes. Each stretch also sums the time spent inside the
 * calls: the kernel's part of the loop, less its time off the CPU.
 */
#ifndef PP_YIELDS_H
#define PP_YIELDS_H

#include <stdint.h>

#include "pprof/format.h"

/* Frames of a stretch's stack kept at the most. */
#define PP_YIELDS_FRAMES 48

/*
 * Runs in signal context (a program's handler may yield). Calls real;
 * when on, adds the call, timed, to the calling thread's stretch; else
 * ends it. A stretch's first call unwinds the stack from caller (the
 * return address into sched_yield's caller) outwards, after the call:
 * the wait loop's stack (sampler.h). errno as real left it.
 */
int pp_yields_call_sigsafe(int (*real)(void), int on, uint64_t caller);

/* Runs in signal context. Ends the calling thread's stretch, if any. */
void pp_yields_end_sigsafe(void);

/*
 * The oldest stretch ended and not yet taken, into *out (its record's
 * fields, stack PPF_WALL_NO_STACK) and its stack into ips (*nips frames,
 * PP_YIELDS_FRAMES at the most; 0 when it could not be unwound); 0 when
 * there is none (or its writer is still filling it in). One caller at a
 * time.
 */
int pp_yields_next_sigsafe(struct ppf_wall_yield *out, uint64_t *ips, unsigned *nips);

/*
 * Runs in signal context. The profiler's own yield (its spin waits): the
 * system call, never part of the program's stretches.
 */
void pp_yields_raw_sigsafe(void);

/*
 * Runs in signal context. The stretches dropped since the last record that
 * said so (and forgets them): the event's end writes them in a record of
 * their own (format.h).
 */
uint32_t pp_yields_dropped_sigsafe(void);

/* In a fork child: the parent's stretches, the forking thread's too, dropped. */
void pp_yields_fork_child_sigsafe(void);

#endif /* PP_YIELDS_H */
