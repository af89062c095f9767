/* The wall-clock event: switch-record rings and the helper thread; see wall.h. */
#include "wall.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "hooks.h"
#include "maps.h"
#include "procio.h"
#include "pprof/format.h"
#include "sigsafe/dlsnap.h"
#include "sigsafe/fd.h"
#include "sigsafe/logfile.h"
#include "sigsafe/pause.h"
#include "sigsafe/records.h"
#include "sigsafe/threads.h"
#include "sigsafe/yields.h"
#include "unwlib.h"
#include "warn.h"

#define PP_WALL_MAX_THREADS 4096
#define PP_WALL_RING_PAGES 2            /* data pages of a ring (F1: 16k+ switches/s at 1 ms) */
/*
 * The process's first thread's: it is the one that most often starts the
 * others, each of which may preempt it (1,000 threads started beside two
 * busy loops: 2 pages lost hundreds of records while the helper, among
 * them, waited for a CPU). 2 when these cannot be locked.
 */
#define PP_WALL_FIRST_RING_PAGES 8
/*
 * The rings of the process's switch events, one per CPU (inherited by the
 * threads it makes): 64 data pages in all, 2 to 32 a CPU (a power of 2).
 */
#define PP_WALL_CPU_PAGES_ALL 64
#define PP_WALL_CPU_PAGES_MIN 2
#define PP_WALL_CPU_PAGES_MAX 32
#define PP_WALL_SWITCH_SIZE 24          /* the smallest record: header, pid/tid, time */
#define PP_WALL_TIDS 8192               /* tid -> slot cache (power of 2) */
/*
 * The helper wakes every period (at least every 1 ms, at most every 10
 * ms): each wake-up costs 10-20 us here (a timer and two context switches
 * on a VM), 1-2% of a core at 1 ms. Waits shorter than the tick are seen
 * less often, and the analyzer spreads the unseen ones. When a ring was
 * more than half full it wakes after 1 ms, lest records be lost; its cost
 * cap can slow it down to 100 ms.
 */
#define PP_WALL_TICK_MIN 1000000ull
#define PP_WALL_TICK_MAX 10000000ull
#define PP_WALL_TICK_FAST 1000000ull
#define PP_WALL_TICK_CAP 100000000ull
#define PP_WALL_LOOKS_PER_TICK 64
#define PP_WALL_LOOK_ONLY_PER_TICK 8    /* threads without a ring looked at per tick */
#define PP_WALL_CAP_WINDOW 250000000ull /* the cost cap's window */
#define PP_WALL_CPU_CAP_PERMILLE 20     /* the helper's CPU over wall time: 2% of a core */
#define PP_WALL_MAX_FRAMES 128
#define PP_WALL_STACKS 4096             /* the table of stacks written (power of 2) */
#define PP_WALL_STACKS_FULL 3072
#define PP_WALL_MODULES 512
#define PP_WALL_BLOCK 512               /* bytes of a read-only segment read at once */
#define PP_WALL_STACK_BLOCK 4096        /* bytes of a stack read at once */
#define PP_WALL_BLOCKS 8                /* of the stack, for one look */
#define PP_WALL_RO_BLOCKS 256           /* of the modules' read-only segments (unwind
					   tables), kept while they stay loaded */
#define PP_WALL_RO_RANGES 1024
#define PP_WALL_HELPER_STACK (256 * 1024)
#define PP_WALL_UNWIND_LIB "libunwind-x86_64.so.8"
#define PP_WALL_MARKS 4096              /* pause switches the helper keeps */
#define PP_WALL_MARKS_AT_ONCE 64        /* copied from pause.c at once */

/* One thread's ring and what the helper knows of it. */
struct pp_wall_thread {
	int tid;                 /* 0: a free slot */
	int fd;                  /* the switch event, -1: look-only */
	int error;               /* why there is no ring (EPERM: memlock) */
	struct perf_event_mmap_page *ring;
	size_t ring_len;
	uint64_t out_ns;         /* off the CPU since, 0: on it (or not known) */
	uint64_t out_unprof_ns;  /* the unprofiled clock at out_ns (pause.h) */
	int out_guess;           /* it is an estimate: pause switches were missed */
	uint64_t last_ns;        /* the time of its last switch record */
	int preempted;           /* the last switch-out was a preemption */
	int looked;              /* this wait has a stack (or was looked at in vain) */
	int open_said;           /* its PPF_REC_WALL_OPEN is written */
	uint32_t stack;          /* PPF_WALL_NO_STACK when none */
	int32_t nr;
	uint64_t lost, intervals;
	uint64_t last_look_ns;   /* look-only: when it was last looked at */
	uint64_t last_look_cpu_ns; /* look-only: its CPU time then, 0: not known */
	unsigned ring_pages;
	int older;               /* older than the profiler: no destructor of ours */
	/*
	 * Its switches come through the process's rings, one per CPU (it
	 * inherited their events): no ring of its own.
	 */
	int inherits;
	uint64_t born_ns;        /* its slot's start: records before are another's */
	uint64_t born_cpu_ns;    /* its CPU time then, 0: not known */
	uint64_t last_cpu_ns;    /* at the log's end: its CPU time read just before */
	uint64_t switches;       /* its switch records so far (the per-CPU rings') */
	uint32_t cpu;            /* the ring of its last switch record (the per-CPU rings') */
	int out_tentative;       /* out_ns is the end of records lost: it was off
				    then only if its next record is a switch in */
	/*
	 * It ended then (inherits: its last records may still be in the
	 * per-CPU rings; the next drain reads them and frees its slot), with
	 * that CPU time; 0: it goes on.
	 */
	uint64_t ended_ns, ended_cpu_ns;
};

/* The ring of the process's switch event on one CPU. */
struct pp_wall_cpu {
	int fd;                  /* -1: none (the CPU was offline) */
	struct perf_event_mmap_page *ring;
	size_t len;
	uint64_t last_ns;        /* the time of its last record read */
	uint64_t head;           /* its head when the drain began */
};

/* A record of a per-CPU ring, copied out to be read in time order. */
struct pp_wall_rec {
	uint64_t time;
	uint64_t lost;           /* PERF_RECORD_LOST: how many */
	uint64_t from;           /* PERF_RECORD_LOST: its ring's last record before */
	uint32_t tid;
	uint32_t seq;            /* the order read: ties keep it */
	uint16_t type;
	uint16_t misc;
	uint32_t cpu;            /* the ring's */
};

/* An executable segment and its .eh_frame_hdr, for find_proc_info. */
struct pp_wall_module {
	uint64_t start, end;
	uint64_t hdr;            /* the address of .eh_frame_hdr, 0: none */
};

/* libunwind's remote interface (libunwind-x86_64.so.8, loaded privately). */
struct pp_wall_unw {
	unw_addr_space_t (*create_addr_space)(unw_accessors_t *, int);
	int (*init_remote)(unw_cursor_t *, unw_addr_space_t, void *);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*search_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t *, unw_proc_info_t *,
			    int, void *);
	void (*flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
	unw_addr_space_t as;
};

/* What one look reads: the registers known, and blocks of memory. */
struct pp_wall_look {
	uint64_t sp, pc;
	struct {
		uint64_t addr;   /* PP_WALL_STACK_BLOCK aligned; 0: empty */
		uint8_t data[PP_WALL_STACK_BLOCK];
	} blocks[PP_WALL_BLOCKS];
	unsigned next;
	int failed;              /* a read failed: the memory went away */
	uint64_t frame_sp;       /* the sp of the frame being stepped from (0: the first) */
};

/* A /proc/self/task/TID/syscall line: 256 bytes hold its 9 numbers. */
#define PP_WALL_SYSCALL_LINE 256

/*
 * The syscall lines of a tick's threads to look at, read together in
 * procio's thread: one hand-over a tick, not one a look.
 */
struct pp_wall_lines {
	unsigned n;
	int tid[PP_WALL_LOOKS_PER_TICK];
	ssize_t len[PP_WALL_LOOKS_PER_TICK];
	char buf[PP_WALL_LOOKS_PER_TICK][PP_WALL_SYSCALL_LINE];
};

static struct {
	pthread_mutex_t mutex;   /* threads[], the log, the stack table */
	pthread_cond_t wake;
	int on;
	int stopping;
	int held;                /* an exec is under way: the helper waits */
	pid_t pid;
	uint64_t period_ns, tick_ns;
	uint64_t tick_base;      /* the tick the period asks for */
	unsigned looks_limit;    /* looks per tick, lowered by the cost cap */
	unsigned look_only_next; /* round robin over the threads without a ring */
	unsigned look_next;      /* where a tick starts: the first thread the last one
				    left unlooked at (its looks ran out) */
	int ring_busy;           /* a ring was over half full at its last drain */
	struct pp_logfile log;
	uint64_t alive_off;      /* where PPF_REC_WALL_ALIVE's time is in the log, 0: nowhere */
	struct pp_wall_thread *threads;
	unsigned nthreads;       /* slots used so far (some may be free again) */
	/* The process's switch events, one per CPU, when they could be made. */
	struct pp_wall_cpu *cpus;
	unsigned ncpus;          /* 0: every thread has a ring of its own */
	unsigned cpu_pages;
	struct pp_wall_rec *recs;
	size_t recs_cap;
	uint64_t out_of_order;   /* records older than their thread's last: dropped */
	uint64_t drain_cpu_ns;   /* the helper's CPU time in its ticks' drains of them */
	unsigned ended;          /* slots of threads that ended, to free at the next drain */
	struct { int tid; int slot; } tids[PP_WALL_TIDS]; /* slot -1: none */
	uint32_t seen, no_ring, older;
	uint64_t looks, dropped, lost, degraded, ticks, looks_only;
	pthread_key_t key;
	int key_ok;
	pthread_t helper;
	int helper_running;
	int helper_made;         /* not detached yet */
	int helper_tid;
	/*
	 * The pause switches known (sigsafe/pause.h), all of those before
	 * marks_upto (or missed: the mark after them says how many).
	 */
	struct pp_pause_mark marks[PP_WALL_MARKS];
	uint32_t nmarks, marks_from;
	uint64_t marks_upto;
	uint64_t helper_cpu_ns;
	/* stacks written: hash -> id */
	uint64_t stack_hash[PP_WALL_STACKS];
	uint32_t stack_id[PP_WALL_STACKS];
	uint32_t nstacks, next_stack_id;
	/* the helper's own */
	struct pp_wall_unw unw;
	struct pp_wall_module modules[PP_WALL_MODULES];
	unsigned nmodules;
	struct { uint64_t start, end; } ro[PP_WALL_RO_RANGES];
	unsigned nro;
	struct { uint64_t addr; uint8_t data[PP_WALL_BLOCK]; } ro_blocks[PP_WALL_RO_BLOCKS];
	unsigned long long dl_adds, dl_subs;
	int forking;             /* a thread forks: no dl_iterate_phdr now */
	int in_loader;           /* the helper is in dl_iterate_phdr */
	struct pp_wall_look look;
	struct pp_wall_lines lines;              /* a tick's syscall lines to read */
	struct pp_wall_thread *look_at[PP_WALL_LOOKS_PER_TICK];
	uint64_t look_head[PP_WALL_LOOKS_PER_TICK];
} pp_wall = { .mutex = PTHREAD_MUTEX_INITIALIZER, .log = { .fd = -1 } };

