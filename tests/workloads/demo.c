/*
 * demo: the bundled demo and the accuracy workload.
 *
 *   demo [SECONDS] [--exit N]
 *
 * Three threads burn CPU, each in its own call chain:
 *   main          -> mid_alpha -> burn_alpha    SECONDS of CPU
 *   beta_thread   -> mid_beta  -> burn_beta     0.7 x SECONDS
 *   gamma_thread  -> mid_gamma -> burn_gamma    0.5 x SECONDS, in libburn.so
 *                                               (dlopen'd, called via dlsym)
 * SECONDS defaults to 1.5. Each thread measures its own truth: the thread CPU
 * time spent inside each burn call (the thread runs nothing else between the
 * two clock reads). With PPROF_TRUTH set, the truth is written there as lines
 * "FUNCTION SECONDS". stdout does not depend on timing: one line of
 * checksums, identical for every run. The exit status is N (default 0).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

typedef uint64_t (*demo_burn_fn)(uint64_t);

/* What one thread does: its work, its truth, its checksum. */
struct demo_job {
	const char *name;   /* the burn function, for the truth file */
	double seconds;     /* CPU to burn */
	demo_burn_fn burn;  /* for the dlopen'd one */
	double spent;       /* truth: CPU seconds inside the burn calls */
	uint64_t checksum;  /* one call's result: the same in every run */
};

static volatile uint64_t demo_sink;

__attribute__((noinline)) uint64_t burn_alpha(uint64_t iters);
__attribute__((noinline)) uint64_t burn_beta(uint64_t iters);
__attribute__((noinline)) uint64_t mid_alpha(struct demo_job *job);
__attribute__((noinline)) uint64_t mid_beta(struct demo_job *job);
__attribute__((noinline)) uint64_t mid_gamma(struct demo_job *job);
void *beta_thread(void *arg);
void *gamma_thread(void *arg);

__attribute__((noinline)) uint64_t burn_alpha(uint64_t iters)
{
	return wl_burn(iters, 0x616c706861);
}

__attribute__((noinline)) uint64_t burn_beta(uint64_t iters)
{
	return wl_burn(iters, 0x62657461);
}

/*
 * Each mid_* times one burn call. Using the result after the call keeps the
 * call a call (no tail jump), so mid_* shows in the stacks.
 */
__attribute__((noinline)) uint64_t mid_alpha(struct demo_job *job)
{
	double t0 = wl_thread_cpu();
	uint64_t r = burn_alpha(WL_CHUNK);

	job->spent += wl_thread_cpu() - t0;
	return r;
}

__attribute__((noinline)) uint64_t mid_beta(struct demo_job *job)
{
	double t0 = wl_thread_cpu();
	uint64_t r = burn_beta(WL_CHUNK);

	job->spent += wl_thread_cpu() - t0;
	return r;
}

__attribute__((noinline)) uint64_t mid_gamma(struct demo_job *job)
{
	double t0 = wl_thread_cpu();
	uint64_t r = job->burn(WL_CHUNK);

	job->spent += wl_thread_cpu() - t0;
	return r;
}

/* Calls mid until the job's CPU is spent. */
static void demo_run(struct demo_job *job, uint64_t (*mid)(struct demo_job *))
{
	job->checksum = mid(job);
	while (job->spent < job->seconds)
		demo_sink += mid(job);
}

void *beta_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "beta");
	demo_run(arg, mid_beta);
	return NULL;
}

void *gamma_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "gamma");
	demo_run(arg, mid_gamma);
	return NULL;
}

/* dlopen libburn.so from the executable's directory; exits 1 on failure. */
static demo_burn_fn demo_load_gamma(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	void *h;
	demo_burn_fn fn;

	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libburn.so");
	h = dlopen(path, RTLD_NOW);
	fn = h ? (demo_burn_fn)dlsym(h, "burn_gamma") : NULL;
	if (!fn) {
		fprintf(stderr, "demo: cannot load burn_gamma: %s\n", dlerror());
		exit(1);
	}
	return fn;
}

static void demo_write_truth(const struct demo_job *jobs, int n)
{
	const char *path = getenv("PPROF_TRUTH");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %.9f\n", jobs[i].name, jobs[i].spent);
	if (fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	double seconds = 1.5;
	int status = 0;
	pthread_t beta, gamma;
	struct demo_job jobs[3] = {
		{ .name = "burn_alpha" },
		{ .name = "burn_beta" },
		{ .name = "burn_gamma" },
	};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			status = atoi(argv[++i]);
		else
			seconds = wl_seconds(argv[i], seconds);
	}
	jobs[0].seconds = seconds;
	jobs[1].seconds = 0.7 * seconds;
	jobs[2].seconds = 0.5 * seconds;
	jobs[2].burn = demo_load_gamma();
	if (pthread_create(&beta, NULL, beta_thread, &jobs[1]) ||
	    pthread_create(&gamma, NULL, gamma_thread, &jobs[2])) {
		fprintf(stderr, "demo: cannot create threads\n");
		return 1;
	}
	demo_run(&jobs[0], mid_alpha);
	pthread_join(beta, NULL);
	pthread_join(gamma, NULL);
	demo_write_truth(jobs, 3);
	printf("demo: alpha %016llx beta %016llx gamma %016llx\n",
	       (unsigned long long)jobs[0].checksum,
	       (unsigned long long)jobs[1].checksum,
	       (unsigned long long)jobs[2].checksum);
	return status;
}
