/*
 * init: the process's profiling state: constructor, destructor, and the
 * start and end of every thread.
 */
#ifndef PP_INIT_H
#define PP_INIT_H

#include <stdint.h>

/* Nonzero while this process is being profiled. */
int pp_init_active(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pp_init_now_ns(void);

/*
 * Runs at the start of a new thread, before the app's start routine:
 * per-thread slot, alternate signal stack, log, unwinder warm-up, and the
 * end-of-thread finaliser.
 */
void pp_init_thread_begin(void);

/*
 * The process ends now, not through exit() (_exit, abort): writes the END
 * records with how (enum ppf_exit_how) and status, and closes the logs.
 */
void pp_init_process_ends(uint32_t how, int status);

/*
 * The process is about to exec path: notes it in process.log (if the exec
 * succeeds, the logs end there; the new image starts its own).
 */
void pp_init_exec_attempt(const char *path);

/* Called just before the app's main runs (see __libc_start_main). */
void pp_init_main_starts(void);

#endif
