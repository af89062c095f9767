/*
 * Log files as shared file mappings. A window of address space is mapped
 * over the file, and the file is allocated a step at a time, so a full disk
 * fails here, at allocation, and never as a SIGBUS on a later store
 * (nothing past the allocated size is ever touched). Allocated means
 * fallocate, or where the filesystem has none (ext2, ext3, some network
 * and FUSE filesystems) zeros written with pwrite: a sparse file there
 * took its blocks at the first store through the mapping, and a full disk
 * killed the program with SIGBUS. Growth stays under RLIMIT_FSIZE, past
 * which the kernel sends SIGXFSZ. Only raw syscalls: this runs in signal
 * context.
 */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fd.h"
#include "pprof/format.h"
#include "share.h"

#define PP_LOGFILE_PAGE 4096u

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Writes at a time when growing a file with zeros: bounds the loop. */
#define PP_LOGFILE_ZERO_WRITES 64

/* Never written: the source of the zeros a file grows by without fallocate. */
static uint8_t pp_logfile_zeros[PP_LOGFILE_STEP];

/* The line said when a log of this process first fills (see below). */
static char pp_logfile_full_what[512];
static char pp_logfile_full_then[512];
static int pp_logfile_said; /* atomic */

/*
 * Runs in signal context. Why a log could not grow, as strerror says it
 * (strerror itself is not async-signal-safe); NULL for an errno not listed.
 */
static const char *pp_logfile_reason_sigsafe(int err)
{
	switch (err) {
	case ENOSPC: return "No space left on device";
	case EDQUOT: return "Disk quota exceeded";
	case EFBIG: return "File too large (the file size limit, ulimit -f)";
	case EIO: return "Input/output error";
	case EROFS: return "Read-only file system";
	case ENOMEM: return "Cannot allocate memory";
	default: return NULL;
	}
}

/* Runs in signal context. Appends s at *at in buf (size bytes, NUL kept). */
static void pp_logfile_cat_sigsafe(char *buf, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (n > size - 1 - *at)
		n = size - 1 - *at;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

/* Async-signal-safe. */
void pp_logfile_set_full_line_sigsafe(const char *what, const char *then)
{
	size_t at = 0;

	pp_logfile_cat_sigsafe(pp_logfile_full_what, sizeof(pp_logfile_full_what), &at,
			       what ? what : "");
	at = 0;
	pp_logfile_cat_sigsafe(pp_logfile_full_then, sizeof(pp_logfile_full_then), &at,
			       then ? then : "");
	__atomic_store_n(&pp_logfile_said, 0, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_logfile_full_said_sigsafe(void)
{
	return __atomic_load_n(&pp_logfile_said, __ATOMIC_ACQUIRE);
}

/*
 * Runs in signal context. Says, once per process, that a log could not grow
 * (err, a negative errno): one line on stderr, written with the raw system
 * call (glibc's write is a cancellation point).
 */
static void pp_logfile_say_full_sigsafe(int err)
{
	char line[sizeof(pp_logfile_full_what) + sizeof(pp_logfile_full_then) + 128];
	char num[64];
	const char *why = pp_logfile_reason_sigsafe(-err);
	size_t at = 0;
	int saved = errno;

	if (!pp_logfile_full_what[0] ||
	    __atomic_exchange_n(&pp_logfile_said, 1, __ATOMIC_ACQ_REL))
		return;
	if (!why) {
		pp_logfile_format_name_sigsafe(num, "error ", (uint64_t)-err, "");
		why = num;
	}
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, "libpprof: ");
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, pp_logfile_full_what);
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, ": ");
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, why);
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, "; ");
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, pp_logfile_full_then);
	pp_logfile_cat_sigsafe(line, sizeof(line), &at, "\n");
	(void)syscall(SYS_write, STDERR_FILENO, line, at);
	errno = saved;
}

static uint64_t pp_logfile_window = PP_LOGFILE_WINDOW; /* atomic */

