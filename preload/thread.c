/*
 * A thread's profiling life: its setup at its start, the sampling signal
 * blocked and unblocked, its closing records at its end, and the fork
 * child's forgetting of its parent's threads. Nothing here runs in signal
 * context.
 */
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hooks.h"
#include "pprof/format.h"
#include "process.h"
#include "sigsafe/appmask.h"
#include "sigsafe/sampsig.h"
#include "sigsafe/logfile.h"
#include "sigsafe/pause.h"
#include "sigsafe/sampler.h"
#include "sigsafe/share.h"
#include "sigsafe/yields.h"
#include "proclog.h"
#include "unsampled.h"
#include "unwlib.h"
#include "wall.h"
#include "warn.h"

#define PP_THREAD_ALTSTACK_SIZE (64 * 1024)
/*
 * Alternate stacks of ended threads kept for the next threads to start (at
 * most this many: 1 MiB of address space), when RLIMIT_AS does not count
 * them: an mmap at each thread's start and a munmap at its end (a TLB
 * shootdown on every CPU the process runs on) were a third of the
 * profiler's cost per short thread.
 */
#define PP_THREAD_SPARE_STACKS 16
/*
 * Tries at a thread's share when its descriptors are taken a moment, and
 * the wait between them: 100 ms in all at the most, and only at a limit so
 * tight that the share is full.
 */
#define PP_THREAD_SHARE_TRIES 500
#define PP_THREAD_SHARE_WAIT_NS 200000
/*
 * libunwind's own per-thread state, made at a thread's first unw_backtrace:
 * the trace cache's table (measured: one 256 KiB mapping per thread).
 */
#define PP_THREAD_UNW_BYTES (256 * 1024)
/* Yields at the most while a thread's last sample is written (pp_thread_hold). */
#define PP_THREAD_FINISH_SPINS 100000

static struct pp_thread_env pp_thread_env;

static struct {
	pthread_key_t key;
	int key_ok;
	int lazy_unwind; /* libunwind's per-thread state is made at a thread's
			    first sample (pp_unwlib_early_key), else at its start */
	int warned_counters; /* a thread's own events could not be opened (once) */
	uint64_t samples;    /* atomic: of threads whose logs are finished */
	uint64_t lost;
	uint64_t throttled;
} pp_thread_st;

/* This thread's totals for each event that runs, before its END record. */
static void pp_thread_write_events(struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_thread_env.cfg->nevents; i++) {
		struct pp_counter_value cv;

		if (pp_thread_env.events->error[i])
			continue;
		if (!pp_thread_env.cfg->events[i].count_only) {
			struct pp_records_counts c = {
				.samples = t->ev_samples[i],
				.lost = __atomic_load_n(&t->ev_lost[i], __ATOMIC_RELAXED),
				.throttled = __atomic_load_n(&t->ev_throttled[i],
							     __ATOMIC_RELAXED),
			};

			pp_records_thread_samples_sigsafe(&t->log, i, &c,
							  pp_thread_env.mode == PPF_MODE_SIGNAL &&
							  !(t->tev.open & (1u << i)));
		} else {
			pp_records_thread_counter_sigsafe(&t->log, i,
							  pp_events_counter_read(&t->tev, i, &cv) == 0 ?
							  &cv : NULL, t->late_counters);
		}
	}
	pp_events_thread_close(&t->tev);
}

/* Spare alternate stacks (PP_THREAD_ALTSTACK_SIZE bytes each), NULL where none. */
static void *pp_thread_spare[PP_THREAD_SPARE_STACKS];

/* A spare alternate stack, or NULL. */
static void *pp_thread_spare_take(void)
{
	for (unsigned i = 0; i < PP_THREAD_SPARE_STACKS; i++) {
		void *p = __atomic_exchange_n(&pp_thread_spare[i], NULL, __ATOMIC_ACQ_REL);

		if (p)
			return p;
	}
	return NULL;
}

/*
 * Keeps p, an alternate stack no thread uses any more, for the next thread;
 * unmaps it when there is no room or RLIMIT_AS is finite (the share counts
 * only the stacks threads hold).
 */
