/*
 * sampsig: the sampling signal, SIGTRAP in the sigtrap mode or the signal
 * mode's chosen one. Its number is kept here and nowhere else: the
 * constructor sets it, the handler (sampler.h) takes it, the signal mode's
 * events raise it (events.h), and the hooks block it and keep the
 * program's own action for it (hooks.h). Everything here is
 * async-signal-safe.
 */
#ifndef PP_SAMPSIG_H
#define PP_SAMPSIG_H

#include <signal.h>

/*
 * Bytes of the kernel's signal set (64 signals; glibc's _NSIG counts signal
 * 0 too), the size the raw rt_sig* system calls take: they read the first
 * bytes of a sigset_t.
 */
#define PP_SAMPSIG_KERNEL_SET_SIZE (_NSIG / 8)

/*
 * Async-signal-safe. Sets the sampling signal: once, in the constructor,
 * before any thread is set up and before its handler is installed.
 */
void pp_sampsig_set_sigsafe(int sig);

/* Runs in signal context. The sampling signal (SIGTRAP until it is set). */
int pp_sampsig_number_sigsafe(void);

/*
 * Runs in signal context. Makes *set hold the sampling signal alone: the set
 * that blocks it (pthread_sigmask) or waits for it (rt_sigtimedwait).
 */
void pp_sampsig_mask_sigsafe(sigset_t *set);

#endif
