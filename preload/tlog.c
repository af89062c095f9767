/*
 * Log files as shared file mappings. A window of address space is mapped
 * over the file, and the file is allocated a step at a time with fallocate,
 * so a full disk fails here, at allocation, and never as a SIGBUS on a later
 * store (nothing past the allocated size is ever touched). Only raw
 * syscalls: this runs in signal context.
 */
#include "tlog.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "pprof/format.h"

#define PP_TLOG_PAGE 4096u

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static uint64_t pp_tlog_window = PP_TLOG_WINDOW; /* atomic */

/* Runs in signal context. */
void pp_tlog_set_window_sigsafe(uint64_t bytes)
{
	bytes = (bytes + PP_TLOG_PAGE - 1) / PP_TLOG_PAGE * PP_TLOG_PAGE;
	__atomic_store_n(&pp_tlog_window, bytes ? bytes : PP_TLOG_PAGE, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
uint64_t pp_tlog_window_sigsafe(void)
{
	return __atomic_load_n(&pp_tlog_window, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
void pp_tlog_init_sigsafe(struct pp_tlog *log)
{
	memset(log, 0, sizeof(*log));
	log->fd = -1;
}

/*
 * Runs in signal context. Whether fd is still our file: the app may close
 * every descriptor it did not open and reuse the number for its own file,
 * which we must then never grow, truncate or close.
 */
static int pp_tlog_fd_ours_sigsafe(struct pp_tlog *log)
{
	return pp_tlog_same_file_sigsafe(log->fd, &log->dev, &log->ino);
}

/* Runs in signal context. */
int pp_tlog_same_file_sigsafe(int fd, uint64_t *dev, uint64_t *ino)
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
 * Runs in signal context. Allocates the file up to at least want bytes, a
 * step at a time, and faults the new pages in while at it: one batch costs
 * less than a write fault per page in later samples.
 */
static int pp_tlog_allocate_sigsafe(struct pp_tlog *log, uint64_t want)
{
	uint64_t to = (want + PP_TLOG_STEP - 1) / PP_TLOG_STEP * PP_TLOG_STEP;

	if (to <= log->size)
		return 0;
	if (syscall(SYS_fallocate, log->fd, 0, (off_t)log->size,
		    (off_t)(to - log->size)) != 0) {
		/* Filesystems without fallocate: a sparse file still works. */
		if (errno != EOPNOTSUPP || ftruncate(log->fd, (off_t)to) != 0)
			return -errno;
	}
	if (log->map && to <= log->map_off + log->map_len)
		/* Kernels before 5.14 lack it: pages then fault on first write. */
		madvise(log->map + (log->size - log->map_off),
			to - log->size, MADV_POPULATE_WRITE);
	log->size = to;
	return 0;
}

/*
 * Runs in signal context. Maps a window of address space starting at the
 * page of `used`, large enough to reach need; the file behind it grows by
 * steps within the window.
 */
static int pp_tlog_map_sigsafe(struct pp_tlog *log, uint64_t need)
{
	uint64_t off = log->used & ~(uint64_t)(PP_TLOG_PAGE - 1);
	uint64_t len = pp_tlog_window_sigsafe();
	void *p;

	if (need - off > len)
		len = (need - off + PP_TLOG_PAGE - 1) / PP_TLOG_PAGE * PP_TLOG_PAGE;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, log->fd, (off_t)off);
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
static int pp_tlog_make_room_sigsafe(struct pp_tlog *log, uint64_t need)
{
	int err = 0;

	if (need <= log->size && need <= log->map_off + log->map_len)
		return 0;
	if (!pp_tlog_fd_ours_sigsafe(log))
		return -EBADF;
	if (need > log->map_off + log->map_len)
		err = pp_tlog_map_sigsafe(log, need);
	if (!err && need > log->size)
		err = pp_tlog_allocate_sigsafe(log, need);
	return err;
}

/* Runs in signal context. */
int pp_tlog_create_sigsafe(struct pp_tlog *log, int dirfd, const char *name,
			   unsigned kind)
{
	struct ppf_file_header hdr;
	int err;

	pp_tlog_init_sigsafe(log);
	/*
	 * The raw system call: glibc's openat is a cancellation point, and a
	 * thread adopted inside the handler with a deferred cancellation
	 * pending would be unwound out of it with its slot busy.
	 */
	log->fd = (int)syscall(SYS_openat, dirfd, name,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (log->fd < 0)
		return -errno;
	log->fd = pp_fd_move_high_sigsafe(log->fd);
	/* Its first check also notes the file's identity (dev, ino still 0). */
	err = pp_tlog_make_room_sigsafe(log, sizeof(hdr) + PPF_RECORD_ALIGN);
	if (err)
		goto out_unlink;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, PPF_MAGIC, PPF_MAGIC_LEN);
	hdr.byte_order = PPF_BYTE_ORDER_MARK;
	hdr.version = PPF_VERSION;
	hdr.kind = (uint16_t)kind;
	hdr.header_size = sizeof(hdr);
	memcpy(log->map, &hdr, sizeof(hdr));
	log->used = sizeof(hdr);
	return 0;

out_unlink:
	if (log->map)
		munmap(log->map, log->map_len);
	pp_fd_close_sigsafe(log->fd);
	unlinkat(dirfd, name, 0);
	pp_tlog_init_sigsafe(log);
	return err;
}

/* Runs in signal context. */
void *pp_tlog_reserve_sigsafe(struct pp_tlog *log, uint32_t size)
{
	if (!log->map || size < sizeof(struct ppf_record) ||
	    size > PPF_RECORD_MAX || size % PPF_RECORD_ALIGN)
		return NULL;
	/* Keep a zero header after every record: it marks the end. */
	if (pp_tlog_make_room_sigsafe(log, log->used + size +
					   sizeof(struct ppf_record)) != 0)
		return NULL;
	return log->map + (log->used - log->map_off);
}

/* Runs in signal context. */
void pp_tlog_commit_sigsafe(struct pp_tlog *log, void *rec, uint32_t type,
			    uint32_t size)
{
	struct ppf_record *h = rec;

	h->size = size;
	/* The type goes last: a reader that sees it sees the whole record. */
	__atomic_store_n(&h->type, type, __ATOMIC_RELEASE);
	log->used += size;
}

/* Runs in signal context. */
int pp_tlog_append_sigsafe(struct pp_tlog *log, const void *rec, uint32_t size)
{
	const struct ppf_record *src = rec;
	uint8_t *dst = pp_tlog_reserve_sigsafe(log, size);

	if (!dst)
		return -ENOSPC;
	memcpy(dst + sizeof(*src), (const uint8_t *)rec + sizeof(*src),
	       size - sizeof(*src));
	pp_tlog_commit_sigsafe(log, dst, src->type, size);
	return 0;
}

/* Runs in signal context. */
void pp_tlog_forget_sigsafe(struct pp_tlog *log)
{
	if (log->map)
		munmap(log->map, log->map_len);
	if (pp_tlog_fd_ours_sigsafe(log))
		pp_fd_close_sigsafe(log->fd);
	pp_tlog_init_sigsafe(log);
}

/*
 * Runs in signal context. The file keeps its allocated tail (zeros, less
 * than a step): trimming it would free blocks, and on ext4 that waits for a
 * journal commit, about 4 ms for every thread that ends.
 */
void pp_tlog_close_sigsafe(struct pp_tlog *log)
{
	pp_tlog_forget_sigsafe(log);
}

/* Runs in signal context. */
void pp_tlog_format_name_sigsafe(char *buf, const char *prefix, uint64_t n,
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