static void pp_thread_spare_put(void *p)
{
	if (pp_share_limit_sigsafe(RLIMIT_AS) == UINT64_MAX)
		for (unsigned i = 0; i < PP_THREAD_SPARE_STACKS; i++) {
			void *none = NULL;

			if (__atomic_compare_exchange_n(&pp_thread_spare[i], &none, p, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return;
		}
	munmap(p, PP_THREAD_ALTSTACK_SIZE);
}

/* Whether the calling thread has an alternate signal stack of its own. */
static int pp_thread_has_altstack(void)
{
	stack_t old;

	return sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE);
}

/*
 * Gives the thread our alternate signal stack unless it has one already
 * (has: pp_thread_has_altstack's answer). Returns 0 or a negative errno.
 */
static int pp_thread_altstack(struct pp_thread *t, int has)
{
	stack_t ss;
	void *p;

	if (has)
		return 0;
	p = pp_thread_spare_take();
	if (!p)
		p = mmap(NULL, PP_THREAD_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	ss.ss_sp = p;
	ss.ss_size = PP_THREAD_ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0) {
		int err = -errno;

		pp_thread_spare_put(p);
		return err;
	}
	t->altstack = p;
	t->altstack_size = PP_THREAD_ALTSTACK_SIZE;
	return 0;
}

static void pp_thread_altstack_free(struct pp_thread *t, int self)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (!t->altstack)
		return;
	if (self)
		pp_sampler_stacks_sigsafe(NULL, 0, NULL);
	/* Another thread's may still take a signal: only our own is kept. */
	if (self && sigaltstack(&ss, NULL) == 0 && t->altstack_size == PP_THREAD_ALTSTACK_SIZE)
		pp_thread_spare_put(t->altstack);
	else
		munmap(t->altstack, t->altstack_size);
	t->altstack = NULL;
}

/*
 * libunwind's first call in a thread runs pthread_once and an mmap (in the
 * process, it takes a lock and makes a pipe): make it here, never first in
 * the handler.
 */
static void pp_thread_first_unwind(void)
{
	void *frames[8];

	if (pp_thread_env.backtrace)
		(void)pp_thread_env.backtrace(frames, 8);
}

/* The thread's current name: its own via prctl, another's via /proc. */
static void pp_thread_name(int tid, int self, char *name)
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


/*
 * The CPU time of thread tid of this process, ended elsewhere than in that
 * thread: its clock, split as /proc/self/task/TID/stat's utime and stime
 * (clock ticks, already scaled by the kernel to the thread's runtime) split
 * it. No split when the file cannot be read or holds no tick yet.
 */
static void pp_thread_cpu_other(int tid, struct pp_records_cpu *cpu)
{
	unsigned long long ut, st;
	char path[64], buf[1024];
	const char *p;

	*cpu = (struct pp_records_cpu){ .cpu_ns = pp_threads_cpu_of_sigsafe(tid) };
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (!pp_process_read_proc(path, buf, sizeof(buf)))
		return;
	/* Fields 14 and 15; the name in field 2 may hold spaces and ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2 || ut + st == 0)
		return;
	cpu->user_ns = (uint64_t)((double)cpu->cpu_ns * (double)ut / (double)(ut + st));
	cpu->system_ns = cpu->cpu_ns - cpu->user_ns;
}

/*
 * The CPU time of thread tid: from getrusage(RUSAGE_THREAD) when it is the
 * calling thread (self), its clock as the total; else pp_thread_cpu_other.
 */
static void pp_thread_cpu(int tid, int self, struct pp_records_cpu *cpu)
{
	if (!self) {
		pp_thread_cpu_other(tid, cpu);
		return;
	}
	pp_records_cpu_sigsafe(RUSAGE_THREAD, cpu);
	cpu->cpu_ns = pp_threads_cpu_of_sigsafe(tid);
}

/*
 * Whether the kernel's mask of thread tid blocks the sampling signal while
 * it runs: the calling thread's (self), else as /proc says (SigBlk, in hex:
 * bit n - 1 is signal n) of a thread that is running or runnable (one
 * asleep in sigsuspend, ppoll and the like has the wait's mask there, and
 * misses no sample).
 */
static int pp_thread_signal_blocked(int tid, int self)
{
	char path[64], buf[2048];
	unsigned long long blk;
	const char *p, *state;

	if (self)
		return pp_hooks_signal_blocked();
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (!pp_process_read_proc(path, buf, sizeof(buf)))
		return 0;
	state = strstr(buf, "\nState:");
	p = strstr(buf, "\nSigBlk:");
	if (!state || !p || sscanf(p + 8, "%llx", &blk) != 1)
		return 0;
	state += 7;
	while (*state == ' ' || *state == '\t')
		state++;
	return *state == 'R' && ((blk >> (pp_sampsig_number_sigsafe() - 1)) & 1);
}

/*
 * t's PPF_REC_THREAD_BLOCKED, when there is something to say (a signal it
 * held, or its signal blocked behind the profiler's back), with the hold
 * still running counted up to now. t is held (busy).
 */
static void pp_thread_write_blocked(struct pp_thread *t, int tid, int self, uint64_t now)
{
	uint32_t flags = 0;

	if (t->held_since_ns) {
		flags |= PPF_BLOCKED_HELD_AT_END;
		pp_appmask_hold_end_sigsafe(t, pp_threads_cpu_of_sigsafe(tid));
	} else if (!(self && pp_appmask_held_sigsafe()) && pp_thread_signal_blocked(tid, self)) {
		flags |= PPF_BLOCKED_UNSEEN;
	}
	if (t->holds || flags)
		pp_records_thread_blocked_sigsafe(&t->log, now, t->held_cpu_ns, t->holds, flags);
}

/* Whether the thread has a counting event of its own open. */
static int pp_thread_counts(const struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_thread_env.cfg->nevents; i++)
		if (pp_thread_env.cfg->events[i].count_only && (t->tev.open & (1u << i)))
			return 1;
	return 0;
}

