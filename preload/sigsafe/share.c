/* The profiler's share of the process's limits; see share.h. */
#include "share.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PP_SHARE_PAGE 4096u

/* Held now, atomic. */
static uint64_t pp_share_bytes;
static uint64_t pp_share_fds;

/* Runs in signal context. */
uint64_t pp_share_limit_sigsafe(int resource)
{
	struct rlimit rl;

	if (syscall(SYS_prlimit64, 0, resource, NULL, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

/*
 * Runs in signal context. Adds n to *held unless that passes max; whether it
 * did.
 */
static int pp_share_add_sigsafe(uint64_t *held, uint64_t n, uint64_t max)
{
	uint64_t cur = __atomic_load_n(held, __ATOMIC_RELAXED);

	do {
		if (n > max || cur > max - n)
			return 0;
	} while (!__atomic_compare_exchange_n(held, &cur, cur + n, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

/* Runs in signal context. */
int pp_share_take_sigsafe(const struct pp_share_cost *cost)
{
	uint64_t as = pp_share_limit_sigsafe(RLIMIT_AS);
	uint64_t nofile = pp_share_limit_sigsafe(RLIMIT_NOFILE);

	if (!pp_share_add_sigsafe(&pp_share_bytes, cost->bytes,
				  as == UINT64_MAX ? UINT64_MAX : as / PP_SHARE_AS_DIV))
		return -ENOMEM;
	if (!pp_share_add_sigsafe(&pp_share_fds, cost->fds,
				  nofile == UINT64_MAX ? UINT64_MAX :
				  nofile / PP_SHARE_NOFILE_DIV)) {
		__atomic_sub_fetch(&pp_share_bytes, cost->bytes, __ATOMIC_RELAXED);
		return -EMFILE;
	}
	return 0;
}

/* Runs in signal context. */
void pp_share_give_sigsafe(const struct pp_share_cost *cost)
{
	__atomic_sub_fetch(&pp_share_bytes, cost->bytes, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&pp_share_fds, cost->fds, __ATOMIC_RELAXED);
}

/* Async-signal-safe. */
void pp_share_reset_sigsafe(void)
{
	__atomic_store_n(&pp_share_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pp_share_fds, 0, __ATOMIC_RELAXED);
}

/* Runs in signal context. The process's size in bytes, 0 if unknown. */
static uint64_t pp_share_size_sigsafe(void)
{
	char buf[128];
	uint64_t pages = 0;
	ssize_t n;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/statm",
			      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		pages = pages * 10 + (uint64_t)(buf[i] - '0');
	return pages * PP_SHARE_PAGE;
}

/* Runs in signal context. */
uint64_t pp_share_room_sigsafe(void)
{
	uint64_t limit = pp_share_limit_sigsafe(RLIMIT_AS), size;

	if (limit == UINT64_MAX || (size = pp_share_size_sigsafe()) == 0)
		return UINT64_MAX;
	return size < limit ? limit - size : 0;
}
