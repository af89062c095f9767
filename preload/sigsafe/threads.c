/*
 * The thread table: slots, and an index from tid to slot. Slots are taken
 * lowest first and reused, so memory follows the number of threads alive at
 * once, not how many there ever were (tids are all different); they are
 * mapped a chunk at a time as they are first needed, so a process with few
 * threads does not reserve address space for 8,192 (16.4 MiB, 2,104 bytes a slot: it counts
 * against RLIMIT_AS whether touched or not). The index is
 * open addressing on the tid with linear probing; each entry packs the tid
 * and its slot in one word, so a lookup never sees one without the other.
 * Freed entries become tombstones so that probe chains stay intact. Every
 * loop is bounded by the table size. Runs in signal context.
 */
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fd.h"
#include "pprof/format.h"
#include "records.h"

/* Index entries: 0 free, PP_THREADS_TOMB freed, else tid | slot << 32. */
#define PP_THREADS_ENT(tid, slot) (((uint64_t)(slot) << 32) | (uint32_t)(tid))
#define PP_THREADS_TOMB PP_THREADS_ENT(-1, 0)

/* Slots per chunk: 64 of about 1 KiB. */
#define PP_THREADS_CHUNK 64

/* Atomic: the chunks of slots, NULL until first needed; never unmapped. */
static struct pp_thread *pp_threads_chunks[PP_THREADS_MAX / PP_THREADS_CHUNK];
static uint64_t pp_threads_index[PP_THREADS_MAX];
/*
 * Atomic: above every slot ever taken. Slots are taken lowest first, so the
 * walks over all slots stop here instead of touching the whole table
 * (8,192 slots of ~600 bytes: walking them at every process end cost
 * ~2 ms of page faults).
 */
static unsigned pp_threads_top;

/* Runs in signal context. Slot i, or NULL when its chunk is not mapped yet. */
static struct pp_thread *pp_threads_at_sigsafe(unsigned i)
{
	struct pp_thread *chunk = __atomic_load_n(&pp_threads_chunks[i / PP_THREADS_CHUNK],
						  __ATOMIC_ACQUIRE);

	return chunk ? &chunk[i % PP_THREADS_CHUNK] : NULL;
}

/*
 * Runs in signal context. Maps the chunk of slot i (another thread may do it
 * at the same time: one mapping wins, the other goes). Returns slot i, or
 * NULL with errno set when there is no memory for it.
 */