/*
 * Whether every sampling event that runs is the thread's own too, where
 * the mode opens them per thread (the signal mode): else its log would
 * say which it missed.
 */
static int pp_thread_all_sampling(const struct pp_thread *t)
{
	if (pp_thread_env.mode != PPF_MODE_SIGNAL)
		return 1;
	for (unsigned i = 0; i < pp_thread_env.cfg->nevents; i++)
		if (!pp_thread_env.events->error[i] && !pp_thread_env.cfg->events[i].count_only &&
		    !(t->tev.open & (1u << i)))
			return 0;
	return 1;
}

/*
 * Whether t (busy, no log) has nothing to say but what PPF_REC_THREAD_QUIET
 * holds: its log is still to be made, and it took no sample, lost and
 * throttled none, has no counter and no blocked signal to tell of.
 */
static int pp_thread_is_quiet(const struct pp_thread *t, int tid, int self)
{
	return __atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE) && !t->samples &&
	       !__atomic_load_n(&t->lost, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&t->throttled, __ATOMIC_RELAXED) && !t->holds &&
	       !t->held_since_ns && !pp_thread_counts(t) && pp_thread_all_sampling(t) &&
	       !(self && pp_appmask_held_sigsafe()) && !pp_thread_signal_blocked(tid, self);
}

/*
 * When t (busy, no log) is quiet (pp_thread_is_quiet), writes its
 * PPF_REC_THREAD_QUIET to process.log, as of now, named name, with flags
 * (enum ppf_thread_quiet_flags), and returns 1; its log stays to be made
 * unless the thread ended (flags 0). Returns 0 when it is not quiet.
 */