static uint64_t pp_wall_clock(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t pp_wall_stack_id(const uint64_t *ips, unsigned n);

/*
 * The CPU time thread tid of this process has used (its thread CPU
 * clock, by tid: the kernel's posix-cpu-timers encoding), 0 when it is
 * gone.
 */
static uint64_t pp_wall_tid_cpu(int tid)
{
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6u); /* per thread, CPUCLOCK_SCHED */
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Writes the yield stretches ended so far (under the mutex): sigsafe/yields.h. */
static void pp_wall_yields_write(void)
{
	uint64_t ips[PP_YIELDS_FRAMES];
	struct ppf_wall_yield r;
	unsigned n;

	while (pp_yields_next_sigsafe(&r, ips, &n)) {
		if (n)
			r.stack = pp_wall_stack_id(ips, n);
		pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_YIELD, &r, sizeof(r));
	}
}

int pp_wall_sched_yield(int (*real)(void), uint64_t caller)
{
	return pp_yields_call_sigsafe(real, __atomic_load_n(&pp_wall.on, __ATOMIC_RELAXED) &&
				      pp_pause_running_sigsafe(), caller);
}

/* ---- rings ------------------------------------------------------------------ */

/*
 * Opens a switch event with a ring of pages data pages, mapped into
 * *ring (*len bytes): of thread tid (0: the calling thread) on every CPU
 * (cpu -1), or of the calling thread and the threads it makes on CPU cpu
 * (inherit). Returns its descriptor or a negative errno.
 */
static int pp_wall_event_open(int tid, int cpu, int inherit, unsigned pages,
			      struct perf_event_mmap_page **ring, size_t *len)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.context_switch = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC, /* the logs' time base */
		.watermark = 1,
		/* The helper empties the ring: no wakeup, no signal, ever. */
		.wakeup_watermark = pages * 4096u,
		/* Threads only: a fork child opens its own; an exec drops them. */
		.inherit = !!inherit,
		.inherit_thread = !!inherit,
		.remove_on_exec = !!inherit,
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	void *m;

	if (fd < 0)
		return -errno;
	*len = (1 + pages) * page;
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	*ring = m;
	return pp_fd_move_high_sigsafe(fd);
}

/*
 * Opens the switch event of thread tid (0: the calling thread) and maps its
 * ring of pages data pages; 0 or a negative errno.
 */
static int pp_wall_ring_open(struct pp_wall_thread *t, int tid, unsigned pages)
{
	int fd = pp_wall_event_open(tid, -1, 0, pages, &t->ring, &t->ring_len);

	if (fd < 0)
		return fd;
	t->fd = fd;
	t->ring_pages = pages;
	return 0;
}

static void pp_wall_ring_close(struct pp_wall_thread *t)
{
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd >= 0)
		pp_fd_close_sigsafe(t->fd);
	t->ring = NULL;
	t->fd = -1;
}

/*
 * Writes t's interval [out_ns, in_ns), all of it profiled time; with type
 * PPF_REC_WALL_OPEN, that its wait from out_ns was still open at in_ns.
 */
static void pp_wall_write_record(struct pp_wall_thread *t, uint32_t type, uint64_t out_ns,
				 uint64_t in_ns, uint16_t state, uint16_t flags)
{
	struct ppf_wall_interval r = {
		.tid = (uint32_t)t->tid,
		.state = state,
		.flags = flags,
		.out_ns = out_ns,
		.in_ns = in_ns,
		.stack = t->stack,
		.nr = t->nr,
	};

	if (in_ns <= out_ns)
		return;
	t->intervals += type == PPF_REC_WALL_INTERVAL;
	pp_records_wall_sigsafe(&pp_wall.log, type, &r, sizeof(r));
}

static void pp_wall_write_one(struct pp_wall_thread *t, uint64_t out_ns, uint64_t in_ns,
			      uint16_t state, uint16_t flags)
{
	pp_wall_write_record(t, PPF_REC_WALL_INTERVAL, out_ns, in_ns, state, flags);
}

/* The pause switches made since the helper last asked (under the mutex). */
static void pp_wall_marks_refresh(void)
{
	struct pp_pause_mark m[PP_WALL_MARKS_AT_ONCE];
	uint32_t k;

	do {
		pp_wall.marks_from = pp_pause_marks_sigsafe(pp_wall.marks_from, m,
							    PP_WALL_MARKS_AT_ONCE, &k,
							    &pp_wall.marks_upto);
		for (uint32_t i = 0; i < k; i++)
			pp_wall.marks[pp_wall.nmarks++ % PP_WALL_MARKS] = m[i];
	} while (k == PP_WALL_MARKS_AT_ONCE);
}

/* The oldest pause switch kept. */
static uint32_t pp_wall_marks_first(void)
{
	return pp_wall.nmarks > PP_WALL_MARKS ? pp_wall.nmarks - PP_WALL_MARKS : 0;
}

static const struct pp_pause_mark *pp_wall_mark(uint32_t i)
{
	return &pp_wall.marks[i % PP_WALL_MARKS];
}

/*
 * The unprofiled clock (pause.h) at t into *unprof: the time up to t that
 * sampling did not run. Returns 1 when exact, 0 when an estimate (the
 * switches around t were missed, or are no longer kept).
 */
static int pp_wall_unprofiled(uint64_t t, uint64_t *unprof)
{
	uint32_t first, i;
	const struct pp_pause_mark *m, *next;

	if (t > pp_wall.marks_upto)
		pp_wall_marks_refresh();
	first = pp_wall_marks_first();
	for (i = pp_wall.nmarks; i > first && pp_wall_mark(i - 1)->at_ns > t; i--)
		;
	if (i == first) {
		/* Before the first switch kept: sampling had not started, when it is the first. */
		if (!pp_wall.nmarks || (!first && !pp_wall_mark(0)->lost_before)) {
			*unprof = t;
			return 1;
		}
		m = pp_wall_mark(first);
		/* The state before it, taken to have lasted. */
		*unprof = m->paused ? m->unprofiled_ns :
			  m->unprofiled_ns > m->at_ns - t ? m->unprofiled_ns - (m->at_ns - t) : 0;
		return 0;
	}
	m = pp_wall_mark(i - 1);
	next = i < pp_wall.nmarks ? pp_wall_mark(i) : NULL;
	if (next && next->lost_before && next->at_ns > m->at_ns) {
		/* In switches missed: in proportion between the two known. */
		uint64_t d = next->unprofiled_ns > m->unprofiled_ns ?
			     next->unprofiled_ns - m->unprofiled_ns : 0;

		*unprof = m->unprofiled_ns +
			  (uint64_t)((double)d * (double)(t - m->at_ns) /
				     (double)(next->at_ns - m->at_ns));
		return 0;
	}
	*unprof = m->unprofiled_ns + (m->paused ? t - m->at_ns : 0);
	return 1;
}

/* t leaves the CPU at out_ns: the unprofiled clock then, while its switches are kept. */
static void pp_wall_set_out(struct pp_wall_thread *t, uint64_t out_ns)
{
	t->out_ns = out_ns;
	t->out_guess = out_ns ? !pp_wall_unprofiled(out_ns, &t->out_unprof_ns) : 0;
}

/* The profiled part of [a, b), whose unprofiled clock is ua at a and ub at b. */
static uint64_t pp_wall_profiled(uint64_t a, uint64_t b, uint64_t ua, uint64_t ub)
{
	uint64_t u = ub > ua ? ub - ua : 0;

	return b > a && b - a > u ? b - a - u : 0;
}

/*
 * Writes t's interval from t->out_ns (when out_ns is it; else from out_ns,
 * its unprofiled clock looked up) to in_ns (flags: enum ppf_wall_flags)
 * without its unprofiled parts: sampling is off before its start and while
 * paused (the delay, the toggle signal, pprof_pause()), the wall event too.
 * Between two pause switches next to each other the time is all profiled or
 * not; where switches between two kept ones were missed, or no longer kept
 * back to out_ns, the profiled part is the unprofiled clock's difference,
 * written as a piece that ends at the later switch (and with
 * PPF_WALL_PAUSE_GUESSED when the clock is an estimate).
 */
static void pp_wall_write_interval(struct pp_wall_thread *t, uint64_t out_ns, uint64_t in_ns,
				   uint16_t state, uint16_t flags)
{
	uint64_t at = out_ns, u_at, u_in, piece_from = 0, piece_to = 0;
	uint32_t i, n;
	int exact;

	if (in_ns <= out_ns)
		return;
	if (out_ns == t->out_ns) {
		u_at = t->out_unprof_ns;
		exact = !t->out_guess;
	} else {
		exact = pp_wall_unprofiled(out_ns, &u_at);
	}
	exact &= pp_wall_unprofiled(in_ns, &u_in);
	n = pp_wall.nmarks;
	for (i = n; i > pp_wall_marks_first() && pp_wall_mark(i - 1)->at_ns > out_ns; i--)
		;
	for (uint32_t j = i; j < n && pp_wall_mark(j)->at_ns < in_ns; j++)
		exact &= !pp_wall_mark(j)->lost_before;
	if (!exact)
		flags |= PPF_WALL_PAUSE_GUESSED;
	for (;; i++) {
		const struct pp_pause_mark *m = i < n ? pp_wall_mark(i) : NULL;
		uint64_t to = m && m->at_ns < in_ns ? m->at_ns : in_ns;
		uint64_t u_to = to == in_ns ? u_in : m->unprofiled_ns;
		uint64_t len = pp_wall_profiled(at, to, u_at, u_to);

		if (len) {
			if (piece_to != to - len) {
				if (piece_to)
					pp_wall_write_one(t, piece_from, piece_to, state,
							  flags);
				piece_from = to - len;
			}
			piece_to = to;
		}
		if (to == in_ns)
			break;
		at = to;
		u_at = u_to;
	}
	if (piece_to)
		pp_wall_write_one(t, piece_from, piece_to, state, flags);
}

/* The state of a wait in system call nr (-1: blocked outside one). */
static uint16_t pp_wall_state_of(int32_t nr)
{
	switch (nr) {
	case -1:
		return PPF_WALL_OTHER;
	case SYS_nanosleep: case SYS_clock_nanosleep:
		return PPF_WALL_SLEEP;
	case SYS_futex:
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
		return PPF_WALL_FUTEX;
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev: case SYS_pread64:
	case SYS_pwrite64: case SYS_preadv: case SYS_pwritev: case SYS_recvfrom:
	case SYS_sendto: case SYS_recvmsg: case SYS_sendmsg: case SYS_recvmmsg:
	case SYS_sendmmsg: case SYS_accept: case SYS_accept4: case SYS_connect:
	case SYS_fsync: case SYS_fdatasync: case SYS_sendfile: case SYS_splice:
		return PPF_WALL_IO;
	case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
	case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return PPF_WALL_POLL;
	default:
		return PPF_WALL_SYSCALL;
	}
}

/* What t's current wait is: preempted, or blocked in what its look saw. */
static uint16_t pp_wall_state(const struct pp_wall_thread *t)
{
	if (t->preempted)
		return PPF_WALL_RUNNABLE;
	return t->stack != PPF_WALL_NO_STACK ? pp_wall_state_of(t->nr) : PPF_WALL_UNKNOWN;
}

/*
 * lost of t's switch records were lost from from to to (its ring's or its
 * CPU's): what it did then is not known. Off the CPU since before, it was
 * so up to from; after to, it was off from then if its next record is a
 * switch in (every switch after to is recorded), else it ran.
 */
static void pp_wall_lost_window(struct pp_wall_thread *t, uint64_t lost, uint64_t from,
				uint64_t to)
{
	struct ppf_wall_lost r = { .tid = (uint32_t)t->tid, .lost = lost, .to_ns = to };

	if (from < t->last_ns)
		from = t->last_ns;
	if (t->out_ns && !t->out_tentative && from > t->out_ns && from <= to)
		pp_wall_write_interval(t, t->out_ns, from, pp_wall_state(t), 0);
	r.from_ns = from && from < to ? from : to;
	t->lost += lost;
	t->out_ns = 0;
	t->out_tentative = 0;
	if (to) {
		pp_wall_set_out(t, to);
		t->out_tentative = 1;
		t->preempted = 0;
		t->looked = 0;
		t->open_said = 0;
		t->stack = PPF_WALL_NO_STACK;
		t->nr = -1;
		t->last_ns = to;
	}
	pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_LOST, &r, sizeof(r));
}

