/*
 * process: the process's profiling life. At its start (the constructor,
 * and again in a fork child, which inherits no event) it makes the process
 * directory under the output root and its process.log, installs the
 * sampling signal's handler, opens the events and sets the main thread up;
 * exec stops sampling (and a failed exec starts it again); at its end
 * (exit, _exit, abort, or the destructor) it closes every log with its END
 * record. Nothing here runs in signal context.
 */
#ifndef PP_PROCESS_H
#define PP_PROCESS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "unwlib.h"

struct pp_config;

/*
 * What the constructor already knows of the process, so that its start
 * does not ask the kernel again: its arguments (the constructor's argc and
 * argv, as the kernel laid them out: /proc/self/cmdline's bytes), and
 * whether the calling thread was its only one (/proc/self/status's
 * Threads: 1; then no thread older than the profiler needs its events).
 */
struct pp_process_origin {
	int argc;
	char **argv; /* NULL: read /proc/self/cmdline */
	int alone;
};

/*
 * Starts profiling the process, from the constructor, once: cfg (kept, the
 * constructor's), in mode (PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL) with
 * libunwind's backtrace; origin is read during the call only. When it
 * cannot, it says why in one line and the program runs unprofiled (or
 * stops, with strict = yes: init.h).
 */
void pp_process_start(const struct pp_config *cfg, int mode,
		      pp_unwlib_backtrace_fn backtrace,
		      const struct pp_process_origin *origin);

/*
 * Reads the start of a /proc file (at most size - 1 bytes) into buf,
 * NUL-terminated. Returns 0 when it could not (nothing read).
 */
int pp_process_read_proc(const char *path, char *buf, size_t size);

/*
 * Notes the process's CPU time now, at the start of the constructor (call
 * it first thing there): process.log records it as PPF_CPU_CONSTRUCTOR.
 */
void pp_process_cpu_at_entry(void);

/* The parent's pid as the constructor begins (for PPF_REC_PROCESS): call first. */
void pp_process_parent_at_entry(void);

/*
 * The process started path as process pid (its own pid for an exec), and
 * the preload cannot enter it (why: enum ppf_unprofiled_why): notes it in
 * process.log. Does nothing in a vfork child or when not profiling.
 */
void pp_process_unprofiled(int pid, uint32_t why, const char *path);

/*
 * The output root's descriptor (O_PATH: the directory that holds the
 * process directories and logs), or -1 when there is none. Read only.
 */
int pp_process_rootfd(void);

/* Nonzero while this process is being profiled. */
int pp_process_active(void);

/*
 * Just before the program makes euid its effective user (the set*uid
 * family; -1: unchanged): the process's thread logs are made and keep
 * their descriptors (pp_thread_keep_logs), so that they go on once the
 * process is euid's; one line says so when they cannot. What euid may not
 * make in the output root afterwards (a thread's log) is said as it fails.
 */
void pp_process_user_changes(uid_t euid);

/*
 * The calling thread enters (1) or leaves (0) daemon(3), with errno 0: the
 * parent's logs end at its fork (glibc's daemon leaves by its own _exit).
 */
void pp_process_daemon(int inside);

/* quick_exit(status) was called: its status, for the END record written as it ends. */
void pp_process_quick_exit(int status);

/* Called just before the app's main runs (see __libc_start_main). */
void pp_process_main_starts(void);

/*
 * The process ends now, not through exit() (_exit, abort): writes the END
 * records with how (enum ppf_exit_how) and status, and closes the logs.
 */
void pp_process_ends(uint32_t how, int status);

/*
 * The calling thread is about to exec path (not in a vfork child: there it
 * does nothing). Notes it in process.log (if the exec succeeds, the logs end
 * there; the new image starts its own), stops the sampling events whose
 * signals could reach the new image (sigtrap: the process's; signal: the
 * calling thread's and the process-wide ones) and takes the samples still
 * pending for the thread off its queue: until the new image's constructor
 * installs a handler, a sampling signal would kill it. The signal mask is
 * left as it is. Returns whether it did; pass that to pp_process_exec_failed.
 */
int pp_process_exec_begin(const char *path);

/* The exec failed (errno kept): sampling resumes as before pp_process_exec_begin. */
void pp_process_exec_failed(int began);

#endif
