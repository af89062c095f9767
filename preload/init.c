/*
 * The process's profiling state. The constructor takes the configuration,
 * makes <root>/<exe>.<pid>/, writes process.log, installs the sampling
 * signal's handler, warms libunwind up and opens the events; threads get their slot and log in
 * pp_init_thread_begin; the destructor and the thread-exit finaliser write
 * the END records. Nothing here runs in signal context.
 */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "exec.h"
#include "hooks.h"
#include "maps.h"
#include "outdir.h"
#include "pprof/format.h"
#include "proclog.h"
#include "sigsafe/fd.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"
#include "sigsafe/sampsig.h"
#include "sigsafe/share.h"
#include "sigsafe/threads.h"
#include "unsampled.h"
#include "unwlib.h"
#include "warn.h"

#define PP_ALTSTACK_SIZE (64 * 1024)
/*
 * Tries at a thread's share when its descriptors are taken a moment, and
 * the wait between them: 100 ms in all at the most, and only at a limit so
 * tight that the share is full.
 */
#define PP_SHARE_TRIES 500
#define PP_SHARE_WAIT_NS 200000
/*
 * libunwind's own per-thread state, made at a thread's first unw_backtrace:
 * the trace cache's table (measured: one 256 KiB mapping per thread).
 */
#define PP_UNW_THREAD_BYTES (256 * 1024)
#define PP_CMDLINE_MAX (64 * 1024)
#define PP_UNW_CACHE_SIZE 32768
#define PP_FINISH_SPINS 100000

/* A full disk still leaves room for every closing record (logfile.h). */
_Static_assert(sizeof(struct ppf_log_full) + sizeof(struct ppf_thread_name) +
	       PP_CONFIG_MAX_EVENTS * sizeof(struct ppf_thread_event) +
	       sizeof(struct ppf_thread_end) + sizeof(struct ppf_record) <= PP_LOGFILE_KEEP,
	       "a thread's closing records fit in PP_LOGFILE_KEEP");
_Static_assert(sizeof(struct ppf_log_full) + sizeof(struct ppf_process_end) +
	       sizeof(struct ppf_record) <= PP_LOGFILE_KEEP,
	       "the process's closing records fit in PP_LOGFILE_KEEP");

static struct {
	int active;          /* profiling runs in this process */
	pid_t pid;           /* the process the state belongs to */
	int rootfd;          /* the output root (O_PATH) while the process
				starts (pp_init_start_process), else -1 */
	int dirfd;
	struct pp_thread_dir tdir; /* dirfd, for thread logs */
	char dir[PATH_MAX];
	struct pp_config cfg;
	struct pp_events events;
	pthread_key_t key;
	int key_ok;
	uint32_t exit_how;   /* enum ppf_exit_how, once known */
	int exit_status;
	int off_log;         /* profiling is off, process.log still open */
	int warned_counters; /* a thread's own events could not be opened (once) */
	pp_unwlib_backtrace_fn backtrace; /* libunwind's, once loaded */
	int mode;            /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL (its
				signal: sigsafe/sampsig.h) */
	int starting;        /* in the constructor (not a fork child) */
	uint64_t samples;    /* atomic: of threads whose logs are finished */
	uint64_t lost;
	uint64_t throttled;
} pp_st = { .rootfd = -1, .dirfd = -1 };

/* One line on stderr, prefixed "libpprof: " (warn.h). */
__attribute__((format(printf, 1, 2)))
static void pp_init_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pp_warn_v(fmt, ap);
	va_end(ap);
}

int pp_init_active(void)
{
	return __atomic_load_n(&pp_st.active, __ATOMIC_ACQUIRE) &&
	       pp_st.pid == getpid();
}

/* The line said when a log of this process first fills (logfile.h). */
static void pp_init_full_line(void)
{
	char what[PATH_MAX + 64];

	snprintf(what, sizeof(what), "cannot write more to the logs in %s", pp_st.dir);
	pp_logfile_set_full_line_sigsafe(what, "the program runs on, unprofiled in the threads "
					 "whose logs are full or cannot be made (`pprof-analyze "
					 "threads` shows which logs stopped early; their later "
					 "samples are counted as lost)");
}

/*
 * Makes <root>/<exe>.<pid>/ (or .<pid>.<k> if a stale one is there) below
 * rootfd, the output root opened by pp_outdir_open.
 */
static int pp_init_process_dir(int rootfd)
{
	char exe[PATH_MAX];
	const char *base;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int len = snprintf(pp_st.dir, sizeof(pp_st.dir), "%s/", pp_st.cfg.output);
	int fd;

	exe[n > 0 ? n : 0] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "unknown";
	/* The name goes after "<root>/": the whole path must fit in dir. */
	if (len < 0 || len >= (int)sizeof(pp_st.dir))
		return -ENAMETOOLONG;
	fd = pp_outdir_make_process(rootfd, base, (int)pp_st.pid, pp_st.dir + len,
				    sizeof(pp_st.dir) - (size_t)len);
	if (fd < 0)
		return fd;
	pp_st.dirfd = pp_fd_move_high_sigsafe(fd);
	pp_st.tdir = (struct pp_thread_dir){ .fd = pp_st.dirfd, .pid = (int)pp_st.pid };
	pp_logfile_same_file_sigsafe(pp_st.dirfd, &pp_st.tdir.dev, &pp_st.tdir.ino);
	return 0;
}

