/* Pausing and resuming sampling while the process runs; see pause.h. */
#include "pause.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "pprof/format.h"

/* Times a unit is switched again when the state moves meanwhile: bounds the loops. */
#define PP_PAUSE_ROUNDS 16
/* Yields at the most while a thread's start or end waits for its lock. */
#define PP_PAUSE_WAIT_SPINS 100000
/* Tries at a lock in signal context. */
#define PP_PAUSE_TRIES 4

static struct {
	uint32_t state;    /* atomic: PP_PAUSE_* bits */
	uint32_t why;      /* atomic: enum ppf_paused_flags, of pauses so far */
	int started;       /* atomic: pp_pause_start_sigsafe ran */
	int stopped;       /* atomic: no event is switched any more */
	const struct pp_events *ev;
	uint64_t delay_ns;
	/* The process-wide events' unit, as struct pp_thread_pause's. */
	int lock;          /* atomic */
	int applied;
	uint32_t pauses;
	uint64_t since_ns;
	uint64_t paused_ns;
	/*
	 * The process unit's switches (pp_pause_marks_sigsafe), a ring written
	 * under lock: seq is odd while one is written, its time read included.
	 */
	uint32_t seq;      /* atomic */
	uint32_t nmarks;   /* atomic: marks so far */
	uint64_t mark_at_ns, mark_unprofiled_ns; /* the last mark's */
	int mark_paused;
	struct pp_pause_mark marks[PP_PAUSE_MARKS];
} pp_pause;

/* Runs in signal context. */
static uint64_t pp_pause_now_sigsafe(void)
{
	return pp_records_now_sigsafe();
}

