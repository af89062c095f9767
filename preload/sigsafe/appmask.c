/* The program's view of the sampling signal in its masks; see appmask.h. */
#include "appmask.h"

#include <linux/perf_event.h>
#include <time.h>

#include "fd.h"
#include "pause.h"
#include "pprof/format.h"
#include "sampsig.h"

static struct pp_appmask_config pp_appmask_cfg;
static int pp_appmask_on; /* atomic */

/* Per thread: the program blocks the sampling signal; a signal is held. */
static __thread int pp_appmask_blocked;
static __thread int pp_appmask_held;
/* Per thread: the profiler's handler runs (its own code, not the app's). */
static __thread int pp_appmask_inside;
/* Per thread: its log is finished; the signal stays blocked from now on. */
static __thread int pp_appmask_ended;

/* Async-signal-safe. */
void pp_appmask_configure_sigsafe(const struct pp_appmask_config *cfg)
{
	pp_appmask_cfg = *cfg;
}

/* Runs in signal context. */
int pp_appmask_on_sigsafe(void)
{
	return __atomic_load_n(&pp_appmask_on, __ATOMIC_ACQUIRE);
}

/* Runs in signal context. */
void pp_appmask_set_on_sigsafe(int on)
{
	__atomic_store_n(&pp_appmask_on, on, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_appmask_inside_sigsafe(void)
{
	return __atomic_load_n(&pp_appmask_inside, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
void pp_appmask_enter_sigsafe(int by)
{
	__atomic_add_fetch(&pp_appmask_inside, by, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
int pp_appmask_blocked_sigsafe(void)
{
	return __atomic_load_n(&pp_appmask_blocked, __ATOMIC_RELAXED);
}

/*
 * Runs in signal context. Stored with a compiler barrier: the handler that
 * reads it runs in this thread, between any two instructions.
 */
void pp_appmask_set_blocked_sigsafe(int blocked)
{
	__atomic_store_n(&pp_appmask_blocked, blocked, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
void pp_appmask_view_sigsafe(sigset_t *set, int blocked)
{
	if (blocked)
		sigaddset(set, pp_sampsig_number_sigsafe());
}

/* Runs in signal context. */
int pp_appmask_held_sigsafe(void)
{
	return __atomic_load_n(&pp_appmask_held, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. The calling thread's CPU time, never 0. */
static uint64_t pp_appmask_cpu_sigsafe(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 1;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1;
}

/* Runs in signal context. */
void pp_appmask_hold_sigsafe(struct pp_thread *t)
{
	if (__atomic_exchange_n(&pp_appmask_held, 1, __ATOMIC_SEQ_CST) || !t)
		return;
	if (pp_appmask_cfg.mode == PPF_MODE_SIGNAL)
		pp_fd_tevents_switch_sigsafe(&t->tev, PERF_EVENT_IOC_DISABLE, 0);
	t->cpu_last_event = 0; /* the events stand still or merge: the next signal reads the clock */
	/* Busy: the profiler's own code, interrupted; the time goes uncounted. */
	if (!pp_threads_enter_sigsafe(t))
		return;
	t->held_since_ns = pp_appmask_cpu_sigsafe();
	t->holds++;
	pp_threads_leave_sigsafe(t);
}

/* Runs in signal context. */
void pp_appmask_hold_end_sigsafe(struct pp_thread *t, uint64_t cpu_ns)
{
	uint64_t d;

	if (!t->held_since_ns)
		return;
	d = cpu_ns > t->held_since_ns ? cpu_ns - t->held_since_ns : 0;
	t->held_since_ns = 0;
	t->held_cpu_ns += d;
	/* Counted here: a late signal's merged overflows count from now. */
	for (unsigned i = 0; i < PP_CONFIG_MAX_EVENTS; i++) {
		t->cpu_prev_ns[i] = cpu_ns;
		t->wall_prev_ns[i] = 0;
	}
	t->cpu_last_event = 0; /* the next signal reads the clock */
	/*
	 * The overflows of that time were not taken: in the signal mode the
	 * events stood still, in the sigtrap mode they merged into the held
	 * signal. Counted as throttled, as overflows the profiler let go.
	 */
	for (unsigned i = 0; i < PP_CONFIG_MAX_EVENTS; i++) {
		uint64_t n;

		if (!pp_appmask_cfg.period_ns[i])
			continue;
		n = d / pp_appmask_cfg.period_ns[i];
		__atomic_add_fetch(&t->ev_throttled[i], n, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->throttled, n, __ATOMIC_RELAXED);
	}
}

/* Runs in signal context. */
void pp_appmask_release_sigsafe(struct pp_thread *t)
{
	if (!__atomic_exchange_n(&pp_appmask_held, 0, __ATOMIC_SEQ_CST) || !t)
		return;
	if (pp_threads_enter_sigsafe(t)) {
		pp_appmask_hold_end_sigsafe(t, pp_appmask_cpu_sigsafe());
		pp_threads_leave_sigsafe(t);
	}
	/* Paused (pause.h), they stay disabled until resumed. */
	if (pp_appmask_cfg.mode == PPF_MODE_SIGNAL &&
	    __atomic_load_n(&t->pause.applied, __ATOMIC_RELAXED) != PP_PAUSE_APPLIED_OFF)
		pp_fd_tevents_switch_sigsafe(&t->tev, PERF_EVENT_IOC_ENABLE, 0);
}

/* Runs in signal context. */
void pp_appmask_thread_start_sigsafe(int blocked)
{
	pp_appmask_set_blocked_sigsafe(blocked);
	__atomic_store_n(&pp_appmask_held, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pp_appmask_ended, 0, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
int pp_appmask_ended_sigsafe(void)
{
	return __atomic_load_n(&pp_appmask_ended, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
void pp_appmask_end_sigsafe(void)
{
	__atomic_store_n(&pp_appmask_ended, 1, __ATOMIC_SEQ_CST);
}
