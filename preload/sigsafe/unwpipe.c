/* unwpipe: libunwind's pipe out of the program's descriptors; see unwpipe.h. */
#include "unwpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"

/* libunwind.so.8 (the handler's) and libunwind-x86_64.so.8 (wall.c's). */
#define PP_UNWPIPE_MAX 4

static struct {
	uintptr_t lo, hi;
} pp_unwpipe_code[PP_UNWPIPE_MAX];
static unsigned pp_unwpipe_n; /* atomic: entries filled */

/* Async-signal-safe. */
void pp_unwpipe_add_code_sigsafe(uintptr_t lo, uintptr_t hi)
{
	unsigned n = __atomic_load_n(&pp_unwpipe_n, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (pp_unwpipe_code[i].lo == lo && pp_unwpipe_code[i].hi == hi)
			return;
	if (n == PP_UNWPIPE_MAX || lo >= hi)
		return;
	/* Registered by the constructor and wall.c's loader, one at a time. */
	pp_unwpipe_code[n].lo = lo;
	pp_unwpipe_code[n].hi = hi;
	__atomic_store_n(&pp_unwpipe_n, n + 1, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_unwpipe_from_libunwind_sigsafe(const void *caller)
{
	unsigned n = __atomic_load_n(&pp_unwpipe_n, __ATOMIC_ACQUIRE);
	uintptr_t pc = (uintptr_t)caller;

	for (unsigned i = 0; i < n; i++)
		if (pc >= pp_unwpipe_code[i].lo && pc < pp_unwpipe_code[i].hi)
			return 1;
	return 0;
}

/* The tag (fd.h) of the descriptors libunwind made through us: its pipe, the files it opens. */
#define PP_UNWPIPE_TAG (-1)

/* Runs in signal context. Moves libunwind's new descriptor above the program's, tagged as its. */
static int pp_unwpipe_own_sigsafe(int fd)
{
	fd = pp_fd_move_high_sigsafe(fd);
	pp_fd_tag_sigsafe(fd, PP_UNWPIPE_TAG, NULL);
	return fd;
}

/*
 * Runs in signal context. Whether libunwind may use fd: one it made through
 * us and that still is that one (the program's dup2 over the number makes
 * it the program's: the tag stays, the check fails); or one that was never
 * the profiler's, a pipe libunwind made before its code was registered (a
 * library's constructor unwound before ours ran), used as before; or a
 * number the registry cannot hold (fd.h), taken on trust. Not another of
 * the profiler's descriptors at a number libunwind once had.
 */
static int pp_unwpipe_its_sigsafe(int fd)
{
	if (fd < 0 || fd >= PP_FD_REG_MAX)
		return 1;
	if (pp_fd_registered_sigsafe(fd))
		return pp_fd_tag_of_sigsafe(fd, NULL) == PP_UNWPIPE_TAG && pp_fd_ours_sigsafe(fd);
	return pp_fd_last_tag_sigsafe(fd) != PP_UNWPIPE_TAG;
}

/* Runs in signal context. */
int pp_unwpipe_pipe2_sigsafe(int fds[2], int flags, const void *caller)
{
	long ret = syscall(SYS_pipe2, fds, flags);

	if (ret == 0 && pp_unwpipe_from_libunwind_sigsafe(caller)) {
		fds[0] = pp_unwpipe_own_sigsafe(fds[0]);
		fds[1] = pp_unwpipe_own_sigsafe(fds[1]);
	}
	return (int)ret;
}

/* Runs in signal context. */
int pp_unwpipe_open_sigsafe(const char *path, int flags, unsigned mode)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, flags, mode);

	return fd < 0 ? -1 : pp_unwpipe_own_sigsafe((int)fd);
}

/* Runs in signal context. */
ssize_t pp_unwpipe_read_sigsafe(int fd, void *buf, size_t n)
{
	if (!pp_unwpipe_its_sigsafe(fd)) {
		errno = EBADF;
		return -1;
	}
	return syscall(SYS_read, fd, buf, n);
}

/* Runs in signal context. */
ssize_t pp_unwpipe_write_sigsafe(int fd, const void *buf, size_t n)
{
	if (!pp_unwpipe_its_sigsafe(fd)) {
		errno = EBADF;
		return -1;
	}
	return syscall(SYS_write, fd, buf, n);
}

/* Runs in signal context. */
int pp_unwpipe_close_sigsafe(int fd)
{
	if (!pp_unwpipe_its_sigsafe(fd)) {
		errno = EBADF;
		return -1;
	}
	if (fd < PP_FD_REG_MAX) {
		pp_fd_close_sigsafe(fd);
		return 0;
	}
	return (int)syscall(SYS_close, fd);
}
