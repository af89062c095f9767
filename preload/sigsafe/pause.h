/*
 * pause: sampling paused and resumed while the process runs, for the
 * configuration's delay, the toggle signal and the program's own calls
 * (include/pprof/control.h). Paused, every event is disabled
 * (PERF_EVENT_IOC_DISABLE): the process-wide ones (the sigtrap mode's
 * inherited events, which the kernel switches in every thread, those made
 * later included; the signal mode's events of threads older than the
 * profiler) and each live thread's own (its counters; the signal mode's
 * sampling events), so paused work costs nothing and takes no sample. A
 * thread started while paused starts paused. The wall time paused, and each
 * thread's CPU time while paused, are counted (PPF_REC_PROCESS_PAUSED,
 * PPF_REC_THREAD_PAUSED).
 *
 * Whoever changes the state switches the events (no helper, no signal to
 * other threads): each unit (the process's events, each thread's) has a
 * lock taken with compare-and-swap. A unit whose lock is held is skipped:
 * its holder looks at the state again once done and switches it again if
 * the state moved meanwhile. Only a thread's start and end wait for its
 * lock (outside signal context). Everything here is async-signal-safe.
 */
#ifndef PP_PAUSE_H
#define PP_PAUSE_H

#include <signal.h>
#include <stdint.h>

#include "events.h"
#include "records.h"
#include "threads.h"

/* Why sampling is paused: bits of the state. */
#define PP_PAUSE_DELAY 1u /* the configuration's delay is not over */
#define PP_PAUSE_USER 2u  /* the toggle signal or pprof_pause() */

/* What a unit's events are (struct pp_thread_pause.applied). */
#define PP_PAUSE_APPLIED_NONE 0 /* as opened: not switched yet */
#define PP_PAUSE_APPLIED_ON 1
#define PP_PAUSE_APPLIED_OFF 2

/*
 * Async-signal-safe. At the process's start (constructor, fork child),
 * before its events are enabled: ev holds the process-wide events, delay_ns
 * the configured delay (recorded). The state (bits above) is kept: a fork
 * child is paused as its parent was. The counts start from zero.
 */
void pp_pause_configure_sigsafe(const struct pp_events *ev, uint64_t delay_ns);

/* Async-signal-safe. Sets the state bits in set (before start: the delay). */
void pp_pause_hold_sigsafe(uint32_t set, uint32_t why);

/*
 * Async-signal-safe. Sampling may start: the process-wide events are
 * enabled unless the state says paused.
 */
void pp_pause_start_sigsafe(void);

/*
 * Async-signal-safe. The process ends (or calls exec: again, when the exec
 * failed, resume says so): the state is kept but no event is switched any
 * more. The process's counts to now, into *out.
 */
void pp_pause_stop_sigsafe(uint64_t now, struct pp_records_paused *out);

/* Async-signal-safe. Switches events again after pp_pause_stop_sigsafe (a failed exec). */
void pp_pause_resume_after_stop_sigsafe(void);

/*
 * The process-wide unit's switches, in order: at_ns, when its events were
 * switched, paused whether off (1) or on (0), and unprofiled_ns, the time
 * up to at_ns that sampling did not run (a clock that runs while paused
 * and before the start: before the first switch it is the time itself), so
 * that the unprofiled part of any stretch between two switches is the
 * difference of theirs, whatever came between. The first is the start
 * (pp_pause_start_sigsafe); the wall event (wall.h) counts no time before
 * it, nor while paused. The last PP_PAUSE_MARKS are kept (a reader that
 * falls further behind is told how many it missed).
 */
#define PP_PAUSE_MARKS 4096
struct pp_pause_mark {
	uint64_t at_ns;
	uint64_t unprofiled_ns;
	int paused;
	uint32_t lost_before;  /* marks the reader missed just before this one */
};

/*
 * Async-signal-safe, never waits for a lock (it yields while a switch is
 * written). Up to max marks from number from on into out: the oldest kept
 * when from is gone (the first one copied then says in lost_before how
 * many were missed), their count into *nout, and *upto: a time before
 * which every switch is among the marks copied so far (or counted
 * missed). Returns the number of the next mark to ask for.
 */
uint32_t pp_pause_marks_sigsafe(uint32_t from, struct pp_pause_mark *out, uint32_t max,
				uint32_t *nout, uint64_t *upto);

/* Async-signal-safe. Whether the state says paused (whether or not started). */
int pp_pause_paused_sigsafe(void);

/* Async-signal-safe. Whether sampling runs: started, not stopped, not paused. */
int pp_pause_running_sigsafe(void);

/*
 * Async-signal-safe. The program pauses (paused) or resumes (pprof_pause,
 * pprof_resume): sets or clears PP_PAUSE_USER. Resuming does not end the
 * delay.
 */
void pp_pause_call_sigsafe(int paused);

/*
 * Runs in signal context (the toggle signal's handler). Pauses when
 * sampling runs; otherwise resumes, ending the delay too.
 */
void pp_pause_toggle_sigsafe(void);

/* The toggle signal's handler (sa_sigaction). Runs in signal context. */
void pp_pause_handle_toggle_sigsafe(int sig, siginfo_t *si, void *uc);

/* Async-signal-safe. The delay is over. */
void pp_pause_delay_over_sigsafe(void);

/*
 * Async-signal-safe. Thread t (the caller's own slot; its events are all
 * open) goes live: its events are switched to the state now, and by others
 * from now on. wait: may wait for its lock (outside signal context); else
 * a few tries, and a thread that does not get it stays out of pausing.
 * claimed: t was claimed just before, and its events have counted since
 * about then (a new thread's inherited events since its birth): the CPU
 * time the claim read stands as where its late signals count from, and its
 * clock is not read again, unless it starts paused or a pause was ever
 * asked for in the process (one may have come and gone since the claim,
 * while t was not live yet: its late signals count from now, not across it).
 */
void pp_pause_thread_live_sigsafe(struct pp_thread *t, int tid, int wait, int claimed);

/*
 * Async-signal-safe, outside signal context (it waits for t's lock). Thread
 * tid's events are about to be closed: no other thread switches them from
 * now on. Its counts to now, into *out (a pause still running counts, with
 * PPF_PAUSED_AT_END).
 */
void pp_pause_thread_end_sigsafe(struct pp_thread *t, int tid, uint64_t now,
				 struct pp_records_paused *out);

/* Async-signal-safe. In a fork child: the parent's locks and slots are not ours. */
void pp_pause_forget_sigsafe(void);

#endif