/* t's switch at time: out (misc PERF_RECORD_MISC_SWITCH_OUT...) or in. */
static void pp_wall_switch(struct pp_wall_thread *t, uint16_t misc, uint64_t time)
{
	t->last_ns = time;
	t->switches++;
	if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
		pp_wall_set_out(t, time);
		t->out_tentative = 0;
		t->preempted = !!(misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		t->looked = 0;
		t->open_said = 0;
		t->stack = PPF_WALL_NO_STACK;
		t->nr = -1;
		return;
	}
	if (t->out_ns)
		pp_wall_write_interval(t, t->out_ns, time, pp_wall_state(t), 0);
	t->out_ns = 0;
	t->out_tentative = 0;
}

/* One record of t's own ring, copied out: a switch, or records lost. */
static void pp_wall_record(struct pp_wall_thread *t, const struct perf_event_header *h,
			   const uint64_t *body)
{
	if (h->type == PERF_RECORD_LOST) {
		/*
		 * body: id, lost, then the sample id (pid and tid, time): the
		 * thread's time since its last record is not known.
		 */
		pp_wall.lost += body[1];
		pp_wall_lost_window(t, body[1], t->last_ns,
				    h->size >= sizeof(*h) + 32 ? body[3] : 0);
		return;
	}
	/* body: pid and tid (u32 each), time */
	if (h->type == PERF_RECORD_SWITCH && h->size >= sizeof(*h) + 16)
		pp_wall_switch(t, h->misc, body[1]);
}

/*
 * Copies ring r's record at *tail (before head) into rec (its first 64
 * bytes, the header first: the body at rec + 1) and moves *tail past it.
 * Returns 0, or -1 at head or at a header that cannot be (the ring is
 * left there).
 */
static int pp_wall_ring_next(const struct perf_event_mmap_page *r, uint64_t head, uint64_t *tail,
			     uint64_t rec[8])
{
	const uint8_t *data = (const uint8_t *)r + r->data_offset;
	uint64_t size = r->data_size, at = *tail % size, n;
	struct perf_event_header h;

	if (*tail >= head)
		return -1;
	memcpy(&h, data + at, sizeof(h));
	if (h.size < sizeof(h) || h.size > head - *tail)
		return -1;
	memset(rec, 0, 8 * sizeof(*rec));
	n = h.size < 8 * sizeof(*rec) ? h.size : 8 * sizeof(*rec);
	/* A record may wrap around the ring's end. */
	for (uint64_t i = 0; i < n; i++)
		((uint8_t *)rec)[i] = data[(at + i) % size];
	*tail += h.size;
	return 0;
}

/* Empties t's ring (under the mutex). */
static void pp_wall_drain(struct pp_wall_thread *t)
{
	struct perf_event_mmap_page *r = t->ring;
	uint64_t head, tail, rec[8];

	if (!r)
		return;
	head = __atomic_load_n(&r->data_head, __ATOMIC_ACQUIRE);
	tail = r->data_tail;
	if (head - tail > r->data_size / 2)
		pp_wall.ring_busy = 1;
	while (pp_wall_ring_next(r, head, &tail, rec) == 0) {
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		pp_wall_record(t, &h, rec + 1);
	}
	__atomic_store_n(&r->data_tail, tail, __ATOMIC_RELEASE);
}

/* ---- the per-CPU rings ------------------------------------------------------- */

/* Thread tid's slot, or NULL (a thread of the profiler's, one gone, a raw clone). */
static struct pp_wall_thread *pp_wall_find(int tid)
{
	unsigned h = (unsigned)tid & (PP_WALL_TIDS - 1);

	if (pp_wall.tids[h].tid != tid) {
		int slot = -1;

		for (unsigned i = 0; i < pp_wall.nthreads; i++)
			if (pp_wall.threads[i].tid == tid) {
				slot = (int)i;
				break;
			}
		pp_wall.tids[h].tid = tid;
		pp_wall.tids[h].slot = slot;
	}
	return pp_wall.tids[h].slot < 0 ? NULL : &pp_wall.threads[pp_wall.tids[h].slot];
}

/* Thread tid's slot changes: pp_wall_find looks again. */
static void pp_wall_tid_forget(int tid)
{
	unsigned h = (unsigned)tid & (PP_WALL_TIDS - 1);

	if (pp_wall.tids[h].tid == tid)
		pp_wall.tids[h].tid = 0;
}

static int pp_wall_rec_cmp(const void *a, const void *b)
{
	const struct pp_wall_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Copies ring c's records up to its head out into pp_wall.recs from *n. */
static void pp_wall_cpu_take(struct pp_wall_cpu *c, uint64_t head, size_t *n)
{
	struct perf_event_mmap_page *r = c->ring;
	uint64_t tail = r->data_tail, rec[8];
	const uint64_t *body = rec + 1;

	if (head - tail > r->data_size / 2)
		pp_wall.ring_busy = 1;
	while (*n < pp_wall.recs_cap && pp_wall_ring_next(r, head, &tail, rec) == 0) {
		struct pp_wall_rec *x = &pp_wall.recs[*n];
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		memset(x, 0, sizeof(*x));
		x->type = (uint16_t)h.type;
		x->misc = h.misc;
		x->seq = (uint32_t)*n;
		x->cpu = (uint32_t)(c - pp_wall.cpus);
		if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof(h) + 16) {
			/* body: pid and tid (u32 each), time */
			x->tid = (uint32_t)(body[0] >> 32);
			x->time = body[1];
		} else if (h.type == PERF_RECORD_LOST) {
			/* body: id, lost, pid and tid, time (when the ring had room again) */
			x->lost = body[1];
			x->from = c->last_ns;
			x->time = h.size >= sizeof(h) + 32 ? body[3] : c->last_ns;
		} else {
			continue;
		}
		c->last_ns = x->time;
		(*n)++;
	}
	__atomic_store_n(&r->data_tail, tail, __ATOMIC_RELEASE);
}

static void pp_wall_thread_close(struct pp_wall_thread *t, uint64_t end_ns);

/*
 * Empties the per-CPU rings (under the mutex), all at once: a thread that
 * moved between CPUs has its switches in several, read in time order.
 * Records lost on a CPU leave every thread's time then unknown: which ran
 * there is not known.
 */
static void pp_wall_cpus_drain(void)
{
	size_t n = 0;

	if (!pp_wall.ncpus)
		return;
	/* The heads first, close together: a record of a thread's is read with those before it. */
	for (unsigned c = 0; c < pp_wall.ncpus; c++)
		if (pp_wall.cpus[c].ring)
			pp_wall.cpus[c].head = __atomic_load_n(&pp_wall.cpus[c].ring->data_head,
							       __ATOMIC_ACQUIRE);
	for (unsigned c = 0; c < pp_wall.ncpus; c++)
		if (pp_wall.cpus[c].ring)
			pp_wall_cpu_take(&pp_wall.cpus[c], pp_wall.cpus[c].head, &n);
	if (n > 1)
		qsort(pp_wall.recs, n, sizeof(*pp_wall.recs), pp_wall_rec_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct pp_wall_rec *x = &pp_wall.recs[i];
		struct pp_wall_thread *t;

		if (x->type == PERF_RECORD_LOST) {
			/* Every thread's window; the count once (a killed log's total is their sum). */
			uint64_t lost = x->lost;

			pp_wall.lost += x->lost;
			for (unsigned k = 0; k < pp_wall.nthreads; k++) {
				t = &pp_wall.threads[k];
				if (!t->tid || !t->inherits || x->time < t->born_ns)
					continue;
				/*
				 * Back on another CPU by its last record, and no switch
				 * out since (those records are read, in time order): it
				 * ran there throughout.
				 */
				if (t->switches && !t->out_ns && t->cpu != x->cpu)
					continue;
				pp_wall_lost_window(t, lost,
						    x->from > t->born_ns ? x->from : t->born_ns,
						    x->time);
				lost = 0;
			}
			continue;
		}
		t = pp_wall_find((int)x->tid);
		if (!t || !t->inherits || x->time < t->born_ns)
			continue;
		if (x->time < t->last_ns) {
			pp_wall.out_of_order++;
			continue;
		}
		t->cpu = x->cpu;
		pp_wall_switch(t, x->misc, x->time);
	}
	/* The threads that ended: their records are read (a wait after their end is none). */
	for (unsigned k = 0; pp_wall.ended && k < pp_wall.nthreads; k++)
		if (pp_wall.threads[k].tid && pp_wall.threads[k].ended_ns) {
			pp_wall.threads[k].out_ns = 0;
			pp_wall_thread_close(&pp_wall.threads[k], pp_wall.threads[k].ended_ns);
		}
}

/* Whether a per-CPU ring is over half full (without the mutex: an estimate). */
static int pp_wall_cpus_busy(void)
{
	for (unsigned c = 0; c < pp_wall.ncpus; c++) {
		struct perf_event_mmap_page *r = pp_wall.cpus[c].ring;

		if (r && __atomic_load_n(&r->data_head, __ATOMIC_ACQUIRE) -
				 __atomic_load_n(&r->data_tail, __ATOMIC_RELAXED) >
			 r->data_size / 2)
			return 1;
	}
	return 0;
}

/* How pp_wall_cpus_close leaves the rings. */
enum pp_wall_cpus_how {
	PP_WALL_CPUS_KEEP,   /* the process ends: mapped (another thread may read them) */
	PP_WALL_CPUS_FREE,   /* unmapped and forgotten */
	PP_WALL_CPUS_FORGET, /* a fork child: forgotten (the kernel did not copy them) */
};

/* Closes the per-CPU rings' events. */
static void pp_wall_cpus_close(enum pp_wall_cpus_how how)
{
	for (unsigned c = 0; c < pp_wall.ncpus; c++) {
		struct pp_wall_cpu *x = &pp_wall.cpus[c];

		if (how == PP_WALL_CPUS_FREE && x->ring)
			munmap(x->ring, x->len);
		/* A fork child's: the parent's, unless the program put its own at the number. */
		if (x->fd >= 0 && how == PP_WALL_CPUS_FORGET)
			pp_fd_close_ours_sigsafe(x->fd);
		else if (x->fd >= 0)
			pp_fd_close_sigsafe(x->fd);
		x->fd = -1;
	}
	if (how == PP_WALL_CPUS_KEEP)
		return;
	free(pp_wall.cpus);
	free(pp_wall.recs);
	pp_wall.cpus = NULL;
	pp_wall.recs = NULL;
	pp_wall.ncpus = 0;
	pp_wall.recs_cap = 0;
}

/*
 * Opens the process's switch events, one per CPU, that the threads the
 * calling thread makes from now on inherit (with the sigtrap mode's
 * inherited sampling events, a thread's perf context stays a clone of its
 * creator's, which the kernel swaps at a switch between two of them
 * instead of taking each event off the CPU and on again: a ring per
 * thread made a pipe ping-pong's waits 10 us dearer beside two busy
 * loops, and that work counted as time off the CPU). 0, or a negative
 * errno (then every thread gets a ring of its own).
 */