/* Reads /proc/self/cmdline into a malloc'd buffer; *len gets its size. */
static char *pp_init_cmdline(uint32_t *len)
{
	char *buf = malloc(PP_CMDLINE_MAX);
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, r;

	*len = 0;
	if (!buf || fd < 0) {
		if (fd >= 0)
			close(fd);
		return buf;
	}
	while (n < PP_CMDLINE_MAX &&
	       (r = read(fd, buf + n, (size_t)(PP_CMDLINE_MAX - n))) > 0)
		n += r;
	close(fd);
	*len = (uint32_t)n;
	return buf;
}

/*
 * The process's first records in process.log: the process (in mode), the
 * configuration, and each event.
 */
static void pp_init_write_start(uint32_t mode)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint32_t cmdline_len;
	char *cmdline = pp_init_cmdline(&cmdline_len);
	struct pp_logfile *log = pp_proclog_hold();

	exe[n > 0 ? n : 0] = '\0';
	pp_records_process_sigsafe(log, mode, mode == PPF_MODE_OFF ? 0 :
				   pp_sampsig_number_sigsafe(), exe, cmdline,
				   cmdline ? cmdline_len : 0);
	pp_records_config_sigsafe(log, &pp_st.cfg);
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++)
		pp_records_event_sigsafe(log, i, &pp_st.cfg.events[i], pp_st.events.error[i],
					 !!(pp_st.events.refused & (1u << i)));
	pp_proclog_release();
	free(cmdline);
}

/* This thread's totals for each event that runs, before its END record. */
static void pp_init_write_thread_events(struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++) {
		struct pp_counter_value cv;

		if (pp_st.events.error[i])
			continue;
		if (!pp_st.cfg.events[i].count_only) {
			struct pp_records_counts c = {
				.samples = t->ev_samples[i],
				.lost = __atomic_load_n(&t->ev_lost[i], __ATOMIC_RELAXED),
				.throttled = __atomic_load_n(&t->ev_throttled[i],
							     __ATOMIC_RELAXED),
			};

			pp_records_thread_samples_sigsafe(&t->log, i, &c,
							  pp_st.mode == PPF_MODE_SIGNAL &&
							  !(t->tev.open & (1u << i)));
		} else {
			pp_records_thread_counter_sigsafe(&t->log, i,
							  pp_events_counter_read(&t->tev, i, &cv) == 0 ?
							  &cv : NULL);
		}
	}
	pp_events_thread_close(&t->tev);
}

/* Whether the calling thread has an alternate signal stack of its own. */
static int pp_init_has_altstack(void)
{
	stack_t old;

	return sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE);
}

/*
 * Gives the thread our alternate signal stack unless it has one already.
 * Returns 0 or a negative errno.
 */
static int pp_init_altstack(struct pp_thread *t)
{
	stack_t ss;
	void *p;

	if (pp_init_has_altstack())
		return 0;
	p = mmap(NULL, PP_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	ss.ss_sp = p;
	ss.ss_size = PP_ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0) {
		int err = -errno;

		munmap(p, PP_ALTSTACK_SIZE);
		return err;
	}
	t->altstack = p;
	t->altstack_size = PP_ALTSTACK_SIZE;
	return 0;
}

static void pp_init_altstack_free(struct pp_thread *t, int self)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (!t->altstack)
		return;
	if (self)
		sigaltstack(&ss, NULL);
	munmap(t->altstack, t->altstack_size);
	t->altstack = NULL;
}

/*
 * libunwind's first call in a thread runs pthread_once and an mmap: make it
 * here, never first in the handler.
 */
static void pp_init_warm_up(void)
{
	void *frames[8];

	if (pp_st.backtrace)
		(void)pp_st.backtrace(frames, 8);
}

