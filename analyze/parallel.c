/* parallel: a pool of threads for independent jobs; see parallel.h. */
#include "parallel.h"

#include <pthread.h>
#include <unistd.h>

struct pa_parallel_pool {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n;
	size_t next; /* atomic: the next i to take */
};

static void *pa_parallel_worker(void *arg)
{
	struct pa_parallel_pool *pool = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->n)
		pool->fn(pool->ctx, i);
	return NULL;
}

void pa_parallel_run(size_t n, size_t min, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pa_parallel_pool pool = { .fn = fn, .ctx = ctx, .n = n };
	pthread_t th[PA_PARALLEL_MAX_WORKERS];
	/* Asked only when there is work to share: glibc reads /sys at each call. */
	long cpus = n < min ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
	size_t nw = 0, want = cpus > 1 ? (size_t)(cpus - 1) : 0;

	if (want > PA_PARALLEL_MAX_WORKERS)
		want = PA_PARALLEL_MAX_WORKERS;
	if (n && want > n - 1)
		want = n - 1;
	while (nw < want && pthread_create(&th[nw], NULL, pa_parallel_worker, &pool) == 0)
		nw++;
	pa_parallel_worker(&pool);
	while (nw > 0)
		pthread_join(th[--nw], NULL);
}