static int pp_wall_cpus_open(uint64_t now)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	unsigned n = conf > 0 ? (unsigned)conf : 1, pages = PP_WALL_CPU_PAGES_MAX, opened = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = 0;

	while (pages > PP_WALL_CPU_PAGES_MIN && pages * n > PP_WALL_CPU_PAGES_ALL)
		pages /= 2;
	pp_wall.cpus = calloc(n, sizeof(*pp_wall.cpus));
	if (!pp_wall.cpus)
		return -ENOMEM;
	/* Not 0: a failure part way closes what was opened, never the program's stdin. */
	for (unsigned c = 0; c < n; c++)
		pp_wall.cpus[c].fd = -1;
	pp_wall.ncpus = n;
	pp_wall.cpu_pages = pages;
	for (unsigned c = 0; c < n; c++) {
		struct pp_wall_cpu *x = &pp_wall.cpus[c];

		x->fd = pp_wall_event_open(0, (int)c, 1, pages, &x->ring, &x->len);
		x->last_ns = now;
		if (x->fd == -ENODEV) { /* offline */
			x->fd = -1;
			x->ring = NULL;
			continue;
		}
		if (x->fd < 0) {
			err = x->fd;
			x->fd = -1;
			x->ring = NULL;
			break;
		}
		opened++;
	}
	if (!err && !opened)
		err = -ENODEV;
	if (!err) {
		pp_wall.recs_cap = (size_t)opened * pages * page / PP_WALL_SWITCH_SIZE + opened;
		pp_wall.recs = calloc(pp_wall.recs_cap, sizeof(*pp_wall.recs));
		if (!pp_wall.recs)
			err = -ENOMEM;
	}
	if (err)
		pp_wall_cpus_close(PP_WALL_CPUS_FREE);
	return err;
}

/* ---- stacks of blocked threads ------------------------------------------------ */

/* Reads len bytes at addr of our own memory without trusting it: 0 or -1. */
static int pp_wall_peek(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pp_wall.pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* A word of the program's memory as the look reads it (blocks kept for the look). */
/* Whether the block at base lies in a read-only segment of a loaded object. */
static int pp_wall_read_only(uint64_t base)
{
	for (unsigned i = 0; i < pp_wall.nro; i++)
		if (base >= pp_wall.ro[i].start && base + PP_WALL_BLOCK <= pp_wall.ro[i].end)
			return 1;
	return 0;
}

/*
 * A word of a read-only segment (the unwind tables), through a cache the
 * looks share: -1 when it is not one (or cannot be read).
 */
static int pp_wall_ro_word(uint64_t base, uint64_t off, uint64_t *val)
{
	unsigned i = (unsigned)(base / PP_WALL_BLOCK) % PP_WALL_RO_BLOCKS;

	if (pp_wall.ro_blocks[i].addr != base) {
		if (!pp_wall_read_only(base))
			return -1;
		pp_wall.ro_blocks[i].addr = 0;
		if (pp_wall_peek(base, pp_wall.ro_blocks[i].data, PP_WALL_BLOCK) < 0)
			return -1;
		pp_wall.ro_blocks[i].addr = base;
	}
	memcpy(val, pp_wall.ro_blocks[i].data + off, 8);
	return 0;
}

static int pp_wall_word(struct pp_wall_look *l, uint64_t addr, uint64_t *val)
{
	uint64_t rbase = addr & ~(uint64_t)(PP_WALL_BLOCK - 1);
	uint64_t base = addr & ~(uint64_t)(PP_WALL_STACK_BLOCK - 1), off = addr - base;
	unsigned i;

	if (off + 8 > PP_WALL_STACK_BLOCK || !base)
		goto out_alone;
	if (addr - rbase + 8 <= PP_WALL_BLOCK && pp_wall_ro_word(rbase, addr - rbase, val) == 0)
		return 0;
	for (i = 0; i < PP_WALL_BLOCKS; i++)
		if (l->blocks[i].addr == base)
			break;
	if (i == PP_WALL_BLOCKS) {
		i = l->next++ % PP_WALL_BLOCKS;
		l->blocks[i].addr = 0;
		/* The end of a mapping: the word alone may still be there. */
		if (pp_wall_peek(base, l->blocks[i].data, PP_WALL_STACK_BLOCK) < 0)
			goto out_alone;
		l->blocks[i].addr = base;
	}
	memcpy(val, l->blocks[i].data + off, 8);
	return 0;
out_alone:
	if (pp_wall_peek(addr, val, 8) == 0)
		return 0;
	l->failed = 1;
	return -1;
}

static int pp_wall_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
			      void *arg)
{
	(void)as;
	if (write)
		return -UNW_EINVAL;
	return pp_wall_word(arg, addr, (uint64_t *)val) < 0 ? -UNW_EINVAL : 0;
}

/* Whether addr is in an executable segment of a loaded object. */
static int pp_wall_in_code(uint64_t addr)
{
	for (unsigned i = 0; i < pp_wall.nmodules; i++)
		if (addr >= pp_wall.modules[i].start && addr < pp_wall.modules[i].end)
			return 1;
	return 0;
}

/*
 * Whether addr is a return address: in code, right after a call (e8
 * rel32, or ff /2 of 2 to 7 bytes: through a register or memory).
 */
static int pp_wall_return_address(struct pp_wall_look *l, uint64_t addr)
{
	uint64_t w;
	uint8_t b[8];

	if (addr < 8 || !pp_wall_in_code(addr) || pp_wall_word(l, addr - 8, &w) < 0)
		return 0;
	memcpy(b, &w, 8); /* b[8 - k] is the byte k before addr */
	if (b[3] == 0xe8)
		return 1;
	for (unsigned k = 2; k <= 7; k++)
		if (b[8 - k] == 0xff && ((b[9 - k] >> 3) & 7) == 2)
			return 1;
	return 0;
}

/*
 * The frame pointer of a blocked thread, which /proc does not give: the
 * system call's wrappers leave rbp alone, so it is that of the innermost
 * caller built with frame pointers, which libunwind asks for when it steps
 * from that caller (its CFA is rbp + 16). That caller's rbp is where its
 * caller's rbp is saved, right under its return address: the first slot
 * at or above the caller's sp holding a saved rbp (0, or an address above
 * it in the stack) followed by a return address. -1: none within
 * PP_WALL_FP_SCAN bytes.
 */
#define PP_WALL_FP_SCAN 2048
static int pp_wall_guess_fp(struct pp_wall_look *l, uint64_t *val)
{
	uint64_t from = l->frame_sp ? l->frame_sp : l->sp;

	for (uint64_t at = from & ~7ull; at < from + PP_WALL_FP_SCAN; at += 8) {
		uint64_t saved, ret;

		if (pp_wall_word(l, at, &saved) < 0 || pp_wall_word(l, at + 8, &ret) < 0)
			break;
		if ((saved == 0 || (saved > at && saved - at < (1u << 20))) &&
		    pp_wall_return_address(l, ret)) {
			*val = at;
			return 0;
		}
	}
	l->failed = 0; /* a read past the stack's end is not the look's failure */
	return -1;
}

static int pp_wall_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
			      void *arg)
{
	struct pp_wall_look *l = arg;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg == UNW_X86_64_RIP)
		*val = l->pc;
	else if (reg == UNW_X86_64_RSP)
		*val = l->sp;
	else if (reg != UNW_X86_64_RBP || pp_wall_guess_fp(l, (uint64_t *)val) < 0)
		return -UNW_EBADREG; /* only sp and pc are known, and rbp guessed */
	return 0;
}

static int pp_wall_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
				int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int pp_wall_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
				  int need_unwind_info, void *arg)
{
	struct pp_wall_look *l = arg;

	for (unsigned i = 0; i < pp_wall.nmodules; i++) {
		const struct pp_wall_module *m = &pp_wall.modules[i];
		uint64_t head, count;
		unw_dyn_info_t di;

		if (ip < m->start || ip >= m->end || !m->hdr)
			continue;
		/*
		 * .eh_frame_hdr: version 1, the encodings of eh_frame_ptr
		 * (pcrel sdata4), fde_count (udata4) and the table (datarel
		 * sdata4: a binary search table), then the two values.
		 */
		if (pp_wall_word(l, m->hdr, &head) < 0 || (head & 0xffffffffu) != 0x3b031b01u ||
		    pp_wall_word(l, m->hdr + 8, &count) < 0)
			return -UNW_ENOINFO;
		count &= 0xffffffffu;
		memset(&di, 0, sizeof(di));
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.start_ip = m->start;
		di.end_ip = m->end;
		di.u.rti.segbase = m->hdr;
		di.u.rti.table_data = m->hdr + 12;
		di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
		return pp_wall.unw.search_table(as, ip, &di, pi, need_unwind_info, arg);
	}
	return -UNW_ENOINFO;
}

static void pp_wall_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the tables it made from .eh_frame itself. */
	(void)as, (void)pi, (void)arg;
}

static int pp_wall_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)arg;
	*addr = 0;
	return -UNW_ENOINFO;
}

static unw_accessors_t pp_wall_accessors = {
	.find_proc_info = pp_wall_find_proc_info,
	.put_unwind_info = pp_wall_put_unwind_info,
	.get_dyn_info_list_addr = pp_wall_get_dyn_info_list_addr,
	.access_mem = pp_wall_access_mem,
	.access_reg = pp_wall_access_reg,
	.access_fpreg = pp_wall_access_fpreg,
};

/* pp_wall_unw_load's dlopen, in procio's thread: the handle, or why not. */
struct pp_wall_unw_open {
	void *h;
	char why[256];
};

static void pp_wall_unw_open(void *arg)
{
	struct pp_wall_unw_open *o = arg;
	struct pp_wall_unw *u = &pp_wall.unw;
	const char *e;

	o->h = pp_hooks_dlopen_unscanned(PP_WALL_UNWIND_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!o->h) {
		if ((e = dlerror()) != NULL)
			snprintf(o->why, sizeof(o->why), "%s", e);
		return;
	}
	/* Its pipes, if libunwind makes them now, are made where they are moved out of the way. */
	pp_unwlib_own_pipes(o->h);
	*(void **)&u->create_addr_space = dlsym(o->h, "_Ux86_64_create_addr_space");
	*(void **)&u->init_remote = dlsym(o->h, "_Ux86_64_init_remote");
	if (!u->create_addr_space || !u->init_remote)
		return;
	u->as = u->create_addr_space(&pp_wall_accessors, 0);
	/*
	 * libunwind's first cursor (tdep_init) makes a pipe it keeps: here, in
	 * this table, with a look at nothing (pc and sp 0: no memory read).
	 */
	if (u->as) {
		struct pp_wall_look none;
		unw_cursor_t c;

		memset(&none, 0, sizeof(none));
		u->init_remote(&c, u->as, &none);
	}
}

/*
 * Loads libunwind's remote interface; 0, or -1 with why said. The loader
 * opens files: in procio's thread, so that the program never sees their
 * descriptors; the next module scan (a dlopen of the program's) records
 * the objects.
 */
static int pp_wall_unw_load(void)
{
	struct pp_wall_unw *u = &pp_wall.unw;
	struct pp_wall_unw_open o = { .why = "no thread to load it from" };
	void *h;

	pp_procio_call(pp_wall_unw_open, &o);
	h = o.h;
	if (!h) {
		/* A failed dlopen may unmap what a partial snapshot lists. */
		if (pp_dlsnap_partial_sigsafe())
			pp_maps_scan(pp_records_now_sigsafe(), 0);
		pp_warn("cannot load %s for the wall event: %s; blocked threads' stacks "
			"are not read", PP_WALL_UNWIND_LIB, o.why);
		return -1;
	}
	*(void **)&u->step = dlsym(h, "_Ux86_64_step");
	*(void **)&u->get_reg = dlsym(h, "_Ux86_64_get_reg");
	*(void **)&u->search_table = dlsym(h, "_Ux86_64_dwarf_search_unwind_table");
	*(void **)&u->flush_cache = dlsym(h, "_Ux86_64_flush_cache");
	if (!u->create_addr_space || !u->init_remote || !u->step || !u->get_reg ||
	    !u->search_table || !u->flush_cache || !u->as) {
		pp_warn("%s lacks its remote interface; blocked threads' stacks are not "
			"read", PP_WALL_UNWIND_LIB);
		u->as = NULL;
		return -1;
	}
	return 0;
}