/* The thread's current name: its own via prctl, another's via /proc. */
static void pp_init_thread_name(int tid, int self, char *name)
{
	char path[64];
	ssize_t n;
	int fd;

	memset(name, 0, PPF_THREAD_NAME_MAX);
	if (self) {
		prctl(PR_GET_NAME, name, 0, 0, 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, PPF_THREAD_NAME_MAX - 1);
	close(fd);
	if (n > 0 && name[n - 1] == '\n')
		name[n - 1] = '\0';
}

/* CPU time of a thread of this process, by tid (the kernel's clock id). */
static uint64_t pp_init_thread_cpu_ns(int tid)
{
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The overflows of t's time events (cpu-clock, task-clock) in cpu_ns of its
 * CPU time that its sampling events were stopped: counted as throttled, as
 * the sigtrap mode's blocked time comes as a late sample. Other events'
 * count while stopped is not known.
 */
static void pp_init_thread_unseen(struct pp_thread *t, uint64_t cpu_ns)
{
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++) {
		const struct pp_config_event *ce = &pp_st.cfg.events[i];
		uint64_t n;

		if (ce->count_only || !ce->time_ns || ce->freq || !ce->period ||
		    pp_st.events.error[i])
			continue;
		n = cpu_ns / ce->period;
		__atomic_add_fetch(&t->ev_throttled[i], n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->throttled, n, __ATOMIC_RELAXED);
	}
}

/*
 * Writes the thread's name and END record and closes its log (t is busy).
 * self: the calling thread, else another (its name read from /proc).
 */
static void pp_init_thread_finish(struct pp_thread *t, int tid, int self)
{
	char name[PPF_THREAD_NAME_MAX];
	struct pp_records_counts c;
	uint64_t now;

	if (!pp_logfile_is_open_sigsafe(&t->log)) {
		/* An unsampled thread's samples (sigtrap mode) were dropped. */
		__atomic_add_fetch(&pp_st.lost, __atomic_exchange_n(&t->lost, 0, __ATOMIC_RELAXED),
				   __ATOMIC_RELAXED);
		return;
	}
	pp_logfile_closing_sigsafe(&t->log);
	now = pp_records_now_sigsafe();
	/* A thread that is gone has no name left to read: keep the first. */
	pp_init_thread_name(tid, self, name);
	if (name[0])
		pp_records_thread_name_sigsafe(&t->log, now, name);
	if (t->blocked_cpu_ns) {
		uint64_t cpu = pp_init_thread_cpu_ns(tid);

		if (cpu > t->blocked_cpu_ns)
			pp_init_thread_unseen(t, cpu - t->blocked_cpu_ns);
		t->blocked_cpu_ns = 0;
	}
	pp_events_thread_disable(&t->tev);
	pp_init_write_thread_events(t);
	c.samples = t->samples;
	c.lost = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	c.throttled = __atomic_load_n(&t->throttled, __ATOMIC_RELAXED);
	pp_records_thread_end_sigsafe(&t->log, now, &c, pp_init_thread_cpu_ns(tid));
	__atomic_add_fetch(&pp_st.samples, c.samples, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pp_st.lost, c.lost, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pp_st.throttled, c.throttled, __ATOMIC_RELAXED);
	pp_logfile_close_sigsafe(&t->log);
}

/* Waits (bounded) until no sample is being written for t, then holds it. */
static int pp_init_thread_hold(struct pp_thread *t)
{
	for (int i = 0; i < PP_FINISH_SPINS; i++) {
		if (pp_threads_enter_sigsafe(t))
			return 1;
		sched_yield();
	}
	return 0;
}

/*
 * How much address space each log maps at a time: under RLIMIT_AS, one
 * allocation step (the program keeps the rest of the limit), else the
 * larger window that needs fewer mappings.
 */
static void pp_init_log_window(void)
{
	pp_logfile_set_window_sigsafe(pp_share_limit_sigsafe(RLIMIT_AS) == UINT64_MAX ?
				      PP_LOGFILE_WINDOW : PP_LOGFILE_STEP);
}

/*
 * What the calling thread's sampling state takes of the process's limits
 * (share.h): its log's mapping (its descriptor is held only while the log
 * is made or grows: logfile.h), alternate stack (altstack: ours is needed), libunwind's
 * state (arena: with the malloc arena its first use may cost), and its own
 * events.
 */
/* A thread log's descriptor, held while the log is made (logfile.h). */
static const struct pp_share_cost pp_init_log_fd = { .fds = 1 };

static struct pp_share_cost pp_init_thread_cost(int altstack, int arena)
{
	struct pp_share_cost c = { .bytes = pp_logfile_window_sigsafe() + PP_UNW_THREAD_BYTES,
				   .fds = pp_init_log_fd.fds };

	c.bytes += altstack ? PP_ALTSTACK_SIZE : 0;
	c.bytes += arena ? PP_SHARE_ARENA : 0;
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++) {
		if (pp_st.events.error[i])
			continue;
		if (pp_st.cfg.events[i].count_only) {
			c.fds++;
		} else if (pp_st.mode == PPF_MODE_SIGNAL) {
			c.fds++;
			c.bytes += PP_EVENTS_RB_PAGES * 4096ull;
		}
	}
	return c;
}

/*
 * Takes the calling thread's share, then its log, with the sampling signal
 * blocked (a sample between the lookup and the claim would make a second
 * slot and log for this thread: seen at a 10 us period with 1,000 short
 * threads, "File exists"). The slot is the one the handler made if a
 * sample landed between clone() and here (ours to finish; a dead raw-clone
 * thread whose tid we reuse would share its log), else a new one. Returns
 * the slot, busy; NULL with *what and *err (positive) set when the thread
 * cannot be sampled: then the slot, if any, is in *slot, without a log.
 */
static struct pp_thread *pp_init_thread_slot(int tid, const struct pp_share_cost *cost,
					     struct pp_thread **slot, uint32_t *what, int *err)
{
	struct pp_thread *t;
	sigset_t old;

	*slot = NULL;
	pp_hooks_mask_signal(SIG_BLOCK, &old);
	t = pp_threads_find_sigsafe(tid);
	if (t) {
		pp_threads_enter_sigsafe(t);
		goto out;
	}
	t = pp_threads_claim_sigsafe(tid);
	if (!t) {
		*what = PPF_UNSAMPLED_TABLE;
		*err = errno;
		goto out;
	}
	*what = PPF_UNSAMPLED_SHARE;
	*err = -pp_share_take_sigsafe(cost);
	/*
	 * Other threads' logs may hold the share's last descriptors a moment
	 * (while made or grown; longer when their thread is preempted then).
	 */
	for (int i = 0; *err == EMFILE && i < PP_SHARE_TRIES; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = PP_SHARE_WAIT_NS }, NULL);
		*err = -pp_share_take_sigsafe(cost);
	}
	if (!*err) {
		t->charge = *cost;
		*what = PPF_UNSAMPLED_LOG;
		*err = -pp_threads_open_log_sigsafe(t, &pp_st.tdir);
	}
	/* The log's descriptor was charged while it was made. */
	if (!*err && !pp_logfile_holds_fd_sigsafe(&t->log)) {
		pp_share_give_sigsafe(&pp_init_log_fd);
		t->charge.fds -= pp_init_log_fd.fds;
	}
	if (*err) {
		*slot = t;
		t = NULL;
	}
