/*
 * The sampling signal's handler (SIGTRAP in the sigtrap mode, the chosen
 * signal in the signal mode) and nothing else: everything in this file runs
 * in signal context (checked by `make check-sigsafe`).
 */
#include "sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
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
#include "pause.h"
#include "records.h"
#include "sampsig.h"
#include "stacks.h"
#include "threads.h"
#include "unwmask.h"
#include "yields.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define PP_TRAP_PERF_FLAG_ASYNC 1u

/* Frames of our own above the interrupted one: handler, unwinder, trampoline. */
#define PP_SAMPLER_SLACK 16
/* After a sample, none for this many times its cost (pp_sampler_pace_sigsafe). */
#define PP_SAMPLER_PACE 4
/*
 * A sample that took less wall time than this is taken to have cost that
 * much CPU time, without reading the thread's CPU clock again (which is a
 * system call: 1.3-1.8 us on the development VM, about a tenth of a warm
 * sample's whole cost; the monotonic clock is read in the vDSO, 33 ns). Its wall
 * time is at least its CPU time, and more only where the thread was
 * preempted in between, which takes the wall time past this at once (a
 * time slice is milliseconds): so such a sample's cost is overstated by
 * less than this (what it owes, by less than PP_SAMPLER_PACE + 1 times
 * this), and a dearer one's is exact.
 */
#define PP_SAMPLER_WALL_COST_NS 20000ull
/*
 * A time event's signals that came at once, one after the other, are a
 * period of the thread's CPU apart: where it is the one event that
 * samples, PP_SAMPLER_CPU_GUESSES of them in a
 * row are counted on from the last clock read, once PP_SAMPLER_CPU_RIGHT
 * reads in a row found that count within a quarter of a period (it is
 * not where the event had overflows in the kernel it excludes, or lost
 * signals). The clock costs 1.3 to 1.8 us a read here: most of what a
 * sample costs beyond the kernel's own.
 */
#define PP_SAMPLER_CPU_GUESSES 15
#define PP_SAMPLER_CPU_RIGHT 2
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
/* The counting events of threads adopted here (pp_sampler_set_counters_sigsafe). */
static uint32_t pp_sampler_count_mask;
/*
 * One event samples (the others count), as the two setters below leave it:
 * with two, a late signal of one (come during the other's handler) would
 * count from a counted CPU time that overflows lost in the kernel left
 * behind (pp_sampler_cpu_sigsafe).
 */
static int pp_sampler_one_sampler;

/* Async-signal-safe. Sets pp_sampler_one_sampler from the configuration. */
static void pp_sampler_count_samplers_sigsafe(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pp_sampler_cfg.nevents; i++)
		n += !(pp_sampler_count_mask & (1u << i));
	pp_sampler_one_sampler = n == 1;
}
static const struct perf_event_attr *pp_sampler_count_attrs;
/*
 * The app's action for the sampling signal: two copies and an index, so
 * the handler never reads a copy that is being written.
 */
static struct sigaction pp_sampler_app[2];
static int pp_sampler_app_cur;
/*
 * The generation of the app's action (one more at each set), and gen + 1
 * once SA_RESETHAND reset the action of generation gen (0: none): the
 * handler marks a reset without writing a copy the setter may be writing.
 */
static unsigned pp_sampler_app_gen, pp_sampler_app_reset;
static int pp_sampler_in_dl;
/* Threads inside dlopen now, and a count bumped as one enters or leaves. */
static int pp_sampler_in_dlopen;
static unsigned pp_sampler_dlopen_gen;
static uint64_t pp_sampler_unowned;
/* Of those, the samples that found no room on the stack the handler ran on. */
static uint64_t pp_sampler_noroom;
/* CLOCK_MONOTONIC of the process's last CPU time in a progress record. */
static uint64_t pp_sampler_proc_progress_ns;
/*
 * The key kept free for libunwind's (pp_sampler_unwind_key_sigsafe), and
 * its state (atomic): PP_SAMPLER_KEY_HELD, _FREEING, _FREE (or none kept).
 */
