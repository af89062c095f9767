/*
 * unsampled: the threads the profiler could not sample (out of memory or
 * descriptors, or over its share of the limits: share.h). The thread runs
 * on unsampled; each gets a PPF_REC_THREAD_UNSAMPLED record in process.log,
 * each cause (what failed, and its errno) is said in one line the first
 * time it happens in the process, and the process's end says how many
 * there were. Not for signal context.
 */
#ifndef PP_UNSAMPLED_H
#define PP_UNSAMPLED_H

#include <stdint.h>

/* Starts a process's count (at start, and in a fork child); dir names its directory. */
void pp_unsampled_start(const char *dir);

struct pp_share_cost;

/*
 * The calling thread, tid, runs unsampled: what (enum ppf_unsampled_what)
 * failed with errno err (positive). asked (may be NULL): what its sampling
 * state would have cost, for PPF_UNSAMPLED_SHARE.
 */
void pp_unsampled_note(int tid, uint32_t what, int err, const struct pp_share_cost *asked);

/* How many threads ran unsampled so far. */
uint64_t pp_unsampled_count(void);

/* The process ends: one line with the count and the causes, if any. */
void pp_unsampled_summary(void);

#endif
