/* Keeping the profiler's descriptors high and out of the program's way; see fd.h. */
#include "fd.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What each registered number named when it was registered. */
struct pp_fd_entry {
	uint64_t dev;
	uint64_t ino;
	int used; /* atomic: set last, cleared first */
	int tag;  /* atomic: what the owner said it is (pp_fd_tag_sigsafe) */
	void *data; /* the owner's, with the tag */
};

static struct pp_fd_entry pp_fd_reg[PP_FD_REG_MAX];
static unsigned pp_fd_top; /* atomic: above every number ever registered */

/* Runs in signal context. */
void pp_fd_own_sigsafe(int fd)
{
	struct stat st;
	unsigned top;

	if (fd < 0 || fd >= PP_FD_REG_MAX || fstat(fd, &st) != 0)
		return;
	__atomic_store_n(&pp_fd_reg[fd].used, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pp_fd_reg[fd].tag, 0, __ATOMIC_RELEASE);
	pp_fd_reg[fd].dev = (uint64_t)st.st_dev;
	pp_fd_reg[fd].ino = (uint64_t)st.st_ino;
	__atomic_store_n(&pp_fd_reg[fd].used, 1, __ATOMIC_RELEASE);
	top = __atomic_load_n(&pp_fd_top, __ATOMIC_RELAXED);
	while ((unsigned)fd >= top &&
	       !__atomic_compare_exchange_n(&pp_fd_top, &top, (unsigned)fd + 1, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Runs in signal context. */
int pp_fd_move_high_sigsafe(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, PP_FD_MIN);

	if (high < 0) {
		pp_fd_own_sigsafe(fd);
		return fd;
	}
	syscall(SYS_close, fd);
	pp_fd_own_sigsafe(high);
	return high;
}

/* Runs in signal context. */
void pp_fd_close_sigsafe(int fd)
{
	if (fd >= 0 && fd < PP_FD_REG_MAX) {
		__atomic_store_n(&pp_fd_reg[fd].tag, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&pp_fd_reg[fd].used, 0, __ATOMIC_RELEASE);
	}
	syscall(SYS_close, fd);
}

/* Runs in signal context. */
int pp_fd_ours_sigsafe(int fd)
{
	struct pp_fd_entry *e;
	struct stat st;

	if (fd < 0 || fd >= PP_FD_REG_MAX)
		return 0;
	e = &pp_fd_reg[fd];
	if (!__atomic_load_n(&e->used, __ATOMIC_ACQUIRE))
		return 0;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == e->dev &&
	    (uint64_t)st.st_ino == e->ino)
		return 1;
	__atomic_store_n(&e->used, 0, __ATOMIC_RELEASE);
	return 0;
}

/* Runs in signal context. */
int pp_fd_next_ours_sigsafe(unsigned lo, unsigned hi)
{
	unsigned top = __atomic_load_n(&pp_fd_top, __ATOMIC_RELAXED);

	for (unsigned fd = lo; fd <= hi && fd < top; fd++)
		if (pp_fd_ours_sigsafe((int)fd))
			return (int)fd;
	return -1;
}

/* Runs in signal context. */
void pp_fd_tag_sigsafe(int fd, int tag, void *data)
{
	if (fd < 0 || fd >= PP_FD_REG_MAX ||
	    !__atomic_load_n(&pp_fd_reg[fd].used, __ATOMIC_ACQUIRE))
		return;
	pp_fd_reg[fd].data = data;
	__atomic_store_n(&pp_fd_reg[fd].tag, tag, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_fd_tag_of_sigsafe(int fd, void **data)
{
	int tag;

	if (fd < 0 || fd >= PP_FD_REG_MAX ||
	    !__atomic_load_n(&pp_fd_reg[fd].used, __ATOMIC_ACQUIRE))
		return 0;
	tag = __atomic_load_n(&pp_fd_reg[fd].tag, __ATOMIC_ACQUIRE);
	if (data)
		*data = tag ? pp_fd_reg[fd].data : NULL;
	return tag;
}
