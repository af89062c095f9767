/*
 * init: the process's profiling state: constructor, destructor, and the
 * start and end of every thread.
 */
#ifndef PP_INIT_H
#define PP_INIT_H

#include <stdint.h>

/* Nonzero while this process is being profiled. */
int pp_init_active(void);

/*
 * Runs at the start of a new thread, before the app's start routine:
 * per-thread slot, alternate signal stack, log, unwinder warm-up, and the
 * end-of-thread finaliser.
 */
void pp_init_thread_begin(void);

/*
 * The calling thread has just blocked (blocked set) the sampling signal, or
 * unblocked it. In the signal mode every overflow queues a real-time
 * signal: a thread that blocks it for long would fill the queue the kernel
 * keeps for all of the user's processes (RLIMIT_SIGPENDING), where it sends
 * SIGIO instead, which kills. So the thread's sampling events stop while it
 * blocks the signal (that time is not sampled). Nothing in the sigtrap
 * mode: a blocked SIGTRAP holds one overflow, and arrives late.
 */
void pp_init_thread_masks(int blocked);

/*
 * The process ends now, not through exit() (_exit, abort): writes the END
 * records with how (enum ppf_exit_how) and status, and closes the logs.
 */
void pp_init_process_ends(uint32_t how, int status);

/*
 * The calling thread is about to exec path (not in a vfork child: there it
 * does nothing). Notes it in process.log (if the exec succeeds, the logs end
 * there; the new image starts its own), stops the sampling events whose
 * signals could reach the new image (sigtrap: the process's; signal: the
 * calling thread's and the process-wide ones) and takes the samples still
 * pending for the thread off its queue: until the new image's constructor
 * installs a handler, a sampling signal would kill it. The signal mask is
 * left as it is. Returns whether it did; pass that to pp_init_exec_failed.
 */
int pp_init_exec_begin(const char *path);

/* The exec failed (errno kept): sampling resumes as before pp_init_exec_begin. */
void pp_init_exec_failed(int began);

/* Called just before the app's main runs (see __libc_start_main). */
void pp_init_main_starts(void);

#endif