static struct pp_thread *pp_threads_map_chunk_sigsafe(unsigned i)
{
	size_t len = PP_THREADS_CHUNK * sizeof(struct pp_thread);
	struct pp_thread *mine = mmap(NULL, len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *none = NULL;

	if (mine == MAP_FAILED)
		return NULL;
	if (!__atomic_compare_exchange_n(&pp_threads_chunks[i / PP_THREADS_CHUNK], &none, mine,
					 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		munmap(mine, len);
	return pp_threads_at_sigsafe(i);
}

/* Runs in signal context. The tid's first place in the index. */
static unsigned pp_threads_hash_sigsafe(int tid)
{
	return ((unsigned)tid * 2654435761u) % PP_THREADS_MAX;
}

/* Runs in signal context. */
int pp_threads_gettid_sigsafe(void)
{
	return (int)syscall(SYS_gettid);
}

/* Runs in signal context. */
struct pp_thread *pp_threads_find_sigsafe(int tid)
{
	unsigned h = pp_threads_hash_sigsafe(tid);

	for (unsigned i = 0; i < PP_THREADS_MAX; i++) {
		uint64_t e = __atomic_load_n(&pp_threads_index[(h + i) % PP_THREADS_MAX],
					     __ATOMIC_ACQUIRE);
		struct pp_thread *t;

		if (e == 0)
			return NULL;
		if ((int)(uint32_t)e != tid)
			continue;
		/* A stale entry names a slot that was released (and maybe reused). */
		t = pp_threads_at_sigsafe((unsigned)(e >> 32));
		if (__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) == tid)
			return t;
	}
	return NULL;
}

/* Runs in signal context. */
static void pp_threads_raise_top_sigsafe(unsigned n)
{
	unsigned top = __atomic_load_n(&pp_threads_top, __ATOMIC_RELAXED);

	while (n > top &&
	       !__atomic_compare_exchange_n(&pp_threads_top, &top, n, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/*
 * Runs in signal context. Takes the lowest free slot for tid, busy; NULL
 * with errno ENOSPC when the table is full, or ENOMEM.
 */
static struct pp_thread *pp_threads_take_slot_sigsafe(int tid)
{
	for (unsigned i = 0; i < PP_THREADS_MAX; i++) {
		struct pp_thread *t = pp_threads_at_sigsafe(i);
		int owner;

		if (!t && !(t = pp_threads_map_chunk_sigsafe(i)))
			return NULL;
		owner = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);

		/*
		 * Only the thread itself claims its slot, so a sample can land
		 * between the exchange and the busy mark only on a closed log,
		 * which drops it.
		 */
		if ((owner == 0 || owner == -1) &&
		    __atomic_compare_exchange_n(&t->tid, &owner, tid, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			uint64_t cpu = pp_threads_cpu_sigsafe();

			__atomic_store_n(&t->busy, 1, __ATOMIC_RELEASE);
			pp_logfile_init_sigsafe(&t->log);
			pp_stacks_init_sigsafe(&t->stacks);
			t->samples = 0;
			t->lost = 0;
			t->throttled = 0;
			t->next_ns = 0;
			t->paid_ns = 0;
			t->cost_ns = 0;
			t->cpu_last_ns = cpu;
			t->cpu_last_event = 0;
			t->cpu_last_guessed = 0;
			t->cpu_guesses_left = 0;
			t->cpu_guesses_right = 0;
			t->held_since_ns = 0;
			t->held_cpu_ns = 0;
			t->holds = 0;
			t->progress_ns = 0;
			t->progress_samples = 0;
			for (unsigned e = 0; e < PP_CONFIG_MAX_EVENTS; e++) {
				t->ev_samples[e] = 0;
				t->ev_lost[e] = 0;
				t->ev_throttled[e] = 0;
				t->cpu_prev_ns[e] = cpu;
				t->wall_prev_ns[e] = 0;
				t->count_prev[e] = 0;
			}
			t->tev.open = 0;
			t->altstack = NULL;
			t->altstack_size = 0;
			t->tcb = pp_threads_tcb_sigsafe();
			t->leaf_only = 0;
			t->late_counters = 0;
			__atomic_store_n(&t->log_pending, 0, __ATOMIC_RELAXED);
			t->log_err = 0;
			t->log_fd_kept = 0;
			t->start_ns = pp_records_now_sigsafe();
			t->charge.bytes = 0;
			t->charge.fds = 0;
			t->pause.live = 0;
			t->pause.applied = 0;
			t->pause.pauses = 0;
			t->pause.paused_ns = 0;
			t->pause.cpu_ns = 0;
			t->slot = i;
			pp_threads_raise_top_sigsafe(i + 1);
			return t;
		}
	}
	errno = ENOSPC;
	return NULL;
}

/* Runs in signal context. */
uint64_t pp_threads_cpu_sigsafe(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs in signal context. */
uint64_t pp_threads_cpu_of_sigsafe(int tid)
{
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6); /* CPUCLOCK_SCHED, per thread */
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs in signal context. */
struct pp_thread *pp_threads_claim_sigsafe(int tid)
{
	struct pp_thread *t = pp_threads_take_slot_sigsafe(tid);
	unsigned h = pp_threads_hash_sigsafe(tid);

	if (!t)
		return NULL;
	for (unsigned i = 0; i < PP_THREADS_MAX; i++) {
		unsigned at = (h + i) % PP_THREADS_MAX;
		uint64_t e = __atomic_load_n(&pp_threads_index[at], __ATOMIC_ACQUIRE);

		if (e != 0 && e != PP_THREADS_TOMB)
			continue;
		if (__atomic_compare_exchange_n(&pp_threads_index[at], &e,
						PP_THREADS_ENT(tid, t->slot), 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			t->ent = at;
			return t;
		}
	}
	__atomic_store_n(&t->tid, -1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
	errno = ENOSPC;
	return NULL;
}

/* Runs in signal context. */
void pp_threads_release_sigsafe(struct pp_thread *t)
{
	/* Its log is finished or forgotten: no sample uses the table again. */
	pp_stacks_release_sigsafe(&t->stacks);
	__atomic_store_n(&pp_threads_index[t->ent], PP_THREADS_TOMB, __ATOMIC_RELEASE);
	__atomic_store_n(&t->tid, -1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_threads_enter_sigsafe(struct pp_thread *t)
{
	return __atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE) == 0;
}

/* Runs in signal context. */
void pp_threads_leave_sigsafe(struct pp_thread *t)
{
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
void pp_threads_each_sigsafe(void (*fn)(struct pp_thread *t, void *arg),
			     void *arg)
{
	unsigned top = __atomic_load_n(&pp_threads_top, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < top; i++) {
		struct pp_thread *t = pp_threads_at_sigsafe(i);

		if (t && __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) > 0)
			fn(t, arg);
	}
}

/* Runs in signal context. */
uintptr_t pp_threads_tcb_sigsafe(void)
{
	uintptr_t tcb;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
	return tcb;
}

/* Runs in signal context. */
int pp_threads_tcb_shared_sigsafe(uintptr_t tcb, int tid)
{
	unsigned top = __atomic_load_n(&pp_threads_top, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < top; i++) {
		struct pp_thread *t = pp_threads_at_sigsafe(i);
		int owner = t ? __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) : 0;

		if (owner > 0 && owner != tid && t->tcb == tcb)
			return 1;
	}
	return 0;
}

/* The output root's descriptor, while it is open again by path. */
static const struct pp_share_cost pp_threads_root_fd = { .fds = 1 };

/* Runs in signal context. */
int pp_threads_root_ok_sigsafe(const struct pp_thread_dir *dir)
{
	uint64_t dev = dir->root_dev, ino = dir->root_ino;

	return dev && ino && pp_logfile_same_file_sigsafe(dir->rootfd, &dev, &ino);
}

/* Runs in signal context. */
int pp_threads_dir_file_sigsafe(const struct pp_thread_dir *dir, char *buf, size_t size,
				const char *what)
{
	size_t len = dir->name ? strlen(dir->name) : size, wl = strlen(what);

	if (len + 1 + wl >= size)
		return -ENAMETOOLONG;
	memcpy(buf, dir->name, len);
	buf[len] = '.';
	memcpy(buf + len + 1, what, wl + 1);
	return 0;
}

/* Runs in signal context. */
int pp_threads_log_name_sigsafe(const struct pp_thread_dir *dir, int tid, char *buf, size_t size)
{
	char what[64];

	pp_logfile_format_name_sigsafe(what, PPF_THREAD_LOG_PREFIX, (uint64_t)tid, PPF_LOG_SUFFIX);
	return pp_threads_dir_file_sigsafe(dir, buf, size, what);
}

/*
 * Runs in signal context. A descriptor of dir's root: its own, checked to
 * name it still; else, the program having closed it, the root opened again
 * by its path (raw system call, above the numbers programs use; *again
 * set) and checked to be the same, from the profiler's share: give it back
 * with pp_threads_root_put_sigsafe. Returns it, or a negative errno.
 */
static int pp_threads_root_fd_sigsafe(struct pp_thread_dir *dir, int *again)
{
	uint64_t dev = dir->root_dev, ino = dir->root_ino;
	int fd;

	*again = 0;
	if (pp_threads_root_ok_sigsafe(dir))
		return dir->rootfd;
	if (!dir->root || pp_share_take_sigsafe(&pp_threads_root_fd) != 0)
		return -EBADF;
	fd = (int)syscall(SYS_openat, AT_FDCWD, dir->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		fd = pp_fd_move_high_sigsafe(fd);
	*again = fd >= 0 && pp_logfile_same_file_sigsafe(fd, &dev, &ino);
	if (*again)
		return fd;
	if (fd >= 0)
		pp_fd_close_sigsafe(fd);
	pp_share_give_sigsafe(&pp_threads_root_fd);
	return -EBADF;
}

/* Runs in signal context. Closes what pp_threads_root_fd_sigsafe opened again. */
static void pp_threads_root_put_sigsafe(int fd)
{
	pp_fd_close_sigsafe(fd);
	pp_share_give_sigsafe(&pp_threads_root_fd);
}

/* Runs in signal context. */
int pp_threads_open_log_sigsafe(struct pp_thread *t, struct pp_thread_dir *dir,
				const char *name)
{
	char file[NAME_MAX + 1];
	int again, err, fd;

	err = pp_threads_log_name_sigsafe(dir, t->tid, file, sizeof(file));
	if (err)
		return err;
	fd = pp_threads_root_fd_sigsafe(dir, &again);
	if (fd < 0)
		return fd;
	err = pp_logfile_create_sigsafe(&t->log, fd, file, PPF_FILE_THREAD);
	if (!err)
		err = pp_records_thread_sigsafe(&t->log, dir->pid, t->tid, t->start_ns, name);
	/*
	 * Kept attached if it cannot be: it then holds its descriptor. Once
	 * detached, it opens the root again by its path when the root's
	 * number no longer names it (as here, when it was opened again).
	 */
	if (!err && pp_logfile_detach_sigsafe(&t->log, fd, file) == 0) {
		pp_logfile_set_dir_path_sigsafe(&t->log, dir->root);
		if (again)
			pp_logfile_set_dirfd_sigsafe(&t->log, dir->rootfd);
	}
	if (again)
		pp_threads_root_put_sigsafe(fd);
	return err;
}

/* A thread log's descriptor, while the log is made. */
static const struct pp_share_cost pp_threads_log_fd = { .fds = 1 };

/* Runs in signal context. */
void pp_threads_counts_sigsafe(const struct pp_thread *t, struct pp_records_counts *c)
{
	c->samples = t->samples;
	c->lost = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	c->throttled = __atomic_load_n(&t->throttled, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
int pp_threads_keep_log_fd_sigsafe(struct pp_thread *t)
{
	int ret = pp_logfile_attach_sigsafe(&t->log);

	/* The log's descriptor is the thread's to give back at its end. */
	if (ret == 1 && !t->log_fd_kept) {
		t->charge.fds += pp_threads_log_fd.fds;
		t->log_fd_kept = 1;
	} else if (ret == 1) {
		pp_share_give_sigsafe(&pp_threads_log_fd);
	}
	return ret < 0 ? ret : 0;
}

/* Runs in signal context. */
int pp_threads_lazy_log_sigsafe(struct pp_thread *t, struct pp_thread_dir *dir,
				const char *name)
{
	int err;

	if (pp_logfile_is_open_sigsafe(&t->log))
		return 0;
	if (!__atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE))
		return t->log_err ? -t->log_err : -ENOENT;
	if (!t->log_fd_kept) {
		if (pp_share_take_sigsafe(&pp_threads_log_fd) != 0)
			return -EMFILE;
		t->charge.fds += pp_threads_log_fd.fds;
		t->log_fd_kept = 1;
	}
	err = pp_threads_open_log_sigsafe(t, dir, name);
	if (!pp_logfile_holds_fd_sigsafe(&t->log)) {
		pp_share_give_sigsafe(&pp_threads_log_fd);
		t->charge.fds -= pp_threads_log_fd.fds;
		t->log_fd_kept = 0;
	}
	if (err == -EMFILE || err == -ENFILE)
		return -EMFILE;
	t->log_err = -err;
	__atomic_store_n(&t->log_pending, 0, __ATOMIC_RELEASE);
	return err;
}
