/*
 * logfile: one append-only log file written through a shared file mapping, so
 * what is written is in the page cache at once and survives a SIGKILL.
 * Used for thread logs (from the signal handler) and for the process log.
 * Every function here is async-signal-safe: raw syscalls only.
 *
 * A store through the mapping never faults: the file is allocated (or
 * written with zeros where the filesystem has no fallocate) before any of
 * it is touched. When it cannot grow (a full disk, a quota, RLIMIT_FSIZE)
 * the log is full: a PPF_REC_LOG_FULL record goes into the room every log
 * keeps for its closing records (PP_LOGFILE_KEEP), ordinary records are
 * refused from then on, and the first full log of the process says so in
 * one line on stderr.
 */
#ifndef PP_LOGFILE_H
#define PP_LOGFILE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "pprof/format.h"

struct pp_logfile {
	int fd;            /* -1 when closed, or detached */
	uint8_t *map;      /* window of the file mapped at map_off */
	uint64_t map_off;  /* file offset of map[0], page aligned */
	uint64_t map_len;  /* bytes of address space mapped (past the file's end too) */
	uint64_t used;     /* file offset where the next record goes */
	uint64_t size;     /* bytes allocated in the file: never touched past it */
	uint64_t dev, ino; /* the file fd must still name before we use fd */
	int full;          /* negative errno once the file could not grow */
	int closing;       /* closing records may use the room kept for them */
	int dirfd;         /* detached: the directory name is reopened in, else -1 */
	uint64_t dir_dev, dir_ino; /* what dirfd must still name */
	char name[NAME_MAX + 1]; /* detached: the file's name in dirfd */
	const char *dir_path; /* detached: the directory's path, opened again
				 when dirfd no longer names it (the program
				 closed the number); NULL: none */
	uint64_t open_off; /* file offset of the record still growing at the end
			      (pp_logfile_commit_open_sigsafe), 0 when none */
};

/*
 * Bytes the file grows by at a time, at the most: the most a log wastes at
 * its end. A small file grows by a quarter of its size (PP_LOGFILE_MIN_STEP
 * at the least), so that a short thread's log is a few KiB, not a step.
 */
#define PP_LOGFILE_STEP (64u << 10)
#define PP_LOGFILE_MIN_STEP 4096u
/* Address space mapped over the file at a time, unless set otherwise. */
#define PP_LOGFILE_WINDOW (4u << 20)
/*
 * Bytes every log keeps allocated past its records for its closing records
 * (PPF_REC_LOG_FULL, a thread's name, totals and END, the process END), so
 * that those are written even when the disk is full.
 */
#define PP_LOGFILE_KEEP 1536u

/*
 * Async-signal-safe. Sets how much address space each log maps over its
 * file from its next mapping on, for the limits in force: under RLIMIT_AS,
 * one allocation step (PP_LOGFILE_STEP: the program keeps the rest of its
 * limit), else PP_LOGFILE_WINDOW (the default), which needs fewer
 * mappings. A record larger than the window still gets a mapping that
 * holds it.
 */
void pp_logfile_fit_window_sigsafe(void);

/* Runs in signal context. The window pp_logfile_fit_window_sigsafe set. */
uint64_t pp_logfile_window_sigsafe(void);

/* Marks a closed log; a zeroed struct is not closed (fd 0). */
void pp_logfile_init_sigsafe(struct pp_logfile *log);

/* Runs in signal context. Whether the log is open (made and not closed). */
int pp_logfile_is_open_sigsafe(const struct pp_logfile *log);

/*
 * Runs in signal context. A detached log made attached again: its file
 * opened once more and kept open (moved high, registered: fd.h). A
 * detached log opens its file by name each time it grows, which needs the
 * right to search its directory: a program that becomes another user
 * (setuid) may lose it. The descriptor is taken from the profiler's share
 * (share.h), for the caller to account for. Returns 1 when attached now, 0
 * when it was already, or a negative errno (not open, -EMFILE).
 */
int pp_logfile_attach_sigsafe(struct pp_logfile *log);

/*
 * Runs in signal context. Whether the log takes ordinary records: it is
 * open, and not full (pp_logfile_reserve_sigsafe may still fail to grow it).
 */
int pp_logfile_takes_records_sigsafe(const struct pp_logfile *log);

/* Runs in signal context. Whether the open log holds a descriptor (not detached). */
int pp_logfile_holds_fd_sigsafe(const struct pp_logfile *log);

/* Runs in signal context. A file header of the given enum ppf_file_kind, in this writer's byte order. */
void pp_logfile_header_sigsafe(struct ppf_file_header *hdr, unsigned kind);

/*
 * Creates dirfd/name (O_EXCL, mode 0600), allocates its first step, maps it
 * and writes the file header of the given enum ppf_file_kind.
 * Returns 0 or a negative errno; on error nothing is left open.
 */
int pp_logfile_create_sigsafe(struct pp_logfile *log, int dirfd, const char *name,
			      unsigned kind);

