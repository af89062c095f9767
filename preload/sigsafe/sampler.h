/*
 * sampler: the signal handler. On each perf overflow it unwinds the
 * interrupted stack with unw_backtrace() and writes one sample to the
 * thread's log (stacks.h). Signals that are not ours go to the app's handler.
 */
#ifndef PP_SAMPLER_H
#define PP_SAMPLER_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

struct perf_event_attr;

#include "threads.h"
#include "unwlib.h"

struct pp_sampler_config {
	int mode;            /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL */
	unsigned nevents;    /* event indexes below this are ours */
	unsigned max_frames; /* 1..PPF_MAX_FRAMES */
	int whole_stacks;    /* every sample a PPF_REC_SAMPLE with its whole
				stack (`stacks = whole`), else stacks.h */
	struct pp_thread_dir *dir; /* for the logs of threads adopted here (and
				      the lazy logs), the caller's, kept */
	pp_unwlib_backtrace_fn backtrace; /* libunwind's unw_backtrace */
	/*
	 * Per event: its period in ns of the thread's CPU time when it is a
	 * time event (cpu-clock, task-clock) that samples, else 0. The sigtrap
	 * mode counts a late signal's merged overflows from it.
	 */
	uint64_t period_ns[PP_CONFIG_MAX_EVENTS];
	/*
	 * Bit i: event i's samples each stand for a period of their own
	 * (pp_events_weighted), written in a PPF_REC_SAMPLE_WEIGHT before
	 * each: from the ring buffer's record in the signal mode, from the
	 * thread's counter of the event in the sigtrap mode.
	 */
	uint32_t weighted;
};

/*
 * Async-signal-safe. A thread key kept free for libunwind's, which its
 * first trace in the process makes (the first sample): released just
 * before it, so that libunwind's key takes its place (glibc gives the
 * lowest free key), one of the first 32 when it is (unwlib.h). Called
 * once, in the constructor, before any event is enabled.
 */
void pp_sampler_unwind_key_sigsafe(pthread_key_t reserve);

/* Async-signal-safe. Sets what the handler accepts; call before any event is enabled. */
void pp_sampler_configure_sigsafe(const struct pp_sampler_config *cfg);

/*
 * Async-signal-safe. The counting events a thread adopted in the handler
 * (one the profiler did not see start) opens for itself: bit i of mask,
 * with attrs[i] (the caller's array, kept while the process runs). Call
 * before any event is enabled; 0 opens none.
 */
void pp_sampler_set_counters_sigsafe(uint32_t mask, const struct perf_event_attr *attrs);

/*
 * Runs in signal context (a program's handler may call it). The calling
 * thread's stack from the frame that returns to caller (a return address)
 * outwards, into ips (cap frames at the most), with the handler's
 * unwinder; the thread's slot is held busy meanwhile (a sample that lands
 * is counted lost: one unwind at a time per thread). 0 when the thread has
 * no slot of its own, is busy, or caller is not among the first frames.
 */
unsigned pp_sampler_stack_here_sigsafe(uint64_t caller, uint64_t *ips, unsigned cap);

/* The sampling signal's handler (sa_sigaction; sampsig.h). Runs in signal context. */
void pp_sampler_handle_sigsafe(int sig, siginfo_t *si, void *uc);

/* Samples lost for want of room on the handler's stack (PP_SAMPLER_STACK_NEED). */
uint64_t pp_sampler_noroom_sigsafe(void);

/* Stack the handler needs below where it starts; less, and a sample is counted lost. */
#define PP_SAMPLER_STACK_NEED (14u << 10)

/*
 * The calling thread's stacks, for the handler to tell whether it has room:
 * the profiler's alternate signal stack (alt, alt_size bytes; NULL: none of
 * the profiler's), and the lowest address of its own stack (NULL: unknown).
 * Async-signal-safe.
 */
void pp_sampler_stacks_sigsafe(const void *alt, size_t alt_size, const void *stack_lo);

/*
 * Runs in signal context. Called by the dlclose hook around the real call
 * and around module-map scans: while any thread is inside, samples keep the
 * leaf only (the handler's snapshot, dlsnap.h, may list what is being
 * unmapped).
 */
void pp_sampler_dl_enter_sigsafe(void);
void pp_sampler_dl_leave_sigsafe(void);

/*
 * Runs in signal context. After pp_sampler_dl_enter_sigsafe, before the
 * change: waits until no thread is inside an unwind that began before
 * (sigsafe/dlsnap.h), so that none reads what is about to be unmapped.
 */
void pp_sampler_dl_quiesce_sigsafe(void);

/*
 * Runs in signal context. In a fork child, first thing: the counts of
 * threads inside dlclose, dlopen and an unwind are the one thread's own
 * (the parent's other threads, inside one at the fork, are not there:
 * their counts held every dlclose of the child in the quiesce wait).
 */
void pp_sampler_dl_fork_child_sigsafe(void);

/*
 * Runs in signal context. Called by the dlopen hook around the real call:
 * samples taken meanwhile unwind with the snapshot (through the loader to
 * dlopen's caller) unless the snapshot is partial (dlsnap.h).
 */
void pp_sampler_dlopen_enter_sigsafe(void);
void pp_sampler_dlopen_leave_sigsafe(void);

/*
 * Runs in signal context (called outside it, by the dlopen hook, before
 * and after the real call). The calling thread's outermost dlopen keeps
 * the stack it was called from (caller: the hook's return address),
 * under dlopen_ip (an address inside glibc's dlopen): a sample whose
 * unwind stops in an object being loaded (a constructor: the handler's
 * snapshot does not list it until dlopen returns) goes on with it.
 */
void pp_sampler_dlopen_caller_sigsafe(uint64_t caller, uint64_t dlopen_ip);
void pp_sampler_dlopen_caller_end_sigsafe(void);

/*
 * Runs in signal context. A count bumped whenever a thread enters or leaves
 * dlopen; *inside gets how many threads are inside now. A module-map scan
 * that saw none inside and the same count after is not partial.
 */
unsigned pp_sampler_dlopen_state_sigsafe(int *inside);

/*
 * Runs in signal context. Before exec, once the calling thread's sampling
 * events are disabled: takes the samples still pending for it off the signal
 * queues (counted as lost), so that none reaches the new program, which
 * starts with the signal's default action (SIGTRAP: a core dump; a
 * real-time signal: termination). Other signals of that number stay.
 */
void pp_sampler_take_pending_sigsafe(void);

/*
 * Runs in signal context. The program took a signal of the sampling
 * signal's number off its queue (sigwaitinfo and the like): whether it is
 * one of our samples, which the program must not see (it is counted as
 * lost for the calling thread).
 */
int pp_sampler_taken_sigsafe(int sig, const siginfo_t *si);

/*
 * Runs in signal context. Samples dropped for threads that have no slot (not
 * counted per thread).
 */
uint64_t pp_sampler_unowned_lost_sigsafe(void);

/*
 * Run in signal context. The app's own action for the sampling signal, which
 * the handler runs for signals that are not ours. The caller (the sigaction
 * hook) serialises setters.
 */
void pp_sampler_app_action_get_sigsafe(struct sigaction *out);
void pp_sampler_app_action_set_sigsafe(const struct sigaction *act);

#endif