/* Async-signal-safe. */
void pp_logfile_fit_window_sigsafe(void)
{
	__atomic_store_n(&pp_logfile_window, pp_share_limit_sigsafe(RLIMIT_AS) == UINT64_MAX ?
			 PP_LOGFILE_WINDOW : PP_LOGFILE_STEP, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
uint64_t pp_logfile_window_sigsafe(void)
{
	return __atomic_load_n(&pp_logfile_window, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
void pp_logfile_init_sigsafe(struct pp_logfile *log)
{
	memset(log, 0, sizeof(*log));
	log->fd = -1;
	log->dirfd = -1;
}

/* Runs in signal context. */
int pp_logfile_is_open_sigsafe(const struct pp_logfile *log)
{
	return log->map != NULL;
}

/* Runs in signal context. */
int pp_logfile_takes_records_sigsafe(const struct pp_logfile *log)
{
	return log->map != NULL && (!log->full || log->closing);
}

/* Runs in signal context. */
int pp_logfile_holds_fd_sigsafe(const struct pp_logfile *log)
{
	return log->fd >= 0;
}

/*
 * Runs in signal context. Whether fd is still our file: the app may close
 * every descriptor it did not open and reuse the number for its own file,
 * which we must then never grow, truncate or close.
 */
static int pp_logfile_fd_ours_sigsafe(struct pp_logfile *log)
{
	return pp_logfile_same_file_sigsafe(log->fd, &log->dev, &log->ino);
}

/* Runs in signal context. */
int pp_logfile_detach_sigsafe(struct pp_logfile *log, int dirfd, const char *name)
{
	size_t len = strlen(name);

	if (len >= sizeof(log->name))
		return -ENAMETOOLONG;
	if (!pp_logfile_fd_ours_sigsafe(log) ||
	    !pp_logfile_same_file_sigsafe(dirfd, &log->dir_dev, &log->dir_ino))
		return -EBADF;
	memcpy(log->name, name, len + 1);
	log->dirfd = dirfd;
	pp_fd_close_sigsafe(log->fd);
	log->fd = -1;
	return 0;
}

/* Runs in signal context. */
void pp_logfile_set_dir_path_sigsafe(struct pp_logfile *log, const char *path)
{
	if (log->dirfd >= 0)
		log->dir_path = path;
}

/* Runs in signal context. */
void pp_logfile_set_dirfd_sigsafe(struct pp_logfile *log, int dirfd)
{
	if (log->dirfd >= 0)
		log->dirfd = dirfd;
}

/* A detached log's descriptor, while it is open. */
static const struct pp_share_cost pp_logfile_one_fd = { .fds = 1 };

/* Runs in signal context. Gives back what pp_logfile_get_fd_sigsafe gave. */
static void pp_logfile_put_fd_sigsafe(struct pp_logfile *log, int fd)
{
	if (fd == log->fd)
		return;
	pp_fd_close_sigsafe(fd);
	pp_share_give_sigsafe(&pp_logfile_one_fd);
}

/*
 * Runs in signal context. A descriptor of the log's file to grow or map it
 * with: its own, checked to be still ours; or, detached, the file opened
 * again by name (the raw system call: glibc's openat is a cancellation
 * point), above the numbers programs use, and checked to be the same
 * directory and file. Give it back with pp_logfile_put_fd_sigsafe. Returns
 * the descriptor or a negative errno.
 */
/*
 * Runs in signal context. The directory of a detached log that its dirfd
 * no longer names (the program closed the number, maybe reused it), opened
 * again by its path and checked to be the same, from the profiler's share:
 * closed by the caller, its share given back. A negative errno when it
 * cannot be.
 */
static int pp_logfile_dir_again_sigsafe(struct pp_logfile *log)
{
	int fd;

	if (!log->dir_path)
		return -EBADF;
	if (pp_share_take_sigsafe(&pp_logfile_one_fd) != 0)
		return -EMFILE;
	fd = (int)syscall(SYS_openat, AT_FDCWD, log->dir_path,
			  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		fd = pp_fd_move_high_sigsafe(fd);
	else
		fd = -errno;
	if (fd >= 0 && !pp_logfile_same_file_sigsafe(fd, &log->dir_dev, &log->dir_ino)) {
		pp_fd_close_sigsafe(fd);
		fd = -EBADF;
	}
	if (fd < 0)
		pp_share_give_sigsafe(&pp_logfile_one_fd);
	return fd;
}

static int pp_logfile_get_fd_sigsafe(struct pp_logfile *log)
{
	int fd, dirfd = log->dirfd, again = 0;

	if (log->dirfd < 0)
		return pp_logfile_fd_ours_sigsafe(log) ? log->fd : -EBADF;
	if (!pp_logfile_same_file_sigsafe(log->dirfd, &log->dir_dev, &log->dir_ino)) {
		dirfd = pp_logfile_dir_again_sigsafe(log);
		if (dirfd < 0)
			return dirfd;
		again = 1;
	}
	/* Held a moment, but from the profiler's share all the same (share.h). */
	if (pp_share_take_sigsafe(&pp_logfile_one_fd) != 0) {
		fd = -EMFILE;
		goto out;
	}
	fd = (int)syscall(SYS_openat, dirfd, log->name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		pp_share_give_sigsafe(&pp_logfile_one_fd);
		goto out;
	}
	fd = pp_fd_move_high_sigsafe(fd);
	if (!pp_logfile_same_file_sigsafe(fd, &log->dev, &log->ino)) {
		pp_logfile_put_fd_sigsafe(log, fd);
		fd = -EBADF;
	}
out:
	if (again) {
		pp_fd_close_sigsafe(dirfd);
		pp_share_give_sigsafe(&pp_logfile_one_fd);
	}
	return fd;
}

/* Runs in signal context. */
int pp_logfile_attach_sigsafe(struct pp_logfile *log)
{
	int fd;

	if (!pp_logfile_is_open_sigsafe(log))
		return -EBADF;
	if (log->dirfd < 0)
		return 0;
	fd = pp_logfile_get_fd_sigsafe(log);
	if (fd < 0)
		return fd;
	log->fd = fd;
	log->dirfd = -1;
	log->dir_path = NULL;
	return 1;
}

/* Runs in signal context. */
int pp_logfile_same_file_sigsafe(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0)
		return 0;
	if (!*dev && !*ino) {
		*dev = (uint64_t)st.st_dev;
		*ino = (uint64_t)st.st_ino;
	}
	return (uint64_t)st.st_dev == *dev && (uint64_t)st.st_ino == *ino;
}

/*
 * Runs in signal context. The most the file may grow to under RLIMIT_FSIZE
 * (to when there is no limit): growing past it would raise SIGXFSZ, whose
 * default action kills the program.
 */
static uint64_t pp_logfile_size_limit_sigsafe(uint64_t to)
{
	struct rlimit lim;

	if (syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &lim) != 0 ||
	    lim.rlim_cur == RLIM_INFINITY || (uint64_t)lim.rlim_cur >= to)
		return to;
	return (uint64_t)lim.rlim_cur;
}

/*
 * Runs in signal context. Grows the file to `to` with zeros written at its
 * end, which allocates the blocks now; log->size follows what was written,
 * so a short write on a full disk still leaves every byte up to size
 * allocated. Returns 0 or a negative errno.
 */
static int pp_logfile_write_zeros_sigsafe(struct pp_logfile *log, int fd, uint64_t to)
{
	for (int i = 0; i < PP_LOGFILE_ZERO_WRITES && log->size < to; i++) {
		uint64_t len = to - log->size;
		long n = syscall(SYS_pwrite64, fd, pp_logfile_zeros,
				 len < PP_LOGFILE_STEP ? len : PP_LOGFILE_STEP,
				 (off_t)log->size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		log->size += (uint64_t)n;
	}
	return log->size < to ? -ENOSPC : 0;
}

/*
 * Runs in signal context. Allocates the file up to at least want bytes, a
 * step at a time, and faults the new pages in while at it: one batch costs
 * less than a write fault per page in later samples. A failure marks the
 * log full: it is not tried again.
 */
static int pp_logfile_allocate_sigsafe(struct pp_logfile *log, int fd, uint64_t want)
{
	uint64_t from = log->size;
	uint64_t step = log->size / 4 / PP_LOGFILE_MIN_STEP * PP_LOGFILE_MIN_STEP;
	uint64_t to;
	int err = 0;

	/* A quarter of the file: a short log stays small, a long one grows in few steps. */
	if (step < PP_LOGFILE_MIN_STEP)
		step = PP_LOGFILE_MIN_STEP;
	if (step > PP_LOGFILE_STEP)
		step = PP_LOGFILE_STEP;
	to = pp_logfile_size_limit_sigsafe((want + step - 1) / step * step);

	if (to < want)
		err = -EFBIG;
	else if (to <= log->size)
		return 0;
	else if (syscall(SYS_fallocate, fd, 0, (off_t)log->size,
			 (off_t)(to - log->size)) == 0)
		log->size = to;
	else if (errno == EOPNOTSUPP || errno == ENOSYS)
		err = pp_logfile_write_zeros_sigsafe(log, fd, to);
	else
		err = -errno;
	from &= ~(uint64_t)(PP_LOGFILE_PAGE - 1);
	if (log->map && log->size > from && log->size <= log->map_off + log->map_len)
		/* Kernels before 5.14 lack it: pages then fault on first write. */
		madvise(log->map + (from - log->map_off), log->size - from,
			MADV_POPULATE_WRITE);
	if (err)
		log->full = err;
	return err;
}

/*
 * Runs in signal context. Maps a window of address space starting at the
 * page of `used`, large enough to reach need; the file behind it grows by
 * steps within the window.
 */
static int pp_logfile_map_sigsafe(struct pp_logfile *log, int fd, uint64_t need)
{
	uint64_t off = log->used & ~(uint64_t)(PP_LOGFILE_PAGE - 1);
	uint64_t len = pp_logfile_window_sigsafe();
	void *p;

	if (need - off > len)
		len = (need - off + PP_LOGFILE_PAGE - 1) / PP_LOGFILE_PAGE * PP_LOGFILE_PAGE;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	if (log->map)
		munmap(log->map, log->map_len);
	log->map = p;
	log->map_off = off;
	log->map_len = len;
	return 0;
}

/*
 * Runs in signal context. Makes [used, need) mapped and allocated; the one
 * place that maps or grows the file, so the one place that checks it is
 * still ours.
 */
static int pp_logfile_make_room_sigsafe(struct pp_logfile *log, uint64_t need)
{
	int err = 0, fd;

	if (need <= log->size && need <= log->map_off + log->map_len)
		return 0;
	if (need > log->size && log->full)
		return log->full;
	/* Not opened again (out of descriptors, say): this record is lost, not the log. */
	fd = pp_logfile_get_fd_sigsafe(log);
	if (fd < 0)
		return fd;
	if (need > log->map_off + log->map_len)
		err = pp_logfile_map_sigsafe(log, fd, need);
	if (!err && need > log->size)
		err = pp_logfile_allocate_sigsafe(log, fd, need);
	pp_logfile_put_fd_sigsafe(log, fd);
	return err;
}

/* Runs in signal context. */
void pp_logfile_header_sigsafe(struct ppf_file_header *hdr, unsigned kind)
{
	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr->magic, PPF_MAGIC, PPF_MAGIC_LEN);
	hdr->byte_order = PPF_BYTE_ORDER_MARK;
	hdr->version = PPF_VERSION;
	hdr->kind = (uint16_t)kind;
	hdr->header_size = sizeof(*hdr);
}

/* Runs in signal context. */
int pp_logfile_create_sigsafe(struct pp_logfile *log, int dirfd, const char *name,
			      unsigned kind)
{
	struct ppf_file_header hdr;
	int err;

	pp_logfile_init_sigsafe(log);
	/*
	 * The raw system call: glibc's openat is a cancellation point, and a
	 * thread adopted inside the handler with a deferred cancellation
	 * pending would be unwound out of it with its slot busy.
	 */
	log->fd = (int)syscall(SYS_openat, dirfd, name,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (log->fd < 0) {
		err = -errno;
		if (err == -ENOSPC || err == -EDQUOT)
			pp_logfile_say_full_sigsafe(err);
		return err;
	}
	log->fd = pp_fd_move_high_sigsafe(log->fd);
	/* Its first check also notes the file's identity (dev, ino still 0). */
	err = pp_logfile_make_room_sigsafe(log, sizeof(hdr) + sizeof(struct ppf_record) +
					      PP_LOGFILE_KEEP);
	if (err) {
		if (log->full)
			pp_logfile_say_full_sigsafe(err);
		goto out_unlink;
	}
	pp_logfile_header_sigsafe(&hdr, kind);
	memcpy(log->map, &hdr, sizeof(hdr));
	log->used = sizeof(hdr);
	return 0;

out_unlink:
	if (log->map)
		munmap(log->map, log->map_len);
	pp_fd_close_sigsafe(log->fd);
	unlinkat(dirfd, name, 0);
	pp_logfile_init_sigsafe(log);
	return err;
}

/*
 * Runs in signal context. The log could not grow: a PPF_REC_LOG_FULL record
 * goes into the room kept for closing records, and the process's first
 * full log says so.
 */
static void pp_logfile_mark_full_sigsafe(struct pp_logfile *log)
{
	struct ppf_log_full rec = { .h = { PPF_REC_LOG_FULL, sizeof(rec) } };
	struct timespec ts;
	uint8_t *dst;

	if (pp_logfile_make_room_sigsafe(log, log->used + sizeof(rec) +
					   sizeof(struct ppf_record)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		rec.time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		rec.error = -log->full;
		dst = log->map + (log->used - log->map_off);
		memcpy(dst + sizeof(rec.h), (const uint8_t *)&rec + sizeof(rec.h),
		       sizeof(rec) - sizeof(rec.h));
		pp_logfile_commit_sigsafe(log, dst, PPF_REC_LOG_FULL, sizeof(rec));
	}
	pp_logfile_say_full_sigsafe(log->full);
}

/*
 * Runs in signal context. The open record, if any, is set to the size it
 * holds: another record goes after it.
 */
static void pp_logfile_close_open_sigsafe(struct pp_logfile *log)
{
	struct ppf_record *h = pp_logfile_open_record_sigsafe(log);

	if (h)
		__atomic_store_n(&h->size, (uint32_t)(log->used - log->open_off),
				 __ATOMIC_RELEASE);
	log->open_off = 0;
}

/* Runs in signal context. */
void *pp_logfile_reserve_sigsafe(struct pp_logfile *log, uint32_t size)
{
	uint64_t keep = log->closing ? 0 : PP_LOGFILE_KEEP;
	int was_full = log->full;

	pp_logfile_close_open_sigsafe(log);

	if (!log->map || size < sizeof(struct ppf_record) ||
	    size > PPF_RECORD_MAX || size % PPF_RECORD_ALIGN ||
	    (was_full && !log->closing))
		return NULL;
	/* Keep a zero header after every record: it marks the end. */
	if (pp_logfile_make_room_sigsafe(log, log->used + size + keep +
					   sizeof(struct ppf_record)) != 0) {
		if (!was_full && log->full)
			pp_logfile_mark_full_sigsafe(log);
		return NULL;
	}
	return log->map + (log->used - log->map_off);
}

/* Runs in signal context. */
void pp_logfile_commit_sigsafe(struct pp_logfile *log, void *rec, uint32_t type,
			       uint32_t size)
{
	struct ppf_record *h = rec;

	h->size = size;
	/* The type goes last: a reader that sees it sees the whole record. */
	__atomic_store_n(&h->type, type, __ATOMIC_RELEASE);
	log->used += size;
}

/* Runs in signal context. */
void pp_logfile_commit_open_sigsafe(struct pp_logfile *log, void *rec, uint32_t type,
				    uint32_t room, uint32_t head)
{
	uint64_t off = log->map_off + (uint64_t)((uint8_t *)rec - log->map);

	pp_logfile_commit_sigsafe(log, rec, type, room);
	log->used = off + head;
	log->open_off = off;
}

/* Runs in signal context. */
void *pp_logfile_open_record_sigsafe(struct pp_logfile *log)
{
	/* Reserved within the mapping in force: it changes only in a reserve. */
	return log->open_off && log->map ? log->map + (log->open_off - log->map_off) : NULL;
}

/* Runs in signal context. */
void pp_logfile_grow_sigsafe(struct pp_logfile *log, uint32_t n)
{
	log->used += n;
}

/* Runs in signal context. */
int pp_logfile_append_sigsafe(struct pp_logfile *log, const void *rec, uint32_t size)
{
	const struct ppf_record *src = rec;
	uint8_t *dst = pp_logfile_reserve_sigsafe(log, size);

	if (!dst)
		return -ENOSPC;
	memcpy(dst + sizeof(*src), (const uint8_t *)rec + sizeof(*src),
	       size - sizeof(*src));
	pp_logfile_commit_sigsafe(log, dst, src->type, size);
	return 0;
}

/* Runs in signal context. */
int pp_logfile_rewrite_sigsafe(struct pp_logfile *log, uint64_t off, const void *data,
			       uint32_t len)
{
	long n;

	if (off + len > log->used)
		return -EINVAL;
	if (log->map && off >= log->map_off && off + len <= log->map_off + log->map_len) {
		memcpy(log->map + (off - log->map_off), data, len);
		return 0;
	}
	if (log->fd < 0 || !pp_logfile_fd_ours_sigsafe(log))
		return -EBADF;
	n = syscall(SYS_pwrite64, log->fd, data, (size_t)len, (off_t)off);
	return n == (long)len ? 0 : n < 0 ? -errno : -EIO;
}

/* Runs in signal context. */
void pp_logfile_closing_sigsafe(struct pp_logfile *log)
{
	log->closing = 1;
}

/* Set once the process ends: logs closed from then on keep their mappings. */
static int pp_logfile_ending;

/* Async-signal-safe. */
void pp_logfile_process_ends_sigsafe(int ending)
{
	__atomic_store_n(&pp_logfile_ending, ending, __ATOMIC_RELEASE);
}

/* Runs in signal context. Unmaps (when unmap is set) and closes. */
static void pp_logfile_release_sigsafe(struct pp_logfile *log, int unmap)
{
	if (log->map && unmap)
		munmap(log->map, log->map_len);
	if (log->fd >= 0 && pp_logfile_fd_ours_sigsafe(log))
		pp_fd_close_sigsafe(log->fd);
	pp_logfile_init_sigsafe(log);
}

/* Runs in signal context. */
void pp_logfile_forget_sigsafe(struct pp_logfile *log)
{
	pp_logfile_release_sigsafe(log, 1);
}

/*
 * Runs in signal context. Cuts the file at its last record: the allocated
 * tail (zeros, up to a step and the room kept for closing records) is
 * given back, so a finished log is as long as what it holds. Measured per
 * file: ~4 us on tmpfs, ~35 us of CPU (~57 us of wall time) on ext4, where
 * freeing blocks waits for no journal commit unless one is writing the
 * file's data at that moment. A log that cannot be opened again (its
 * directory gone, out of descriptors) keeps its tail: readers stop at a
 * zero record header or at the end of the file alike.
 */
static void pp_logfile_trim_sigsafe(struct pp_logfile *log)
{
	int fd;

	if (!log->map || log->used >= log->size)
		return;
	fd = pp_logfile_get_fd_sigsafe(log);
	if (fd < 0)
		return;
	if (syscall(SYS_ftruncate, fd, (off_t)log->used) == 0)
		log->size = log->used;
	pp_logfile_put_fd_sigsafe(log, fd);
}

/* Runs in signal context. */
void pp_logfile_close_sigsafe(struct pp_logfile *log)
{
	pp_logfile_close_open_sigsafe(log);
	pp_logfile_trim_sigsafe(log);
	pp_logfile_release_sigsafe(log, !__atomic_load_n(&pp_logfile_ending, __ATOMIC_ACQUIRE));
}

/* Runs in signal context. */
void pp_logfile_format_name_sigsafe(char *buf, const char *prefix, uint64_t n,
				    const char *suffix)
{
	char digits[24];
	size_t nd = 0, len = strlen(prefix);

	memcpy(buf, prefix, len);
	do {
		digits[nd++] = (char)('0' + n % 10);
		n /= 10;
	} while (n && nd < sizeof(digits));
	while (nd)
		buf[len++] = digits[--nd];
	memcpy(buf + len, suffix, strlen(suffix) + 1);
}
