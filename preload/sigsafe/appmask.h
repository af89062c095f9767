/*
 * appmask: the program's own view of the sampling signal in its signal
 * masks. The profiler keeps the sampling signal deliverable in every
 * thread, whatever mask the program sets (the wrappers of masks.h take it
 * out of the masks they pass to the kernel): what the program asked for is
 * kept here, per thread, so that every mask it reads back is the one it
 * set, and so that a signal of that number that is the program's own,
 * arriving while the program blocks it, is held back for it (sampler.c:
 * put back pending, and blocked for real until the program unblocks it).
 * While a signal is held the thread is not sampled: that CPU time is
 * counted here, for the thread's PPF_REC_THREAD_BLOCKED record.
 * Everything here is async-signal-safe.
 */
#ifndef PP_APPMASK_H
#define PP_APPMASK_H

#include <signal.h>
#include <stdint.h>

#include "threads.h"

/*
 * What the held time's overflows count as, per event: the period in ns of
 * CPU of each time event (cpu-clock, task-clock) that samples, else 0; and
 * the sampling mode (the signal mode's own events stop while a signal is
 * held: each overflow would queue a real-time signal).
 */
struct pp_appmask_config {
	int mode;
	uint64_t period_ns[PP_CONFIG_MAX_EVENTS];
};

/* Async-signal-safe. Sets cfg; once, before the handler is installed. */
void pp_appmask_configure_sigsafe(const struct pp_appmask_config *cfg);

/*
 * Runs in signal context. Whether the program's view is kept apart from
 * the kernel's: set while the profiler's handler holds the sampling signal
 * (hooks.h), cleared when it gives it back. While clear, every mask goes to
 * the kernel as the program gave it.
 */
int pp_appmask_on_sigsafe(void);
void pp_appmask_set_on_sigsafe(int on);

/*
 * Runs in signal context. Whether the profiler's handler runs in the
 * calling thread (its own code: libunwind changes masks there, through the
 * wrappers, which must then go to the kernel as they are). The handler
 * adds 1 at its start and -1 at its end, and the other way round around
 * the app's own handler that it runs.
 */
int pp_appmask_inside_sigsafe(void);
void pp_appmask_enter_sigsafe(int by);

/*
 * Runs in signal context. Whether the calling thread's program blocks the
 * sampling signal: its own view, set by the masks it gave to the wrappers
 * (and inherited by its new threads). The kernel's mask may block it too
 * (a handler's sa_mask, a held signal): the view the program reads is the
 * two together (pp_appmask_view_sigsafe).
 */
int pp_appmask_blocked_sigsafe(void);
void pp_appmask_set_blocked_sigsafe(int blocked);

/*
 * Runs in signal context. Turns *set, a mask as the kernel holds it, into
 * the program's view: the sampling signal added when blocked (the view
 * before the call that read it).
 */
void pp_appmask_view_sigsafe(sigset_t *set, int blocked);

/*
 * Runs in signal context. Whether the calling thread holds a signal of the
 * program's back (its kernel mask blocks the sampling signal for it).
 */
int pp_appmask_held_sigsafe(void);

/*
 * Runs in signal context. The calling thread starts holding the program's
 * own signal (t: its slot, or NULL): its sampling events stop in the
 * signal mode, and its CPU time from now on is counted as held.
 */
void pp_appmask_hold_sigsafe(struct pp_thread *t);

/*
 * Runs in signal context. The calling thread holds nothing any more (the
 * program unblocked the signal, or took what was held): its events start
 * again in the signal mode, and the CPU time since the hold goes to t's
 * held time; its overflows of time events are counted as throttled. The
 * caller unblocks the signal in the kernel's mask.
 */
void pp_appmask_release_sigsafe(struct pp_thread *t);

/*
 * Runs in signal context. Ends the count of a hold still running for t,
 * another thread or the calling one, when t's log is finished; cpu_ns: its
 * CPU time now.
 */
void pp_appmask_hold_end_sigsafe(struct pp_thread *t, uint64_t cpu_ns);

/*
 * Runs in signal context. Starts a thread's view: blocked, the program's,
 * nothing held (a new thread; a fork child holds nothing of its parent's).
 */
void pp_appmask_thread_start_sigsafe(int blocked);

/*
 * Runs in signal context. Whether the calling thread's log is finished
 * (end: from now on): the kernel's mask then keeps the sampling signal
 * blocked whatever the program sets (a sample then would make the
 * thread a new log), while its view goes on as before.
 */
int pp_appmask_ended_sigsafe(void);
void pp_appmask_end_sigsafe(void);

#endif
