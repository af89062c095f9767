/* jitmap: a JIT's perf map kept with the run; see jitmap.h. */
#include "jitmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pprof/format.h>

/* The map may be written a little before the recorded start (clock ticks). */
#define PP_JITMAP_SLACK_NS 1000000000ull

/* Copies in to out from its start to its end. Returns 0 or a negative errno. */
static int pp_jitmap_copy(int in, int out)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			break;
	}
	if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -errno;
	/* File systems copy_file_range cannot span: from where it stopped. */
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -ENOSPC;
			off += w;
		}
	}
}

void pp_jitmap_keep(int rootfd, const char *name, uint64_t (*since_ns)(void))
{
	char src[64], dst[NAME_MAX + 1], tmp[NAME_MAX + 1];
	struct stat st;
	uint64_t mtime, since;
	int in, out, err;

	if (rootfd < 0 || !name || !*name)
		return;
	snprintf(src, sizeof(src), "/tmp/perf-%d.map", (int)getpid());
	in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return;
	mtime = fstat(in, &st) == 0 ? (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
					      (uint64_t)st.st_mtim.tv_nsec : 0;
	since = mtime ? since_ns() : 0;
	if (!mtime || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    mtime + PP_JITMAP_SLACK_NS < since ||
	    snprintf(dst, sizeof(dst), "%s%s", name, PPF_PERFMAP_SUFFIX) >= (int)sizeof(dst) ||
	    snprintf(tmp, sizeof(tmp), ".%s.tmp", dst) >= (int)sizeof(tmp)) {
		close(in);
		return;
	}
	out = openat(rootfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	err = out < 0 ? -errno : pp_jitmap_copy(in, out);
	close(in);
	if (out < 0)
		return;
	if (close(out) != 0 && !err)
		err = -errno;
	if (err || renameat(rootfd, tmp, rootfd, dst) != 0)
		unlinkat(rootfd, tmp, 0);
}