static int pp_thread_quiet(struct pp_thread *t, int tid, int self, uint32_t flags,
			   uint64_t now, const char *name)
{
	struct pp_records_cpu used;

	if (!pp_thread_is_quiet(t, tid, self))
		return 0;
	pp_thread_cpu(tid, self, &used);
	pp_records_thread_quiet_sigsafe(pp_proclog_hold(), tid, flags, t->start_ns, now, name,
					&used);
	pp_proclog_release();
	if (!(flags & PPF_QUIET_EXEC))
		__atomic_store_n(&t->log_pending, 0, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Makes the log of t (busy) at its end, when it took no sample but has more
 * to say than PPF_REC_THREAD_QUIET holds. Returns 0, or a negative errno
 * when it has no log: one still pending that cannot be made is said as a
 * thread that ran unsampled (PPF_UNSAMPLED_LOG).
 */
static int pp_thread_late_log(struct pp_thread *t, int tid, const char *name)
{
	int pending = __atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE), err;

	err = pp_threads_lazy_log_sigsafe(t, pp_thread_env.dir, name);
	if (err == -EMFILE)
		__atomic_store_n(&t->log_pending, 0, __ATOMIC_RELEASE);
	if (err && (pending || t->log_err))
		pp_unsampled_note(tid, PPF_UNSAMPLED_LOG,
				  err == -EMFILE ? -err : t->log_err, NULL);
	return err;
}

/*
 * Writes the thread's name and END record and closes its log (t is busy).
 * self: the calling thread, else another (its name read from /proc).
 */
static void pp_thread_finish(struct pp_thread *t, int tid, int self)
{
	char name[PPF_THREAD_NAME_MAX];
	struct pp_records_counts c;
	struct pp_records_cpu used;
	struct pp_records_paused paused;
	uint64_t now = pp_records_now_sigsafe();

	/* Before its events close: no other thread switches them from now on (pause.h). */
	pp_pause_thread_end_sigsafe(t, tid, now, &paused);
	/* A thread that is gone has no name left to read: keep the first. */
	pp_thread_name(tid, self, name);
	/* A thread paused has a log for its PPF_REC_THREAD_PAUSED. */
	if (!pp_logfile_is_open_sigsafe(&t->log) &&
	    ((!paused.pauses && pp_thread_quiet(t, tid, self, 0, now, name)) ||
	     pp_thread_late_log(t, tid, name) != 0)) {
		/* Its own events (signal mode), which no log will total. */
		pp_events_thread_disable(&t->tev);
		pp_events_thread_close(&t->tev);
		/* An unsampled thread's samples (sigtrap mode) were dropped. */
		__atomic_add_fetch(&pp_thread_st.lost,
				   __atomic_exchange_n(&t->lost, 0, __ATOMIC_RELAXED),
				   __ATOMIC_RELAXED);
		return;
	}
	pp_logfile_closing_sigsafe(&t->log);
	if (name[0])
		pp_records_thread_name_sigsafe(&t->log, now, name);
	if (paused.pauses)
		pp_records_paused_sigsafe(&t->log, PPF_REC_THREAD_PAUSED, now, &paused);
	pp_events_thread_disable(&t->tev);
	pp_thread_write_blocked(t, tid, self, now);
	pp_thread_write_events(t);
	pp_threads_counts_sigsafe(t, &c);
	pp_thread_cpu(tid, self, &used);
	pp_records_thread_end_sigsafe(&t->log, now, &c, &used);
	__atomic_add_fetch(&pp_thread_st.samples, c.samples, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pp_thread_st.lost, c.lost, __ATOMIC_RELAXED);
	__atomic_add_fetch(&pp_thread_st.throttled, c.throttled, __ATOMIC_RELAXED);
	pp_logfile_close_sigsafe(&t->log);
}

/* Waits (bounded) until no sample is being written for t, then holds it. */
static int pp_thread_hold(struct pp_thread *t)
{
	for (int i = 0; i < PP_THREAD_FINISH_SPINS; i++) {
		if (pp_threads_enter_sigsafe(t))
			return 1;
		pp_yields_raw_sigsafe();
	}
	return 0;
}

/*
 * What the calling thread's sampling state takes of the process's limits
 * (share.h): its log's mapping (the log holds its descriptor only while it
 * is made, at the first sample, or grows: logfile.h, threads.h; in the
 * signal mode, where the thread's events take descriptors of the share for
 * its whole life, the one its log is made with is kept for it until then),
 * table of stacks, alternate stack (altstack: ours is needed), libunwind's
 * state (arena: with the malloc arena its first use may cost), and its own
 * events.
 */
static struct pp_share_cost pp_thread_cost(int altstack, int arena)
{
	struct pp_share_cost c = { .bytes = pp_logfile_window_sigsafe() + PP_THREAD_UNW_BYTES,
				   .fds = pp_thread_env.mode == PPF_MODE_SIGNAL };

	c.bytes += altstack ? PP_THREAD_ALTSTACK_SIZE : 0;
	/* Its table of stacks (stacks.h), made at its first sample. */
	c.bytes += pp_thread_env.cfg->whole_stacks ? 0 : PP_STACKS_MAP_BYTES;
	c.bytes += arena ? PP_SHARE_ARENA : 0;
	for (unsigned i = 0; i < pp_thread_env.cfg->nevents; i++) {
		if (pp_thread_env.events->error[i])
			continue;
		if (pp_thread_env.cfg->events[i].count_only) {
			c.fds++;
		} else if (pp_thread_env.mode == PPF_MODE_SIGNAL) {
			c.fds++;
			c.bytes += PP_EVENTS_RB_PAGES * 4096ull;
		}
	}
	return c;
}

/*
 * Takes the calling thread's slot and share, with the sampling signal
 * blocked (a sample between the lookup and the claim would make a second
 * slot and log for this thread: seen at a 10 us period with 1,000 short
 * threads, "File exists"); its log is made at its first sample (threads.h).
 * The slot is the one the handler made if a sample landed between clone()
 * and here (ours to finish; a dead raw-clone thread whose tid we reuse
 * would share its log), else a new one. Returns the slot, busy; NULL with
 * *what and *err (positive) set when the thread cannot be sampled: then
 * the slot, if any, is in *slot, without a log.
 */
static struct pp_thread *pp_thread_slot(int tid, const struct pp_share_cost *cost,
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
	for (int i = 0; *err == EMFILE && i < PP_THREAD_SHARE_TRIES; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = PP_THREAD_SHARE_WAIT_NS }, NULL);
		*err = -pp_share_take_sigsafe(cost);
	}
	if (!*err) {
		t->charge = *cost;
		t->log_fd_kept = pp_thread_env.mode == PPF_MODE_SIGNAL;
		__atomic_store_n(&t->log_pending, 1, __ATOMIC_RELEASE);
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
static int pp_thread_may_reserve_arena(int main)
{
	return !main && pp_share_limit_sigsafe(RLIMIT_AS) != UINT64_MAX &&
	       pp_share_room_sigsafe() >= PP_SHARE_ARENA;
}

/*
 * What libunwind needs done in the thread before its first unw_backtrace,
 * in the handler: its thread-local block (pp_unwlib_thread_tls; its trace
 * cache, 256 KiB, is then made at the thread's first sample, and never in
 * a thread that takes none), or, when its thread key may not be one of the
 * first 32, its whole first call (pp_thread_first_unwind). Under RLIMIT_AS,
 * gives back the share taken for a malloc arena that glibc did not make.
 */
static void pp_thread_warm_up(struct pp_thread *t, int arena)
{
	uint64_t before = arena ? pp_share_room_sigsafe() : 0, after;
	struct pp_share_cost none = { .bytes = PP_SHARE_ARENA };

	if (pp_thread_st.lazy_unwind)
		pp_unwlib_thread_tls();
	else
		pp_thread_first_unwind();
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
static void pp_thread_drop(struct pp_thread *t, int tid)
{
	char name[NAME_MAX + 1];

	pp_events_thread_close(&t->tev);
	__atomic_store_n(&t->log_pending, 0, __ATOMIC_RELEASE);
	if (pp_logfile_is_open_sigsafe(&t->log)) {
		pp_logfile_close_sigsafe(&t->log);
		if (pp_threads_root_ok_sigsafe(pp_thread_env.dir) &&
		    pp_threads_log_name_sigsafe(pp_thread_env.dir, tid, name, sizeof(name)) == 0)
			unlinkat(pp_thread_env.dir->rootfd, name, 0);
	}
	pp_thread_altstack_free(t, 1);
	pp_share_give_sigsafe(&t->charge);
	t->charge = (struct pp_share_cost){ 0 };
}

/*
 * The calling thread runs unsampled: what failed with errno err. Its slot
 * t (NULL when it got none; else held) keeps nothing but stays claimed,
 * logless, so that the handler drops its samples instead of adopting it.
 */
static void pp_thread_unsampled(struct pp_thread *t, int tid, uint32_t what, int err,
				const struct pp_share_cost *asked)
{
	if (t) {
		pp_thread_drop(t, tid);
		pp_threads_leave_sigsafe(t);
	}
	pp_unsampled_note(tid, what, err, asked);
}

/*
 * Tells the handler the calling thread's stacks (sampler.h): the profiler's
 * alternate stack when it gave one, and, but for the main thread (whose
 * stack grows to its limit), where its own stack ends.
 */
static void pp_thread_stacks(const struct pp_thread *t, int main)
{
	void *lo = NULL;
	size_t size = 0;
	pthread_attr_t attr;

	if (!main && pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &lo, &size) != 0)
			lo = NULL;
		pthread_attr_destroy(&attr);
	}
	pp_sampler_stacks_sigsafe(t->altstack, t->altstack ? t->altstack_size : 0, lo);
}

