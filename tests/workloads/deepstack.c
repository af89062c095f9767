/*
 * deepstack: the overhead bench's workload.
 *
 *   deepstack [SECONDS [THREADS]]
 *
 * THREADS threads (default 2: main and one more; at most 256) each chain
 * ~30 frames deep (deep_a and deep_b calling each other) and burn a fixed
 * amount of work at the bottom: SECONDS (default 1) is converted to a fixed
 * iteration count once, so every run does the same work whatever the
 * machine's load. Prints one checksum line that does not depend on timing.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "wl.h"

#define DEEP_FRAMES 30
/* Iterations per second of CPU, roughly, on the machines we run on. */
#define DEEP_ITERS_PER_SECOND 360000000.0

__attribute__((noinline)) uint64_t deep_burn(uint64_t iters, uint64_t seed);
__attribute__((noinline)) uint64_t deep_a(int depth, uint64_t iters, uint64_t seed);
__attribute__((noinline)) uint64_t deep_b(int depth, uint64_t iters, uint64_t seed);
void *deep_thread(void *arg);

__attribute__((noinline)) uint64_t deep_burn(uint64_t iters, uint64_t seed)
{
	return wl_burn(iters, seed);
}

/* The "+ depth" after each call keeps it a real call, not a tail jump. */
__attribute__((noinline)) uint64_t deep_a(int depth, uint64_t iters, uint64_t seed)
{
	if (depth <= 0)
		return deep_burn(iters, seed) + 1;
	return deep_b(depth - 1, iters, seed) + (uint64_t)depth;
}

__attribute__((noinline)) uint64_t deep_b(int depth, uint64_t iters, uint64_t seed)
{
	if (depth <= 0)
		return deep_burn(iters, seed) + 2;
	return deep_a(depth - 1, iters, seed) + (uint64_t)depth;
}

struct deep_job {
	uint64_t chunks;
	uint64_t seed;
	uint64_t sum;
};

/* Many short trips down the chain, so every sample sees the deep stack. */
void *deep_thread(void *arg)
{
	struct deep_job *job = arg;

	for (uint64_t i = 0; i < job->chunks; i++)
		job->sum += deep_a(DEEP_FRAMES, WL_CHUNK, job->seed + i);
	return NULL;
}

#define DEEP_MAX_THREADS 256

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 1.0);
	long nthreads = argc > 2 ? atol(argv[2]) : 2;
	uint64_t chunks = (uint64_t)(seconds * DEEP_ITERS_PER_SECOND / WL_CHUNK) + 1;
	static struct deep_job jobs[DEEP_MAX_THREADS];
	static pthread_t th[DEEP_MAX_THREADS];
	uint64_t sum = 0;

	if (nthreads < 1 || nthreads > DEEP_MAX_THREADS) {
		fprintf(stderr, "deepstack: 1 to %d threads\n", DEEP_MAX_THREADS);
		return 2;
	}
	for (long i = 0; i < nthreads; i++)
		jobs[i] = (struct deep_job){ .chunks = chunks, .seed = (uint64_t)i + 1 };
	for (long i = 1; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, deep_thread, &jobs[i])) {
			fprintf(stderr, "deepstack: cannot create a thread\n");
			return 1;
		}
	deep_thread(&jobs[0]);
	for (long i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < nthreads; i++)
		sum ^= jobs[i].sum;
	printf("deepstack: %llu chunks, checksum %016llx\n",
	       (unsigned long long)chunks, (unsigned long long)sum);
	return 0;
}
