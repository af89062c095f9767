/* yields: sched_yield stretches for the wall event; see yields.h. */
#include "yields.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "records.h"
#include "sampler.h"
#include "threads.h"

#define PP_YIELDS_RING 512
/* Takes the reader found a claimed slot still unfilled before it gives it up. */
#define PP_YIELDS_STUCK 256
/*
 * A stretch's first call may find its stack unreadable (the profiler's
 * helper loading libunwind's remote library at the start, the program's
 * dlopen: milliseconds): its calls number 2, 4, 8, ... try again, a few
 * dozen unwinds at the most however long the stretch.
 */

struct pp_yields_slot {
	uint64_t seq;            /* atomic: its index + 1 once filled in */
	uint32_t tid;
	unsigned nips;
	uint64_t calls, from_ns, to_ns, in_calls_ns;
	uint64_t ips[PP_YIELDS_FRAMES];
};

/* A stretch: calls 0 when none is open. */
struct pp_yields_open {
	uint64_t calls, from_ns, to_ns, in_calls_ns;
	unsigned nips;
	uint64_t ips[PP_YIELDS_FRAMES];
};

static struct {
	struct pp_yields_slot v[PP_YIELDS_RING];
	uint64_t head;           /* atomic: the next index to claim */
	uint64_t tail;           /* atomic: the next index to take (the reader's) */
	uint64_t dropped;        /* atomic: not kept (the ring full, a slot never filled) */
	unsigned stuck;          /* the reader's: takes that found tail's slot unfilled */
} pp_yields;

/* The calling thread's open stretch. */
static __thread struct pp_yields_open pp_yields_open;