out:
	pp_hooks_restore_mask(&old);
	return t;
}

/*
 * Whether libunwind's first use in the calling thread may make glibc
 * reserve it a malloc arena (PP_SHARE_ARENA) that the program's own thread
 * would not have had: under RLIMIT_AS, for a thread other than the main
 * one, when there is room for it.
 */
static int pp_init_may_reserve_arena(int main)
{
	return !main && pp_share_limit_sigsafe(RLIMIT_AS) != UINT64_MAX &&
	       pp_share_room_sigsafe() >= PP_SHARE_ARENA;
}

/*
 * libunwind's first call in the thread (pp_init_warm_up); under RLIMIT_AS,
 * gives back the share taken for a malloc arena that glibc did not make.
 */
static void pp_init_thread_warm_up(struct pp_thread *t, int arena)
{
	uint64_t before = arena ? pp_share_room_sigsafe() : 0, after;
	struct pp_share_cost none = { .bytes = PP_SHARE_ARENA };

	pp_init_warm_up();
	if (!arena)
		return;
	after = pp_share_room_sigsafe();
	/* Room that grew meanwhile (another thread freed memory) reads as no arena. */
	if (before != UINT64_MAX && after != UINT64_MAX &&
	    (after >= before || before - after < PP_SHARE_ARENA / 2)) {
		pp_share_give_sigsafe(&none);
		t->charge.bytes -= PP_SHARE_ARENA;
	}
}

/*
 * Gives back everything the calling thread's slot t holds but the slot: its
 * events, its log (removed: it holds no sample), its alternate signal stack
 * and its share. t must be held (busy).
 */
static void pp_init_thread_drop(struct pp_thread *t, int tid)
{
	char name[64];

	pp_events_thread_close(&t->tev);
	if (pp_logfile_is_open_sigsafe(&t->log)) {
		pp_logfile_format_name_sigsafe(name, PPF_THREAD_LOG_PREFIX, (uint64_t)tid,
					       PPF_LOG_SUFFIX);
		pp_logfile_close_sigsafe(&t->log);
		unlinkat(pp_st.dirfd, name, 0);
	}
	pp_init_altstack_free(t, 1);
	pp_share_give_sigsafe(&t->charge);
	t->charge = (struct pp_share_cost){ 0 };
}

/*
 * The calling thread runs unsampled: what failed with errno err. Its slot
 * t (NULL when it got none; else held) keeps nothing but stays claimed,
 * logless, so that the handler drops its samples instead of adopting it.
 */
static void pp_init_thread_unsampled(struct pp_thread *t, int tid, uint32_t what, int err,
				     const struct pp_share_cost *asked)
{
	if (t) {
		pp_init_thread_drop(t, tid);
		pp_threads_leave_sigsafe(t);
	}
	pp_unsampled_note(tid, what, err, asked);
}

/*
 * Claims the calling thread's slot and makes its sampling state: share,
 * log, alternate signal stack, libunwind's warm-up. Returns the slot, or
 * NULL when the thread runs unsampled (said and recorded; *slot then holds
 * its logless slot, if it got one).
 */
static struct pp_thread *pp_init_thread_setup(int main, struct pp_thread **slot)
{
	int tid = pp_threads_gettid_sigsafe(), arena, err = 0;
	struct pp_share_cost cost;
	uint32_t what = 0;
	struct pp_thread *t;

	pp_init_log_window();
	arena = pp_init_may_reserve_arena(main);
	cost = pp_init_thread_cost(!pp_init_has_altstack(), arena);
	t = pp_init_thread_slot(tid, &cost, slot, &what, &err);
	if (!t) {
		pp_init_thread_unsampled(*slot, tid, what, err, &cost);
		return NULL;
	}
	*slot = t;
	t->tcb = pp_threads_tcb_sigsafe();
	t->leaf_only = 0;
	if ((err = -pp_init_altstack(t)) != 0) {
		pp_init_thread_unsampled(t, tid, PPF_UNSAMPLED_ALTSTACK, err, NULL);
		return NULL;
	}
	pp_init_thread_warm_up(t, arena);
	pp_threads_leave_sigsafe(t);
	return t;
}

/* pthread key destructor: the thread is ending. */
static void pp_init_thread_end(void *arg)
{
	struct pp_thread *t = arg;
	int tid = pp_threads_gettid_sigsafe(), saved = errno;

	if (pp_st.pid != getpid() || __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) != tid)
		return;
	if (!pp_init_thread_hold(t))
		return;
	pp_init_thread_finish(t, tid, 1);
	pp_init_altstack_free(t, 1);
	pp_share_give_sigsafe(&t->charge);
	/*
	 * The rest of an ending thread's life (other destructors, glibc's
	 * freeing of its malloc cache and arena) goes unsampled: its log is
	 * finished, and a sample there made the handler try to adopt the
	 * thread again. With a sample every 10 us in the sigtrap mode that
	 * hung 1,000 short threads 5 runs in 5 (a malloc arena's lock left
	 * held; the mechanism was not pinned down); with this and the blocked
	 * start (hooks.c), 5 in 5 finish. Blocked before the slot is released:
	 * a sample in between found no slot and adopted the thread, which
	 * gave a thread that ran unsampled a log of its own as well.
	 */
	pp_hooks_mask_signal(SIG_BLOCK, NULL);
	pp_threads_release_sigsafe(t);
	errno = saved; /* other key destructors run after this one */
}

