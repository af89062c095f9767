/*
 * hooks: the functions libpprof.so interposes (pthread_create, dlopen,
 * dlclose, sigaction, signal, close, _exit, abort, ...; the exec family's
 * are exec.h's, those that take a signal mask masks.h's), the handler of
 * the sampling signal (sigsafe/sampsig.h) held against the app's own, and
 * that signal blocked and unblocked in the calling thread's kernel mask
 * (not the app's view of it: masks.h).
 */
#ifndef PP_HOOKS_H
#define PP_HOOKS_H

#include <pthread.h>
#include <signal.h>

/* Looks up the real functions; call once, early, outside signal context. */
void pp_hooks_resolve(void);

/*
 * Blocks (how = SIG_BLOCK) or unblocks (SIG_UNBLOCK) the sampling signal in
 * the calling thread's kernel mask, as glibc's pthread_sigmask(); the mask
 * before goes to old unless it is NULL.
 */
void pp_hooks_mask_signal(int how, sigset_t *old);

/* Sets the calling thread's mask back to old (from pp_hooks_mask_signal). */
void pp_hooks_restore_mask(const sigset_t *old);

/* Whether the calling thread's kernel mask blocks the sampling signal. */
int pp_hooks_signal_blocked(void);

/*
 * Installs the sampler as the real handler of the sampling signal and keeps
 * the action it replaces as the app's own; from then on the app's
 * sigaction() on that signal sets and reads that action. Returns 0 or a
 * negative errno.
 */
int pp_hooks_install_handler(void);

/* Gives the signal back to the app's own action (profiling stopped). */
void pp_hooks_uninstall_handler(void);

/*
 * Just before an exec (or a spawn, which execs): when the app's action for
 * the sampling signal is SIG_IGN, puts SIG_IGN in the kernel, ours into
 * *ours, and returns 1: exec passes an ignored signal on to the new
 * program but resets a handled one (ours) to its default, which would
 * kill a program the app started ignoring it. Else 0. The mutex of the
 * app's action is not taken: this may run in a vfork child.
 */
int pp_hooks_exec_ignored(struct sigaction *ours);

/* After an exec that failed (or a spawn): ours back, when ignored says it was replaced. */
void pp_hooks_exec_failed(int ignored, const struct sigaction *ours);

/* The real sigaction (the program's calls go through the hook). */
int pp_hooks_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/*
 * Starts a thread of the profiler's own with the real pthread_create, every
 * signal blocked in it: the program's signals never land there, nor do
 * samples. Returns 0 or an errno, as pthread_create.
 */
/*
 * dlopen for a thread of the profiler's whose descriptor table is not the
 * program's (procio.h): counted inside dlopen for the handler, as the
 * program's are, but without the module scan, which writes through the
 * program's descriptors. A failed one whose snapshot is partial must be
 * followed by a scan in the program's table (pp_maps_scan).
 */
void *pp_hooks_dlopen_unscanned(const char *file, int mode);

int pp_hooks_create_helper(pthread_t *thread, const pthread_attr_t *attr,
			   void *(*fn)(void *), void *arg);

#endif
