/* regfile: opening only regular files, never blocking; see regfile.h. */
#include "regfile.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

const char *pa_regfile_kind(mode_t mode)
{
	return S_ISREG(mode) ? "a regular file" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" :
	       S_ISLNK(mode) ? "a symbolic link" : "of an unknown kind";
}

/*
 * openat(path, flags) and fstat: the descriptor when it is a regular file;
 * else closed, and PA_REGFILE_NOT_REGULAR or a negative errno. openat,
 * not open: in pprof-analyze, open is analyze/openguard.c's, which calls
 * this.
 */
static int pa_regfile_try(const char *path, int flags, struct stat *st)
{
	int fd = openat(AT_FDCWD, path, flags);
	int ret = fd;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		ret = -errno;
	else if (!S_ISREG(st->st_mode))
		ret = PA_REGFILE_NOT_REGULAR;
	if (ret < 0)
		close(fd);
	return ret;
}

int pa_regfile_open(const char *path, int flags, struct stat *st, struct pa_error *err)
{
	struct stat own;
	int fd;

	if (!st)
		st = &own;
	fd = pa_regfile_try(path, O_PATH | O_CLOEXEC | flags, st);
	if (fd >= 0) {
		close(fd);
		fd = pa_regfile_try(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags, st);
	}
	if (fd == PA_REGFILE_NOT_REGULAR)
		return pa_error_set(err, fd, path, false, 0, "is %s, not a regular file",
				    pa_regfile_kind(st->st_mode));
	if (fd < 0)
		return pa_error_set(err, fd, path, false, 0, "cannot open: %s", strerror(-fd));
	return fd;
}
