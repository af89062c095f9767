/*
 * unwpipe: the pipe libunwind keeps open to check addresses (1.6.2:
 * pipe2(O_CLOEXEC | O_NONBLOCK) at its first use in the process, again in
 * the handler when a read of it fails). Left where pipe2 puts it, it takes
 * the program's lowest free descriptors (3 and 4 in most programs): the
 * program's first open() returns 5 instead of 3, a shell's `exec 3>file`
 * puts the program's file where libunwind reads and writes a byte, and a
 * program that lists its descriptors finds two it never made. The preload's
 * pipe2 hands the pipes libunwind's code asks for to fd.h: above the
 * numbers programs use, registered as the profiler's, invisible to the
 * program's close calls. The code ranges of the libunwind libraries the
 * preload loads are registered here before their first use.
 *
 * libunwind's other libc calls that reach the kernel in the handler (the
 * pipe's read and write, open, read and close of an object file when it
 * looks for unwind tables, and msync where mincore does not work) are
 * cancellation points in glibc: each makes
 * the thread asynchronously cancelable for the call, and a pthread_cancel
 * of the thread then marks it "canceling" and sends SIGCANCEL, which the
 * handler blocks; glibc's wrapper, on the way out, waits for that signal
 * to act: the thread hung for good (seen: manythreads, a thread sampled in
 * pthread_testcancel, libunwind's read of its pipe). The preload's read,
 * write, open, msync and close make libunwind's calls plain system calls, and
 * the descriptors it opens the profiler's (above the program's numbers).
 */
#ifndef PP_UNWPIPE_H
#define PP_UNWPIPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Async-signal-safe. Registers [lo, hi) as code of a libunwind library
 * (at most a few; more are ignored, their pipes left where they are).
 */
void pp_unwpipe_add_code_sigsafe(uintptr_t lo, uintptr_t hi);

/*
 * Runs in signal context (libunwind may call it in the handler). pipe2(2)
 * for the code at caller: a pipe made for libunwind goes above the
 * program's descriptors (fd.h), any other is the program's as made.
 */
int pp_unwpipe_pipe2_sigsafe(int fds[2], int flags, const void *caller);

/*
 * Runs in signal context. Whether caller is in the code of a registered
 * libunwind library (close() of its pipe, which libunwind makes anew when
 * a read of it fails, is its own to do).
 */
int pp_unwpipe_from_libunwind_sigsafe(const void *caller);

/*
 * Runs in signal context. libunwind's open(path, flags, mode): the system
 * call, its descriptor moved above the program's (fd.h). -1 and errno on
 * failure.
 */
int pp_unwpipe_open_sigsafe(const char *path, int flags, unsigned mode);

/*
 * Runs in signal context. libunwind's read(2) and write(2) (of its pipe,
 * of the files it opens): the system call on a descriptor libunwind made
 * through us and that still is that one; a number the program took over
 * (its dup2 over ours) is the program's, never read or written: -1 and
 * EBADF (libunwind then makes its pipe anew).
 */
ssize_t pp_unwpipe_read_sigsafe(int fd, void *buf, size_t n);
ssize_t pp_unwpipe_write_sigsafe(int fd, const void *buf, size_t n);

/*
 * Runs in signal context. libunwind's close(fd): closed (and unregistered)
 * when it is one libunwind made through us and still is; any other number
 * (the program's now, or another of the profiler's) is left open: -1 and
 * EBADF.
 */
int pp_unwpipe_close_sigsafe(int fd);

#endif /* PP_UNWPIPE_H */