struct pp_thread *pp_thread_setup(int main, struct pp_thread **slot)
{
	int tid = pp_threads_gettid_sigsafe(), arena, err = 0, has = pp_thread_has_altstack();
	struct pp_share_cost cost;
	uint32_t what = 0;
	struct pp_thread *t;

	pp_logfile_fit_window_sigsafe();
	arena = pp_thread_may_reserve_arena(main);
	cost = pp_thread_cost(!has, arena);
	t = pp_thread_slot(tid, &cost, slot, &what, &err);
	if (!t) {
		pp_thread_unsampled(*slot, tid, what, err, &cost);
		return NULL;
	}
	*slot = t;
	t->tcb = pp_threads_tcb_sigsafe();
	t->leaf_only = 0;
	if ((err = -pp_thread_altstack(t, has)) != 0) {
		pp_thread_unsampled(t, tid, PPF_UNSAMPLED_ALTSTACK, err, NULL);
		return NULL;
	}
	pp_thread_stacks(t, main);
	pp_thread_warm_up(t, arena);
	pp_threads_leave_sigsafe(t);
	return t;
}

/* pthread key destructor: the thread is ending. */
static void pp_thread_end(void *arg)
{
	struct pp_thread *t = arg;
	int tid = pp_threads_gettid_sigsafe(), saved = errno;

	if (pp_thread_env.dir->pid != getpid() ||
	    __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) != tid)
		return;
	if (!pp_thread_hold(t))
		return;
	/* Its ring's end is its own CPU time, which finishing writes. */
	pp_wall_thread_ends();
	pp_thread_finish(t, tid, 1);
	pp_thread_altstack_free(t, 1);
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
static int pp_thread_sampled(const struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_thread_env.cfg->nevents; i++)
		if (!pp_thread_env.cfg->events[i].count_only && (t->tev.open & (1u << i)))
			return 1;
	return 0;
}

