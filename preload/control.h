/*
 * control: starting and stopping sampling at run time (sigsafe/pause.h
 * switches the events): the configuration's delay (`delay`), counted from
 * the run's start (PPROF_RUN) and ended by a helper thread; the toggle
 * signal (`toggle_signal`), whose handler pauses and resumes, and which is
 * the program's as soon as the program sets an action of its own for it;
 * and the functions a program calls (include/pprof/control.h). Nothing here
 * runs in signal context but the exported functions, which are
 * async-signal-safe.
 */
#ifndef PP_CONTROL_H
#define PP_CONTROL_H

#include <signal.h>

#include "config.h"

/*
 * At the process's start, before sampling starts (pp_pause_start_sigsafe).
 * starting: the constructor (not a fork child): the delay left of the run
 * is held, and the toggle signal's handler installed (or, for a signal the
 * profiler needs or that cannot be caught, one line says why not). In
 * either, a delay still running gets its helper thread (a fork child has
 * none of its parent's threads).
 */
void pp_control_process_start(const struct pp_config *cfg, int starting);

/*
 * The sigaction hook, for signal sig: when it is the toggle signal, still
 * the profiler's, does what the program asks (the program's action wins;
 * said once) with real, the real sigaction, and returns 1 with the result in
 * *rc; else returns 0.
 */
typedef int (*pp_control_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
int pp_control_app_action(int sig, const struct sigaction *act, struct sigaction *old,
			  pp_control_sigaction_fn real, int *rc);

/*
 * Exported: what include/pprof/control.h's functions of the same names
 * find with dlsym (that header is not included here: its are static).
 */
void pprof_pause(void);
void pprof_resume(void);
int pprof_is_profiling(void);

#endif
