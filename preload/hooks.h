/*
 * hooks: the functions libpprof.so interposes (pthread_create, dlopen,
 * dlclose, sigaction, signal) and the app's own SIGTRAP action.
 */
#ifndef PP_HOOKS_H
#define PP_HOOKS_H

#include <signal.h>

/* Looks up the real functions; call once, early, outside signal context. */
void pp_hooks_resolve(void);

/*
 * Installs the sampler as the real SIGTRAP handler and keeps the action it
 * replaces as the app's own. Returns 0 or a negative errno.
 */
int pp_hooks_install_handler(void);

/* Gives SIGTRAP back to the app's own action (profiling stopped). */
void pp_hooks_uninstall_handler(void);

#endif
