/*
 * The sampling signal's handler (SIGTRAP in the sigtrap mode, the chosen
 * signal in the signal mode) and nothing else: everything in this file runs
 * in signal context (checked by `make check-sigsafe`).
 */
#include "sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include <ucontext.h>

#include "appmask.h"
#include "dlsnap.h"
#include "events.h"
#include "fd.h"
#include "pprof/format.h"
#include "records.h"
#include "sampsig.h"
#include "stacks.h"
#include "threads.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define PP_TRAP_PERF_FLAG_ASYNC 1u

/* Frames of our own above the interrupted one: handler, unwinder, trampoline. */
#define PP_SAMPLER_SLACK 16
/* After a sample, none for this many times its cost (pp_sampler_pace_sigsafe). */
#define PP_SAMPLER_PACE 4
/* Queued signals taken off at most per signal (pp_sampler_drain_sigsafe). */
#define PP_SAMPLER_DRAIN_MAX 64
/* Signals of the sampling signal's number that are not samples, put back before exec. */
#define PP_SAMPLER_KEEP 8
/*
 * A thread's CPU time and totals go into its log at most this often (wall
 * time), after a sample (pp_sampler_progress_sigsafe), and then only once
 * it has taken PP_SAMPLER_PROGRESS_SAMPLES samples since, unless
 * PP_SAMPLER_PROGRESS_MAX_NS have passed: each such record (88 bytes) also
 * ends the log's sample block (32 bytes), where a sample is 8 bytes; so at
 * most 1.9 bytes a sample, however little CPU time a busy machine leaves
 * the thread for its wall time.
 */
#define PP_SAMPLER_PROGRESS_NS 100000000ull
#define PP_SAMPLER_PROGRESS_SAMPLES 64u
#define PP_SAMPLER_PROGRESS_MAX_NS 1000000000ull

static struct pp_sampler_config pp_sampler_cfg;
/*
 * The app's action for the sampling signal: two copies and an index, so
 * the handler never reads a copy that is being written.
 */
static struct sigaction pp_sampler_app[2];
static int pp_sampler_app_cur;
static int pp_sampler_in_dl;
static uint64_t pp_sampler_unowned;
/* CLOCK_MONOTONIC of the process's last CPU time in a progress record. */
static uint64_t pp_sampler_proc_progress_ns;

/*
 * glibc 2.36 has no si_perf_*: they follow si_addr in the kernel's
 * _sigfault layout (unsigned long data; u32 type; u32 flags).
 */
struct pp_perf_siginfo {
	unsigned long data;
	uint32_t type;
	uint32_t flags;
};

/* Runs in signal context. */
static const struct pp_perf_siginfo *pp_sampler_perf_info_sigsafe(const siginfo_t *si)
{
	return (const void *)((const char *)&si->si_addr + sizeof(void *));
}

