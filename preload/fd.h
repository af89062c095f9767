/*
 * fd: the descriptors the profiler keeps open go above the numbers programs
 * usually use, close-on-exec, so that they stay clear of the app's own.
 */
#ifndef PP_FD_H
#define PP_FD_H

/* Lowest number asked for. */
#define PP_FD_MIN 512

/*
 * Runs in signal context. Moves fd to the lowest free number >= PP_FD_MIN,
 * close-on-exec, and returns the number to use: the new one, or fd itself
 * when none is free (RLIMIT_NOFILE).
 */
int pp_fd_move_high_sigsafe(int fd);

#endif
