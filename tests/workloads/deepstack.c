/*
 * deepstack: the overhead bench's workload.
 *
 *   deepstack [SECONDS]
 *
 * Two threads (main and one more) each chain ~30 frames deep (deep_a and
 * deep_b calling each other) and burn a fixed amount of work at the bottom:
 * SECONDS (default 1) is converted to a fixed iteration count once, so every
 * run does the same work whatever the machine's load. Prints one checksum
 * line that does not depend on timing.
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

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 1.0);
	uint64_t chunks = (uint64_t)(seconds * DEEP_ITERS_PER_SECOND / WL_CHUNK) + 1;
	struct deep_job jobs[2] = {
		{ .chunks = chunks, .seed = 1 },
		{ .chunks = chunks, .seed = 2 },
	};
	pthread_t t;

	if (pthread_create(&t, NULL, deep_thread, &jobs[1])) {
		fprintf(stderr, "deepstack: cannot create a thread\n");
		return 1;
	}
	deep_thread(&jobs[0]);
	pthread_join(t, NULL);
	printf("deepstack: %llu chunks, checksum %016llx\n",
	       (unsigned long long)chunks,
	       (unsigned long long)(jobs[0].sum ^ jobs[1].sum));
	return 0;
}
