/*
 * share: how much of the process's limits the profiler may take for its
 * threads' sampling state, and how much it holds. Under RLIMIT_AS that is
 * address space (an alternate signal stack, libunwind's per-thread cache,
 * a log's mapping, ...), under RLIMIT_NOFILE descriptors (a log, the signal
 * mode's events, counters). Each thread's state is taken from the share
 * before it is made and given back when the thread ends; a thread whose
 * state does not fit runs unsampled. So a program that stays within the
 * rest of its limits never finds them taken by the profiler's threads.
 * Every function here uses raw system calls only: the handler may call them.
 */
#ifndef PP_SHARE_H
#define PP_SHARE_H

#include <stdint.h>

/* The profiler's share: 1/PP_SHARE_AS_DIV of RLIMIT_AS (when finite)... */
#define PP_SHARE_AS_DIV 8
/* ...and 1/PP_SHARE_NOFILE_DIV of RLIMIT_NOFILE, both soft limits as they are now. */
#define PP_SHARE_NOFILE_DIV 4

/*
 * libunwind's thread-local variables live in dynamic TLS (it is dlopen'd),
 * which glibc allocates with malloc at their first use: in a thread that has
 * not called malloc yet, that makes glibc reserve the thread a malloc arena
 * of its own, this much address space (HEAP_MAX_SIZE on 64-bit), when there
 * is room for it and the process has fewer arenas than glibc's maximum.
 */
#define PP_SHARE_ARENA (64ull << 20)

/* What a thread's sampling state takes. */
struct pp_share_cost {
	uint64_t bytes; /* address space */
	unsigned fds;   /* descriptors */
};

/*
 * Runs in signal context. Takes cost from the share. Returns 0, -ENOMEM when
 * it would exceed the share of RLIMIT_AS, -EMFILE when it would exceed the
 * share of RLIMIT_NOFILE (nothing is taken then).
 */
int pp_share_take_sigsafe(const struct pp_share_cost *cost);

/* Runs in signal context. Gives back what pp_share_take_sigsafe took. */
void pp_share_give_sigsafe(const struct pp_share_cost *cost);

/* Async-signal-safe. Forgets everything held (a fork child: its parent's threads are gone). */
void pp_share_reset_sigsafe(void);

/*
 * Runs in signal context. The soft limit of resource (RLIMIT_AS,
 * RLIMIT_NOFILE), UINT64_MAX when there is none.
 */
uint64_t pp_share_limit_sigsafe(int resource);

/*
 * Runs in signal context. Address space left under RLIMIT_AS: the limit less
 * the process's size now (/proc/self/statm); UINT64_MAX when there is no
 * limit or the size cannot be read.
 */
uint64_t pp_share_room_sigsafe(void);

#endif