/* Whether the thread has one of its sampling events open (the signal mode). */
static int pp_init_thread_sampled(const struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++)
		if (!pp_st.cfg.events[i].count_only && (t->tev.open & (1u << i)))
			return 1;
	return 0;
}

/*
 * Opens the calling thread's own events (t is its slot): its counters, and
 * in the signal mode its sampling events. Returns 0, or the errno (positive)
 * when, in the signal mode, none of its sampling events could be opened: t
 * is then still held (busy), for pp_init_thread_unsampled. A thread without
 * some of its counters runs on without them; the first is said.
 */
static int pp_init_thread_events(struct pp_thread *t)
{
	int err;

	if (!pp_threads_enter_sigsafe(t))
		return 0;
	err = -pp_events_thread_open(&t->tev, &pp_st.cfg, &pp_st.events);
	if (err && pp_st.mode == PPF_MODE_SIGNAL && !pp_init_thread_sampled(t))
		return err;
	pp_threads_leave_sigsafe(t);
	if (err && !__atomic_exchange_n(&pp_st.warned_counters, 1, __ATOMIC_RELAXED))
		pp_init_warn("thread %d: cannot open some of its events: %s; threads "
			     "like it miss them (pprof-analyze threads and counters "
			     "show which)", t->tid, strerror(err));
	return 0;
}

void pp_init_thread_begin(void)
{
	struct pp_thread *t, *slot;
	int cancel, saved, err;

	if (!pp_init_active())
		return;
	/*
	 * The app may cancel the thread as soon as it exists: no cancellation
	 * point in the setup (openat, read) may leave a slot half made.
	 */
	saved = errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	t = pp_init_thread_setup(0, &slot);
	if (t && (err = pp_init_thread_events(t)) != 0)
		pp_init_thread_unsampled(t, t->tid, PPF_UNSAMPLED_EVENTS, err, NULL);
	/* An unsampled thread's slot too: its end releases it. */
	if (slot && pp_st.key_ok)
		pthread_setspecific(pp_st.key, slot);
	pthread_setcancelstate(cancel, NULL);
	errno = saved;
}

void pp_init_thread_masks(int blocked)
{
	struct pp_thread *t;
	int tid, saved = errno;
	uint64_t cpu;

	if (pp_st.mode != PPF_MODE_SIGNAL || !pp_init_active())
		return;
	tid = pp_threads_gettid_sigsafe();
	t = pp_threads_find_sigsafe(tid);
	/* Busy: the profiler's own code (libunwind's masks in the handler). */
	if (!t || !pp_threads_enter_sigsafe(t))
		return;
	cpu = pp_init_thread_cpu_ns(tid);
	if (blocked) {
		pp_events_thread_disable(&t->tev);
		t->blocked_cpu_ns = cpu ? cpu : 1;
	} else {
		pp_events_thread_enable(&t->tev);
		if (t->blocked_cpu_ns && cpu > t->blocked_cpu_ns)
			pp_init_thread_unseen(t, cpu - t->blocked_cpu_ns);
		t->blocked_cpu_ns = 0;
	}
	pp_threads_leave_sigsafe(t);
	errno = saved;
}

static void pp_init_finish_other(struct pp_thread *t, void *arg)
{
	int self = *(int *)arg;
	int tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);

	if (tid <= 0 || !pp_init_thread_hold(t))
		return;
	pp_init_thread_finish(t, tid, tid == self);
	/* Keep busy set: a late sample for this thread is dropped. */
}

/* Writes the process's END record, into the room kept for it, and closes process.log. */
static void pp_init_close_proclog(void)
{
	struct pp_logfile *log = pp_proclog_hold();
	struct pp_records_counts c = {
		.samples = __atomic_load_n(&pp_st.samples, __ATOMIC_RELAXED),
		.lost = __atomic_load_n(&pp_st.lost, __ATOMIC_RELAXED) +
			pp_sampler_unowned_lost_sigsafe(),
		.throttled = __atomic_load_n(&pp_st.throttled, __ATOMIC_RELAXED),
	};

	pp_logfile_closing_sigsafe(log);
	pp_records_process_end_sigsafe(log, &c, pp_st.exit_how, pp_st.exit_status);
	pp_logfile_close_sigsafe(log);
	pp_proclog_release();
}

/* on_exit handler: the only place that sees the exit status. */
static void pp_init_on_exit(int status, void *arg)
{
	(void)arg;
	pp_st.exit_how = PPF_EXIT_NORMAL;
	pp_st.exit_status = status;
}

void pp_init_main_starts(void)
{
	/*
	 * Registered now, after libc registered the destructors' runner, so
	 * it runs before our destructor writes the END record.
	 */
	on_exit(pp_init_on_exit, NULL);
}

/* Writes every END record and closes the logs: the process is ending. */
static void pp_init_finish(void)
{
	int self = pp_threads_gettid_sigsafe();

	if (pp_st.off_log && pp_st.pid == getpid()) {
		pp_init_close_proclog();
		pp_st.off_log = 0;
		return;
	}
	if (!pp_init_active())
		return;
	__atomic_store_n(&pp_st.active, 0, __ATOMIC_RELEASE);
	pp_events_disable(&pp_st.events);
	pp_threads_each_sigsafe(pp_init_finish_other, &self);
	pp_init_close_proclog();
	pp_unsampled_summary();
	/*
	 * The handler stays installed: a signal still in flight must not meet
	 * SIGTRAP's default action.
	 */
}

