/* yields: sched_yield stretches for the wall event; see yields.h. */
#include "yields.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler.h"
#include "threads.h"

#define PP_YIELDS_RING 512

struct pp_yields_slot {
	uint64_t seq;            /* atomic: its index + 1 once filled in */
	uint32_t tid;
	unsigned nips;
	uint64_t calls, from_ns, to_ns;
	uint64_t ips[PP_YIELDS_FRAMES];
};

static struct {
	struct pp_yields_slot v[PP_YIELDS_RING];
	uint64_t head;           /* atomic: the next index to claim */
	uint64_t tail;           /* atomic: the next index to take */
	uint64_t dropped;        /* atomic: not kept, the ring was full */
} pp_yields;

/* The calling thread's open stretch: calls 0 when none. */
static __thread struct {
	uint64_t calls, from_ns, to_ns;
	unsigned nips;
	uint64_t ips[PP_YIELDS_FRAMES];
} pp_yields_open;

static uint64_t pp_yields_now_sigsafe(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs in signal context. */
void pp_yields_end_sigsafe(void)
{
	uint64_t h, calls = pp_yields_open.calls;
	struct pp_yields_slot *s;

	if (!calls)
		return;
	pp_yields_open.calls = 0;
	h = __atomic_load_n(&pp_yields.head, __ATOMIC_RELAXED);
	do {
		if (h - __atomic_load_n(&pp_yields.tail, __ATOMIC_ACQUIRE) >= PP_YIELDS_RING) {
			__atomic_add_fetch(&pp_yields.dropped, 1, __ATOMIC_RELAXED);
			return;
		}
	} while (!__atomic_compare_exchange_n(&pp_yields.head, &h, h + 1, 1, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	s = &pp_yields.v[h % PP_YIELDS_RING];
	s->tid = (uint32_t)pp_threads_gettid_sigsafe();
	s->calls = calls;
	s->from_ns = pp_yields_open.from_ns;
	s->to_ns = pp_yields_open.to_ns;
	s->nips = pp_yields_open.nips;
	memcpy(s->ips, pp_yields_open.ips, s->nips * sizeof(*s->ips));
	__atomic_store_n(&s->seq, h + 1, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_yields_call_sigsafe(int (*real)(void), int on, uint64_t caller)
{
	uint64_t t0, t1;
	int ret, saved;

	if (!on) {
		pp_yields_end_sigsafe();
		return real();
	}
	t0 = pp_yields_now_sigsafe();
	ret = real();
	saved = errno;
	t1 = pp_yields_now_sigsafe();
	if (pp_yields_open.calls && t0 - pp_yields_open.to_ns > PPF_WALL_YIELD_GAP_NS)
		pp_yields_end_sigsafe();
	if (!pp_yields_open.calls) {
		pp_yields_open.from_ns = t0;
		/* The loop's stack, once a stretch: after the call, out of its time. */
		pp_yields_open.nips = 0;
		pp_yields_open.calls = 1;
		pp_yields_open.to_ns = t1;
		pp_yields_open.nips = pp_sampler_stack_here_sigsafe(caller, pp_yields_open.ips,
								    PP_YIELDS_FRAMES);
		errno = saved;
		return ret;
	}
	pp_yields_open.calls++;
	pp_yields_open.to_ns = t1;
	errno = saved;
	return ret;
}

/* Runs in signal context. */
int pp_yields_next_sigsafe(struct ppf_wall_yield *out, uint64_t *ips, unsigned *nips)
{
	uint64_t tail = __atomic_load_n(&pp_yields.tail, __ATOMIC_RELAXED);
	struct pp_yields_slot *s = &pp_yields.v[tail % PP_YIELDS_RING];

	if (tail == __atomic_load_n(&pp_yields.head, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != tail + 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->tid = s->tid;
	out->calls = s->calls;
	out->from_ns = s->from_ns;
	out->to_ns = s->to_ns;
	out->stack = PPF_WALL_NO_STACK;
	*nips = s->nips;
	memcpy(ips, s->ips, s->nips * sizeof(*ips));
	out->dropped = (uint32_t)__atomic_exchange_n(&pp_yields.dropped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pp_yields.tail, tail + 1, __ATOMIC_RELEASE);
	return 1;
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
