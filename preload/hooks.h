/*
 * hooks: the functions libpprof.so interposes (pthread_create, dlopen,
 * dlclose, sigaction, signal, close, ...) and the app's own action for the
 * sampling signal.
 */
#ifndef PP_HOOKS_H
#define PP_HOOKS_H

#include <signal.h>

/* Looks up the real functions; call once, early, outside signal context. */
void pp_hooks_resolve(void);

/*
 * Installs the sampler as the real handler of sig (SIGTRAP, or the signal
 * mode's signal) and keeps the action it replaces as the app's own; from
 * then on the app's sigaction() on sig sets and reads that action. Returns
 * 0 or a negative errno.
 */
int pp_hooks_install_handler(int sig);

/* Gives the signal back to the app's own action (profiling stopped). */
void pp_hooks_uninstall_handler(void);

#endif
