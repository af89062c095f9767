/* Keeping the profiler's descriptors high; see fd.h. */
#include "fd.h"

#include <fcntl.h>
#include <unistd.h>

/* Runs in signal context. */
int pp_fd_move_high_sigsafe(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, PP_FD_MIN);

	if (high < 0)
		return fd;
	close(fd);
	return high;
}