static int pp_wall_module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t hdr = 0;

	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum && pp_wall.nro < PP_WALL_RO_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W)) {
			pp_wall.ro[pp_wall.nro].start = info->dlpi_addr + ph->p_vaddr;
			pp_wall.ro[pp_wall.nro++].end = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
		}
	}
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	for (int i = 0; i < info->dlpi_phnum && pp_wall.nmodules < PP_WALL_MODULES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		pp_wall.modules[pp_wall.nmodules++] = (struct pp_wall_module){
			.start = info->dlpi_addr + ph->p_vaddr,
			.end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
			.hdr = hdr,
		};
	}
	return 0;
}

/* Counts of loaded and unloaded objects, to know when the list changed. */
static int pp_wall_dl_counts_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		return 1;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

/*
 * The executable segments of the loaded objects, again when objects came
 * or went. Called by the helper holding no lock of ours: dl_iterate_phdr
 * takes the loader's lock, which a thread in dlopen holds while it starts.
 */
/*
 * Before the helper takes the loader's locks (dl_iterate_phdr, dlopen):
 * 1 when it may (then pp_wall.in_loader is set until it is done), 0 while
 * a thread forks (pp_wall_fork_prepare).
 */
static int pp_wall_loader_enter(void)
{
	__atomic_store_n(&pp_wall.in_loader, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&pp_wall.forking, __ATOMIC_SEQ_CST))
		return 1;
	__atomic_store_n(&pp_wall.in_loader, 0, __ATOMIC_SEQ_CST);
	return 0;
}

static void pp_wall_modules_scan(unsigned long long *c);
static void pp_wall_modules_refresh(void)
{
	unsigned long long c[2] = { 0, 0 };

	/* Not while a thread forks: the next tick will. */
	if (!pp_wall_loader_enter())
		return;
	pp_wall_modules_scan(c);
	__atomic_store_n(&pp_wall.in_loader, 0, __ATOMIC_SEQ_CST);
}

/*
 * Waits (100 ms at the most: the helper may itself wait for the loader's
 * lock, which the forking thread may hold) until the helper is out of
 * dl_iterate_phdr, and keeps it out until the fork is done.
 */
void pp_wall_fork_prepare(void)
{
	struct timespec nap = { 0, 100000 };

	__atomic_add_fetch(&pp_wall.forking, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 1000 && __atomic_load_n(&pp_wall.in_loader, __ATOMIC_SEQ_CST); i++)
		nanosleep(&nap, NULL);
}

void pp_wall_fork_parent(void)
{
	__atomic_sub_fetch(&pp_wall.forking, 1, __ATOMIC_SEQ_CST);
}

/* The modules' part of pp_wall_modules_refresh: c gets the loader's counts. */
static void pp_wall_modules_scan(unsigned long long *c)
{
	dl_iterate_phdr(pp_wall_dl_counts_cb, c);
	if (pp_wall.nmodules && c[0] == pp_wall.dl_adds && c[1] == pp_wall.dl_subs)
		return;
	pp_wall.dl_adds = c[0];
	pp_wall.dl_subs = c[1];
	pp_wall.nmodules = 0;
	pp_wall.nro = 0;
	memset(pp_wall.ro_blocks, 0, sizeof(pp_wall.ro_blocks));
	dl_iterate_phdr(pp_wall_module_cb, NULL);
	if (pp_wall.unw.as)
		pp_wall.unw.flush_cache(pp_wall.unw.as, 0, 0);
}

static uint64_t pp_wall_hash(const uint64_t *ips, unsigned n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (unsigned i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h ? h : 1;
}

/* The id of stack ips in wall.log, written when new; PPF_WALL_NO_STACK when it cannot be. */
static uint32_t pp_wall_stack_id(const uint64_t *ips, unsigned n)
{
	uint64_t h = pp_wall_hash(ips, n);
	unsigned i;

	if (pp_wall.nstacks >= PP_WALL_STACKS_FULL) {
		memset(pp_wall.stack_hash, 0, sizeof(pp_wall.stack_hash));
		pp_wall.nstacks = 0;
	}
	for (i = h & (PP_WALL_STACKS - 1); pp_wall.stack_hash[i]; i = (i + 1) & (PP_WALL_STACKS - 1))
		if (pp_wall.stack_hash[i] == h)
			return pp_wall.stack_id[i];
	if (pp_records_stack_sigsafe(&pp_wall.log, pp_wall.next_stack_id, ips, n, 0, 0) < 0)
		return PPF_WALL_NO_STACK;
	pp_wall.stack_hash[i] = h;
	pp_wall.stack_id[i] = pp_wall.next_stack_id;
	pp_wall.nstacks++;
	return pp_wall.next_stack_id++;
}

/*
 * What a /proc/self/task/tid/syscall line (len bytes read, or a negative
 * errno) says: 1 with *nr, *sp and *pc when the thread is blocked, 0 when
 * it runs (or is runnable, or was not read: procio has no thread), -1
 * when it is gone.
 */
static int pp_wall_syscall_parse(const char *buf, ssize_t len, int32_t *nr, uint64_t *sp,
				 uint64_t *pc)
{
	unsigned long long a[8];
	long n;
	int k;

	if (len == -ENOTCONN)
		return 0; /* not known: nothing is read in the program's table */
	if (len <= 0)
		return -1;
	k = sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &n, &a[0], &a[1], &a[2],
		   &a[3], &a[4], &a[5], &a[6], &a[7]);
	if (k == 3) {        /* blocked outside a system call: nr sp pc */
		*nr = (int32_t)n;
		*sp = a[0];
		*pc = a[1];
		return 1;
	}
	if (k == 9) {        /* nr, 6 arguments, sp, pc */
		*nr = (int32_t)n;
		*sp = a[6];
		*pc = a[7];
		return 1;
	}
	return 0;            /* "running" */
}

/* pp_wall_syscall_parse of thread tid's line, read now (in procio's thread). */
static int pp_wall_syscall(int tid, int32_t *nr, uint64_t *sp, uint64_t *pc)
{
	char path[64], buf[PP_WALL_SYSCALL_LINE];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	return pp_wall_syscall_parse(buf, pp_procio_read(path, buf, sizeof(buf)), nr, sp, pc);
}

static void pp_wall_lines_read(void *arg)
{
	struct pp_wall_lines *l = arg;
	char path[64];

	for (unsigned i = 0; i < l->n; i++) {
		int fd;

		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", l->tid[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		l->len[i] = fd < 0 ? -errno : read(fd, l->buf[i], PP_WALL_SYSCALL_LINE - 1);
		if (fd >= 0 && l->len[i] < 0)
			l->len[i] = -errno;
		if (l->len[i] >= 0)
			l->buf[i][l->len[i]] = '\0';
		if (fd >= 0)
			close(fd);
	}
}

