/* Keeping the profiler's descriptors high and out of the program's way; see fd.h. */
#include "fd.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/mman.h>
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

/*
 * Entries per chunk of the registry. Chunks are mapped when a number in them
 * is first registered (in practice one, for the numbers from PP_FD_MIN up):
 * the whole registry (2 MiB) would count against RLIMIT_AS.
 */
#define PP_FD_CHUNK 1024

/* Atomic: the chunks, NULL until a number in them is registered; never unmapped. */
static struct pp_fd_entry *pp_fd_chunks[PP_FD_REG_MAX / PP_FD_CHUNK];
static unsigned pp_fd_top; /* atomic: above every number ever registered */

/* Runs in signal context. fd's entry, NULL when fd is out of range or its chunk unmapped. */
static struct pp_fd_entry *pp_fd_entry_sigsafe(int fd)
{
	struct pp_fd_entry *chunk;

	if (fd < 0 || fd >= PP_FD_REG_MAX)
		return NULL;
	chunk = __atomic_load_n(&pp_fd_chunks[fd / PP_FD_CHUNK], __ATOMIC_ACQUIRE);
	return chunk ? &chunk[fd % PP_FD_CHUNK] : NULL;
}

/*
 * Runs in signal context. fd's entry, its chunk mapped if need be (another
 * thread may map it at the same time: one mapping wins). NULL without memory.
 */
static struct pp_fd_entry *pp_fd_entry_make_sigsafe(int fd)
{
	size_t len = PP_FD_CHUNK * sizeof(struct pp_fd_entry);
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd), *mine, *none = NULL;

	if (e || fd < 0 || fd >= PP_FD_REG_MAX)
		return e;
	mine = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mine == MAP_FAILED)
		return NULL;
	if (!__atomic_compare_exchange_n(&pp_fd_chunks[fd / PP_FD_CHUNK], &none, mine, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		munmap(mine, len);
	return pp_fd_entry_sigsafe(fd);
}

/* Runs in signal context. */
void pp_fd_own_sigsafe(int fd)
{
	struct pp_fd_entry *e;
	struct stat st;
	unsigned top;

	if (fd < 0 || fd >= PP_FD_REG_MAX || fstat(fd, &st) != 0 ||
	    !(e = pp_fd_entry_make_sigsafe(fd)))
		return;
	__atomic_store_n(&e->used, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&e->tag, 0, __ATOMIC_RELEASE);
	e->dev = (uint64_t)st.st_dev;
	e->ino = (uint64_t)st.st_ino;
	__atomic_store_n(&e->used, 1, __ATOMIC_RELEASE);
	top = __atomic_load_n(&pp_fd_top, __ATOMIC_RELAXED);
	while ((unsigned)fd >= top &&
	       !__atomic_compare_exchange_n(&pp_fd_top, &top, (unsigned)fd + 1, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Runs in signal context. */
/* The calling thread's table is its own (pp_fd_table_private_sigsafe). */
static __thread int pp_fd_private __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
void pp_fd_table_private_sigsafe(void)
{
	pp_fd_private = 1;
}

int pp_fd_move_high_sigsafe(int fd)
{
	int high;

	/* Numbers there name nothing in the program's table: neither moved nor registered. */
	if (pp_fd_private)
		return fd;
	high = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, PP_FD_MIN);

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
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);

	if (e) {
		__atomic_store_n(&e->tag, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&e->used, 0, __ATOMIC_RELEASE);
	}
	syscall(SYS_close, fd);
}

/* Runs in signal context. */
void pp_fd_disown_sigsafe(int fd)
{
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);

	/* As pp_fd_ours_sigsafe drops a number found reused: its tag kept. */
	if (e)
		__atomic_store_n(&e->used, 0, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_fd_registered_sigsafe(int fd)
{
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);

	return e && __atomic_load_n(&e->used, __ATOMIC_ACQUIRE);
}

/* Runs in signal context. */
int pp_fd_last_tag_sigsafe(int fd)
{
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);

	return e ? __atomic_load_n(&e->tag, __ATOMIC_ACQUIRE) : 0;
}

/* Runs in signal context. */
void pp_fd_close_ours_sigsafe(int fd)
{
	if (pp_fd_ours_sigsafe(fd))
		pp_fd_close_sigsafe(fd);
}

/* Runs in signal context. */
int pp_fd_ours_sigsafe(int fd)
{
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);
	struct stat st;

	if (!e || !__atomic_load_n(&e->used, __ATOMIC_ACQUIRE))
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
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);

	if (!e || !__atomic_load_n(&e->used, __ATOMIC_ACQUIRE))
		return;
	e->data = data;
	__atomic_store_n(&e->tag, tag, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_fd_tag_of_sigsafe(int fd, void **data)
{
	struct pp_fd_entry *e = pp_fd_entry_sigsafe(fd);
	int tag;

	if (!e || !__atomic_load_n(&e->used, __ATOMIC_ACQUIRE))
		return 0;
	tag = __atomic_load_n(&e->tag, __ATOMIC_ACQUIRE);
	if (data)
		*data = tag ? e->data : NULL;
	return tag;
}

/* Runs in signal context. */
int pp_fd_tevent_ours_sigsafe(const struct pp_tevents *te, unsigned i)
{
	uint64_t id;

	if (!(te->open & (1u << i)))
		return 0;
	return syscall(SYS_ioctl, te->fd[i], PERF_EVENT_IOC_ID, &id) == 0 && id == te->id[i];
}

/* Runs in signal context. */
void pp_fd_tevents_switch_sigsafe(const struct pp_tevents *te, unsigned long cmd,
				  int counters)
{
	for (unsigned i = 0; i < PP_CONFIG_MAX_EVENTS; i++)
		if (pp_fd_tevent_ours_sigsafe(te, i) &&
		    (counters || pp_fd_tag_of_sigsafe(te->fd[i], NULL)))
			syscall(SYS_ioctl, te->fd[i], cmd, 0);
}
