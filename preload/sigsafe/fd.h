/*
 * fd: the descriptors the profiler keeps open go above the numbers programs
 * usually use, close-on-exec, so that they stay clear of the app's own; and
 * they are registered, so that a program closing every descriptor (a
 * daemon's close loop, close_range, closefrom) closes its own and leaves
 * ours: to the program they do not exist (close says EBADF, as it would
 * without the profiler).
 */
#ifndef PP_FD_H
#define PP_FD_H

#include "events.h"

/* Lowest number asked for. */
#define PP_FD_MIN 512
/* Descriptors below this number can be registered. */
#define PP_FD_REG_MAX 65536

/*
 * Runs in signal context. Moves fd to the lowest free number >= PP_FD_MIN,
 * close-on-exec, registers it, and returns the number to use: the new one,
 * or fd itself when none is free (RLIMIT_NOFILE).
 */
int pp_fd_move_high_sigsafe(int fd);

/*
 * Runs in signal context. Says that the calling thread's descriptor table
 * is not the program's (unshare CLONE_FILES: procio.h): from then on
 * pp_fd_move_high_sigsafe leaves the thread's descriptors where they are,
 * unregistered (the registry names the program's table).
 */
void pp_fd_table_private_sigsafe(void);

/* Runs in signal context. Registers fd (with the file it names now) as ours. */
void pp_fd_own_sigsafe(int fd);

/* Runs in signal context. Unregisters fd and closes it. */
void pp_fd_close_sigsafe(int fd);

/*
 * Runs in signal context. Unregisters fd without closing it: the program
 * put a file of its own at that number (dup2, dup3), which the same-file
 * check cannot always tell (every anonymous inode, an eventfd as a perf
 * event, is one inode).
 */
void pp_fd_disown_sigsafe(int fd);

/*
 * Runs in signal context. The same, when fd is still ours
 * (pp_fd_ours_sigsafe): a number the program closed (its dup2 over ours)
 * and reused is left to it. For descriptors made in the program's table.
 */
void pp_fd_close_ours_sigsafe(int fd);

/*
 * Runs in signal context. Whether fd is registered and still names the file
 * it named then (a number the program freed behind our back with a raw
 * system call and reused is the program's again: its entry is dropped).
 */
int pp_fd_ours_sigsafe(int fd);

/*
 * Runs in signal context. Whether fd is registered, without looking at what
 * it names now (no system call).
 */
int pp_fd_registered_sigsafe(int fd);

/*
 * Runs in signal context. The tag fd had when it was last registered, even
 * when it no longer is (pp_fd_ours_sigsafe found the number reused and
 * dropped it; closing it through pp_fd_close_sigsafe clears the tag): 0 when
 * none.
 */
int pp_fd_last_tag_sigsafe(int fd);

/*
 * Runs in signal context. The lowest registered descriptor in [lo, hi] that
 * is still ours, or -1.
 */
int pp_fd_next_ours_sigsafe(unsigned lo, unsigned hi);

/*
 * Runs in signal context. Labels registered descriptor fd with tag (non-zero;
 * the signal mode's sampling events: event index + 1) and data (theirs: the
 * ring buffer, or NULL), until it is closed.
 */
void pp_fd_tag_sigsafe(int fd, int tag, void *data);

/*
 * Runs in signal context. The tag of fd, 0 when it has none or is not
 * registered, and its data in *data (data may be NULL). Does not check what
 * fd names (no system call): for the handler, which gets fd from the
 * kernel's siginfo.
 */
int pp_fd_tag_of_sigsafe(int fd, void **data);

/*
 * Runs in signal context. Whether te's event i is open and its descriptor
 * still is that event (the program may have closed the number and reused
 * it: PERF_EVENT_IOC_ID tells).
 */
int pp_fd_tevent_ours_sigsafe(const struct pp_tevents *te, unsigned i);

/*
 * Runs in signal context. Applies cmd (PERF_EVENT_IOC_DISABLE or _ENABLE)
 * to te's sampling events (those tagged: pp_fd_tag_sigsafe) that are still
 * ours; with counters, to its counting events too.
 */
void pp_fd_tevents_switch_sigsafe(const struct pp_tevents *te, unsigned long cmd,
				  int counters);

#endif