/* Unwinds from l->sp, l->pc into ips; returns the frames (at least 1). */
static unsigned pp_wall_unwind(struct pp_wall_look *l, uint64_t *ips)
{
	unw_cursor_t c;
	unsigned n = 0;

	ips[n++] = l->pc;
	if (!pp_wall.unw.as || pp_wall.unw.init_remote(&c, pp_wall.unw.as, l) < 0)
		return n;
	l->frame_sp = 0;
	while (n < PP_WALL_MAX_FRAMES && pp_wall.unw.step(&c) > 0 && !l->failed) {
		unw_word_t ip, sp;

		if (pp_wall.unw.get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		ips[n++] = ip;
		l->frame_sp = pp_wall.unw.get_reg(&c, UNW_REG_SP, &sp) < 0 ? 0 : sp;
	}
	return n;
}

/* The head of t's ring, which moves when the thread switches. */
static uint64_t pp_wall_head(const struct pp_wall_thread *t)
{
	return t->ring ? __atomic_load_n(&t->ring->data_head, __ATOMIC_ACQUIRE) : 0;
}

/*
 * Looks at blocked thread t (under the mutex): its stack becomes the
 * stack of its current wait when the thread did not move meanwhile.
 * Returns 1 when it looked.
 */
/*
 * What the helper read of t's ring: the wait it knows of is the latest
 * (through the per-CPU rings: its switches counted so far).
 */
static uint64_t pp_wall_read_to(const struct pp_wall_thread *t)
{
	return t->ring ? t->ring->data_tail : t->switches;
}

/*
 * A look at t, whose syscall line said st (pp_wall_syscall_parse: nr, and
 * l->sp, l->pc) after the helper had read its ring to head: its stack
 * when it is blocked in the wait the helper knows of. Returns 1 when it
 * looked (a stack read, or dropped), 0 when not.
 */
static int pp_wall_look_with(struct pp_wall_thread *t, uint64_t head, int st, int32_t nr)
{
	struct pp_wall_look *l = &pp_wall.look;
	uint64_t ips[PP_WALL_MAX_FRAMES];
	unsigned n;

	if (t->ring && pp_wall_head(t) != head)
		return 0; /* it switched since: drained and looked at next tick */
	if (st == 0 && t->out_tentative) {
		/*
		 * Running, with no switch in since its records were lost: it
		 * ran from then (looked at once, not every tick).
		 */
		t->out_ns = 0;
		t->out_tentative = 0;
		return 0;
	}
	if (st <= 0)
		return st < 0 ? (t->looked = 1, 0) : 0;
	memset(l->blocks, 0, sizeof(l->blocks));
	l->next = 0;
	l->failed = 0;
	n = pp_wall_unwind(l, ips);
	pp_wall.looks++;
	if (t->inherits)
		pp_wall_cpus_drain();
	if (t->ring ? pp_wall_head(t) != head : t->switches != head) {
		/* It ran meanwhile: this stack may be of another wait. */
		pp_wall.dropped++;
		return 1;
	}
	/* Blocked, and not on a CPU since its records were lost: off since then. */
	t->out_tentative = 0;
	t->looked = 1;
	t->nr = nr;
	t->stack = pp_wall_stack_id(ips, n);
	return 1;
}

/*
 * The time thread t without a ring spent off the CPU since its previous
 * look (or its start), to now, when its CPU time is cpu (0: not known):
 * the wall time less the CPU time between (all of it when that is not
 * known), *since when that previous look was. Its last look becomes now.
 */
static uint64_t pp_wall_look_only_off(struct pp_wall_thread *t, uint64_t now, uint64_t cpu,
				      uint64_t *since_out)
{
	uint64_t since = t->last_look_ns ? t->last_look_ns : now - pp_wall.tick_ns;
	uint64_t wall = now > since ? now - since : 0, ran;

	*since_out = since;
	ran = cpu && t->last_look_cpu_ns && cpu >= t->last_look_cpu_ns ?
	      cpu - t->last_look_cpu_ns : 0;
	t->last_look_ns = now;
	t->last_look_cpu_ns = cpu;
	return ran < wall ? wall - ran : 0;
}

/*
 * Writes off ns of look-only thread t's time off the CPU from since to
 * now (under the mutex): at the start of it, the rest of the wait its
 * previous look found (t->stack), else at the end, a wait not looked at.
 */
static void pp_wall_look_only_write(struct pp_wall_thread *t, uint64_t since, uint64_t now,
				    uint64_t off)
{
	if (t->stack != PPF_WALL_NO_STACK)
		pp_wall_write_interval(t, since, since + off, pp_wall_state_of(t->nr),
				       PPF_WALL_LOOK_ONLY);
	else
		pp_wall_write_interval(t, now - off, now, PPF_WALL_UNKNOWN, PPF_WALL_LOOK_ONLY);
}

/*
 * Writes off ns of look-only thread t's time off the CPU between two looks
 * (since, now) that found it blocked in two different waits (its previous
 * look's stack and nr, was and was_nr, then t's): the rest of the first
 * and the start of the second, and whatever it waited in between, which
 * no look saw. Which part was which is not known: half each, at the start
 * and at the end (giving it all to the second, as before, gave a thread
 * that waited at a barrier, then slept, the barrier's time as sleep).
 */
static void pp_wall_look_only_split(struct pp_wall_thread *t, uint64_t since, uint64_t now,
				    uint64_t off, uint32_t was, int32_t was_nr)
{
	uint32_t stack = t->stack;
	int32_t nr = t->nr;
	uint64_t first = off / 2;

	t->stack = was;
	t->nr = was_nr;
	pp_wall_write_interval(t, since, since + first, pp_wall_state_of(was_nr),
			       PPF_WALL_LOOK_ONLY);
	t->stack = stack;
	t->nr = nr;
	pp_wall_write_interval(t, now - (off - first), now, pp_wall_state_of(nr),
			       PPF_WALL_LOOK_ONLY);
}

/*
 * A look at t, a thread without a ring, whose syscall line said st (nr,
 * and pp_wall.look's sp and pc). Its CPU clock says how long it was off
 * the CPU since its previous look: that time is the wait found now when
 * it is blocked (its end), shared with the wait the previous look found
 * when that was another (pp_wall_look_only_split); found running, the
 * rest of the wait its previous look found, else a wait nobody looked at.
 */
static void pp_wall_look_only(struct pp_wall_thread *t, uint64_t now, int st, int32_t nr)
{
	uint64_t since;
	uint64_t off = pp_wall_look_only_off(t, now, st < 0 ? 0 : pp_wall_tid_cpu(t->tid), &since);
	uint32_t was = t->stack;
	int32_t was_nr = t->nr;

	pp_wall.looks_only++;
	if (st == 0) {
		pp_wall_look_only_write(t, since, now, off);
		t->stack = PPF_WALL_NO_STACK;
		t->nr = -1;
		return;
	}
	t->looked = 0;
	t->stack = PPF_WALL_NO_STACK;
	t->nr = -1;
	/* Gone: the destructor's tail or the log's end says the rest. */
	if (st <= 0 || !pp_wall_look_with(t, pp_wall_read_to(t), st, nr))
		return;
	if (was != PPF_WALL_NO_STACK && t->stack != PPF_WALL_NO_STACK &&
	    (was != t->stack || was_nr != t->nr))
		pp_wall_look_only_split(t, since, now, off, was, was_nr);
	else
		pp_wall_look_only_write(t, now - off, now, off);
}

/*
 * The time look-only thread t spent off the CPU since its last look, to
 * end_ns when it had used cpu ns of CPU by then (0: not known, nothing
 * is said), as its last look found it (under the mutex).
 */
static void pp_wall_look_only_tail(struct pp_wall_thread *t, uint64_t end_ns, uint64_t cpu)
{
	uint64_t since, off;

	if (t->ring || t->inherits || !t->last_look_ns || !cpu || !t->last_look_cpu_ns ||
	    cpu < t->last_look_cpu_ns || end_ns <= t->last_look_ns)
		return;
	off = pp_wall_look_only_off(t, end_ns, cpu, &since);
	pp_wall_look_only_write(t, since, end_ns, off);
}

/*
 * Up to PP_WALL_LOOK_ONLY_PER_TICK threads without a ring, from where the
 * last tick stopped, their syscall lines read together (one hand-over).
 */
static void pp_wall_looks_only(uint64_t now)
{
	struct pp_wall_lines *lines = &pp_wall.lines;
	unsigned n = pp_wall.nthreads, start = pp_wall.look_only_next;

	lines->n = 0;
	for (unsigned k = 0; k < n && lines->n < PP_WALL_LOOK_ONLY_PER_TICK &&
	     lines->n < (pp_wall.looks_limit + 7) / 8; k++) {
		unsigned at = (start + k) % n;
		struct pp_wall_thread *t = &pp_wall.threads[at];

		if (!t->tid || t->ring || t->inherits)
			continue;
		pp_wall.look_at[lines->n] = t;
		lines->tid[lines->n++] = t->tid;
		pp_wall.look_only_next = (at + 1) % n;
	}
	if (!lines->n)
		return;
	if (pp_procio_call(pp_wall_lines_read, lines) != 0)
		for (unsigned i = 0; i < lines->n; i++)
			lines->len[i] = -ENOTCONN;
	for (unsigned i = 0; i < lines->n; i++) {
		int32_t nr = -1;
		int st = pp_wall_syscall_parse(lines->buf[i], lines->len[i], &nr,
					       &pp_wall.look.sp, &pp_wall.look.pc);

		pp_wall_look_only(pp_wall.look_at[i], now, st, nr);
	}
	lines->n = 0;
}

/*
 * The tick's looks at the threads gathered (pp_wall.look_at), their
 * syscall lines read together; returns how many looked. A wait that goes
 * on is said at once when its stack was read (the tick's records went
 * before).
 */
static unsigned pp_wall_looks(uint64_t now)
{
	struct pp_wall_lines *lines = &pp_wall.lines;
	unsigned looked = 0;

	(void)now;
	if (!lines->n)
		return 0;
	if (pp_procio_call(pp_wall_lines_read, lines) != 0)
		for (unsigned i = 0; i < lines->n; i++)
			lines->len[i] = -ENOTCONN;
	for (unsigned i = 0; i < lines->n; i++) {
		struct pp_wall_thread *t = pp_wall.look_at[i];
		int32_t nr = -1;
		int st = pp_wall_syscall_parse(lines->buf[i], lines->len[i], &nr,
					       &pp_wall.look.sp, &pp_wall.look.pc);

		looked += (unsigned)pp_wall_look_with(t, pp_wall.look_head[i], st, nr);
	}
	lines->n = 0;
	return looked;
}

/* One tick of the helper (under the mutex): drain every ring, look at new waits. */
static void pp_wall_tick(void)
{
	/* Paused, no stack is needed: a wait that goes on is looked at after. */
	unsigned looks = pp_pause_running_sigsafe() ? 0 : pp_wall.looks_limit;
	unsigned n = pp_wall.nthreads, start = n ? pp_wall.look_next % n : 0;
	uint64_t now = pp_wall_clock(CLOCK_MONOTONIC);
	int skipped = 0;

	pp_wall.ticks++;
	pp_wall.ring_busy = 0;
	pp_wall_yields_write();
	/* Every tick: pause.c keeps its last PP_PAUSE_MARKS switches only. */
	pp_wall_marks_refresh();
	if (pp_wall.ncpus) {
		/* Not the cost cap's to cut: records not read are lost. */
		uint64_t cpu = pp_wall_clock(CLOCK_THREAD_CPUTIME_ID);

		pp_wall_cpus_drain();
		pp_wall.drain_cpu_ns += pp_wall_clock(CLOCK_THREAD_CPUTIME_ID) - cpu;
	}
	/* From where the last tick's looks ran out: a thread early in the table cannot starve later ones. */
	pp_wall.lines.n = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (start + k) % n;
		struct pp_wall_thread *t = &pp_wall.threads[i];

		if (!t->tid || (!t->ring && !t->inherits) || t->ended_ns)
			continue;
		pp_wall_drain(t);
		if (t->out_ns && !t->preempted && !t->looked) {
			if (looks + pp_wall.lines.n < pp_wall.looks_limit) {
				pp_wall.look_at[pp_wall.lines.n] = t;
				pp_wall.look_head[pp_wall.lines.n] = pp_wall_read_to(t);
				pp_wall.lines.tid[pp_wall.lines.n++] = t->tid;
			} else if (!skipped++) {
				pp_wall.look_next = i;
			}
		}
	}
	looks += pp_wall_looks(now);
	/*
	 * A wait that lasts: said once, so that a process killed meanwhile
	 * still has it (up to its last tick); with its stack when it was
	 * looked at by then (this tick's looks included).
	 */
	for (unsigned i = 0; i < n; i++) {
		struct pp_wall_thread *t = &pp_wall.threads[i];

		if (!t->tid || (!t->ring && !t->inherits) || t->ended_ns)
			continue;
		if (t->out_ns && t->out_ns < now && !t->preempted && !t->open_said &&
		    !t->out_tentative &&
		    now - t->out_ns >= (t->looked ? 1 : 2) * pp_wall.tick_ns) {
			pp_wall_write_record(t, PPF_REC_WALL_OPEN, t->out_ns, now,
					     pp_wall_state(t), 0);
			t->open_said = 1;
		}
	}
	if (!skipped && looks < pp_wall.looks_limit)
		pp_wall.look_next = 0;
	if (pp_wall.no_ring && pp_pause_running_sigsafe())
		pp_wall_looks_only(now);
	if (pp_wall.alive_off)
		pp_logfile_rewrite_sigsafe(&pp_wall.log, pp_wall.alive_off, &now, sizeof(now));
}

/* ---- the helper thread -------------------------------------------------------- */

/*
 * The cost cap: a helper above PP_WALL_CPU_CAP_PERMILLE of a core over a
 * window looks at fewer threads per tick (in proportion), then wakes less
 * often; below half of it, it goes back by halves.
 */
static void pp_wall_cap(uint64_t *win_start, uint64_t *win_cpu)
{
	uint64_t now = pp_wall_clock(CLOCK_MONOTONIC);
	/* procio's thread works for the helper: its CPU time is the helper's. */
	uint64_t cpu = pp_wall_clock(CLOCK_THREAD_CPUTIME_ID) + pp_procio_cpu_ns(), used, allowed;

	pp_wall.helper_cpu_ns = cpu;
	/* What its looks cost: the per-CPU rings must be emptied whatever it costs. */
	cpu -= pp_wall.drain_cpu_ns < cpu ? pp_wall.drain_cpu_ns : cpu;
	if (now - *win_start < PP_WALL_CAP_WINDOW)
		return;
	used = (cpu - *win_cpu) * 1000;
	allowed = (now - *win_start) * PP_WALL_CPU_CAP_PERMILLE;
	if (used > allowed) {
		/* Looks cost most: as many fewer as the window was over. */
		if (pp_wall.looks_limit > 1)
			pp_wall.looks_limit = (unsigned)((uint64_t)pp_wall.looks_limit *
							 allowed / used) + (allowed >= used);
		else if (pp_wall.tick_ns * 2 <= PP_WALL_TICK_CAP)
			pp_wall.tick_ns *= 2;
		if (!pp_wall.looks_limit)
			pp_wall.looks_limit = 1;
		pp_wall.degraded++;
	} else if (used * 2 < allowed) {
		if (pp_wall.tick_ns > pp_wall.tick_base)
			pp_wall.tick_ns /= 2;
		else if (pp_wall.looks_limit < PP_WALL_LOOKS_PER_TICK)
			pp_wall.looks_limit *= 2;
	}
	*win_start = now;
	*win_cpu = cpu;
}