__attribute__((destructor))
static void pp_init_destructor(void)
{
	int saved = errno; /* destructors that run after ours see it */

	pp_init_finish();
	errno = saved;
}

void pp_init_process_ends(uint32_t how, int status)
{
	if (pp_st.pid != getpid())
		return;
	pp_st.exit_how = how;
	pp_st.exit_status = status;
	pp_init_finish();
}

/* The calling thread's own events (signal mode: its sampling events), or NULL. */
static struct pp_tevents *pp_init_own_tevents(void)
{
	struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());

	return t ? &t->tev : NULL;
}

int pp_init_exec_begin(const char *path)
{
	struct pp_tevents *te;
	int saved = errno;

	/* Not in a vfork child (another pid): the events are the parent's. */
	if (!pp_init_active())
		return 0;
	pp_records_exec_sigsafe(pp_proclog_hold(), path);
	pp_proclog_release();
	/*
	 * The signal mode's other threads end at exec, and their samples with
	 * them (signals routed to a thread); the process-wide events stop too.
	 */
	pp_events_disable(&pp_st.events);
	te = pp_init_own_tevents();
	if (te)
		pp_events_thread_disable(te);
	pp_sampler_take_pending_sigsafe();
	errno = saved;
	return 1;
}

void pp_init_exec_failed(int began)
{
	int saved = errno; /* the app sees exec's errno */

	if (!began || !pp_init_active())
		return;
	pp_events_enable(&pp_st.events, pp_init_own_tevents());
	errno = saved;
}

/* Whether the program has left sig at its default action. */
static int pp_init_signal_free(int sig)
{
	struct sigaction old;

	return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	       !(old.sa_flags & SA_SIGINFO);
}

/*
 * The signal mode's signal: the configured one, else a real-time signal the
 * program has not claimed (the highest), else SIGPROF. Under a tracer,
 * SIGPROF first: debuggers stop on every real-time signal by default (gdb:
 * "SIG34 Stop Yes") but pass SIGPROF on silently.
 */
static int pp_init_choose_signal(int tracer)
{
	if (pp_st.cfg.signal)
		return pp_st.cfg.signal;
	if (tracer && pp_init_signal_free(SIGPROF))
		return SIGPROF;
	for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--)
		if (pp_init_signal_free(sig))
			return sig;
	return SIGPROF;
}

/*
 * The sampling mode: mode = sigtrap, or auto where the kernel has sigtrap
 * events and no tracer is attached (a debugger stops on every SIGTRAP);
 * else the signal mode. Returns 0, or -1 with profiling off (sigtrap asked
 * for under a tracer).
 */
static int pp_init_choose_mode(int tracer)
{
	uint32_t req = pp_st.cfg.mode_request;

	if (req == PPF_MODE_REQUEST_SIGTRAP && tracer) {
		pp_init_warn("a tracer is attached (pid %d) and mode = sigtrap: "
			     "the sigtrap mode cannot run under a debugger (use "
			     "mode = auto or signal); profiling is off", tracer);
		return -1;
	}
	if (req == PPF_MODE_REQUEST_SIGTRAP ||
	    (req == PPF_MODE_REQUEST_AUTO && !tracer &&
	     pp_events_probe_sigtrap() != -EINVAL)) {
		pp_st.mode = PPF_MODE_SIGTRAP;
		pp_sampsig_set_sigsafe(SIGTRAP);
		return 0;
	}
	pp_st.mode = PPF_MODE_SIGNAL;
	pp_sampsig_set_sigsafe(pp_init_choose_signal(tracer));
	return 0;
}

/* The tracer's pid from /proc/self/status, 0 when none. */
static int pp_init_tracer(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "TracerPid:");
	return p ? atoi(p + 10) : 0;
}

/*
 * Profiling cannot start: with strict = yes the program is stopped before
 * main (only in the constructor: a fork child of a running program goes on).
 */
static void pp_init_strict_stop(void)
{
	if (!pp_st.cfg.strict || !pp_st.starting)
		return;
	pp_init_warn("strict = yes in %s: stopping the program (exit status 1)",
		     pp_st.cfg.source);
	_exit(EXIT_FAILURE);
}

/* Undoes the main thread's setup when profiling does not start. */
static void pp_init_drop_main(struct pp_thread *main_thread)
{
	pp_init_thread_drop(main_thread, main_thread->tid);
	pp_threads_release_sigsafe(main_thread);
}