/* Runs in signal context. Whether the state asks for the events disabled. */
static int pp_pause_wanted_sigsafe(void)
{
	return __atomic_load_n(&pp_pause.state, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Runs in signal context. Takes lock; tries times at the most. tries 0:
 * waits, PP_PAUSE_WAIT_SPINS yields at the most. Returns whether it is
 * taken: a lock never is by force, as its holder may still be switching
 * (two writers of the marks would tear them). A fork child's locks of the
 * parent's threads are made free by pp_pause_forget_sigsafe.
 */
static int pp_pause_lock_sigsafe(int *lock, int tries)
{
	int n = tries ? tries : PP_PAUSE_WAIT_SPINS;

	for (int i = 0; i < n; i++) {
		int free_ = 0;

		if (__atomic_compare_exchange_n(lock, &free_, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
		if (!tries)
			syscall(SYS_sched_yield);
	}
	return 0;
}

/* Runs in signal context. */
static void pp_pause_unlock_sigsafe(int *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context; pp_pause.lock held (the only writer). Mark n: a
 * switch to paused (or not) now, its time into *now. The time is read
 * inside the odd seq: see pp_pause_marks_sigsafe.
 */
static void pp_pause_mark_sigsafe(uint32_t n, int paused, uint64_t *now)
{
	struct pp_pause_mark *m = &pp_pause.marks[n % PP_PAUSE_MARKS];
	uint32_t s = __atomic_load_n(&pp_pause.seq, __ATOMIC_RELAXED);
	uint64_t unprof;

	__atomic_store_n(&pp_pause.seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*now = pp_pause_now_sigsafe();
	/* Before the first switch sampling had not started: all of it unprofiled. */
	if (!n)
		unprof = *now;
	else
		unprof = pp_pause.mark_unprofiled_ns +
			 (pp_pause.mark_paused && *now > pp_pause.mark_at_ns ?
			  *now - pp_pause.mark_at_ns : 0);
	pp_pause.mark_at_ns = *now;
	pp_pause.mark_unprofiled_ns = unprof;
	pp_pause.mark_paused = paused;
	__atomic_store_n(&m->at_ns, *now, __ATOMIC_RELAXED);
	__atomic_store_n(&m->unprofiled_ns, unprof, __ATOMIC_RELAXED);
	__atomic_store_n(&m->paused, paused, __ATOMIC_RELAXED);
	__atomic_store_n(&pp_pause.nmarks, n + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&pp_pause.seq, s + 2, __ATOMIC_RELEASE);
}

/* Runs in signal context. The process-wide events to paused (or not); lock held. */
static void pp_pause_apply_process_sigsafe(int paused)
{
	int to = paused ? PP_PAUSE_APPLIED_OFF : PP_PAUSE_APPLIED_ON;
	uint32_t n = __atomic_load_n(&pp_pause.nmarks, __ATOMIC_RELAXED);
	uint64_t now;

	if (pp_pause.applied == to || !pp_pause.ev)
		return;
	pp_pause_mark_sigsafe(n, paused, &now);
	for (unsigned i = 0; i < pp_pause.ev->n; i++)
		syscall(SYS_ioctl, pp_pause.ev->fds[i],
			paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
	if (paused) {
		pp_pause.since_ns = now;
		pp_pause.pauses++;
	} else if (pp_pause.applied == PP_PAUSE_APPLIED_OFF) {
		pp_pause.paused_ns += now - pp_pause.since_ns;
	}
	pp_pause.applied = to;
}

/*
 * Runs in signal context. Thread t's own events to paused (or not); its lock
 * held, and it is live. Its CPU time is read by its clock (any thread's),
 * unless keep (pp_pause_thread_live_sigsafe's claimed), it goes on, and no
 * pause was ever asked for in this process.
 */
static void pp_pause_apply_thread_sigsafe(struct pp_thread *t, int tid, int paused, int keep)
{
	struct pp_thread_pause *p = &t->pause;
	int to = paused ? PP_PAUSE_APPLIED_OFF : PP_PAUSE_APPLIED_ON;
	uint64_t now, cpu;

	if (p->applied == to)
		return;
	pp_fd_tevents_switch_sigsafe(&t->tev, paused ? PERF_EVENT_IOC_DISABLE :
				     PERF_EVENT_IOC_ENABLE, 1);
	/* Not across a pause: one asked for since the claim may have come and gone. */
	if (keep && !paused && p->applied == PP_PAUSE_APPLIED_NONE &&
	    !__atomic_load_n(&pp_pause.why, __ATOMIC_ACQUIRE)) {
		p->applied = to;
		return;
	}
	now = pp_pause_now_sigsafe();
	cpu = pp_threads_cpu_of_sigsafe(tid);
	if (paused) {
		p->since_ns = now;
		p->cpu_since_ns = cpu;
		p->pauses++;
	} else {
		if (p->applied == PP_PAUSE_APPLIED_OFF) {
			p->paused_ns += now - p->since_ns;
			p->cpu_ns += cpu > p->cpu_since_ns ? cpu - p->cpu_since_ns : 0;
		}
		/* A late signal's merged overflows count from here, not across the pause. */
		for (unsigned e = 0; e < PP_CONFIG_MAX_EVENTS; e++) {
			t->cpu_prev_ns[e] = cpu;
			t->wall_prev_ns[e] = 0;
		}
		t->cpu_last_event = 0; /* the next signal reads the clock */
	}
	p->applied = to;
}

/*
 * Runs in signal context. Switches thread t to the state, unless another
 * holds its lock (who then looks again) or it is not live.
 */
static void pp_pause_sync_thread_sigsafe(struct pp_thread *t, void *arg)
{
	(void)arg;
	for (int r = 0; r < PP_PAUSE_ROUNDS; r++) {
		int want, tid;

		if (!pp_pause_lock_sigsafe(&t->pause.lock, 1))
			return;
		want = pp_pause_wanted_sigsafe();
		tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);
		if (t->pause.live && tid > 0 &&
		    !__atomic_load_n(&pp_pause.stopped, __ATOMIC_ACQUIRE))
			pp_pause_apply_thread_sigsafe(t, tid, want, 0);
		pp_pause_unlock_sigsafe(&t->pause.lock);
		if (pp_pause_wanted_sigsafe() == want)
			return;
	}
}

/* Runs in signal context. The process-wide events to the state, as above. */
static void pp_pause_sync_process_sigsafe(void)
{
	for (int r = 0; r < PP_PAUSE_ROUNDS; r++) {
		int want;

		if (!pp_pause_lock_sigsafe(&pp_pause.lock, 1))
			return;
		want = pp_pause_wanted_sigsafe();
		if (!__atomic_load_n(&pp_pause.stopped, __ATOMIC_ACQUIRE))
			pp_pause_apply_process_sigsafe(want);
		pp_pause_unlock_sigsafe(&pp_pause.lock);
		if (pp_pause_wanted_sigsafe() == want)
			return;
	}
}

/*
 * Runs in signal context. Every unit to the state: pausing, the
 * process-wide events first (they take most samples); resuming, last.
 */
static void pp_pause_sync_sigsafe(void)
{
	if (!__atomic_load_n(&pp_pause.started, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&pp_pause.stopped, __ATOMIC_ACQUIRE))
		return;
	if (pp_pause_wanted_sigsafe())
		pp_pause_sync_process_sigsafe();
	pp_threads_each_sigsafe(pp_pause_sync_thread_sigsafe, NULL);
	if (!pp_pause_wanted_sigsafe())
		pp_pause_sync_process_sigsafe();
}

/* Async-signal-safe. */
void pp_pause_configure_sigsafe(const struct pp_events *ev, uint64_t delay_ns)
{
	pp_pause.ev = ev;
	pp_pause.delay_ns = delay_ns;
	pp_pause.applied = PP_PAUSE_APPLIED_NONE;
	pp_pause.pauses = 0;
	pp_pause.paused_ns = 0;
	__atomic_store_n(&pp_pause.nmarks, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pp_pause.why, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pp_pause.stopped, 0, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
void pp_pause_hold_sigsafe(uint32_t set, uint32_t why)
{
	__atomic_or_fetch(&pp_pause.why, why, __ATOMIC_RELAXED);
	__atomic_or_fetch(&pp_pause.state, set, __ATOMIC_ACQ_REL);
}

/* Async-signal-safe. */
void pp_pause_start_sigsafe(void)
{
	/* A fork child still in its parent's delay. */
	if (__atomic_load_n(&pp_pause.state, __ATOMIC_ACQUIRE) & PP_PAUSE_DELAY)
		__atomic_or_fetch(&pp_pause.why, PPF_PAUSED_DELAY, __ATOMIC_RELAXED);
	__atomic_store_n(&pp_pause.started, 1, __ATOMIC_RELEASE);
	pp_pause_sync_process_sigsafe();
}

/* Async-signal-safe. */
void pp_pause_stop_sigsafe(uint64_t now, struct pp_records_paused *out)
{
	/* Not taken (its holder is stuck): stopped all the same, the counts as they are. */
	int locked = pp_pause_lock_sigsafe(&pp_pause.lock, 0);

	__atomic_store_n(&pp_pause.stopped, 1, __ATOMIC_RELEASE);
	*out = (struct pp_records_paused){ .paused_ns = pp_pause.paused_ns,
					   .other_ns = pp_pause.delay_ns,
					   .pauses = pp_pause.pauses,
					   .flags = __atomic_load_n(&pp_pause.why,
								    __ATOMIC_RELAXED) };
	if (pp_pause.applied == PP_PAUSE_APPLIED_OFF) {
		out->paused_ns += now > pp_pause.since_ns ? now - pp_pause.since_ns : 0;
		out->flags |= PPF_PAUSED_AT_END;
	}
	if (locked)
		pp_pause_unlock_sigsafe(&pp_pause.lock);
}

/* Async-signal-safe. */
void pp_pause_resume_after_stop_sigsafe(void)
{
	__atomic_store_n(&pp_pause.stopped, 0, __ATOMIC_RELEASE);
	pp_pause_sync_sigsafe();
}

/* Async-signal-safe. */
uint32_t pp_pause_marks_sigsafe(uint32_t from, struct pp_pause_mark *out, uint32_t max,
				uint32_t *nout, uint64_t *upto)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&pp_pause.seq, __ATOMIC_ACQUIRE), n, first, k = 0;
		uint64_t now;

		if (s & 1) {
			syscall(SYS_sched_yield);
			continue;
		}
		now = pp_pause_now_sigsafe();
		n = __atomic_load_n(&pp_pause.nmarks, __ATOMIC_ACQUIRE);
		/* from past the count: the marks were started again (a fork child). */
		if (from > n)
			from = 0;
		first = n - from > PP_PAUSE_MARKS ? n - PP_PAUSE_MARKS : from;
		for (uint32_t i = first; i < n && k < max; i++, k++) {
			const struct pp_pause_mark *m = &pp_pause.marks[i % PP_PAUSE_MARKS];

			out[k] = (struct pp_pause_mark){
				.at_ns = __atomic_load_n(&m->at_ns, __ATOMIC_RELAXED),
				.unprofiled_ns = __atomic_load_n(&m->unprofiled_ns,
								 __ATOMIC_RELAXED),
				.paused = __atomic_load_n(&m->paused, __ATOMIC_RELAXED),
			};
		}
		/* The copies are read before seq is looked at again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pp_pause.seq, __ATOMIC_RELAXED) != s)
			continue;
		if (k)
			out[0].lost_before = first - from;
		*nout = k;
		/* Every switch before now is copied, or before the last copied when some are left. */
		*upto = first + k == n ? now : out[k - 1].at_ns;
		return first + k;
	}
}

/* Async-signal-safe. */
int pp_pause_paused_sigsafe(void)
{
	return pp_pause_wanted_sigsafe();
}

/* Async-signal-safe. */
int pp_pause_running_sigsafe(void)
{
	return __atomic_load_n(&pp_pause.started, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&pp_pause.stopped, __ATOMIC_ACQUIRE) &&
	       !pp_pause_wanted_sigsafe();
}

/* Async-signal-safe. */
void pp_pause_call_sigsafe(int paused)
{
	if (paused)
		pp_pause_hold_sigsafe(PP_PAUSE_USER, PPF_PAUSED_CALL);
	else
		__atomic_and_fetch(&pp_pause.state, ~PP_PAUSE_USER, __ATOMIC_ACQ_REL);
	pp_pause_sync_sigsafe();
}

/* Runs in signal context. */
void pp_pause_toggle_sigsafe(void)
{
	uint32_t old = __atomic_load_n(&pp_pause.state, __ATOMIC_ACQUIRE), next;

	do
		next = old ? old & ~(PP_PAUSE_USER | PP_PAUSE_DELAY) : PP_PAUSE_USER;
	while (!__atomic_compare_exchange_n(&pp_pause.state, &old, next, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE));
	if (next)
		__atomic_or_fetch(&pp_pause.why, PPF_PAUSED_SIGNAL, __ATOMIC_RELAXED);
	pp_pause_sync_sigsafe();
}

/* Runs in signal context. */
void pp_pause_handle_toggle_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)sig;
	(void)si;
	(void)uc;
	pp_pause_toggle_sigsafe();
	errno = saved;
}

/* Async-signal-safe. */
void pp_pause_delay_over_sigsafe(void)
{
	__atomic_and_fetch(&pp_pause.state, ~PP_PAUSE_DELAY, __ATOMIC_ACQ_REL);
	pp_pause_sync_sigsafe();
}

/* Async-signal-safe. */
void pp_pause_thread_live_sigsafe(struct pp_thread *t, int tid, int wait, int claimed)
{
	if (!pp_pause_lock_sigsafe(&t->pause.lock, wait ? 0 : PP_PAUSE_TRIES))
		return;
	t->pause.live = 1;
	/* Its sampling events were opened disabled, its counters enabled: switch both. */
	t->pause.applied = PP_PAUSE_APPLIED_NONE;
	pp_pause_apply_thread_sigsafe(t, tid, pp_pause_wanted_sigsafe(), claimed);
	/* Not paused since its start: its CPU time before is not paused time. */
	pp_pause_unlock_sigsafe(&t->pause.lock);
	pp_pause_sync_thread_sigsafe(t, NULL);
}

/* Async-signal-safe. */
void pp_pause_thread_end_sigsafe(struct pp_thread *t, int tid, uint64_t now,
				 struct pp_records_paused *out)
{
	struct pp_thread_pause *p = &t->pause;
	uint64_t cpu;
	/* Not taken (its holder is stuck): it goes out of pausing all the same. */
	int locked = pp_pause_lock_sigsafe(&p->lock, 0);

	*out = (struct pp_records_paused){ .paused_ns = p->paused_ns, .other_ns = p->cpu_ns,
					   .pauses = p->pauses };
	if (p->live && p->applied == PP_PAUSE_APPLIED_OFF) {
		cpu = pp_threads_cpu_of_sigsafe(tid);
		out->paused_ns += now > p->since_ns ? now - p->since_ns : 0;
		out->other_ns += cpu > p->cpu_since_ns ? cpu - p->cpu_since_ns : 0;
		out->flags |= PPF_PAUSED_AT_END;
	}
	__atomic_store_n(&p->live, 0, __ATOMIC_RELEASE);
	if (locked)
		pp_pause_unlock_sigsafe(&p->lock);
}

/* Runs in signal context. */
static void pp_pause_forget_thread_sigsafe(struct pp_thread *t, void *arg)
{
	(void)arg;
	__atomic_store_n(&t->pause.lock, 0, __ATOMIC_RELEASE);
	t->pause.live = 0;
}

/* Async-signal-safe. */
void pp_pause_forget_sigsafe(void)
{
	pp_threads_each_sigsafe(pp_pause_forget_thread_sigsafe, NULL);
	__atomic_store_n(&pp_pause.lock, 0, __ATOMIC_RELEASE);
	/* A switch written by a thread of the parent when it forked. */
	__atomic_store_n(&pp_pause.seq, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pp_pause.started, 0, __ATOMIC_RELEASE);
}