static void *pp_wall_helper_main(void *arg)
{
	uint64_t win_start = pp_wall_clock(CLOCK_MONOTONIC), win_cpu = 0;

	int err;

	(void)arg;
	pthread_setname_np(pthread_self(), "pprof-wall");
	/* Made here: every signal blocked, no sampling event to inherit. */
	err = pp_procio_start();
	if (err)
		pp_warn("cannot start the wall event's thread for /proc reads (%s); blocked "
			"threads' stacks are not read", strerror(err));
	pthread_mutex_lock(&pp_wall.mutex);
	pp_wall.helper_tid = pp_threads_gettid_sigsafe();
	pthread_cond_broadcast(&pp_wall.wake);
	while (!pp_wall.on && !pp_wall.stopping)
		pthread_cond_wait(&pp_wall.wake, &pp_wall.mutex);
	pthread_mutex_unlock(&pp_wall.mutex);
	/*
	 * Told to stop before it started (its events or wall.log failed), or
	 * meanwhile: it leaves without loading libunwind into the program.
	 */
	for (;;) {
		if (__atomic_load_n(&pp_wall.stopping, __ATOMIC_ACQUIRE)) {
			pthread_mutex_lock(&pp_wall.mutex);
			pp_wall.helper_running = 0;
			pthread_mutex_unlock(&pp_wall.mutex);
			pp_procio_stop();
			return NULL;
		}
		if (pp_wall_loader_enter())
			break;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	pp_wall_unw_load();
	__atomic_store_n(&pp_wall.in_loader, 0, __ATOMIC_SEQ_CST);
	for (;;) {
		struct timespec until;
		uint64_t next;

		pp_wall_modules_refresh();
		pthread_mutex_lock(&pp_wall.mutex);
		/* An exec is under way: it kills this thread, or fails and goes on. */
		while (pp_wall.held && !pp_wall.stopping)
			pthread_cond_wait(&pp_wall.wake, &pp_wall.mutex);
		if (pp_wall.stopping)
			break;
		pp_wall_tick();
		pp_wall_cap(&win_start, &win_cpu);
		next = pp_wall_clock(CLOCK_MONOTONIC) +
		       (pp_wall.ring_busy ? PP_WALL_TICK_FAST : pp_wall.tick_ns);
		until.tv_sec = (time_t)(next / 1000000000ull);
		until.tv_nsec = (long)(next % 1000000000ull);
		while (!pp_wall.stopping &&
		       pthread_cond_timedwait(&pp_wall.wake, &pp_wall.mutex, &until) == 0)
			;
		if (pp_wall.stopping)
			break;
		pthread_mutex_unlock(&pp_wall.mutex);
	}
	pp_wall.helper_running = 0;
	pthread_mutex_unlock(&pp_wall.mutex);
	pp_procio_stop();
	return NULL;
}

/*
 * Makes the helper, which waits until the event starts, and waits for its
 * tid. Before the process's events are opened: the sigtrap mode's
 * inherited events reach only the threads made after them, so the
 * helper's own CPU is never sampled as the program's.
 */
static int pp_wall_helper_make(void)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	int err;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pp_wall.wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PP_WALL_HELPER_STACK);
	pp_wall.helper_running = 1;
	pp_wall.helper_tid = 0;
	err = pp_hooks_create_helper(&pp_wall.helper, &attr, pp_wall_helper_main, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		pp_wall.helper_running = 0;
		return err;
	}
	pp_wall.helper_made = 1;
	pthread_mutex_lock(&pp_wall.mutex);
	while (!pp_wall.helper_tid)
		pthread_cond_wait(&pp_wall.wake, &pp_wall.mutex);
	pthread_mutex_unlock(&pp_wall.mutex);
	return 0;
}

/* ---- threads ------------------------------------------------------------------ */

/* A free slot (under the mutex), or NULL when the table is full. */
static struct pp_wall_thread *pp_wall_slot(void)
{
	for (unsigned i = 0; i < pp_wall.nthreads; i++)
		if (!pp_wall.threads[i].tid)
			return &pp_wall.threads[i];
	if (pp_wall.nthreads == PP_WALL_MAX_THREADS)
		return NULL;
	return &pp_wall.threads[pp_wall.nthreads++];
}

/*
 * Writes t's PPF_REC_WALL_THREAD and frees its slot (under the mutex).
 * end_ns: when it ended, 0 when it goes on (or that is not known).
 */
static void pp_wall_thread_close(struct pp_wall_thread *t, uint64_t end_ns)
{
	uint64_t cpu = t->ended_ns ? t->ended_cpu_ns :
		       t->last_cpu_ns ? t->last_cpu_ns : pp_wall_tid_cpu(t->tid);
	struct ppf_wall_thread r = {
		.tid = (uint32_t)t->tid,
		.ring_pages = t->ring ? t->ring_pages : t->inherits ? pp_wall.cpu_pages : 0,
		.error = t->error,
		.lost = t->lost,
		.end_ns = end_ns,
	};

	if (cpu && t->born_cpu_ns && cpu >= t->born_cpu_ns) {
		r.born_ns = t->born_ns;
		r.cpu_ns = cpu - t->born_cpu_ns;
	}
	/* Ended then: a look-only thread's time since its last look (else pp_wall_end's). */
	if (end_ns)
		pp_wall_look_only_tail(t, end_ns, cpu);
	r.intervals = t->intervals; /* the tail's included */

	pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_THREAD, &r, sizeof(r));
	pp_wall_ring_close(t);
	pp_wall_tid_forget(t->tid);
	pp_wall.ended -= t->ended_ns != 0;
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

/* The key's destructor: the thread ends; its last waits are in its ring. */
static void pp_wall_thread_end(void *arg)
{
	struct pp_wall_thread *t = arg;
	int tid = pp_threads_gettid_sigsafe(), saved = errno;

	pp_yields_end_sigsafe();
	pthread_mutex_lock(&pp_wall.mutex);
	if (pp_wall.on && pp_wall.pid == getpid() && t->tid == tid && !t->ended_ns) {
		if (t->inherits) {
			/*
			 * Its last records are read with the others' (emptying
			 * every CPU's ring here cost short threads as much as
			 * they ran): its slot is freed then.
			 */
			t->ended_cpu_ns = pp_wall_tid_cpu(tid);
			t->ended_ns = pp_wall_clock(CLOCK_MONOTONIC);
			pp_wall.ended++;
		} else {
			pp_wall_drain(t);
			pp_wall_thread_close(t, pp_wall_clock(CLOCK_MONOTONIC));
		}
	}
	pthread_mutex_unlock(&pp_wall.mutex);
	errno = saved;
}

/*
 * Sets thread tid up (under the mutex): 0, the calling thread, whose
 * ring of pages data pages its key's destructor closes (pages 0: it
 * inherited the per-CPU events, its switches come through their rings);
 * another, a thread older than the profiler (its slot is freed at the end).
 */
static struct pp_wall_thread *pp_wall_thread_add(int tid, unsigned pages)
{
	struct pp_wall_thread *t = !tid && (pp_wall.older || pp_wall.ended) ?
				   pp_wall_find(pp_threads_gettid_sigsafe()) : NULL;
	int err, self = pp_threads_gettid_sigsafe();

	/* An older thread's tid taken again: that thread is gone. */
	if (t && t->older) {
		pp_wall_drain(t);
		t->out_ns = 0;
		t->last_look_ns = 0; /* its tid's CPU clock is the new thread's */
		/* It left the CPU for good at its last switch, as far as is known. */
		pp_wall_thread_close(t, t->last_ns ? t->last_ns : pp_wall_clock(CLOCK_MONOTONIC));
		pp_wall.older--;
	} else if (t && t->ended_ns) {
		/* An ended thread's tid taken again before its slot was freed: its records are read now. */
		pp_wall_cpus_drain();
	}
	t = pp_wall_slot();
	if (!t && pp_wall.ended) {
		/* The table holds ended threads the helper has not read yet: read them now. */
		pp_wall_cpus_drain();
		t = pp_wall_slot();
	}
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->tid = tid ? tid : self;
	t->older = tid != 0;
	pp_wall.older += tid != 0;
	t->stack = PPF_WALL_NO_STACK;
	t->nr = -1;
	t->born_cpu_ns = pp_wall_tid_cpu(t->tid);
	t->born_ns = pp_wall_clock(CLOCK_MONOTONIC);
	pp_wall_tid_forget(t->tid);
	pp_wall.seen++;
	if (!tid && !pages) {
		t->inherits = 1;
		if (pp_wall.key_ok)
			pthread_setspecific(pp_wall.key, t);
		return t;
	}
	err = pp_wall_ring_open(t, tid, pages);
	if (err && pages > PP_WALL_RING_PAGES)
		err = pp_wall_ring_open(t, tid, PP_WALL_RING_PAGES);
	if (err) {
		t->error = -err;
		pp_wall.no_ring++;
		/* Its first look weighs the time since it started. */
		t->last_look_ns = t->born_ns;
		t->last_look_cpu_ns = t->born_cpu_ns;
	}
	if (!tid && pp_wall.key_ok)
		pthread_setspecific(pp_wall.key, t);
	return t;
}

/* Writes PPF_REC_WALL_OLDER for thread tid (under the mutex): its name. */
static void pp_wall_older_record(int tid)
{
	struct ppf_wall_older r = { .tid = (uint32_t)tid };
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	n = pp_procio_read(path, r.name, sizeof(r.name));
	if (n > 0 && r.name[n - 1] == '\n')
		r.name[n - 1] = '\0';
	else if (n <= 0)
		r.name[0] = '\0';
	pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_OLDER, &r, sizeof(r));
}

/*
 * The threads older than the profiler (a library's constructor made them
 * before ours ran), but the helper: their switch events are opened for
 * them (pid = tid: no signal, nothing they notice).
 */
/* The process's threads, listed in procio's thread (pp_wall_threads_older). */
struct pp_wall_tasks {
	int *tids;
	unsigned cap, n;
};

static void pp_wall_tasks_list(void *arg)
{
	struct pp_wall_tasks *l = arg;
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;

	if (!dir)
		return;
	while (l->n < l->cap && (de = readdir(dir)) != NULL)
		if (atoi(de->d_name) > 0)
			l->tids[l->n++] = atoi(de->d_name);
	closedir(dir);
}

static void pp_wall_threads_older(void)
{
	int self = pp_threads_gettid_sigsafe();
	struct pp_wall_tasks l = { .cap = PP_WALL_MAX_THREADS };

	l.tids = malloc(l.cap * sizeof(*l.tids));
	if (!l.tids || pp_procio_call(pp_wall_tasks_list, &l) != 0)
		l.n = 0;
	for (unsigned i = 0; i < l.n; i++) {
		int tid = l.tids[i];
		struct pp_wall_thread *t;
		uint64_t sp, pc;
		int32_t nr;

		if (tid == self || tid == pp_wall.helper_tid || tid == pp_procio_tid() ||
		    !(t = pp_wall_thread_add(tid, PP_WALL_RING_PAGES)))
			continue;
		pp_wall_older_record(tid);
		/* Blocked now, it left the CPU before its ring was there: from now. */
		if (t->ring && pp_wall_syscall(tid, &nr, &sp, &pc) == 1)
			pp_wall_set_out(t, pp_wall_clock(CLOCK_MONOTONIC));
	}
	free(l.tids);
}

int pp_wall_inherited(void)
{
	struct pp_wall_thread *t;

	return pp_wall.on && pp_wall.key_ok && (t = pthread_getspecific(pp_wall.key)) &&
	       t->inherits;
}

void pp_wall_thread_begin(int inherited)
{
	int saved = errno;

	pthread_mutex_lock(&pp_wall.mutex);
	if (pp_wall.on && !pp_wall.stopping && pp_wall.pid == getpid())
		pp_wall_thread_add(0, inherited && pp_wall.ncpus ? 0 : PP_WALL_RING_PAGES);
	pthread_mutex_unlock(&pp_wall.mutex);
	errno = saved;
}

void pp_wall_thread_ends(void)
{
	struct pp_wall_thread *t;

	if (!pp_wall.key_ok || !(t = pthread_getspecific(pp_wall.key)))
		return;
	pthread_setspecific(pp_wall.key, NULL);
	pp_wall_thread_end(t);
}