/* When process pid started, in CLOCK_REALTIME ns (clock-tick steps); 0 if unknown. */
static uint64_t pp_init_start_ns(int pid)
{
	char path[64], buf[1024];
	const char *p;
	unsigned long long ticks;
	struct timespec now, boot;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Field 22, starttime; the name in field 2 may hold spaces and ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
			 "%*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec -
	       ((uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec) +
	       ticks * 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
}

/*
 * Whether name is a process directory's of pid: EXE.PID, or EXE.PID.K when
 * EXE.PID was taken. Matched from the end, as pp_init_process_dir makes it:
 * an EXE with dots and digits of its own (python3.11) does not mislead.
 */
static int pp_init_dir_of(const char *name, int pid)
{
	char tail[24];
	size_t len = strlen(name), tl;
	const char *k;

	tl = (size_t)snprintf(tail, sizeof(tail), ".%d", pid);
	if (len > tl && strcmp(name + len - tl, tail) == 0)
		return 1;
	/* EXE.PID.K: strip the trailing ".K" (K a number) and look again. */
	k = strrchr(name, '.');
	if (!k || k == name || k[1] < '0' || k[1] > '9' ||
	    strspn(k + 1, "0123456789") != strlen(k + 1))
		return 0;
	len = (size_t)(k - name);
	return len > tl && strncmp(name + len - tl, tail, tl) == 0;
}

/*
 * Whether this process's parent, or its own image before an exec, writes
 * into the same output directory in this run: a process directory of that
 * pid, other than ours, changed since that process started (an older one of
 * a reused pid was last changed before). That process named the events the
 * machine refused already; a build that runs hundreds of programs under
 * one configuration then says so once, not once per program.
 */
static int pp_init_run_said(void)
{
	const char *mine = strrchr(pp_st.dir, '/') ? strrchr(pp_st.dir, '/') + 1 : pp_st.dir;
	int pids[2] = { (int)getppid(), (int)pp_st.pid };
	uint64_t since[2] = { pp_init_start_ns(pids[0]), pp_init_start_ns(pids[1]) };
	int fd = openat(pp_st.rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int said = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!said && (e = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, mine) == 0)
			continue;
		for (int i = 0; i < 2 && !said; i++)
			said = since[i] && pp_init_dir_of(e->d_name, pids[i]) &&
			       fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			       S_ISDIR(st.st_mode) &&
			       (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
					       (uint64_t)st.st_mtim.tv_nsec >= since[i];
	}
	closedir(d);
	return said;
}

/*
 * One line per event the machine refused; when profiling cannot start
 * (err), the last one says so too. Said once per run: not in a fork child,
 * nor in a process whose parent or previous image said it (pp_init_run_said).
 */
static void pp_init_event_lines(char (*lines)[PP_EVENTS_LINE_MAX], int err)
{
	unsigned last = 0, any = 0;

	if (!pp_st.starting && !err)
		return;
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++)
		if (lines[i][0]) {
			last = i;
			any = 1;
		}
	if (any && pp_st.starting && pp_init_run_said())
		return;
	for (unsigned i = 0; i < pp_st.cfg.nevents; i++) {
		if (!lines[i][0])
			continue;
		if (!err)
			pp_init_warn("%s; skipped (unavailable = skip)", lines[i]);
		else if (i < last)
			pp_init_warn("%s", lines[i]);
		else
			pp_init_warn("%s; %s: profiling is off, the program runs "
				     "unprofiled", lines[i], pp_st.cfg.unavailable_off ?
				     "unavailable = off" : "no event is left");
	}
}

/*
 * Opens the events. Each event the machine refuses is named in one line
 * (in the constructor; a fork child does not repeat them). On failure says
 * why and leaves profiling off.
 */
static int pp_init_start_events(struct pp_thread *main_thread)
{
	static char lines[PP_CONFIG_MAX_EVENTS][PP_EVENTS_LINE_MAX];
	struct pp_tevents none, *self = main_thread ? &main_thread->tev : &none;
	int err = pp_hooks_install_handler();

	if (err) {
		pp_init_warn("cannot install the handler of signal %d: %s; "
			     "profiling is off, the program runs unprofiled",
			     pp_sampsig_number_sigsafe(), strerror(-err));
		goto out_off;
	}
	err = pp_events_open(&pp_st.events, &pp_st.cfg, pp_st.mode, self, lines);
	pp_init_event_lines(lines, err);
	if (!err)
		return 0;
	pp_hooks_uninstall_handler();
out_off:
	if (main_thread)
		pp_init_drop_main(main_thread);
	pp_init_strict_stop();
	return err;
}

/*
 * Opens the output root (pp_outdir_open: the checks of outdir.h) into
 * pp_st.rootfd, and makes the process directory and its process.log there.
 * When it cannot, says why in one line and returns a negative errno.
 */
static int pp_init_open_output(void)
{
	char why[PP_OUTDIR_WHY_MAX];
	int err;

	pp_st.rootfd = pp_outdir_open(pp_st.cfg.output, why);
	err = pp_st.rootfd < 0 ? pp_st.rootfd : pp_init_process_dir(pp_st.rootfd);
	if (!err && (err = pp_proclog_create(pp_st.dirfd)) != 0) {
		pp_fd_close_sigsafe(pp_st.dirfd);
		pp_st.dirfd = -1;
	}
	if (!err)
		return 0;
	if (why[0])
		pp_init_warn("refusing output directory %s: %s; profiling is off, the "
			     "program runs unprofiled", pp_st.cfg.output, why);
	else
		pp_init_warn("cannot create the output directory under %s: %s; "
			     "profiling is off", pp_st.cfg.output, strerror(-err));
	if (pp_st.rootfd >= 0)
		close(pp_st.rootfd);
	pp_st.rootfd = -1;
	return err;
}