/* Runs in signal context. Puts stretch o (ended) into the ring, or counts it dropped. */
static void pp_yields_push_sigsafe(const struct pp_yields_open *o)
{
	uint64_t h = __atomic_load_n(&pp_yields.head, __ATOMIC_RELAXED);
	struct pp_yields_slot *s;

	for (;;) {
		uint64_t t = __atomic_load_n(&pp_yields.tail, __ATOMIC_ACQUIRE);

		/* h read before the reader moved past it: read it again. */
		if ((int64_t)(h - t) < 0) {
			h = __atomic_load_n(&pp_yields.head, __ATOMIC_RELAXED);
			continue;
		}
		if (h - t >= PP_YIELDS_RING) {
			__atomic_add_fetch(&pp_yields.dropped, 1, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_compare_exchange_n(&pp_yields.head, &h, h + 1, 1, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	s = &pp_yields.v[h % PP_YIELDS_RING];
	s->tid = (uint32_t)pp_threads_gettid_sigsafe();
	s->calls = o->calls;
	s->from_ns = o->from_ns;
	s->to_ns = o->to_ns;
	s->in_calls_ns = o->in_calls_ns;
	s->nips = o->nips;
	memcpy(s->ips, o->ips, o->nips * sizeof(*s->ips));
	__atomic_store_n(&s->seq, h + 1, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. Takes the calling thread's open stretch (a copy
 * into *o, the thread's closed first: a handler that yields meanwhile
 * starts a stretch of its own); 0 when none was open.
 */
static int pp_yields_take_sigsafe(struct pp_yields_open *o)
{
	if (!pp_yields_open.calls)
		return 0;
	*o = pp_yields_open;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pp_yields_open.calls = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return o->calls != 0;
}

/* Runs in signal context. */
void pp_yields_end_sigsafe(void)
{
	struct pp_yields_open o;

	if (pp_yields_take_sigsafe(&o))
		pp_yields_push_sigsafe(&o);
}

/* Runs in signal context. */
int pp_yields_call_sigsafe(int (*real)(void), int on, uint64_t caller)
{
	uint64_t t0, t1, last;
	int ret, saved;

	if (!on) {
		pp_yields_end_sigsafe();
		return real();
	}
	t0 = pp_records_now_sigsafe();
	ret = real();
	saved = errno;
	t1 = pp_records_now_sigsafe();
	last = pp_yields_open.to_ns;
	/* (a handler's yield may have ended after t0: no gap then) */
	if (pp_yields_open.calls && t0 > last && t0 - last > PPF_WALL_YIELD_GAP_NS)
		pp_yields_end_sigsafe();
	if (!pp_yields_open.calls) {
		struct pp_yields_open o = { .calls = 1, .from_ns = t0, .to_ns = t1,
					    .in_calls_ns = t1 - t0 };

		/* The loop's stack, once a stretch: after the call, out of its time. */
		o.nips = pp_sampler_stack_here_sigsafe(caller, o.ips, PP_YIELDS_FRAMES);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (!pp_yields_open.calls)
			pp_yields_open = o;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		errno = saved;
		return ret;
	}
	pp_yields_open.calls++;
	pp_yields_open.in_calls_ns += t1 - t0;
	if (t1 > pp_yields_open.to_ns)
		pp_yields_open.to_ns = t1;
	if (!pp_yields_open.nips && !(pp_yields_open.calls & (pp_yields_open.calls - 1))) {
		uint64_t ips[PP_YIELDS_FRAMES];
		unsigned n = pp_sampler_stack_here_sigsafe(caller, ips, PP_YIELDS_FRAMES);

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		/*
		 * A handler's yield meanwhile may have ended the stretch, or read
		 * its stack: then it is kept (one that comes between the copy and
		 * the count leaves its own, whole).
		 */
		if (n && pp_yields_open.calls && !pp_yields_open.nips) {
			memcpy(pp_yields_open.ips, ips, n * sizeof(*ips));
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			if (!pp_yields_open.nips)
				pp_yields_open.nips = n;
		}
	}
	errno = saved;
	return ret;
}

/* Runs in signal context. */
int pp_yields_next_sigsafe(struct ppf_wall_yield *out, uint64_t *ips, unsigned *nips)
{
	uint64_t tail = __atomic_load_n(&pp_yields.tail, __ATOMIC_RELAXED);
	struct pp_yields_slot *s;

	for (;;) {
		s = &pp_yields.v[tail % PP_YIELDS_RING];
		if (tail == __atomic_load_n(&pp_yields.head, __ATOMIC_ACQUIRE))
			return 0;
		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == tail + 1)
			break;
		/*
		 * Claimed, not filled yet: its writer was interrupted (a
		 * later take finds it filled), or never came back (the
		 * thread was cancelled or jumped out of a handler). Given up
		 * after PP_YIELDS_STUCK takes, and counted as dropped.
		 */
		if (++pp_yields.stuck < PP_YIELDS_STUCK)
			return 0;
		pp_yields.stuck = 0;
		__atomic_add_fetch(&pp_yields.dropped, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pp_yields.tail, ++tail, __ATOMIC_RELEASE);
	}
	pp_yields.stuck = 0;
	memset(out, 0, sizeof(*out));
	out->tid = s->tid;
	out->calls = s->calls;
	out->from_ns = s->from_ns;
	out->to_ns = s->to_ns;
	out->in_calls_ns = s->in_calls_ns;
	out->stack = PPF_WALL_NO_STACK;
	out->dropped = (uint32_t)__atomic_exchange_n(&pp_yields.dropped, 0, __ATOMIC_RELAXED);
	*nips = s->nips;
	memcpy(ips, s->ips, s->nips * sizeof(*ips));
	__atomic_store_n(&pp_yields.tail, tail + 1, __ATOMIC_RELEASE);
	return 1;
}

/* Runs in signal context. */
uint32_t pp_yields_dropped_sigsafe(void)
{
	return (uint32_t)__atomic_exchange_n(&pp_yields.dropped, 0, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
void pp_yields_fork_child_sigsafe(void)
{
	pp_yields_open.calls = 0;
	memset(&pp_yields, 0, sizeof(pp_yields));
}

/* Runs in signal context. */
void pp_yields_raw_sigsafe(void)
{
	syscall(SYS_sched_yield);
}