/*
 * Opens the calling thread's own events (t is its slot): its counters, and
 * in the signal mode its sampling events. Returns 0, or the errno (positive)
 * when, in the signal mode, none of its sampling events could be opened: t
 * is then still held (busy), for pp_thread_unsampled. A thread without
 * some of its counters runs on without them; the first is said.
 */
static int pp_thread_events(struct pp_thread *t)
{
	int err;

	if (!pp_threads_enter_sigsafe(t))
		return 0;
	err = -pp_events_thread_open(&t->tev, pp_thread_env.cfg, pp_thread_env.events);
	if (err && pp_thread_env.mode == PPF_MODE_SIGNAL && !pp_thread_sampled(t))
		return err;
	pp_threads_leave_sigsafe(t);
	if (err && !__atomic_exchange_n(&pp_thread_st.warned_counters, 1, __ATOMIC_RELAXED))
		pp_warn("thread %d: cannot open some of its events: %s; threads "
			"like it miss them (pprof-analyze threads and counters "
			"show which)", t->tid, strerror(err));
	return 0;
}

void pp_thread_begin(int wall_inherited)
{
	struct pp_thread *t, *slot;
	int cancel, saved, err;

	if (!pp_process_active())
		return;
	pp_wall_thread_begin(wall_inherited);
	/*
	 * The app may cancel the thread as soon as it exists: no cancellation
	 * point in the setup (openat, read) may leave a slot half made.
	 */
	saved = errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	t = pp_thread_setup(0, &slot);
	if (t && (err = pp_thread_events(t)) != 0)
		pp_thread_unsampled(t, t->tid, PPF_UNSAMPLED_EVENTS, err, NULL);
	else if (t)
		/* Its events, opened, switched to the pause state: paused, it starts paused. */
		pp_pause_thread_live_sigsafe(t, t->tid, 1, 1);
	/* An unsampled thread's slot too: its end releases it. */
	if (slot)
		pp_thread_end_at_exit(slot);
	pthread_setcancelstate(cancel, NULL);
	errno = saved;
}

