/*
 * proclog: the process log (process.log), written from ordinary code (the
 * constructor, the dlopen/dlclose hooks, threads that start unsampled, exec
 * and the process's end) under a lock; its records are made by
 * sigsafe/records.h. It is a log file (sigsafe/logfile.h) like the thread
 * logs, so a SIGKILL loses nothing written.
 */
#ifndef PP_PROCLOG_H
#define PP_PROCLOG_H

struct pp_logfile;

/*
 * Creates the process log as dirfd/name (O_EXCL: -EEXIST when it is
 * there). Returns 0 or a negative errno.
 */
int pp_proclog_create(int dirfd, const char *name);

/*
 * Takes the log's lock and returns the log, for the records the caller
 * writes (sigsafe/records.h); it is the caller's until pp_proclog_release.
 * When there is none (not made, closed, or a fork child's copy), writing to
 * it fails.
 */
struct pp_logfile *pp_proclog_hold(void);

/* Gives back the lock pp_proclog_hold took. */
void pp_proclog_release(void);

/* Drops the log without writing (a fork child holding its parent's log). */
void pp_proclog_forget(void);

#endif
