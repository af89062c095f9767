/*
 * parallel: work shared out over the machine's CPUs, for the analyzer's
 * independent jobs (reading logs, symbolising processes). Each job writes
 * only its own slot of the caller's arrays; the caller merges the slots in
 * order afterwards, so that results do not depend on which thread ran what.
 */
#ifndef PA_PARALLEL_H
#define PA_PARALLEL_H

#include <stddef.h>

/* The most threads pa_parallel_run adds to the calling one. */
#define PA_PARALLEL_MAX_WORKERS 8

/*
 * fn(ctx, i) for every i < n, each once, on the calling thread and, when n
 * is at least min, on up to PA_PARALLEL_MAX_WORKERS more (one fewer than
 * the CPUs online, and fewer than n). Returns when every call has
 * returned. fn must be safe to run on several threads at once.
 */
void pa_parallel_run(size_t n, size_t min, void (*fn)(void *ctx, size_t i), void *ctx);

#endif /* PA_PARALLEL_H */
