/*
 * procio: the wall helper's work that opens descriptors (reads of
 * /proc/self/task, loading libunwind's remote interface), done in a thread
 * of the profiler's with a descriptor table of its own (unshare
 * CLONE_FILES, every inherited descriptor closed there). A descriptor
 * opened in the program's table takes its lowest free number, if only for
 * microseconds: a program that opens a file meanwhile gets another number,
 * a fork child inherits it, and a program that closes it and opens
 * something in its place would have that closed by ours. Opened in this
 * thread's table, the program never sees it.
 *
 * One client at a time is served; calls are synchronous. Not for signal
 * context.
 */
#ifndef PP_PROCIO_H
#define PP_PROCIO_H

#include <sys/types.h>

/*
 * Starts the thread (from a thread with every signal blocked and no
 * sampling event, which it inherits: the wall helper). Returns 0 or a
 * positive errno (none then: pp_procio_call says -ENOTCONN).
 */
int pp_procio_start(void);

/* Stops the thread and waits for it; nothing when none runs. */
void pp_procio_stop(void);

/* The thread's id, 0 when none runs. */
int pp_procio_tid(void);

/* Its CPU time so far in ns, 0 when none runs. */
unsigned long long pp_procio_cpu_ns(void);

/*
 * Runs fn(arg) in the thread and returns when it is done: 0, or
 * -ENOTCONN when no thread runs (fn is not run). Whatever fn opens must be closed
 * by fn: descriptor numbers there name nothing in the program's table.
 */
int pp_procio_call(void (*fn)(void *), void *arg);

/*
 * Reads the file at path (up to size - 1 bytes, NUL-terminated) in the
 * thread: the bytes read, or a negative errno (-ENOTCONN: no thread).
 */
ssize_t pp_procio_read(const char *path, char *buf, size_t size);

/* After fork, in the child: no thread runs there. */
void pp_procio_fork_child(void);

#endif