static pthread_key_t pp_sampler_unw_key;
static int pp_sampler_unw_key_state = 2;
#define PP_SAMPLER_KEY_HELD 0
#define PP_SAMPLER_KEY_FREEING 1
#define PP_SAMPLER_KEY_FREE 2
/* Yields at the most while another thread frees the key. */
#define PP_SAMPLER_KEY_SPINS 10000
/* Yields a change of loaded objects' memory waits at most for unwinds under way. */
#define PP_SAMPLER_QUIESCE_YIELDS 100000

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
void pp_sampler_unwind_key_sigsafe(pthread_key_t reserve)
{
	pp_sampler_unw_key = reserve;
	__atomic_store_n(&pp_sampler_unw_key_state, PP_SAMPLER_KEY_HELD, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. Before an unwind: the first in the process frees
 * the key kept for libunwind's (glibc's pthread_key_delete is one
 * compare-and-swap), and any other waits (bounded) until it is free, so
 * that libunwind's first trace makes its key there.
 */
static void pp_sampler_unwind_key_free_sigsafe(void)
{
	int held = PP_SAMPLER_KEY_HELD;

	if (__atomic_load_n(&pp_sampler_unw_key_state, __ATOMIC_ACQUIRE) == PP_SAMPLER_KEY_FREE)
		return;
	if (__atomic_compare_exchange_n(&pp_sampler_unw_key_state, &held, PP_SAMPLER_KEY_FREEING,
					0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_key_delete(pp_sampler_unw_key);
		__atomic_store_n(&pp_sampler_unw_key_state, PP_SAMPLER_KEY_FREE, __ATOMIC_RELEASE);
		return;
	}
	for (int i = 0; i < PP_SAMPLER_KEY_SPINS &&
	     __atomic_load_n(&pp_sampler_unw_key_state, __ATOMIC_ACQUIRE) != PP_SAMPLER_KEY_FREE;
	     i++)
		pp_yields_raw_sigsafe();
	/* A fork child of a process caught freeing it: nobody will finish. */
	__atomic_store_n(&pp_sampler_unw_key_state, PP_SAMPLER_KEY_FREE, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
void pp_sampler_configure_sigsafe(const struct pp_sampler_config *cfg)
{
	pp_sampler_cfg = *cfg;
	pp_sampler_count_samplers_sigsafe();
	/* A fork child records its own CPU time from its first sample. */
	__atomic_store_n(&pp_sampler_proc_progress_ns, 0, __ATOMIC_RELAXED);
}

/* Async-signal-safe. */
void pp_sampler_set_counters_sigsafe(uint32_t mask, const struct perf_event_attr *attrs)
{
	pp_sampler_count_attrs = attrs;
	pp_sampler_count_mask = attrs ? mask : 0;
	pp_sampler_count_samplers_sigsafe();
}

/* The calling thread's own part of the two counts (pp_sampler_dl_fork_child_sigsafe). */
static __thread int pp_sampler_my_in_dl __attribute__((tls_model("initial-exec")));
static __thread int pp_sampler_my_in_dlopen __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
void pp_sampler_dl_enter_sigsafe(void)
{
	pp_sampler_my_in_dl++;
	__atomic_add_fetch(&pp_sampler_in_dl, 1, __ATOMIC_ACQ_REL);
}

/* Runs in signal context. */
void pp_sampler_dl_quiesce_sigsafe(void)
{
	/* Bounded: a thread stopped inside its unwind (a tracer's) is not waited for forever. */
	for (int i = 0; i < PP_SAMPLER_QUIESCE_YIELDS && pp_dlsnap_unwinding_sigsafe() > 0; i++)
		pp_yields_raw_sigsafe();
}

/* Runs in signal context. */
void pp_sampler_dl_leave_sigsafe(void)
{
	__atomic_sub_fetch(&pp_sampler_in_dl, 1, __ATOMIC_ACQ_REL);
	pp_sampler_my_in_dl--;
}

/* Runs in signal context. */
void pp_sampler_dlopen_enter_sigsafe(void)
{
	pp_sampler_my_in_dlopen++;
	__atomic_add_fetch(&pp_sampler_dlopen_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&pp_sampler_in_dlopen, 1, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
void pp_sampler_dlopen_leave_sigsafe(void)
{
	__atomic_sub_fetch(&pp_sampler_in_dlopen, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&pp_sampler_dlopen_gen, 1, __ATOMIC_SEQ_CST);
	pp_sampler_my_in_dlopen--;
}

/* Runs in signal context. */
void pp_sampler_dl_fork_child_sigsafe(void)
{
	__atomic_store_n(&pp_sampler_in_dl, pp_sampler_my_in_dl, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pp_sampler_in_dlopen, pp_sampler_my_in_dlopen, __ATOMIC_SEQ_CST);
	pp_dlsnap_fork_child_sigsafe();
}

/* Runs in signal context. */
unsigned pp_sampler_dlopen_state_sigsafe(int *inside)
{
	unsigned gen = __atomic_load_n(&pp_sampler_dlopen_gen, __ATOMIC_SEQ_CST);

	*inside = __atomic_load_n(&pp_sampler_in_dlopen, __ATOMIC_SEQ_CST);
	return gen;
}

/*
 * Runs in signal context. Whether a sample may be unwound now: not while a
 * thread is in dlclose or a module-map scan (the snapshot may list what is
 * being unmapped), nor in dlopen when the snapshot was built while one was
 * under way (it may list an object a failing dlopen unmaps again). A dlopen
 * that only maps new objects leaves every object of a clean snapshot
 * mapped: its samples unwind through the loader to the caller.
 */
static int pp_sampler_may_unwind_sigsafe(void)
{
	if (__atomic_load_n(&pp_sampler_in_dl, __ATOMIC_ACQUIRE))
		return 0;
	return !__atomic_load_n(&pp_sampler_in_dlopen, __ATOMIC_SEQ_CST) ||
	       !pp_dlsnap_partial_sigsafe();
}

/* Runs in signal context. */
uint64_t pp_sampler_noroom_sigsafe(void)
{
	return __atomic_load_n(&pp_sampler_noroom, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
uint64_t pp_sampler_unowned_lost_sigsafe(void)
{
	return __atomic_load_n(&pp_sampler_unowned, __ATOMIC_RELAXED);
}

/*
 * Runs in signal context. The app's action now: its copy, with SIG_DFL for
 * a handler SA_RESETHAND reset (its flags and mask kept, as the kernel
 * keeps them); *gen: its generation.
 */
static void pp_sampler_app_now_sigsafe(struct sigaction *out, unsigned *gen)
{
	unsigned g = __atomic_load_n(&pp_sampler_app_gen, __ATOMIC_ACQUIRE);

	*out = pp_sampler_app[__atomic_load_n(&pp_sampler_app_cur, __ATOMIC_ACQUIRE)];
	if (__atomic_load_n(&pp_sampler_app_reset, __ATOMIC_ACQUIRE) == g + 1)
		out->sa_handler = SIG_DFL;
	if (gen)
		*gen = g;
}

/* Runs in signal context. */
void pp_sampler_app_action_get_sigsafe(struct sigaction *out)
{
	pp_sampler_app_now_sigsafe(out, NULL);
}

/* Runs in signal context. */
void pp_sampler_app_action_set_sigsafe(const struct sigaction *act)
{
	int next = !__atomic_load_n(&pp_sampler_app_cur, __ATOMIC_ACQUIRE);

	pp_sampler_app[next] = *act;
	__atomic_store_n(&pp_sampler_app_cur, next, __ATOMIC_RELEASE);
	__atomic_add_fetch(&pp_sampler_app_gen, 1, __ATOMIC_ACQ_REL);
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
 * Runs in signal context. SA_RESETHAND: the app's action of generation gen
 * back to its default as the signal is delivered, as the kernel does (the
 * app's query says SIG_DFL, the next one ends the program); a sigaction
 * call meanwhile made a newer one, which stays.
 */
static void pp_sampler_app_reset_sigsafe(unsigned gen)
{
	__atomic_store_n(&pp_sampler_app_reset, gen + 1, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. Gives a signal that is not ours to the app's
 * action, as the kernel would have: its SA_RESETHAND applied, and its
 * handler run under the kernel mask the kernel would give it (the
 * interrupted mask, its sa_mask, and its signal unless SA_NODEFER), which
 * is also the app's view: a SIGSEGV the handler catches inside it, or a
 * signal it raises, comes in, and a handler that leaves by siglongjmp gets
 * the mask it saved from glibc's own call. One that leaves by longjmp
 * leaves its signal blocked, as the kernel would: the thread is then not
 * sampled until the program unblocks it. After a handler that returns, the
 * kernel's mask is our handler's again and the app's view the one it had;
 * the interrupted mask comes back with the return from ours (uc).
 */
static void pp_sampler_forward_sigsafe(int sig, siginfo_t *si, void *uc)
{
	struct sigaction act;
	uint64_t mask, ours = ~(uint64_t)0, bit = (uint64_t)1 << (sig - 1);
	struct pp_thread *t = NULL;
	unsigned gen;
	int blocked, hold;

	pp_sampler_app_now_sigsafe(&act, &gen);

	if (act.sa_handler == SIG_IGN)
		return;
	if (pp_sampler_orphan_sigsafe(si, &act)) {
		__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
		return;
	}
	if (act.sa_handler == SIG_DFL) {
		pp_sampler_default_sigsafe(sig);
		return;
	}
	if (act.sa_flags & SA_RESETHAND)
		pp_sampler_app_reset_sigsafe(gen);
	mask = uc ? pp_unwmask_bits_sigsafe(&((ucontext_t *)uc)->uc_sigmask) : 0;
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL) {
		t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());
		/*
		 * A hold a handler left by a jump did not end: the mask it
		 * jumped to lets the signal in again (siglongjmp's).
		 */
		if (pp_appmask_held_sigsafe() && !(mask & bit))
			pp_appmask_release_sigsafe(t);
	}
	mask |= pp_unwmask_bits_sigsafe(&act.sa_mask);
	if (!(act.sa_flags & SA_NODEFER))
		mask |= bit;
	/*
	 * The signal mode's events stop while the kernel blocks their signal
	 * for the handler: a real-time signal queues, and a handler left by
	 * longjmp (the signal stays blocked) would fill the user's queue, and
	 * the kernel then sends SIGIO.
	 */
	hold = pp_sampler_cfg.mode == PPF_MODE_SIGNAL && (mask & bit) &&
	       !pp_appmask_held_sigsafe();
	if (hold)
		pp_appmask_hold_sigsafe(t);
	blocked = pp_appmask_blocked_sigsafe();
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &ours, sizeof(mask));
	pp_appmask_enter_sigsafe(-1);
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
	pp_appmask_enter_sigsafe(1);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &ours, NULL, sizeof(ours));
	pp_appmask_set_blocked_sigsafe(blocked);
	if (hold)
		pp_appmask_release_sigsafe(t);
}

/*
 * Overflow records read from an event's ring buffer at once: its one data
 * page holds at most 256 (16 bytes each: header and address; 24 with the
 * period of a weighted event).
 */
#define PP_SAMPLER_RB_MAX 256

/*
 * Signal mode: the overflows an event's ring buffer held, in the order
 * they happened. The kernel writes a record for every overflow before it
 * raises the signal; signals that come while the signal is pending merge
 * (a non-real-time signal: SIGPROF, SIGUSR1/2) or are taken off the queue
 * while a sample is taken: the records, not the signals, say how many
 * overflows there were.
 */
struct pp_sampler_batch {
	uint64_t ips[PP_SAMPLER_RB_MAX]; /* where each happened */
	uint64_t periods[PP_SAMPLER_RB_MAX]; /* the event count each stands for
						(PERF_SAMPLE_PERIOD, a weighted
						event's), else 0 */
	uint8_t user[PP_SAMPLER_RB_MAX]; /* 1: in user space */
	unsigned n;
	uint64_t lost; /* overflows with no record: the buffer was full */
};

/* Runs in signal context. The 8 bytes at offset off of a ring buffer's data (8-aligned). */
static uint64_t pp_sampler_rb_u64_sigsafe(const uint8_t *data, uint64_t size, uint64_t off)
{
	uint64_t v;

	memcpy(&v, data + off % size, sizeof(v));
	return v;
}

/*
 * Runs in signal context. Reads every record the kernel has written to
 * ring buffer rb since the last read into b, and frees their room. Bounded:
 * a buffer of size bytes holds at most size / 8 records.
 */
static void pp_sampler_rb_read_sigsafe(void *rb, struct pp_sampler_batch *b)
{
	struct perf_event_mmap_page *pg = rb;
	const uint8_t *data = (const uint8_t *)rb + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail, size = pg->data_size;

	b->n = 0;
	b->lost = 0;
	for (uint64_t k = 0; tail < head && size && k < size / 8; k++) {
		struct perf_event_header h;

		memcpy(&h, data + tail % size, sizeof(h));
		if (h.size < sizeof(h))
			break;
		/* { header, id, lost }: overflows the full buffer had no room for. */
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
			b->lost += pp_sampler_rb_u64_sigsafe(data, size, tail + sizeof(h) + 8);
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 8) {
			if (b->n < PP_SAMPLER_RB_MAX) {
				b->ips[b->n] = pp_sampler_rb_u64_sigsafe(data, size,
									 tail + sizeof(h));
				/* { header, ip, period }: only a weighted event's have one. */
				b->periods[b->n] = h.size >= sizeof(h) + 16 ?
						   pp_sampler_rb_u64_sigsafe(data, size,
									     tail + sizeof(h) + 8) :
						   0;
				b->user[b->n++] = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
						  PERF_RECORD_MISC_USER;
			} else {
				b->lost++;
			}
		}
		tail += h.size;
	}
	/* All read (or a record that makes no sense: what follows cannot be parsed). */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. The overflows a signal of ours stands for that
 * nobody has counted yet: with a ring buffer, the records it held (read and
 * dropped: 0 when an earlier signal's handler read them); without one (its
 * mmap was refused), one per signal.
 */
static uint64_t pp_sampler_rb_take_sigsafe(void *rb)
{
	struct pp_sampler_batch b;

	if (!rb)
		return 1;
	pp_sampler_rb_read_sigsafe(rb, &b);
	return b.n + b.lost;
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

/* Runs in signal context. Counts n overflows of event not taken for t. */
static void pp_sampler_throttled_sigsafe(struct pp_thread *t, unsigned event, uint64_t n)
{
	__atomic_add_fetch(&t->throttled, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ev_throttled[event], n, __ATOMIC_RELAXED);
}

/* Runs in signal context. Counts n overflows of event that t lost. */
static void pp_sampler_lost_sigsafe(struct pp_thread *t, unsigned event, uint64_t n)
{
	__atomic_add_fetch(&t->lost, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->ev_lost[event], n, __ATOMIC_RELAXED);
}

/* Runs in signal context. n overflows of a signal-mode signal of ours (see pp_sampler_rb_take_sigsafe). */
static uint64_t pp_sampler_signal_overflows_sigsafe(void *rb)
{
	return pp_sampler_cfg.mode == PPF_MODE_SIGNAL ? pp_sampler_rb_take_sigsafe(rb) : 1;
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
		uint64_t overflows;
		void *rb;

		if (syscall(SYS_rt_sigtimedwait, &set, &keep[n], &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			break;
		if (!pp_sampler_is_ours_sigsafe(sig, &keep[n], &event, &rb)) {
			n++;
			continue;
		}
		overflows = pp_sampler_signal_overflows_sigsafe(rb);
		if (t)
			pp_sampler_throttled_sigsafe(t, event, overflows);
		else
			__atomic_add_fetch(&pp_sampler_unowned, overflows, __ATOMIC_RELAXED);
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
 * Runs in signal context. Signal mode: signals that came while this one
 * was handled. Real-time signals queue: when samples cost more than the
 * period, the queue would grow until the kernel's limit (RLIMIT_SIGPENDING,
 * shared by all of the user's processes), where it sends SIGIO instead,
 * which kills a program that does not handle it. The queued ones are taken
 * off here (the sampling signal is blocked in the handler); the overflows
 * their ring buffers still hold (none, mostly: the handler read them) are
 * counted as throttled, overflows that came while a sample was being
 * taken. A signal that is not ours (the program's own, on the same signal)
 * goes to the program's action. Bounded; stops at the first empty poll.
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
		uint64_t overflows;
		void *rb;

		if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			return;
		if (!pp_sampler_is_ours_sigsafe(sig, &si, &event, &rb)) {
			if (pp_sampler_not_ours_sigsafe(sig, &si, uc))
				return;
			continue;
		}
		overflows = pp_sampler_rb_take_sigsafe(rb);
		if (t)
			pp_sampler_throttled_sigsafe(t, event, overflows);
		else
			__atomic_add_fetch(&pp_sampler_unowned, overflows, __ATOMIC_RELAXED);
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
	int n, i;

	pp_sampler_unwind_key_free_sigsafe();
	n = pp_sampler_cfg.backtrace(f->p, (int)(cap + PP_SAMPLER_SLACK));

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

/*
 * What one signal of ours stands for: the overflows it brings (0: they were
 * all counted with an earlier signal), those of them that the sample at the
 * interrupted context stands for (weight, 0: no such sample), and, in the
 * signal mode, the overflows read from the ring buffer that happened
 * elsewhere, each recorded as a recovered sample (all of b's but cur).
 */
struct pp_sampler_got {
	uint64_t overflows;
	uint64_t weight;
	uint64_t period;                   /* of each of weight's overflows, in
					      events: a weighted event's (0: the
					      event's configured period) */
	int late;                          /* the weight's overflows happened before */
	const struct pp_sampler_batch *b;  /* NULL: none */
	unsigned cur;                      /* b's record of this very signal, or b->n */
};

/*
 * Runs in signal context. Whether t's log takes a sample: made here at the
 * thread's first sample when it is pending (threads.h), and not full.
 */
static int pp_sampler_log_sigsafe(struct pp_thread *t)
{
	if (__atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE) &&
	    pp_sampler_cfg.dir && pp_sampler_cfg.dir->pid == (int)getpid())
		pp_threads_lazy_log_sigsafe(t, pp_sampler_cfg.dir, NULL);
	return pp_logfile_takes_records_sigsafe(&t->log);
}

/* Frames pp_sampler_stack_here_sigsafe unwinds at the most, ours included. */
#define PP_SAMPLER_HERE_FRAMES 96

/*
 * Runs in signal context. Whether t may unwind its own stack now: it has
 * a log that takes samples, or one to be made at its first (make: made
 * now; else the first sample makes it, a thread that takes none has none).
 */
static int pp_sampler_may_sample_sigsafe(struct pp_thread *t, int make)
{
	if (make)
		return pp_sampler_log_sigsafe(t);
	return __atomic_load_n(&t->log_pending, __ATOMIC_ACQUIRE) ||
	       pp_logfile_takes_records_sigsafe(&t->log);
}

/*
 * Runs in signal context. pp_sampler_stack_here_sigsafe for thread t;
 * make: as pp_sampler_may_sample_sigsafe's.
 */
static unsigned pp_sampler_stack_of_sigsafe(struct pp_thread *t, uint64_t caller, uint64_t *ips,
					    unsigned cap, int make)
{
	uint64_t f[PP_SAMPLER_HERE_FRAMES], old;
	stack_t ss;
	int n = 0, i;

	if (!pp_sampler_cfg.backtrace || !cap || t->leaf_only)
		return 0;
	/* On an alternate signal stack (a program's handler's): maybe too small. */
	if (syscall(SYS_sigaltstack, NULL, &ss) != 0 || (ss.ss_flags & SS_ONSTACK))
		return 0;
	/*
	 * As the handler unwinds: every signal blocked (a sample that comes
	 * meanwhile is taken after, as a late one), libunwind's mask calls
	 * kept from the kernel and the program's masks (unwmask.h), the
	 * loaded objects from the snapshot, not the loader's lock (dlsnap.h);
	 * not while an object may be unmapped, nor for a thread without a log
	 * to take samples (libunwind's first use maps and allocates).
	 */
	if (pp_unwmask_enter_blocked_sigsafe(&old) != 0)
		return 0;
	if (pp_threads_enter_sigsafe(t)) {
		/* Counted as unwinding before it looks (pp_sampler_dl_quiesce_sigsafe). */
		pp_dlsnap_enter_handler_sigsafe();
		if (pp_sampler_may_sample_sigsafe(t, make) && pp_sampler_may_unwind_sigsafe()) {
			pp_sampler_unwind_key_free_sigsafe();
			n = pp_sampler_cfg.backtrace((void **)f, PP_SAMPLER_HERE_FRAMES);
		}
		pp_dlsnap_leave_handler_sigsafe();
		pp_threads_leave_sigsafe(t);
	}
	pp_unwmask_leave_blocked_sigsafe(&old);
	for (i = 0; i < n && i < PP_SAMPLER_SLACK; i++)
		if (f[i] == caller)
			break;
	if (i >= n || i >= PP_SAMPLER_SLACK)
		return 0;
	n -= i;
	if (n > (int)cap)
		n = (int)cap;
	memcpy(ips, f + i, (size_t)n * sizeof(*ips));
	return (unsigned)n;
}

/* Runs in signal context (a program's handler may call it). */
unsigned pp_sampler_stack_here_sigsafe(uint64_t caller, uint64_t *ips, unsigned cap)
{
	struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());

	return t ? pp_sampler_stack_of_sigsafe(t, caller, ips, cap, 1) : 0;
}


/* Runs in signal context. */
void pp_sampler_dlopen_caller_sigsafe(uint64_t caller, uint64_t dlopen_ip)
{
	struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());
	unsigned n;

	if (!t || t->dl_depth++ > 0)
		return;
	/* A thread yet to take its first sample gets no log for this. */
	n = pp_sampler_stack_of_sigsafe(t, caller, t->dl_ips + 1, PP_THREADS_DL_FRAMES - 1, 0);
	if (!n)
		return;
	t->dl_ips[0] = dlopen_ip;
	__atomic_store_n(&t->dl_n, n + 1, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
void pp_sampler_dlopen_caller_end_sigsafe(void)
{
	struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());

	if (!t || !t->dl_depth || --t->dl_depth > 0)
		return;
	__atomic_store_n(&t->dl_n, 0, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. A sample of t's unwound to ips[0..n) (room for
 * cap): when t is inside dlopen and the unwind stopped at an address no
 * object of the snapshot maps (the object being loaded, whose constructor
 * runs), the stack t called dlopen from goes on below it. Returns the
 * frames now.
 */
static unsigned pp_sampler_stitch_sigsafe(const struct pp_thread *t, uint64_t *ips, unsigned n,
					  unsigned cap)
{
	unsigned more = __atomic_load_n(&t->dl_n, __ATOMIC_ACQUIRE);

	if (!more || !n || n >= cap || pp_dlsnap_holds_sigsafe(ips[n - 1]))
		return n;
	if (more > cap - n)
		more = cap - n;
	memcpy(ips + n, t->dl_ips, more * sizeof(*ips));
	return n + more;
}

/*
 * Runs in signal context. A PPF_REC_SAMPLE_WEIGHT for the sample to be
 * written next, when it stands for more than one overflow of its event's
 * configured period: weight overflows of period events each (0: the
 * configured period). Returns whether the sample must be written whole (a
 * reader takes the weight for the record that follows it), or -1 when the
 * weight could not be written.
 */
static int pp_sampler_weight_sigsafe(struct pp_thread *t, uint64_t weight, uint64_t period)
{
	if (weight == 1 && !period)
		return pp_sampler_cfg.whole_stacks;
	if (pp_records_sample_weight_sigsafe(&t->log, weight, period) != 0)
		return -1;
	return 1;
}

/*
 * Runs in signal context. Writes one recovered overflow of event for t
 * (ppf_sample_flags), of period events (0: the configured period).
 */
static void pp_sampler_recovered_sigsafe(struct pp_thread *t, unsigned event, uint64_t ip,
					 int late, uint64_t period, uint64_t now)
{
	int whole = pp_sampler_log_sigsafe(t) ? pp_sampler_weight_sigsafe(t, 1, period) : -1;

	if (whole < 0 ||
	    pp_stacks_write_sigsafe(&t->stacks, &t->log, &ip, 1, now, event,
				    PPF_SAMPLE_RECOVERED | (late ? PPF_SAMPLE_LATE : 0),
				    whole) != 0) {
		pp_sampler_lost_sigsafe(t, event, 1);
		return;
	}
	t->samples++;
	t->ev_samples[event]++;
}

/*
 * Runs in signal context. Writes one sample for thread t, taken at now,
 * that stands for weight overflows of period events each (a
 * PPF_REC_SAMPLE_WEIGHT before it when that is not one of the configured
 * period).
 */
static void pp_sampler_record_sigsafe(struct pp_thread *t, unsigned event, int late,
				      uint64_t weight, uint64_t period, const ucontext_t *uc,
				      uint64_t now)
{
	union pp_sampler_frames f;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	unsigned n = 0, first = 0;
	int truncated = 0;
	uint16_t flags = 0;
	int whole;

	/*
	 * No log (a thread that runs unsampled: libunwind's first use would
	 * map and allocate what its share had no room for; or one that could
	 * not be made), or a full one.
	 */
	if (!pp_sampler_log_sigsafe(t))
		goto out_lost;
	/* Counted as unwinding before it looks (pp_sampler_dl_quiesce_sigsafe). */
	pp_dlsnap_enter_handler_sigsafe();
	if (!t->leaf_only && pp_sampler_may_unwind_sigsafe()) {
		pp_unwmask_enter_sigsafe(&uc->uc_sigmask, pp_sampsig_number_sigsafe());
		n = pp_sampler_unwind_sigsafe(rip, &f, pp_sampler_cfg.max_frames, &first,
					      &truncated);
		pp_unwmask_leave_sigsafe();
	}
	pp_dlsnap_leave_handler_sigsafe();
	if (n && !truncated)
		n = pp_sampler_stitch_sigsafe(t, &f.ip[first], n, pp_sampler_cfg.max_frames);
	if (n == 0) {
		f.ip[0] = rip;
		n = 1;
		flags |= PPF_SAMPLE_LEAF_ONLY;
	}
	if (truncated)
		flags |= PPF_SAMPLE_TRUNCATED;
	if (late)
		flags |= PPF_SAMPLE_LATE;
	whole = pp_sampler_weight_sigsafe(t, weight, period);
	if (whole < 0 ||
	    pp_stacks_write_sigsafe(&t->stacks, &t->log, &f.ip[first], n, now, event, flags,
				    whole) != 0)
		goto out_lost;
	t->samples += weight;
	t->ev_samples[event] += weight;
	return;

out_lost:
	pp_sampler_lost_sigsafe(t, event, weight);
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
	pp_threads_counts_sigsafe(t, &c);
	pp_records_thread_progress_sigsafe(&t->log, now, &c, &cpu, turn ? &proc : NULL);
}

/*
 * Runs in signal context. After a sample that began when the thread's CPU
 * time was cpu (0: unknown) and the monotonic clock, read just after it,
 * cpu_wall: each sample taken is paid for by the thread
 * running PP_SAMPLER_PACE times as long as the sample cost, so that the
 * handler never takes more than a fifth of a thread's time, whatever the
 * period (the kernel's cpu-clock fires every 10 us at the most, and a
 * sample costs more than that with cold caches: the thread would never get
 * out of the handler). What is owed carries over from sample to sample
 * (paid_ns), and a sample is taken while less than one sample's pace is
 * owed: an overflow that comes soon after the last one (the kernel's timer
 * catching up after the thread was preempted: beside three hogs on its
 * CPU, 0.2 to 1.6% of deepstack's overflows came too soon for a pace from
 * the last sample's end) is taken, while samples that stay dear run the
 * debt up and are then left out. The cost is the thread's CPU time: in
 * wall time, a handler preempted midway on a busy machine looked dear and
 * the thread's next overflows went untaken (measured: 20 to 30 of 2,200
 * overflows of the demo at a load of 20 to 40 on 2 cores, the gap between
 * its samples x period and perf's), while its CPU time is what the handler
 * takes from the thread. The lesser of the last two costs is used, so that
 * one dear sample (a cold cache) does not throttle the next few, while a
 * lasting one (every sample dear) does; a thread's first sample, which
 * makes its log, throttles none (t->cost_ns 0: a fork child of 5 ms lost
 * a quarter of its samples to it).
 */
static void pp_sampler_pace_sigsafe(struct pp_thread *t, unsigned event, uint64_t cpu,
				    uint64_t cpu_wall)
{
	uint64_t at = pp_records_now_sigsafe(), wall = at - cpu_wall;
	uint64_t end = !cpu ? 0 : wall < PP_SAMPLER_WALL_COST_NS ? cpu + wall :
		       pp_threads_cpu_sigsafe();
	/* (no more than its wall time: cpu may be counted on, not read) */
	uint64_t cost = end <= cpu ? 0 : end - cpu < wall ? end - cpu : wall;
	uint64_t least = cost < t->cost_ns ? cost : t->cost_ns;
	uint64_t from = t->paid_ns > cpu ? t->paid_ns : cpu;

	/*
	 * Its start counted on, its cost is off by the count's error: the
	 * next signal reads the clock (pp_sampler_cpu_sigsafe moves the pace
	 * back where the count was ahead), and a late one's merged overflows
	 * count from this end, as read (overflows while it ran, the handler
	 * preempted, merge into it).
	 */
	if (end && wall >= PP_SAMPLER_WALL_COST_NS && t->cpu_last_guessed) {
		t->cpu_last_event = 0;
		if (pp_sampler_cfg.period_ns[event]) {
			t->cpu_prev_ns[event] = end;
			t->wall_prev_ns[event] = at;
		}
	}
	t->cost_ns = cost;
	t->paid_ns = end ? from + cost + least * PP_SAMPLER_PACE : 0;
	t->next_ns = end ? t->paid_ns - least * PP_SAMPLER_PACE : 0;
}

/*
 * Runs in signal context. The counting events of a thread adopted here (t,
 * the calling thread's): no pthread_create wrapper opened them, so they
 * count from now on (t->late_counters). One that cannot be opened (no
 * descriptor left, ...) is left out: the thread's record says no counter.
 */
static void pp_sampler_open_counters_sigsafe(struct pp_thread *t)
{
	for (unsigned i = 0; i < pp_sampler_cfg.nevents; i++) {
		int fd;

		if (!(pp_sampler_count_mask & (1u << i)))
			continue;
		fd = (int)syscall(SYS_perf_event_open, &pp_sampler_count_attrs[i], 0, -1, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		fd = pp_fd_move_high_sigsafe(fd);
		if (syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ID, &t->tev.id[i]) != 0) {
			pp_fd_close_sigsafe(fd);
			continue;
		}
		t->tev.fd[i] = fd;
		t->tev.open |= 1u << i;
	}
	t->late_counters = 1;
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

	if (!pp_sampler_cfg.dir || pp_sampler_cfg.dir->pid != (int)getpid())
		return NULL;
	t = pp_threads_claim_sigsafe(tid);
	if (!t)
		return NULL;
	if (pp_threads_open_log_sigsafe(t, pp_sampler_cfg.dir, NULL) != 0) {
		pp_threads_release_sigsafe(t);
		return NULL;
	}
	t->leaf_only = pp_threads_tcb_shared_sigsafe(t->tcb, tid);
	pp_sampler_open_counters_sigsafe(t);
	/* Its counters are paused with the others from now on. */
	pp_pause_thread_live_sigsafe(t, tid, 0, 1);
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
	struct sigaction now, *a = &now;
	int sig = pp_sampsig_number_sigsafe(), tid = pp_threads_gettid_sigsafe(), nkeep = 0;
	struct pp_thread *t = pp_threads_find_sigsafe(tid);
	siginfo_t si, keep[PP_SAMPLER_KEEP];
	sigset_t set;

	pp_sampler_app_now_sigsafe(&now, NULL);
	pp_sampsig_mask_sigsafe(&set);
	for (int i = 0; i < 64; i++) {
		unsigned event;
		uint64_t overflows;
		void *rb;

		if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero,
			    PP_SAMPSIG_KERNEL_SET_SIZE) != sig)
			break;
		if (pp_sampler_is_ours_sigsafe(sig, &si, &event, &rb)) {
			overflows = pp_sampler_signal_overflows_sigsafe(rb);
			if (t) {
				pp_sampler_lost_sigsafe(t, event, overflows);
				continue;
			}
			__atomic_add_fetch(&pp_sampler_unowned, overflows, __ATOMIC_RELAXED);
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
	uint64_t overflows;
	void *rb;

	if (!pp_sampler_is_ours_sigsafe(sig, si, &event, &rb))
		return 0;
	overflows = pp_sampler_signal_overflows_sigsafe(rb);
	t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());
	if (t)
		pp_sampler_lost_sigsafe(t, event, overflows);
	else
		__atomic_add_fetch(&pp_sampler_unowned, overflows, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Runs in signal context. A thread unwound by a cancellation from inside the
 * handler would leave its slot busy for good, and its log without an END
 * record. Two ways in: libunwind's slow path reads and writes a pipe to
 * validate addresses, and read/write are cancellation points (seen with
 * 1,000 cancelled threads); and glibc's SIGCANCEL, which our sa_mask
 * blocks. libunwind's own sigprocmask() calls no longer reach glibc inside
 * the unwind (unwmask.h), but they did: glibc's drops SIGCANCEL from the
 * mask libunwind restores, and a SIGCANCEL sent while the thread was
 * asynchronously cancelable then ran inside unw_backtrace, where glibc's
 * handler cancels whenever the type is asynchronous, whatever the state
 * (checked on glibc 2.36; seen as 1 log in 1,001 without END under load).
 * So both the state (disabled) and the type (deferred) are held while the
 * sample is taken. glibc's pthread_setcancelstate and _setcanceltype are
 * lock-free updates of the thread's own word; they are skipped for threads
 * that share another's TLS (that word would be the other thread's).
 */
static void pp_sampler_take_sigsafe(struct pp_thread *t, unsigned event,
				    const struct pp_sampler_got *got, void *uc,
				    int saved_errno, uint64_t now, uint64_t cpu, uint64_t cpu_wall)
{
	int cancel = PTHREAD_CANCEL_DISABLE, type = PTHREAD_CANCEL_DEFERRED;
	int leaf = t->leaf_only;

	if (!leaf) {
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	}
	for (unsigned i = 0; got->b && i < got->b->n; i++)
		if (i != got->cur)
			pp_sampler_recovered_sigsafe(t, event, got->b->ips[i],
						     got->cur == got->b->n, got->b->periods[i], now);
	if (got->weight)
		pp_sampler_record_sigsafe(t, event, got->late, got->weight, got->period, uc,
					  now);
	pp_sampler_progress_sigsafe(t, now);
	pp_sampler_pace_sigsafe(t, event, cpu, cpu_wall);
	pp_threads_leave_sigsafe(t);
	errno = saved_errno;
	/* Last: re-enabling may act on an asynchronous cancellation now. */
	if (!leaf && cancel != PTHREAD_CANCEL_DISABLE)
		pthread_setcancelstate(cancel, NULL);
	if (!leaf && type != PTHREAD_CANCEL_DEFERRED)
		pthread_setcanceltype(type, NULL);
}

/*
 * Runs in signal context. Signal mode: what the signal of ring buffer rb
 * stands for (b receives its records). The overflow that raised it is the
 * last record when the signal came at once: in user space, where it landed
 * (in the kernel, an event that counts there: the signal comes on the way
 * out). Otherwise it came late (the thread had it blocked) and every
 * record happened elsewhere. The overflows the full buffer had no record
 * for are added to the sample taken here, marked late. Without a ring
 * buffer, a signal is one overflow, taken where it landed.
 */
static void pp_sampler_got_signal_sigsafe(void *rb, uint64_t rip,
					  struct pp_sampler_batch *b,
					  struct pp_sampler_got *got)
{
	*got = (struct pp_sampler_got){ .overflows = 1, .weight = 1 };
	if (!rb)
		return;
	pp_sampler_rb_read_sigsafe(rb, b);
	got->b = b;
	got->cur = b->n;
	if (b->n && (!b->user[b->n - 1] || b->ips[b->n - 1] == rip))
		got->cur = b->n - 1;
	got->overflows = b->n + b->lost;
	got->weight = (got->cur < b->n) + b->lost;
	got->late = got->cur == b->n || b->lost;
	/* Overflows with no record are taken to be of the last one's period. */
	if (b->n)
		got->period = b->periods[got->cur < b->n ? got->cur : b->n - 1];
}

/*
 * Runs in signal context. Sigtrap mode, weighted event (pp_sampler_config):
 * what thread t's counter of it counted since its last sample of it (or
 * since it was opened), the events this sample stands for; 0 when there is
 * no such counter or it cannot be read (the sample then counts as one
 * overflow). The overflows not taken in between (throttled, merged) are in
 * it too, as the samples of a time event count their late overflows.
 */
static uint64_t pp_sampler_count_delta_sigsafe(struct pp_thread *t, unsigned event)
{
	uint64_t v[3], d; /* read_format: value, time enabled, time running */

	if (!(t->tev.open & (1u << event)) || !pp_fd_ours_sigsafe(t->tev.fd[event]) ||
	    syscall(SYS_read, t->tev.fd[event], v, sizeof(v)) != (long)sizeof(v))
		return 0;
	d = v[0] > t->count_prev[event] ? v[0] - t->count_prev[event] : 0;
	t->count_prev[event] = v[0];
	return d;
}

/*
 * Runs in signal context. Sigtrap mode, for thread t (busy, ours): a late
 * signal stands for every overflow its event had while the thread blocked
 * the signal (they merged), counted from the thread's CPU time since the
 * last signal of that event for a time event: whole periods, at least 1
 * (the clock was read just after that overflow, and a signal that came a
 * little late, after the handler of another event's sample, stands for
 * one). Kernel time in between counts too: an event that excludes the
 * kernel had no overflow there. The CPU time since is no more than the
 * wall time since (now, the monotonic clock): what bounds it where cpu
 * was counted on (pp_sampler_cpu_sigsafe) behind the clock. 1 for other
 * events, whose count the handler cannot read.
 */
static void pp_sampler_got_trap_sigsafe(struct pp_thread *t, unsigned event, int late,
					uint64_t cpu, uint64_t now, struct pp_sampler_got *got)
{
	uint64_t period = pp_sampler_cfg.period_ns[event], d, wall = t->wall_prev_ns[event];

	*got = (struct pp_sampler_got){ .overflows = 1, .weight = 1, .late = late };
	if (pp_sampler_cfg.weighted & (1u << event))
		got->period = pp_sampler_count_delta_sigsafe(t, event);
	if (!period)
		return;
	d = cpu > t->cpu_prev_ns[event] ? cpu - t->cpu_prev_ns[event] : 0;
	if (wall && now > wall && d > now - wall)
		d = now - wall;
	t->cpu_prev_ns[event] = cpu;
	t->wall_prev_ns[event] = now;
	if (late && d / period > 1)
		got->overflows = got->weight = d / period;
}

/*
 * Runs in signal context. Signal mode, after the sample: overflows recorded
 * while it was taken (the handler's own time) are counted as throttled, and
 * their queued signals taken off.
 */
static void pp_sampler_after_sigsafe(int tid, unsigned event, void *rb, void *uc)
{
	uint64_t n = rb ? pp_sampler_rb_take_sigsafe(rb) : 0;
	struct pp_thread *t = pp_threads_find_sigsafe(tid);

	if (rb && !n)
		return;
	if (t) {
		pp_sampler_throttled_sigsafe(t, event, n);
		t->cpu_last_event = 0; /* overflows the count did not see */
	}
	else
		__atomic_add_fetch(&pp_sampler_unowned, n, __ATOMIC_RELAXED);
	pp_sampler_drain_sigsafe(t, uc);
}

/*
 * Runs in signal context. The calling thread's slot, busy, for n overflows
 * of event; NULL when there is none (counted as unowned) or it was busy
 * (counted as lost).
 */
static struct pp_thread *pp_sampler_owner_sigsafe(int tid, unsigned event, uint64_t n)
{
	struct pp_thread *t = pp_threads_find_sigsafe(tid);

	if (!t) {
		/* A new slot comes back busy. */
		t = pp_sampler_adopt_sigsafe(tid);
		if (!t)
			__atomic_add_fetch(&pp_sampler_unowned, n, __ATOMIC_RELAXED);
		return t;
	}
	if (!pp_threads_enter_sigsafe(t)) {
		pp_sampler_lost_sigsafe(t, event, n);
		return NULL;
	}
	return t;
}

/* Runs in signal context. A time x on a clock that said from when another said to. */
static uint64_t pp_sampler_rebase_sigsafe(uint64_t x, uint64_t from, uint64_t to)
{
	if (to >= from)
		return x + (to - from);
	return x > from - to ? x - (from - to) : 0;
}

/*
 * Runs in signal context. Thread t's CPU time at a signal of event that
 * stands for overflows (late: they merged while it was blocked): read
 * from its clock, or counted on from the last read by the event's period
 * (PP_SAMPLER_CPU_GUESSES); *guessed says which.
 */
static uint64_t pp_sampler_cpu_sigsafe(struct pp_thread *t, unsigned event, int late,
				       uint64_t overflows, int *guessed)
{
	uint64_t period = pp_sampler_cfg.period_ns[event];
	uint64_t guess = t->cpu_last_ns + period * overflows, cpu, off, expected;
	int same = period && t->cpu_last_event == event + 1 && pp_sampler_one_sampler;
	int chain = same && !late;
	int was_guess = t->cpu_last_guessed;

	*guessed = chain && t->cpu_guesses_left;
	t->cpu_last_guessed = *guessed;
	if (*guessed) {
		t->cpu_guesses_left--;
		t->cpu_last_ns = guess;
		return guess;
	}
	cpu = pp_threads_cpu_sigsafe();
	off = cpu > guess ? cpu - guess : guess - cpu;
	/*
	 * The pace (pp_sampler_pace_sigsafe) set on a count ahead of the
	 * clock (the kernel's timer catching up after a preemption brings
	 * overflows less than a period apart) is moved back onto it: it
	 * would throttle this signal. (A count behind the clock is left: at
	 * most an overflow more is throttled.)
	 */
	expected = same ? guess : t->cpu_last_ns;
	if (was_guess && cpu && cpu < expected && t->next_ns) {
		t->next_ns = pp_sampler_rebase_sigsafe(t->next_ns, expected, cpu);
		t->paid_ns = pp_sampler_rebase_sigsafe(t->paid_ns, expected, cpu);
	}
	if (!chain || off > period / 4)
		t->cpu_guesses_right = 0;
	else if (t->cpu_guesses_right < PP_SAMPLER_CPU_RIGHT)
		t->cpu_guesses_right++;
	t->cpu_guesses_left = t->cpu_guesses_right >= PP_SAMPLER_CPU_RIGHT ?
			      PP_SAMPLER_CPU_GUESSES : 0;
	t->cpu_last_ns = cpu;
	t->cpu_last_event = cpu && period ? event + 1 : 0;
	return cpu;
}

/*
 * Runs in signal context. The handler proper; pp_sampler_handle_sigsafe
 * marks the thread as inside it (appmask.h).
 */
static void pp_sampler_run_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno, tid;
	struct pp_sampler_got got = { .overflows = 1, .weight = 1 };
	struct pp_sampler_batch b;
	struct pp_thread *t;
	unsigned event;
	void *rb;
	uint64_t now, cpu = 0, cpu_wall = 0;

	if (!pp_sampler_is_ours_sigsafe(sig, si, &event, &rb)) {
		pp_sampler_not_ours_sigsafe(sig, si, uc);
		errno = saved_errno;
		return;
	}
	now = pp_records_now_sigsafe();
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL)
		pp_sampler_got_signal_sigsafe(rb, (uint64_t)((ucontext_t *)uc)->
					      uc_mcontext.gregs[REG_RIP], &b, &got);
	tid = pp_threads_gettid_sigsafe();
	/* No overflow: they were read with an earlier signal's. */
	t = got.overflows ? pp_sampler_owner_sigsafe(tid, event, got.overflows) : NULL;
	if (t) {
		int trap = pp_sampler_cfg.mode != PPF_MODE_SIGNAL, guessed;
		int late = trap ? !!(pp_sampler_perf_info_sigsafe(si)->flags &
				     PP_TRAP_PERF_FLAG_ASYNC) : got.late;

		cpu = pp_sampler_cpu_sigsafe(t, event, late, trap ? 1 : got.overflows, &guessed);
		cpu_wall = guessed ? now : pp_records_now_sigsafe();
		if (trap)
			pp_sampler_got_trap_sigsafe(t, event, late, cpu, now, &got);
	}
	if (t && cpu < t->next_ns) {
		/* Too soon after a dear sample: counted, not taken. */
		pp_sampler_throttled_sigsafe(t, event, got.overflows);
		pp_threads_leave_sigsafe(t);
	} else if (t) {
		pp_sampler_take_sigsafe(t, event, &got, uc, saved_errno, now, cpu, cpu_wall);
	}
	if (pp_sampler_cfg.mode == PPF_MODE_SIGNAL && got.overflows)
		pp_sampler_after_sigsafe(tid, event, rb, uc);
	errno = saved_errno;
}

/*
 * The stack the handler runs on: the thread's alternate signal stack, the
 * profiler's [alt_lo, alt_hi) (or the program's own, which may be small:
 * the sigaltstack(2) example's is 8 KiB), else the thread's own stack
 * (its lowest address stk_lo when known, 0 else).
 */
static __thread uintptr_t pp_sampler_alt_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t pp_sampler_alt_hi __attribute__((tls_model("initial-exec")));
static __thread uintptr_t pp_sampler_stk_lo __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
void pp_sampler_stacks_sigsafe(const void *alt, size_t alt_size, const void *stack_lo)
{
	pp_sampler_alt_lo = (uintptr_t)alt;
	pp_sampler_alt_hi = alt ? (uintptr_t)alt + alt_size : 0;
	pp_sampler_stk_lo = (uintptr_t)stack_lo;
}

/*
 * Runs in signal context. Whether the stack the handler runs on has the
 * room a sample needs (unwinding, the frames; ~11 KiB measured): on the
 * profiler's alternate stack it has; on another (the program's, set with
 * sigaltstack), or on a thread stack of known bounds, what is left below.
 */
static int pp_sampler_room_sigsafe(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	stack_t ss;

	if (sp > pp_sampler_alt_lo && sp <= pp_sampler_alt_hi)
		return 1;
	if (syscall(SYS_sigaltstack, NULL, &ss) != 0)
		return 1;
	if (ss.ss_flags & SS_ONSTACK)
		return sp > (uintptr_t)ss.ss_sp && sp - (uintptr_t)ss.ss_sp >= PP_SAMPLER_STACK_NEED;
	return !pp_sampler_stk_lo || (sp > pp_sampler_stk_lo &&
				      sp - pp_sampler_stk_lo >= PP_SAMPLER_STACK_NEED);
}

/*
 * Runs in signal context. No room for a sample on this stack: one of ours
 * is counted lost (the process's count), another signal goes to the
 * program's action, as always.
 */
static void pp_sampler_no_room_sigsafe(int sig, siginfo_t *si, void *uc)
{
	unsigned event;
	void *rb;

	if (pp_sampler_is_ours_sigsafe(sig, si, &event, &rb)) {
		/* The thread's own count when it has a slot: its log says them lost. */
		struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());

		if (t)
			pp_sampler_lost_sigsafe(t, event, 1);
		else
			__atomic_add_fetch(&pp_sampler_unowned, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pp_sampler_noroom, 1, __ATOMIC_RELAXED);
	} else
		pp_sampler_not_ours_sigsafe(sig, si, uc);
}

/* Runs in signal context. */
void pp_sampler_handle_sigsafe(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (!pp_sampler_room_sigsafe()) {
		pp_sampler_no_room_sigsafe(sig, si, uc);
		errno = saved;
		return;
	}
	pp_appmask_enter_sigsafe(1);
	pp_sampler_run_sigsafe(sig, si, uc);
	pp_appmask_enter_sigsafe(-1);
}