/*
 * Closes the log's descriptor: from now on the file is opened again, by
 * name in dirfd (which must go on naming the directory it names now, and
 * the name the file it names now), only while the log grows or maps a new
 * window, and closed at once. A thread log then holds no descriptor, so the
 * number of threads sampled does not depend on RLIMIT_NOFILE. Returns 0 or a
 * negative errno (the log is then left as it was).
 */
int pp_logfile_detach_sigsafe(struct pp_logfile *log, int dirfd, const char *name);

/*
 * Runs in signal context. The path of the directory a detached log was
 * detached in (kept as given: it must live as long as the log), opened
 * again, and checked to be that directory, when dirfd no longer names it.
 */
void pp_logfile_set_dir_path_sigsafe(struct pp_logfile *log, const char *path);

/*
 * Runs in signal context. A detached log opens its file again in dirfd from
 * now on: a descriptor number that names the same directory as the one it
 * was detached in, or will again (while it does not, the log cannot grow).
 */
void pp_logfile_set_dirfd_sigsafe(struct pp_logfile *log, int dirfd);

/*
 * Returns a zeroed place for a record of size bytes (a multiple of 8), or
 * NULL when the file cannot grow (or is full and the log is not closing).
 * Fill it, then pp_logfile_commit_sigsafe().
 */
void *pp_logfile_reserve_sigsafe(struct pp_logfile *log, uint32_t size);

/*
 * Publishes a reserved record: stores its {type, size} header last, so a
 * reader never sees a half-written record, and advances the log.
 */
void pp_logfile_commit_sigsafe(struct pp_logfile *log, void *rec, uint32_t type,
			       uint32_t size);

/*
 * Publishes a reserved record of room bytes (reserved so) as one that
 * still grows: its header says room bytes, but the log advances by head
 * only. The caller adds to it in place (within room) and calls
 * pp_logfile_grow_sigsafe for each part it has written. Before any other
 * record is reserved, or the log is closed, the record's size is set to
 * what it holds (head and what was grown): so at any moment the log reads
 * as whole records.
 */
void pp_logfile_commit_open_sigsafe(struct pp_logfile *log, void *rec, uint32_t type,
				    uint32_t room, uint32_t head);

/*
 * The record pp_logfile_commit_open_sigsafe published, while it is the
 * log's last (no other record reserved since), else NULL.
 */
void *pp_logfile_open_record_sigsafe(struct pp_logfile *log);

/* The open record holds n more bytes, written at its end. */
void pp_logfile_grow_sigsafe(struct pp_logfile *log, uint32_t n);

/*
 * Writes len bytes at file offset off, inside a record already committed
 * (a value kept up to date in place): through the mapping when the window
 * holds them, else with pwrite. 0 or a negative errno.
 */
int pp_logfile_rewrite_sigsafe(struct pp_logfile *log, uint64_t off, const void *data,
			       uint32_t len);

/* Copies a whole record (header filled in by the caller) into the log. */
int pp_logfile_append_sigsafe(struct pp_logfile *log, const void *rec, uint32_t size);

/*
 * From now on the log takes its closing records, into the room kept for
 * them (PP_LOGFILE_KEEP bytes in all) when the file cannot grow.
 */
void pp_logfile_closing_sigsafe(struct pp_logfile *log);

/*
 * Async-signal-safe. Sets the line said when a log first fills in this
 * process: "libpprof: <what>: <reason>; <then>" (copied; each at most 511
 * bytes), and that it has not been said. what NULL: nothing is said (until
 * it is set). Called while no log of the process is being written (at its
 * start, and in a fork child, which says it again).
 */
void pp_logfile_set_full_line_sigsafe(const char *what, const char *then);

/* Runs in signal context. Whether a log of this process has filled (and the line was said). */
int pp_logfile_full_said_sigsafe(void);

/*
 * Unmaps and closes, the file cut at the end of its last record (its
 * allocated tail given back). When the file cannot be opened again to be
 * cut (a detached log whose directory is gone), it ends in zeros after the
 * last record, as a killed process's logs do (readers stop at a zero
 * record header).
 */
void pp_logfile_close_sigsafe(struct pp_logfile *log);

/* Unmaps and closes without touching the file (a fork child's copy). */
void pp_logfile_forget_sigsafe(struct pp_logfile *log);

/*
 * Async-signal-safe. Set (1) as the process ends: a log closed from then on
 * keeps its mapping, which goes with the process. munmap takes the address
 * space's lock for writing, and threads still in a sample (mapping their
 * first log, libunwind checking an address) wait for it, each wait a round
 * of the run queue on a busy machine: finishing a hundred spinning threads'
 * logs took seconds. Cleared (0) in a fork child.
 */
void pp_logfile_process_ends_sigsafe(int ending);

/*
 * Whether fd still names the file or directory with this device and inode
 * (the app may have closed it and reused the number). *dev and *ino are
 * filled when they are 0 (first call, at creation).
 */
int pp_logfile_same_file_sigsafe(int fd, uint64_t *dev, uint64_t *ino);

/* Writes "<prefix><n><suffix>" into buf (at least 64 bytes). */
void pp_logfile_format_name_sigsafe(char *buf, const char *prefix, uint64_t n,
				    const char *suffix);

#endif
