/*
 * unwmask: the signal mask libunwind sees while the handler unwinds.
 * libunwind 1.6.2 blocks every signal around its locks, its memory pool and
 * its dl_iterate_phdr (sigprocmask(SIG_SETMASK, all, &old), then
 * (SIG_SETMASK, &old, NULL)): about ten system calls per cache miss, ~46
 * per sample in a program whose stacks rarely repeat (cc1). Inside the
 * handler the kernel's mask already blocks every signal (hooks.c's
 * sa_mask), and between pp_unwmask_enter_sigsafe and _leave nothing but
 * libunwind runs: there its mask calls change a view kept here, and reach
 * the kernel only to block a signal the kernel's mask lets through (never
 * the case in the handler). A call that would unblock one leaves it
 * blocked until the window ends, the safe side: libunwind never waits for
 * a signal. The kernel's mask is known from the handler's sa_mask and the
 * interrupted code's mask (read from the kernel, once per window, when the
 * sa_mask is not known), and is the same after the window as before it.
 */
#ifndef PP_UNWMASK_H
#define PP_UNWMASK_H

#include <signal.h>
#include <stdint.h>

/* Runs in signal context. sigset_t's first 64 signals, as the kernel holds them. */
uint64_t pp_unwmask_bits_sigsafe(const sigset_t *set);

/*
 * Async-signal-safe. The sa_mask the handler is installed with (before it
 * is installed; the same every time).
 */
void pp_unwmask_handler_mask_sigsafe(const sigset_t *sa_mask);

/*
 * Runs in signal context, in the handler of signal sig that interrupted
 * code running with the mask interrupted (the ucontext's uc_sigmask): the
 * calling thread's window starts. _leave ends it.
 */
void pp_unwmask_enter_sigsafe(const sigset_t *interrupted, int sig);
void pp_unwmask_leave_sigsafe(void);

/*
 * Runs in signal context, outside the handler (a stack read for the
 * program's own code): every signal blocked for real, the mask before into
 * *saved, and the calling thread's window started as the handler's is.
 * 0, or -1 when the mask could not be set (no window then).
 * _leave_blocked ends the window and puts *saved back.
 */
int pp_unwmask_enter_blocked_sigsafe(uint64_t *saved);
void pp_unwmask_leave_blocked_sigsafe(const uint64_t *saved);

/* Runs in signal context. Whether the calling thread is inside its window. */
int pp_unwmask_active_sigsafe(void);

/*
 * Runs in signal context, inside the window: pthread_sigmask(how, set, old)
 * on the view. Returns 0, or an errno (EINVAL: an unknown how; or the
 * system call's, when one was needed and failed).
 */
int pp_unwmask_change_sigsafe(int how, const sigset_t *set, sigset_t *old);

/* Runs in signal context. The mask system calls the calling thread's windows made (tests). */
unsigned long pp_unwmask_syscalls_sigsafe(void);

#endif