void pp_wall_thread_made(void)
{
	struct pp_wall_thread *t;
	uint64_t fill;
	int saved;

	if (!pp_wall.on || !pp_wall.key_ok || !(t = pthread_getspecific(pp_wall.key)))
		return;
	if (t->inherits) {
		/* Its CPU's ring takes the new thread's first switches: the same. */
		if (!pp_wall_cpus_busy())
			return;
		saved = errno;
		pthread_mutex_lock(&pp_wall.mutex);
		if (pp_wall.on)
			pp_wall_cpus_drain();
		pthread_mutex_unlock(&pp_wall.mutex);
		errno = saved;
		return;
	}
	if (!t->ring)
		return;
	fill = pp_wall_head(t) - __atomic_load_n(&t->ring->data_tail, __ATOMIC_RELAXED);
	if (fill <= t->ring->data_size / 2)
		return;
	/*
	 * A thread that starts threads switches as often as they start (each
	 * new thread may preempt it), faster than a helper drains that has
	 * them to run beside: it drains its own ring, waiting for the helper's
	 * tick to end if need be.
	 */
	saved = errno;
	pthread_mutex_lock(&pp_wall.mutex);
	if (pp_wall.on && t->tid == pp_threads_gettid_sigsafe())
		pp_wall_drain(t);
	pthread_mutex_unlock(&pp_wall.mutex);
	errno = saved;
}

/* ---- the process ---------------------------------------------------------------- */

void pp_wall_prepare(uint64_t period_ns)
{
	int err;

	if (!period_ns)
		return;
	pp_wall.pid = getpid();
	pp_wall.stopping = 0;
	err = pp_wall_helper_make();
	if (err)
		pp_warn("cannot start the wall event's helper thread: %s; blocked "
			"threads' stacks are not read", strerror(err));
}

int pp_wall_is_helper(int tid)
{
	return pp_wall.pid == getpid() && pp_wall.helper_running &&
	       (tid == pp_wall.helper_tid || tid == pp_procio_tid());
}

void pp_wall_start(uint64_t period_ns, int thread_rings, struct pp_thread_dir *dir)
{
	struct ppf_wall_start r = { 0 };
	char file[NAME_MAX + 1];
	int err;

	if (!period_ns)
		return;
	pp_wall.pid = getpid();
	pp_wall.period_ns = period_ns;
	pp_wall.tick_base = period_ns < PP_WALL_TICK_MIN ? PP_WALL_TICK_MIN :
			    period_ns > PP_WALL_TICK_MAX ? PP_WALL_TICK_MAX : period_ns;
	pp_wall.tick_ns = pp_wall.tick_base;
	pp_wall.looks_limit = PP_WALL_LOOKS_PER_TICK;
	if (!pp_wall.threads)
		pp_wall.threads = calloc(PP_WALL_MAX_THREADS, sizeof(*pp_wall.threads));
	err = !pp_wall.threads ? -ENOMEM :
	      pp_threads_dir_file_sigsafe(dir, file, sizeof(file), PPF_WALL_LOG);
	if (!err)
		err = pp_logfile_create_sigsafe(&pp_wall.log, dir->rootfd, file, PPF_FILE_WALL);
	if (err) {
		pp_warn("cannot create %s.%s for the wall event: %s; the program runs "
			"without it", dir->path ? dir->path : "", PPF_WALL_LOG, strerror(-err));
		pp_wall_stop();
		return;
	}
	r.period_ns = period_ns;
	r.tick_ns = pp_wall.tick_ns;
	r.start_ns = pp_wall_clock(CLOCK_MONOTONIC);
	r.ring_pages = PP_WALL_RING_PAGES;
	/* Before any thread's slot: the calling thread's records count from its slot's start. */
	if (!thread_rings && pp_wall_cpus_open(r.start_ns) == 0) {
		r.ring_pages = pp_wall.cpu_pages;
		r.cpu_rings = pp_wall.ncpus;
	}
	pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_START, &r, sizeof(r));
	{
		struct ppf_wall_alive a = { .alive_ns = r.start_ns };
		uint64_t at = pp_wall.log.used;

		pp_wall.alive_off = pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_ALIVE, &a,
							    sizeof(a)) == 0 ?
				    at + offsetof(struct ppf_wall_alive, alive_ns) : 0;
	}
	if (!pp_wall.key_ok)
		pp_wall.key_ok = pthread_key_create(&pp_wall.key, pp_wall_thread_end) == 0;
	pthread_mutex_lock(&pp_wall.mutex);
	pp_wall.on = 1;
	pp_wall.held = 0;
	pp_wall_thread_add(0, pp_wall.ncpus ? 0 : PP_WALL_FIRST_RING_PAGES);
	pp_wall_threads_older();
	pthread_cond_broadcast(&pp_wall.wake);
	pthread_mutex_unlock(&pp_wall.mutex);
}

/*
 * The records of the end (under the mutex): every thread's open wait,
 * ending now, and the totals. closing: the log and the rings are closed;
 * else (an exec that may fail) they stay, the open waits going on from now.
 */
static void pp_wall_end(int closing)
{
	struct ppf_wall_end e = { 0 };
	uint64_t now;

	/* The threads' CPU times first: none counts time after the log's end. */
	for (unsigned i = 0; closing && i < pp_wall.nthreads; i++)
		if (pp_wall.threads[i].tid && !pp_wall.threads[i].ended_ns)
			pp_wall.threads[i].last_cpu_ns = pp_wall_tid_cpu(pp_wall.threads[i].tid);
	now = pp_wall_clock(CLOCK_MONOTONIC);

	/* The ending thread's yield stretch; other threads' open ones are not known. */
	pp_yields_end_sigsafe();
	pp_wall_yields_write();
	{
		struct ppf_wall_yield d = { .stack = PPF_WALL_NO_STACK,
					    .dropped = pp_yields_dropped_sigsafe() };

		if (d.dropped)
			pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_YIELD, &d, sizeof(d));
	}

	pp_wall_cpus_drain();
	for (unsigned i = 0; i < pp_wall.nthreads; i++) {
		struct pp_wall_thread *t = &pp_wall.threads[i];
		uint64_t sp, pc;
		char path[64];
		int32_t nr;
		int gone;

		if (!t->tid)
			continue;
		pp_wall_drain(t);
		snprintf(path, sizeof(path), "/proc/self/task/%d", t->tid);
		/* A thread gone without its destructor (raw exit, an older thread) has no open wait. */
		gone = access(path, F_OK) != 0;
		/* Off since records were lost only if blocked now (else it ran since). */
		if (t->out_ns && !gone &&
		    (!t->out_tentative || pp_wall_syscall(t->tid, &nr, &sp, &pc) == 1)) {
			pp_wall_write_interval(t, t->out_ns, now, pp_wall_state(t),
					       PPF_WALL_OPEN_AT_END);
			pp_wall_set_out(t, now);
		}
		/* The log ends (an exec too): a look-only thread's time since its last look. */
		if (!gone)
			pp_wall_look_only_tail(t, now, closing ? t->last_cpu_ns :
						     pp_wall_tid_cpu(t->tid));
		/* Gone, it left the CPU for good at its last switch. */
		if (closing)
			pp_wall_thread_close(t, gone ? (t->last_ns ? t->last_ns : now) : 0);
	}
	e.end_ns = now;
	e.looks = pp_wall.looks;
	e.looks_dropped = pp_wall.dropped;
	e.helper_cpu_ns = pp_wall.helper_cpu_ns;
	e.threads = pp_wall.seen;
	e.no_ring = pp_wall.no_ring;
	e.lost = pp_wall.lost;
	e.ticks = pp_wall.ticks;
	e.degraded = pp_wall.degraded;
	e.looks_only = pp_wall.looks_only;
	if (closing)
		pp_logfile_closing_sigsafe(&pp_wall.log);
	pp_records_wall_sigsafe(&pp_wall.log, PPF_REC_WALL_END, &e, sizeof(e));
	if (closing) {
		pp_logfile_close_sigsafe(&pp_wall.log);
		pp_wall_cpus_close(PP_WALL_CPUS_KEEP);
	}
}

void pp_wall_stop(void)
{
	int made;

	if (pp_wall.pid != getpid())
		return;
	pthread_mutex_lock(&pp_wall.mutex);
	pp_wall.stopping = 1;
	pthread_cond_broadcast(&pp_wall.wake);
	/*
	 * The helper leaves at its next look at stopping; not waited for, as
	 * the process may end in a thread that holds the loader's lock, which
	 * the helper takes between ticks.
	 */
	if (pp_wall.on)
		pp_wall_end(1);
	pp_wall.on = 0;
	made = pp_wall.helper_made;
	pp_wall.helper_made = 0;
	pthread_mutex_unlock(&pp_wall.mutex);
	if (made)
		pthread_detach(pp_wall.helper);
}

void pp_wall_exec_begin(void)
{
	if (!pp_wall.on || pp_wall.pid != getpid())
		return;
	pthread_mutex_lock(&pp_wall.mutex);
	/* The records so far, ended as if the exec succeeds; the helper waits. */
	pp_wall_end(0);
	pp_wall.held = 1;
	pthread_mutex_unlock(&pp_wall.mutex);
}

void pp_wall_exec_failed(void)
{
	if (!pp_wall.on || pp_wall.pid != getpid())
		return;
	pthread_mutex_lock(&pp_wall.mutex);
	pp_wall.held = 0;
	pthread_cond_broadcast(&pp_wall.wake);
	pthread_mutex_unlock(&pp_wall.mutex);
}

void pp_wall_fork_child(void)
{
	pp_wall.forking = 0;
	pp_wall.in_loader = 0;
	pp_procio_fork_child();
	/* The parent's stretches are its own: the forking thread's too. */
	pp_yields_fork_child_sigsafe();
	if (!pp_wall.threads)
		return;
	/* The helper and the lock's holder, if any, stayed in the parent. */
	pthread_mutex_init(&pp_wall.mutex, NULL);
	/* Perf rings are not copied into a child (VM_DONTCOPY): their events' descriptors only. */
	for (unsigned i = 0; i < pp_wall.nthreads; i++)
		if (pp_wall.threads[i].tid && pp_wall.threads[i].fd >= 0)
			pp_fd_close_ours_sigsafe(pp_wall.threads[i].fd);
	memset(pp_wall.threads, 0, PP_WALL_MAX_THREADS * sizeof(*pp_wall.threads));
	/* Not inherited by a new process (inherit_thread): the child opens its own. */
	pp_wall_cpus_close(PP_WALL_CPUS_FORGET);
	memset(pp_wall.tids, 0, sizeof(pp_wall.tids));
	pp_wall.out_of_order = 0;
	pp_wall.drain_cpu_ns = 0;
	pp_wall.ended = 0;
	pp_wall.nthreads = 0;
	pp_logfile_forget_sigsafe(&pp_wall.log);
	pp_wall.alive_off = 0;
	pp_wall.on = 0;
	pp_wall.stopping = 0;
	pp_wall.held = 0;
	pp_wall.helper_running = 0;
	pp_wall.helper_made = 0;
	pp_wall.helper_tid = 0;
	pp_wall.nmarks = pp_wall.marks_from = 0;
	pp_wall.marks_upto = 0;
	pp_wall.seen = pp_wall.no_ring = pp_wall.older = 0;
	pp_wall.looks = pp_wall.dropped = pp_wall.lost = pp_wall.degraded = pp_wall.ticks = 0;
	pp_wall.looks_only = 0;
	pp_wall.helper_cpu_ns = 0;
	memset(pp_wall.stack_hash, 0, sizeof(pp_wall.stack_hash));
	pp_wall.nstacks = pp_wall.next_stack_id = 0;
	pp_wall.nmodules = 0;
	/* libunwind's address space is reused: its caches hold the same modules. */
}
