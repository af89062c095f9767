/*
 * thread: a thread's profiling life. At its start (the pthread_create hook,
 * and the process's start for the main thread) it gets its slot in the
 * thread table (sigsafe/threads.h), its share of the process's limits
 * (sigsafe/share.h), its log, an alternate signal stack, libunwind's first
 * call and its own events; a thread whose state cannot be made runs
 * unsampled (unsampled.h). At its end (a pthread key's destructor, or the
 * process's end for the threads still running) its name, totals and END
 * record close its log. Nothing here runs in signal context.
 */
#ifndef PP_THREAD_H
#define PP_THREAD_H

#include "events.h"
#include "sigsafe/records.h"
#include "sigsafe/threads.h"
#include "unwlib.h"

/*
 * What the process's threads are set up with: the process's, which keeps
 * them for as long as it runs (process.c); read as they are at each use.
 */
struct pp_thread_env {
	const struct pp_config *cfg;
	const struct pp_events *events;  /* which events run (error[]) */
	int mode;                        /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL */
	struct pp_thread_dir *dir; /* where thread logs go */
	pp_unwlib_backtrace_fn backtrace;
};

/*
 * Once, in the constructor: keeps env (copied; what it points to must
 * outlive the process), makes libunwind's first call in the process (it
 * takes a lock and makes a pipe: never first in the handler) and the key
 * whose destructor ends each thread.
 */
void pp_thread_init(const struct pp_thread_env *env);

/*
 * Sets up the calling thread's sampling state: slot, share, log, alternate
 * signal stack, libunwind's first call (its events are opened by
 * pp_thread_begin, or for the main thread by the process's start). main:
 * the process's main thread. Returns the slot, or NULL when the thread runs
 * unsampled (said and recorded); *slot gets the slot either way when the
 * thread got one (an unsampled thread's holds nothing, and stays claimed so
 * that the handler drops its samples).
 */
struct pp_thread *pp_thread_setup(int main, struct pp_thread **slot);

/* Undoes pp_thread_setup for the main thread t when profiling does not start. */
void pp_thread_drop_main(struct pp_thread *t);

/* slot, the calling thread's (pp_thread_setup), is ended with the thread. */
void pp_thread_end_at_exit(struct pp_thread *slot);

/*
 * Runs at the start of a new thread, before the app's start routine:
 * pp_thread_setup, its events, and its end at exit. wall_inherited: its
 * maker's pp_wall_inherited().
 */
void pp_thread_begin(int wall_inherited);

/*
 * The process ends: writes the closing records of every thread still
 * running and closes their logs (their slots stay busy: a late sample is
 * dropped). exit_follows: exit_group follows at once (the _exit family's
 * hooks), not destructors of the program's (ours ran from exit's).
 */
void pp_thread_finish_all(int exit_follows);

/*
 * In a fork child: drops the parent's threads (their logs, stacks and
 * events are the parent's), the calling thread's alternate signal stack,
 * and the totals.
 */
void pp_thread_forget_all(void);

/*
 * Before the program becomes another user (setuid and the like): each
 * thread's log is made now if it is still to be made at a first sample
 * (once the process is another user's it may not be, in a root only its
 * first user may write), and every log keeps its descriptor from now on
 * (a detached log opens its file by name to grow it, which the new user
 * may not: pp_logfile_attach_sigsafe). Returns 0, or the first negative
 * errno (-EMFILE: out of descriptors).
 */
int pp_thread_keep_logs(void);

/*
 * Before an exec attempt: each thread that has taken no sample (and so has
 * no log) and has nothing more to say gets its PPF_REC_THREAD_QUIET, with
 * PPF_QUIET_EXEC, in process.log: if the exec succeeds, that is all there
 * is of it. Its log is still made at its first sample if the exec fails.
 * Each thread with a log gets a PPF_REC_THREAD_PROGRESS of its totals and
 * CPU time now: a thread that exec ends has no END record.
 */
void pp_thread_quiet_all_at_exec(void);

/*
 * The totals of the threads whose logs are finished, with the samples lost
 * for threads that ran unsampled.
 */
void pp_thread_totals(struct pp_records_counts *out);

#endif
