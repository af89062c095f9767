/*
 * dlstorm: threads that load and unload a library in a loop, for the
 * loader-lock deadlock test (DESIGN.md: the dl_iterate_phdr lock).
 *
 *   dlstorm [ITERATIONS [THREADS]]   default 10000 iterations, 2 threads
 *
 * Each thread: dlopen(libreload.so) beside this program, call its
 * burn_delta briefly, dlclose; ITERATIONS times. stdout: "dlstorm done
 * THREADS x ITERATIONS" and one checksum line, the same in every run. Exit
 * status 1 if a dlopen failed. With PPROF_TRUTH set, each thread appends
 * its user CPU time there (wl_truth_thread_user).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define DLSTORM_MAX_THREADS 16

typedef uint64_t (*dlstorm_fn)(uint64_t);

static char dlstorm_lib[4200];
static unsigned long dlstorm_iters = 10000;

struct dlstorm_job {
	pthread_t th;
	uint64_t sum;
	int failed;
};

static void *dlstorm_thread(void *arg)
{
	struct dlstorm_job *job = arg;

	for (unsigned long i = 0; i < dlstorm_iters; i++) {
		void *h = dlopen(dlstorm_lib, RTLD_NOW | RTLD_LOCAL);
		dlstorm_fn fn;

		if (!h) {
			fprintf(stderr, "dlstorm: %s\n", dlerror());
			job->failed = 1;
			return NULL;
		}
		fn = (dlstorm_fn)dlsym(h, "burn_delta");
		job->sum += fn ? fn(i % 1000) : 0;
		dlclose(h);
	}
	wl_truth_thread_user();
	return NULL;
}

int main(int argc, char **argv)
{
	struct dlstorm_job jobs[DLSTORM_MAX_THREADS];
	unsigned long nthreads = 2;
	uint64_t sum = 0;
	int failed = 0;
	char *slash;

	if (argc > 1)
		dlstorm_iters = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		nthreads = strtoul(argv[2], NULL, 10);
	if (nthreads < 1 || nthreads > DLSTORM_MAX_THREADS) {
		fprintf(stderr, "dlstorm: 1 to %d threads\n", DLSTORM_MAX_THREADS);
		return 2;
	}
	snprintf(dlstorm_lib, sizeof(dlstorm_lib), "%s", argv[0]);
	slash = strrchr(dlstorm_lib, '/');
	snprintf(slash ? slash + 1 : dlstorm_lib,
		 sizeof(dlstorm_lib) - (size_t)(slash ? slash + 1 - dlstorm_lib : 0),
		 "libreload.so");
	memset(jobs, 0, sizeof(jobs));
	for (unsigned long i = 0; i < nthreads; i++)
		if (pthread_create(&jobs[i].th, NULL, dlstorm_thread, &jobs[i]) != 0)
			return 1;
	for (unsigned long i = 0; i < nthreads; i++) {
		pthread_join(jobs[i].th, NULL);
		sum += jobs[i].sum;
		failed |= jobs[i].failed;
	}
	printf("dlstorm done %lu x %lu\nchecksum %llx\n", nthreads, dlstorm_iters,
	       (unsigned long long)sum);
	return failed;
}