/* Logs, handler and events, once the process directory is there. */
static void pp_init_start_profiling(void)
{
	struct pp_sampler_config scfg = {
		.mode = pp_st.mode,
		.nevents = pp_st.cfg.nevents,
		.max_frames = pp_st.cfg.max_frames,
		.backtrace = pp_st.backtrace,
		.dir = pp_st.tdir,
	};
	struct pp_thread *main_thread, *slot;

	pp_sampler_configure_sigsafe(&scfg);
	pp_unsampled_start(pp_st.dir);
	main_thread = pp_init_thread_setup(1, &slot);
	if (pp_init_start_events(main_thread) != 0) {
		/* The log stays open: the destructor says how the process ended. */
		pp_init_write_start(PPF_MODE_OFF);
		pp_st.off_log = 1;
		return;
	}
	/* Threads started before us (by a library's constructor). */
	pp_events_open_others(&pp_st.events, &pp_st.cfg);
	pp_init_write_start((uint32_t)pp_st.mode);
	pp_maps_set_dir(pp_st.dirfd, pp_st.dir);
	pp_maps_scan(pp_records_now_sigsafe());
	if (slot && pp_st.key_ok)
		pthread_setspecific(pp_st.key, slot);
	__atomic_store_n(&pp_st.active, 1, __ATOMIC_RELEASE);
	/* Last: the profiler's own start is not sampled. */
	pp_events_enable(&pp_st.events, main_thread ? &main_thread->tev : NULL);
	/* A program started with the signal blocked (its parent's mask). */
	if (pp_hooks_signal_blocked())
		pp_init_thread_masks(1);
}

/*
 * Everything a process needs to be profiled; called at start and in a fork
 * child, which opens the root again from its path with the same checks.
 */
static void pp_init_start_process(void)
{
	pp_st.pid = getpid();
	pp_share_reset_sigsafe();
	pp_init_log_window();
	/* A fork child's: the parent's line names the parent's directory. */
	pp_logfile_set_full_line_sigsafe(NULL, NULL);
	if (pp_init_open_output() != 0) {
		pp_init_strict_stop();
		return;
	}
	/* Set once process.log exists: a disk full before says the line above. */
	pp_init_full_line();
	pp_init_start_profiling();
	close(pp_st.rootfd);
	pp_st.rootfd = -1;
}

/* Drops a parent's slot in a fork child: its log and stack are the parent's. */
static void pp_init_forget_slot(struct pp_thread *t, void *arg)
{
	(void)arg;
	pp_logfile_forget_sigsafe(&t->log);
	pp_events_thread_close(&t->tev);
	if (t->altstack)
		munmap(t->altstack, t->altstack_size);
	t->altstack = NULL;
	pp_threads_release_sigsafe(t);
}

/*
 * pthread_atfork child handler. With inherit_thread a fork child inherits no
 * event: it gets its own directory, log and events, like a new process.
 */
static void pp_init_fork_child(void)
{
	stack_t ss = { .ss_flags = SS_DISABLE };
	int saved = errno; /* the child sees fork's errno */

	if (!__atomic_load_n(&pp_st.active, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&pp_st.active, 0, __ATOMIC_RELEASE);
	pp_threads_each_sigsafe(pp_init_forget_slot, NULL);
	/* The forking thread's stack was unmapped above; a new one is made. */
	sigaltstack(&ss, NULL);
	for (unsigned i = 0; i < pp_st.events.n; i++)
		pp_fd_close_sigsafe(pp_st.events.fds[i]);
	pp_st.events.n = 0;
	pp_proclog_forget();
	pp_maps_reset();
	if (pp_st.dirfd >= 0)
		pp_fd_close_sigsafe(pp_st.dirfd);
	pp_st.dirfd = -1;
	pp_st.exit_how = PPF_EXIT_UNKNOWN;
	pp_st.warned_counters = 0;
	pp_st.samples = 0;
	pp_st.lost = 0;
	pp_st.throttled = 0;
	pp_init_start_process();
	errno = saved;
}

/* Says what is wrong with the configuration, one line per problem. */
static void pp_init_config_errors(const struct pp_config_errors *errs)
{
	for (unsigned i = 0; i < errs->n; i++)
		pp_init_warn("%s", errs->e[i].msg);
	if (errs->more)
		pp_init_warn("... and %u more problems", errs->more);
}

__attribute__((constructor))
static void pp_init_constructor(void)
{
	static struct pp_config_errors errs;
	int saved = errno; /* main starts with the errno it would have */
	char why[256];
	int err, tracer;

	pp_hooks_resolve();
	pp_st.starting = 1;
	err = pp_config_load(&pp_st.cfg, &errs);
	if (err) {
		pp_init_config_errors(&errs);
		pp_init_strict_stop();
		if (!errs.said_off)
			pp_init_warn("profiling is off because of the configuration; "
				     "the program runs unprofiled");
		goto out;
	}
	tracer = pp_init_tracer();
	if (pp_init_choose_mode(tracer) != 0) {
		pp_init_strict_stop();
		goto out;
	}
	pp_st.backtrace = pp_unwlib_load(PP_UNW_CACHE_SIZE, why, sizeof(why));
	if (!pp_st.backtrace) {
		pp_init_warn("%s; profiling is off, the program runs unprofiled", why);
		pp_init_strict_stop();
		goto out;
	}
	/* Children that exec and chdir write next to their parent. */
	setenv("PPROF_OUTPUT", pp_st.cfg.output, 1);
	pp_exec_init(pp_st.cfg.follow_exec);
	pp_init_warm_up();
	pp_st.key_ok = pthread_key_create(&pp_st.key, pp_init_thread_end) == 0;
	pthread_atfork(NULL, NULL, pp_init_fork_child);
	pp_init_start_process();
out:
	pp_st.starting = 0;
	errno = saved;
}