/* How pp_thread_finish_all goes over the threads. */
struct pp_thread_finishing {
	int self;
	int pass;       /* 1: every thread no sample is being taken for; 2: those
			   left, again; 3: those still left, waited for */
	unsigned left;  /* threads left by the latest pass */
	int exit_follows; /* exit_group follows (pp_thread_finish_all) */
};

/* Rounds of pass 2 at most (half a second), PP_THREAD_FINISH_NAP_NS apart. */
#define PP_THREAD_FINISH_ROUNDS 2500
#define PP_THREAD_FINISH_NAP_NS 200000

static void pp_thread_finish_other(struct pp_thread *t, void *arg)
{
	struct pp_thread_finishing *f = arg;
	int tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);

	if (tid <= 0)
		return;
	if (f->pass > 1 && !t->finish_later)
		return;
	if (f->pass < 3 && !pp_threads_enter_sigsafe(t)) {
		t->finish_later = 1;
		f->left++;
		return;
	}
	if (f->pass == 3 && !pp_thread_hold(t))
		return;
	t->finish_later = 0;
	pp_thread_finish(t, tid, tid == f->self);
	/*
	 * When exit_group follows at once (_exit and the like: no destructor
	 * of the program's runs after this), a thread finished here gives way
	 * to those still to finish, whose samples hold their slots, and to
	 * this one: where many spin (a hundred threads on two CPUs), each
	 * round of the run queue took the whole of it. Not from a destructor:
	 * the program's other libraries' destructors run after ours.
	 */
	if (tid != f->self && f->exit_follows)
		setpriority(PRIO_PROCESS, (id_t)tid, 19);
	/* Keep busy set: a late sample for this thread is dropped. */
}

void pp_thread_drop_main(struct pp_thread *t)
{
	pp_thread_drop(t, t->tid);
	pp_threads_release_sigsafe(t);
}

/* Drops a parent's slot in a fork child: its log and stack are the parent's. */
static void pp_thread_forget_slot(struct pp_thread *t, void *arg)
{
	(void)arg;
	pp_logfile_forget_sigsafe(&t->log);
	pp_events_thread_close(&t->tev);
	if (t->altstack)
		munmap(t->altstack, t->altstack_size);
	t->altstack = NULL;
	pp_threads_release_sigsafe(t);
}

void pp_thread_end_at_exit(struct pp_thread *slot)
{
	if (pp_thread_st.key_ok)
		pthread_setspecific(pp_thread_st.key, slot);
}

void pp_thread_init(const struct pp_thread_env *env)
{
	pthread_key_t reserve;
	void *frames[1];

	pp_thread_env = *env;
	/*
	 * libunwind's state in the process (its lock, its pipe: a call that
	 * asks for no frame makes no thread's trace cache); its thread key is
	 * made at the process's first sample, in a key kept free for it
	 * (sigsafe/sampler.h), when that is one of the first 32 (unwlib.h);
	 * else by a whole first call now, and each thread's at its start.
	 */
	if (pp_thread_env.backtrace)
		(void)pp_thread_env.backtrace(frames, 0);
	if (pp_thread_env.backtrace && pthread_key_create(&reserve, NULL) == 0) {
		pp_thread_st.lazy_unwind = pp_unwlib_early_key((unsigned)reserve);
		if (pp_thread_st.lazy_unwind)
			pp_sampler_unwind_key_sigsafe(reserve);
		else
			pthread_key_delete(reserve);
	}
	if (!pp_thread_st.lazy_unwind)
		pp_thread_first_unwind();
	pp_thread_st.key_ok = pthread_key_create(&pp_thread_st.key, pp_thread_end) == 0;
}

/*
 * A thread whose sample is being taken is left for later rather than
 * waited for at once: those left are polled together, a short sleep
 * apart, so that their waits overlap (the last pass waits for each, as
 * long as pp_thread_hold does). Where many threads spin (a hundred on two
 * CPUs), a thread is often preempted inside the handler and stays busy
 * until it runs again, a round of the run queue later; a wait that
 * yielded went behind all of them each time, and the exit took seconds.
 */