/* Async-signal-safe. */
void pp_sampler_configure_sigsafe(const struct pp_sampler_config *cfg)
{
	pp_sampler_cfg = *cfg;
	/* A fork child records its own CPU time from its first sample. */
	__atomic_store_n(&pp_sampler_proc_progress_ns, 0, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
void pp_sampler_dl_enter_sigsafe(void)
{
	__atomic_add_fetch(&pp_sampler_in_dl, 1, __ATOMIC_ACQ_REL);
}

/* Runs in signal context. */
void pp_sampler_dl_leave_sigsafe(void)
{
	__atomic_sub_fetch(&pp_sampler_in_dl, 1, __ATOMIC_ACQ_REL);
}

/* Runs in signal context. */
uint64_t pp_sampler_unowned_lost_sigsafe(void)
{
	return __atomic_load_n(&pp_sampler_unowned, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
void pp_sampler_app_action_get_sigsafe(struct sigaction *out)
{
	*out = pp_sampler_app[__atomic_load_n(&pp_sampler_app_cur,
					      __ATOMIC_ACQUIRE)];
}

/* Runs in signal context. */
void pp_sampler_app_action_set_sigsafe(const struct sigaction *act)
{
	int next = !__atomic_load_n(&pp_sampler_app_cur, __ATOMIC_ACQUIRE);

	pp_sampler_app[next] = *act;
	__atomic_store_n(&pp_sampler_app_cur, next, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. A signal-mode overflow whose event was closed
 * meanwhile (its thread ended) when the app has left the signal at its
 * default action: nobody else asked for this signal, so it ends here.
 */
static int pp_sampler_orphan_sigsafe(const siginfo_t *si, const struct sigaction *a)
{
	return a->sa_handler == SIG_DFL && pp_sampler_cfg.mode == PPF_MODE_SIGNAL &&
	       si && (si->si_code == POLL_IN || si->si_code == POLL_HUP);
}

/*
 * Runs in signal context. Ends the thread as the signal's default action
 * would: the default is restored with the raw system call (our own
 * sigaction() would keep ours) and the signal sent again; it arrives when
 * this handler returns.
 */
static void pp_sampler_default_sigsafe(int sig)
{
	struct { void *handler; unsigned long flags; void *restorer;
		 uint64_t mask; } kdfl = { 0 };

	kdfl.handler = SIG_DFL;
	syscall(SYS_rt_sigaction, sig, &kdfl, NULL, sizeof(kdfl.mask));
	syscall(SYS_tgkill, getpid(), pp_threads_gettid_sigsafe(), sig);
}

/*
 * Runs in signal context. Gives a signal that is not ours to the app's
 * action. While the app's handler runs, the app's view of its mask is what
 * the kernel's would be (the signal blocked, our sa_mask blocks it), and
 * after it the view it had: a handler that changes its mask and returns
 * gets the mask it was interrupted with back, as from the kernel.
 */
static void pp_sampler_forward_sigsafe(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *a =
		&pp_sampler_app[__atomic_load_n(&pp_sampler_app_cur,
						__ATOMIC_ACQUIRE)];
	int blocked;

	if (a->sa_handler == SIG_IGN)
		return;
	if (pp_sampler_orphan_sigsafe(si, a)) {
		__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
		return;
	}
	if (a->sa_handler == SIG_DFL) {
		pp_sampler_default_sigsafe(sig);
		return;
	}
	blocked = pp_appmask_blocked_sigsafe();
	pp_appmask_enter_sigsafe(-1);
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else
		a->sa_handler(sig);
	pp_appmask_enter_sigsafe(1);
	pp_appmask_set_blocked_sigsafe(blocked);
}

/*
 * Runs in signal context. Signal mode: takes the oldest overflow record from
 * the event's ring buffer (one per signal; RT signals queue) and says
 * whether the signal landed elsewhere than the overflow's user-space
 * address: delivered late, after the thread had blocked it. *more: other
 * signals may be queued behind this one (records left, or records lost).
 */
static int pp_sampler_rb_late_sigsafe(void *rb, uint64_t rip, int *more)
{
	struct perf_event_mmap_page *pg = rb;
	const uint8_t *data;
	uint64_t head, tail, size;
	int late = 0, lost = 0;

	*more = 1;
	if (!pg)
		return 0;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	size = pg->data_size;
	data = (const uint8_t *)rb + pg->data_offset;
	/* Bounded: a page holds at most size / 8 records. */
	for (uint64_t n = 0; tail < head && size && n < size / 8; n++) {
		struct perf_event_header h;
		uint64_t ip;

		memcpy(&h, data + tail % size, sizeof(h));
		if (h.size < sizeof(h))
			break;
		/*
		 * The buffer was full: overflows went on raising signals with
		 * no record of their own, so signals may be queued beyond the
		 * records left.
		 */
		if (h.type == PERF_RECORD_LOST)
			lost = 1;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 8) {
			memcpy(&ip, data + (tail + sizeof(h)) % size, sizeof(ip));
			late = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				       PERF_RECORD_MISC_USER && ip != rip;
			tail += h.size;
			break;
		}
		tail += h.size;
	}
	if (tail > head)
		tail = head;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	/* Records left: overflows whose signals are queued behind this one. */
	*more = tail != head || lost;
	return late;
}

/* Runs in signal context. Is this signal one of our overflows? */
static int pp_sampler_is_ours_sigsafe(int sig, const siginfo_t *si,
				      unsigned *event, void **rb)
{
	const struct pp_perf_siginfo *p;
	int tag;

	*rb = NULL;
	if (!si)
		return 0;
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL) {
		if (sig != pp_sampsig_number_sigsafe() ||
		    (si->si_code != POLL_IN && si->si_code != POLL_HUP))
			return 0;
		tag = pp_fd_tag_of_sigsafe(si->si_fd, rb);
		*event = (unsigned)(tag - 1);
		return tag > 0 && *event < pp_sampler_cfg.nevents;
	}
	if (si->si_code != TRAP_PERF)
		return 0;
	p = pp_sampler_perf_info_sigsafe(si);
	if ((p->data & PP_EVENTS_SIGDATA_MASK) != PP_EVENTS_SIGDATA_TAG)
		return 0;
	*event = (unsigned)(p->data & ~PP_EVENTS_SIGDATA_MASK);
	return *event < pp_sampler_cfg.nevents;
}

/* Runs in signal context. Counts an overflow of event not taken for t. */
static void pp_sampler_throttled_sigsafe(struct pp_thread *t, unsigned event)
{
	__atomic_add_fetch(&t->throttled, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ev_throttled[event], 1, __ATOMIC_RELAXED);
}

/*
 * Runs in signal context. A signal of the sampling signal's number that is
 * not ours came while the program blocks it (appmask.h): without the
 * profiler it would have stayed pending. It is put back on the thread's
 * queue, with the program's signals queued behind it (ours are taken off:
 * overflows from before the signal mode's events stopped, counted as
 * throttled), and the signal stays blocked when the handler returns, until
 * the program unblocks it or takes it (sigwait, signalfd): masks.c. The
 * kernel lets a thread queue any signal to itself with its siginfo as it
 * came, but not to the process (nor to another thread) unless the code
 * says it was queued by a program: so a signal sent to the process stays
 * with the thread it landed in.
 */
static void pp_sampler_hold_sigsafe(int sig, siginfo_t *si, ucontext_t *uc)
{
	int tid = pp_threads_gettid_sigsafe(), n = 0;
	struct pp_thread *t = pp_threads_find_sigsafe(tid);
	struct timespec zero = { 0, 0 };
	siginfo_t keep[PP_SAMPLER_KEEP];
	sigset_t set;

	pp_appmask_hold_sigsafe(t);
	keep[n++] = *si;
	pp_sampsig_mask_sigsafe(&set);
	for (int i = 0; i < PP_SAMPLER_DRAIN_MAX && n < PP_SAMPLER_KEEP; i++) {
		unsigned event;
		void *rb;
		int more;

		if (syscall(SYS_rt_sigtimedwait, &set, &keep[n], &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			break;
		if (!pp_sampler_is_ours_sigsafe(sig, &keep[n], &event, &rb)) {
			n++;
			continue;
		}
		if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL)
			pp_sampler_rb_late_sigsafe(rb, 0, &more);
		if (t)
			pp_sampler_throttled_sigsafe(t, event);
		else
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
	}
	for (int k = 0; k < n; k++)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &keep[k]);
	sigaddset(&uc->uc_sigmask, sig);
}

/*
 * Runs in signal context. A signal of the sampling signal's number that is
 * not one of our samples: the program's own. It goes to the program's
 * action, unless the program blocks it: then it is held back for it. A
 * SIGTRAP of a breakpoint or a trace trap the kernel forces through any
 * mask, with the default action when blocked: the same
 * here (int3 comes with SI_KERNEL, a debug trap with TRAP_*: every
 * positive code but TRAP_PERF, whose blocked signal the kernel queues).
 * Returns 1 when the signal was held (the thread's queue holds
 * all of that number then).
 */
static int pp_sampler_not_ours_sigsafe(int sig, siginfo_t *si, void *uc)
{
	if (!si || !pp_appmask_on_sigsafe() || !pp_appmask_blocked_sigsafe()) {
		pp_sampler_forward_sigsafe(sig, si, uc);
		return 0;
	}
	if (sig == SIGTRAP && si->si_code > 0 && si->si_code != TRAP_PERF) {
		pp_sampler_default_sigsafe(sig);
		return 0;
	}
	pp_sampler_hold_sigsafe(sig, si, uc);
	return 1;
}

/*
 * Runs in signal context. Signal mode: overflows that came while this one
 * was handled. Real-time signals queue: when samples cost more than the
 * period, the queue would grow until the kernel's limit (RLIMIT_SIGPENDING,
 * shared by all of the user's processes), where it sends SIGIO instead,
 * which kills a program that does not handle it. The queued ones are taken
 * off here (the sampling signal is blocked in the handler), their records
 * consumed, and counted as throttled: overflows that came while a sample
 * was being taken. A signal that is not ours (the program's own, on the
 * same signal) goes to the program's action. Bounded; stops at the first
 * empty poll.
 */
static void pp_sampler_drain_sigsafe(struct pp_thread *t, void *uc)
{
	int sig = pp_sampsig_number_sigsafe();
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t set;

	pp_sampsig_mask_sigsafe(&set);
	for (int i = 0; i < PP_SAMPLER_DRAIN_MAX; i++) {
		unsigned event;
		void *rb;
		int more;

		if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			return;
		if (!pp_sampler_is_ours_sigsafe(sig, &si, &event, &rb)) {
			if (pp_sampler_not_ours_sigsafe(sig, &si, uc))
				return;
			continue;
		}
		pp_sampler_rb_late_sigsafe(rb, 0, &more);
		if (t)
			pp_sampler_throttled_sigsafe(t, event);
		else
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
	}
}

/* Where the unwinder puts a sample's frames, read back as addresses. */
union pp_sampler_frames {
	void *p[PPF_MAX_FRAMES + PP_SAMPLER_SLACK];
	uint64_t ip[PPF_MAX_FRAMES + PP_SAMPLER_SLACK];
};

/*
 * Runs in signal context. Unwinds into f (cap frames at most, after ours)
 * and sets *first to the interrupted instruction's place in it; returns the
 * count from there, 0 when the interrupted frame was not found in the
 * unwound stack.
 */
static unsigned pp_sampler_unwind_sigsafe(uint64_t rip, union pp_sampler_frames *f,
					  unsigned cap, unsigned *first, int *truncated)
{
	int n = pp_sampler_cfg.backtrace(f->p, (int)(cap + PP_SAMPLER_SLACK));
	int i;

	for (i = 0; i < n && i < PP_SAMPLER_SLACK; i++)
		if (f->ip[i] == rip)
			break;
	if (i >= n || i >= PP_SAMPLER_SLACK)
		return 0;
	*truncated = n == (int)(cap + PP_SAMPLER_SLACK) || n - i > (int)cap;
	*first = (unsigned)i;
	n -= i;
	return n > (int)cap ? cap : (unsigned)n;
}

/* Runs in signal context. Writes one sample for thread t, taken at now. */
static void pp_sampler_record_sigsafe(struct pp_thread *t, unsigned event,
				      int late, const ucontext_t *uc, uint64_t now)
{
	union pp_sampler_frames f;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	unsigned n = 0, first = 0;
	int truncated = 0;
	uint16_t flags = 0;

	/*
	 * No log (a thread that runs unsampled: libunwind's first use would
	 * map and allocate what its share had no room for), or a full one.
	 */
	if (!pp_logfile_takes_records_sigsafe(&t->log))
		goto out_lost;
	if (!t->leaf_only && !__atomic_load_n(&pp_sampler_in_dl, __ATOMIC_ACQUIRE)) {
		pp_dlsnap_enter_handler_sigsafe();
		n = pp_sampler_unwind_sigsafe(rip, &f, pp_sampler_cfg.max_frames, &first,
					      &truncated);
		pp_dlsnap_leave_handler_sigsafe();
	}
	if (n == 0) {
		f.ip[0] = rip;
		n = 1;
		flags |= PPF_SAMPLE_LEAF_ONLY;
	}
	if (truncated)
		flags |= PPF_SAMPLE_TRUNCATED;
	if (late)
		flags |= PPF_SAMPLE_LATE;
	if (pp_stacks_write_sigsafe(&t->stacks, &t->log, &f.ip[first], n, now, event, flags,
				    pp_sampler_cfg.whole_stacks) != 0)
		goto out_lost;
	t->samples++;
	t->ev_samples[event]++;
	return;

out_lost:
	__atomic_add_fetch(&t->lost, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ev_lost[event], 1, __ATOMIC_RELAXED);
}

/*
 * Runs in signal context. Whether the calling thread is the one to record
 * the whole process's CPU time now: at most one thread per
 * PP_SAMPLER_PROGRESS_NS.
 */
static int pp_sampler_proc_turn_sigsafe(uint64_t now)
{
	uint64_t last = __atomic_load_n(&pp_sampler_proc_progress_ns, __ATOMIC_RELAXED);

	return (!last || now - last >= PP_SAMPLER_PROGRESS_NS) &&
	       __atomic_compare_exchange_n(&pp_sampler_proc_progress_ns, &last, now, 0,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Runs in signal context. After a sample taken at now, at most once per
 * PP_SAMPLER_PROGRESS_NS: the thread's CPU time and totals so far, in a
 * PPF_REC_THREAD_PROGRESS, and in one such record per period for the whole
 * process, the process's CPU time. A process that ends by a raw exit_group
 * (every dynamically linked Go program) or is killed never writes its END
 * records; with these its logs still say how much CPU time each thread, and
 * the process with the threads that were never sampled, had used, up to
 * their last such records: at 1 kHz, less than 100 ms of CPU time is
 * missing. One getrusage system call (under a microsecond) per thread per
 * 100 ms, and one more per process (RUSAGE_SELF, which walks its threads).
 */
static void pp_sampler_progress_sigsafe(struct pp_thread *t, uint64_t now)
{
	struct pp_records_counts c;
	struct pp_records_cpu cpu, proc;
	int turn;

	if (t->progress_ns && (now - t->progress_ns < PP_SAMPLER_PROGRESS_NS ||
			       (t->samples - t->progress_samples < PP_SAMPLER_PROGRESS_SAMPLES &&
				now - t->progress_ns < PP_SAMPLER_PROGRESS_MAX_NS)))
		return;
	t->progress_ns = now;
	t->progress_samples = t->samples;
	pp_records_cpu_sigsafe(RUSAGE_THREAD, &cpu);
	turn = pp_sampler_proc_turn_sigsafe(now);
	if (turn)
		pp_records_cpu_sigsafe(RUSAGE_SELF, &proc);
	c.samples = t->samples;
	c.lost = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	c.throttled = __atomic_load_n(&t->throttled, __ATOMIC_RELAXED);
	pp_records_thread_progress_sigsafe(&t->log, now, &c, &cpu, turn ? &proc : NULL);
}

/*
 * Runs in signal context. After a sample that began at start: no sample is
 * taken for PP_SAMPLER_PACE times as long as it cost, so that the handler
 * never takes more than a fifth of a thread's time, whatever the period
 * (the kernel's cpu-clock fires every 10 us at the most, and a sample costs
 * more than that on a busy machine or with cold caches: the thread would
 * never get out of the handler). The cost is wall time, and a handler
 * preempted midway looks dear: the lesser of the last two costs is used,
 * so one such sample does not throttle the next few, while a lasting one
 * (every sample dear) does.
 */
static void pp_sampler_pace_sigsafe(struct pp_thread *t, uint64_t start)
{
	uint64_t end = pp_records_now_sigsafe();
	uint64_t cost = end > start ? end - start : 0;
	uint64_t least = cost < t->cost_ns ? cost : t->cost_ns;

	t->cost_ns = cost;
	t->next_ns = end + least * PP_SAMPLER_PACE;
}

/*
 * Runs in signal context. A sample from a thread with no slot: one that
 * existed before the constructor ran, or one made by raw clone(). It gets
 * its slot and log here, with raw syscalls only. A thread that shares
 * another's TLS (clone without CLONE_SETTLS) must not use libunwind, whose
 * per-thread cache lives in TLS: its samples keep the leaf only. Returns the
 * slot, busy, or NULL.
 */
static struct pp_thread *pp_sampler_adopt_sigsafe(int tid)
{
	struct pp_thread *t;

	if (pp_sampler_cfg.dir.pid != (int)getpid())
		return NULL;
	t = pp_threads_claim_sigsafe(tid);
	if (!t)
		return NULL;
	if (pp_threads_open_log_sigsafe(t, &pp_sampler_cfg.dir) != 0) {
		pp_threads_release_sigsafe(t);
		return NULL;
	}
	t->leaf_only = pp_threads_tcb_shared_sigsafe(t->tcb, tid);
	return t;
}

/*
 * Runs in signal context (called before exec, outside any handler). The
 * calling thread's events are disabled: takes the sampling signals they
 * raised before, still pending for the thread (it has the signal blocked)
 * or the process, off the queues and counts them as lost; a signal of that
 * number that is not a sample is put back as it was, for the thread.
 * Bounded.
 */
void pp_sampler_take_pending_sigsafe(void)
{
	struct timespec zero = { 0, 0 };
	const struct sigaction *a = &pp_sampler_app[__atomic_load_n(&pp_sampler_app_cur,
								    __ATOMIC_ACQUIRE)];
	int sig = pp_sampsig_number_sigsafe(), tid = pp_threads_gettid_sigsafe(), nkeep = 0;
	struct pp_thread *t = pp_threads_find_sigsafe(tid);
	siginfo_t si, keep[PP_SAMPLER_KEEP];
	sigset_t set;

	pp_sampsig_mask_sigsafe(&set);
	for (int i = 0; i < 64; i++) {
		unsigned event;
		void *rb;
		int more;

		if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			break;
		if (pp_sampler_is_ours_sigsafe(sig, &si, &event, &rb)) {
			if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL)
				pp_sampler_rb_late_sigsafe(rb, 0, &more);
			if (t) {
				__atomic_add_fetch(&t->lost, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&t->ev_lost[event], 1, __ATOMIC_RELAXED);
				continue;
			}
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
		} else if (pp_sampler_orphan_sigsafe(&si, a)) {
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
		} else if (nkeep < PP_SAMPLER_KEEP) {
			keep[nkeep++] = si;
		}
	}
	for (int k = 0; k < nkeep; k++)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &keep[k]);
}

/* Runs in signal context. */
int pp_sampler_taken_sigsafe(int sig, const siginfo_t *si)
{
	struct pp_thread *t;
	unsigned event;
	void *rb;
	int more;

	if (!pp_sampler_is_ours_sigsafe(sig, si, &event, &rb))
		return 0;
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL)
		pp_sampler_rb_late_sigsafe(rb, 0, &more);
	t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());
	if (t) {
		__atomic_add_fetch(&t->lost, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->ev_lost[event], 1, __ATOMIC_RELAXED);
	} else {
		__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
	}
	return 1;
}

/*
 * Runs in signal context. A thread unwound by a cancellation from inside the
 * handler would leave its slot busy for good, and its log without an END
 * record. Two ways in: libunwind's slow path reads and writes a pipe to
 * validate addresses, and read/write are cancellation points (seen with
 * 1,000 cancelled threads); and glibc's SIGCANCEL, which our sa_mask blocks
 * only until libunwind's first sigprocmask(): glibc's drops SIGCANCEL from
 * the mask libunwind restores. A SIGCANCEL sent while the thread was
 * asynchronously cancelable then runs inside unw_backtrace, and glibc's
 * handler cancels whenever the type is asynchronous, whatever the state
 * (checked on glibc 2.36; seen as 1 log in 1,001 without END under load).
 * So both the state (disabled) and the type (deferred) are held while the
 * sample is taken. glibc's pthread_setcancelstate and _setcanceltype are
 * lock-free updates of the thread's own word; they are skipped for threads
 * that share another's TLS (that word would be the other thread's).
 */
static void pp_sampler_take_sigsafe(struct pp_thread *t, unsigned event,
				    int late, void *uc, int saved_errno, uint64_t now)
{
	int cancel = PTHREAD_CANCEL_DISABLE, type = PTHREAD_CANCEL_DEFERRED;
	int leaf = t->leaf_only;

	if (!leaf) {
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	}
	pp_sampler_record_sigsafe(t, event, late, uc, now);
	pp_sampler_progress_sigsafe(t, now);
	pp_sampler_pace_sigsafe(t, now);
	pp_threads_leave_sigsafe(t);
	errno = saved_errno;
	/* Last: re-enabling may act on an asynchronous cancellation now. */
	if (!leaf && cancel != PTHREAD_CANCEL_DISABLE)
		pthread_setcancelstate(cancel, NULL);
	if (!leaf && type != PTHREAD_CANCEL_DEFERRED)
		pthread_setcanceltype(type, NULL);
}

/*
 * Runs in signal context. The handler proper; pp_sampler_handle_sigsafe
 * marks the thread as inside it (appmask.h).
 */
static void pp_sampler_run_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct pp_thread *t;
	unsigned event;
	void *rb;
	int tid, late, more = 0;
	uint64_t now;

	if (!pp_sampler_is_ours_sigsafe(sig, si, &event, &rb)) {
		pp_sampler_not_ours_sigsafe(sig, si, uc);
		errno = saved_errno;
		return;
	}
	now = pp_records_now_sigsafe();
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL)
		late = pp_sampler_rb_late_sigsafe(rb, (uint64_t)((ucontext_t *)uc)->
						  uc_mcontext.gregs[REG_RIP], &more);
	else
		late = !!(pp_sampler_perf_info_sigsafe(si)->flags & PP_TRAP_PERF_FLAG_ASYNC);
	tid = pp_threads_gettid_sigsafe();
	t = pp_threads_find_sigsafe(tid);
	if (!t) {
		/* A new slot comes back busy. */
		t = pp_sampler_adopt_sigsafe(tid);
		if (!t)
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
	} else if (!pp_threads_enter_sigsafe(t)) {
		__atomic_add_fetch(&t->lost, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->ev_lost[event], 1, __ATOMIC_RELAXED);
		t = NULL;
	} else if (now < t->next_ns) {
		/* Too soon after a dear sample: counted, not taken. */
		pp_sampler_throttled_sigsafe(t, event);
		pp_threads_leave_sigsafe(t);
		t = NULL;
	}
	if (t)
		pp_sampler_take_sigsafe(t, event, late, uc, saved_errno, now);
	/* Only when the ring buffer says more overflows came: no syscall otherwise. */
	if (more)
		pp_sampler_drain_sigsafe(pp_threads_find_sigsafe(tid), uc);
	errno = saved_errno;
}


/* Runs in signal context. */
void pp_sampler_handle_sigsafe(int sig, siginfo_t *si, void *uc)
{
	pp_appmask_enter_sigsafe(1);
	pp_sampler_run_sigsafe(sig, si, uc);
	pp_appmask_enter_sigsafe(-1);
}
