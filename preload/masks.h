/*
 * masks: the interposed libc functions that take a signal mask
 * (pthread_sigmask, sigprocmask, sigsuspend, pselect, ppoll, epoll_pwait,
 * the sigwait family, and the old BSD and System V calls). The sampling
 * signal stays deliverable whatever mask the program sets, and the program
 * reads back exactly the masks it set: what it asked for is kept as its
 * view (sigsafe/appmask.h), and a signal of its own of that number that
 * arrives while it blocks it is held back until it unblocks it
 * (sigsafe/sampler.c). The masks of calls that wait (sigsuspend, pselect,
 * ppoll, epoll_pwait) go to the kernel as given: the thread sleeps there,
 * and no CPU-time sample is lost. What each call does is in README.md,
 * "Signal masks".
 */
#ifndef PP_MASKS_H
#define PP_MASKS_H

#include <signal.h>

#include "sigsafe/threads.h"

/* Looks up the real functions; call once, early, outside signal context. */
void pp_masks_resolve(void);

/*
 * glibc's pthread_sigmask, on the kernel's mask (not the program's view).
 * Async-signal-safe once pp_masks_resolve ran.
 */
int pp_masks_real(int how, const sigset_t *set, sigset_t *old);

/*
 * Whether the program's view of the calling thread's mask blocks the
 * sampling signal, given the kernel's mask real (read by the caller).
 */
int pp_masks_view_blocks(const sigset_t *real);

/*
 * A new thread, before the program's start routine: blocked is the
 * program's view of its mask (its creator's, or its pthread attribute's);
 * the sampling signal is unblocked in the kernel's mask.
 */
void pp_masks_thread_start(int blocked);

/*
 * The process starts, or a fork child: the main thread t (its slot, or
 * NULL) adopts the kernel's mask it was started with. A program started
 * with the sampling signal blocked (its parent's mask at exec) has that as
 * its view, and the signal is unblocked, unless a signal of that number is
 * pending for it already: then it is held.
 */
void pp_masks_process_start(struct pp_thread *t);

/*
 * Before exec or posix_spawn: the kernel's mask takes the program's view
 * (the new program inherits the mask the program set). Returns whether it
 * changed it, for pp_masks_unapply after a failed call.
 */
int pp_masks_apply(void);
void pp_masks_unapply(int applied);

/*
 * The handler of the sampling signal is given back (profiling is off): the
 * kernel's mask of the calling thread takes the program's view, and masks
 * go through as given from then on.
 */
void pp_masks_off(void);

#endif
