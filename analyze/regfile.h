/*
 * regfile: how the analyzer opens every file it reads (logs, the modules
 * they name, source files; and, through analyze/openguard.c, the separate
 * debug information libdw opens itself).
 *
 * Those paths come from logs, which may come from anyone: a FIFO there
 * would block open() forever, a terminal or /dev/zero would feed reads
 * forever, and opening a device can do things of its own (a tape rewinds).
 * So only a regular file is opened. The path is looked at through an
 * O_PATH descriptor first, which runs no driver's open and waits for no
 * writer; then it is opened O_NONBLOCK and looked at again, in case it
 * changed in between.
 */
#ifndef PA_REGFILE_H
#define PA_REGFILE_H

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "reader.h"

/* What pa_regfile_open returns for a path that is not a regular file. */
#define PA_REGFILE_NOT_REGULAR (-EMEDIUMTYPE)

/* What a file of this mode is, for messages: "a FIFO", "a directory", ... */
const char *pa_regfile_kind(mode_t mode);

/*
 * Opens path to read if it is a regular file. flags are added to the
 * open's (O_NOFOLLOW: a symbolic link is refused as one). The descriptor is
 * close-on-exec and stays non-blocking: a regular file reads the same, and
 * a pseudo-file that calls itself regular cannot make a read wait.
 * Returns the descriptor (the caller closes it) and fills *st (may be
 * NULL); or PA_REGFILE_NOT_REGULAR, *st saying what it is and err's reason
 * "is a FIFO, not a regular file"; or another negative errno with "cannot
 * open: REASON". err may be NULL.
 */
int pa_regfile_open(const char *path, int flags, struct stat *st, struct pa_error *err);

/* st's modification time in ns since the epoch. */
static inline uint64_t pa_regfile_mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

#endif /* PA_REGFILE_H */