void pp_thread_finish_all(int exit_follows)
{
	struct pp_thread_finishing f = { .self = pp_threads_gettid_sigsafe(), .pass = 1,
					  .exit_follows = exit_follows };
	const struct timespec nap = { 0, PP_THREAD_FINISH_NAP_NS };

	pp_threads_each_sigsafe(pp_thread_finish_other, &f);
	/* Those left are all polled each round: their waits overlap. */
	f.pass = 2;
	for (int i = 0; f.left && i < PP_THREAD_FINISH_ROUNDS; i++) {
		nanosleep(&nap, NULL);
		f.left = 0;
		pp_threads_each_sigsafe(pp_thread_finish_other, &f);
	}
	if (!f.left)
		return;
	f.pass = 3;
	pp_threads_each_sigsafe(pp_thread_finish_other, &f);
}

/*
 * Before an exec: the PPF_REC_THREAD_QUIET of t, if it is quiet and logless;
 * else, when it has a log, its totals and CPU time now in a progress record,
 * the last word of a thread that exec ends (it has no END record): without
 * it, a thread's time was that of its last progress, up to 100 ms old (a
 * replaced image's threads showed 124% of their CPU time sampled).
 */
static void pp_thread_quiet_at_exec(struct pp_thread *t, void *arg)
{
	int self = *(int *)arg;
	int tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);
	char name[PPF_THREAD_NAME_MAX];
	struct pp_records_counts c;
	struct pp_records_cpu used;

	if (tid <= 0)
		return;
	if (pp_logfile_is_open_sigsafe(&t->log)) {
		if (!pp_thread_hold(t))
			return;
		pp_thread_name(tid, tid == self, name);
		pp_thread_cpu(tid, tid == self, &used);
		pp_threads_counts_sigsafe(t, &c);
		pp_records_thread_progress_of_sigsafe(&t->log, pp_records_now_sigsafe(), &c,
						      &used, NULL, name);
		pp_threads_leave_sigsafe(t);
		return;
	}
	if (!__atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE) || !pp_thread_hold(t))
		return;
	pp_thread_name(tid, tid == self, name);
	pp_thread_quiet(t, tid, tid == self, PPF_QUIET_EXEC, pp_records_now_sigsafe(), name);
	pp_threads_leave_sigsafe(t);
}

static void pp_thread_keep_log(struct pp_thread *t, void *arg)
{
	int *first = arg;
	int tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE), err;

	if (tid <= 0 || !pp_thread_hold(t))
		return;
	/* A pending log made now; one that cannot be is tried again as before. */
	err = pp_threads_lazy_log_sigsafe(t, pp_thread_env.dir, NULL);
	if (!err)
		err = pp_threads_keep_log_fd_sigsafe(t);
	else if (!pp_logfile_is_open_sigsafe(&t->log))
		err = 0; /* no log to keep: an unsampled thread, said as such */
	if (err && !*first)
		*first = err;
	pp_threads_leave_sigsafe(t);
}

int pp_thread_keep_logs(void)
{
	int first = 0;

	pp_threads_each_sigsafe(pp_thread_keep_log, &first);
	return first;
}

void pp_thread_quiet_all_at_exec(void)
{
	int self = pp_threads_gettid_sigsafe();

	pp_threads_each_sigsafe(pp_thread_quiet_at_exec, &self);
}

void pp_thread_forget_all(void)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	pp_threads_each_sigsafe(pp_thread_forget_slot, NULL);
	/* The forking thread's stack was unmapped above; a new one is made. */
	sigaltstack(&ss, NULL);
	pp_thread_st.warned_counters = 0;
	pp_thread_st.samples = 0;
	pp_thread_st.lost = 0;
	pp_thread_st.throttled = 0;
}

void pp_thread_totals(struct pp_records_counts *out)
{
	out->samples = __atomic_load_n(&pp_thread_st.samples, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&pp_thread_st.lost, __ATOMIC_RELAXED);
	out->throttled = __atomic_load_n(&pp_thread_st.throttled, __ATOMIC_RELAXED);
}
