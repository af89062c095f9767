/*
 * evmix: work that several events see differently, for the configuration
 * tests (two sampling events plus counters).
 *
 *   evmix TRUTHFILE [SECONDS] [PAGES]
 *
 * Two threads each: burn SECONDS of CPU in spin_cpu (default 0.3), write one
 * byte into each of PAGES fresh pages in touch_pages (default 20000: one
 * minor fault per page, huge pages refused), then sleep 2 ms 30 times in nap
 * (voluntary context switches). Each thread measures its own truth with
 * CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD) and appends, as its
 * last act (a key destructor, see evmix_thread_end), one line to TRUTHFILE:
 *   thread TID CPU_NS MINFLT SWITCHES_IN SWITCHES_ALL PAGES SPIN_NS
 *          TOUCH_FAULTS WALL_NS
 * (all but SWITCHES_ALL measured at the end of its function; switches are
 * voluntary + involuntary: SWITCHES_IN from the start of its function to its
 * end, SWITCHES_ALL in its whole life, measured after every other key
 * destructor of the thread, the profiler's among them; TOUCH_FAULTS = the
 * minor faults taken inside touch_pages; WALL_NS = CLOCK_MONOTONIC time from
 * the start of its function to its end). stdout: "evmix done" only.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wl.h"

#define EVMIX_PAGE 4096
#define EVMIX_THREADS 2

static const char *evmix_truth;
static double evmix_seconds = 0.3;
static size_t evmix_pages = 20000;
static pthread_mutex_t evmix_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t evmix_key;
static volatile uint64_t evmix_sink;

/* One worker's truth, measured in its function, written by evmix_thread_end. */
struct evmix_truth {
	int tid;
	int rounds; /* key destructor rounds seen */
	uint64_t cpu_ns, spin_ns, wall_ns;
	long minflt, touch_faults, switches_in;
};

__attribute__((noinline)) void spin_cpu(double seconds);
__attribute__((noinline)) void touch_pages(size_t npages);
__attribute__((noinline)) void nap(int times);

__attribute__((noinline)) void spin_cpu(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < end)
		evmix_sink += wl_burn(WL_CHUNK / 10, 0x65766d6978);
}

__attribute__((noinline)) void touch_pages(size_t npages)
{
	size_t len = npages * EVMIX_PAGE;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("evmix: mmap");
		exit(1);
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < npages; i++)
		p[i * EVMIX_PAGE] = (char)i;
	munmap((void *)p, len);
}

__attribute__((noinline)) void nap(int times)
{
	for (int i = 0; i < times; i++)
		usleep(2000);
}

static uint64_t evmix_ns(double s)
{
	return (uint64_t)(s * 1e9);
}

static uint64_t evmix_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long evmix_switches(const struct rusage *ru)
{
	return ru->ru_nvcsw + ru->ru_nivcsw;
}

/*
 * Key destructor: writes the thread's truth line. The profiler reads its
 * counters in its own key destructor, which may run after this one in the
 * same round: so the first round only sets the value again, and POSIX runs
 * another round for it, after every destructor of the first. The switches
 * measured then bound everything a counter of this thread can have seen.
 */
static void evmix_thread_end(void *arg)
{
	struct evmix_truth *w = arg;
	struct rusage ru;
	FILE *f;

	if (w->rounds++ == 0 && pthread_setspecific(evmix_key, w) == 0)
		return;
	getrusage(RUSAGE_THREAD, &ru);
	pthread_mutex_lock(&evmix_lock);
	f = fopen(evmix_truth, "a");
	if (!f) {
		perror(evmix_truth);
		exit(1);
	}
	fprintf(f, "thread %d %llu %ld %ld %ld %zu %llu %ld %llu\n", w->tid,
		(unsigned long long)w->cpu_ns, w->minflt, w->switches_in,
		evmix_switches(&ru), evmix_pages, (unsigned long long)w->spin_ns,
		w->touch_faults, (unsigned long long)w->wall_ns);
	fclose(f);
	pthread_mutex_unlock(&evmix_lock);
	free(w);
}

static void *evmix_thread(void *arg)
{
	uint64_t start = evmix_now_ns();
	struct evmix_truth *w = calloc(1, sizeof(*w));
	struct rusage before, after;
	double t0 = wl_thread_cpu(), t1;

	(void)arg;
	if (!w) {
		perror("evmix: calloc");
		exit(1);
	}
	getrusage(RUSAGE_THREAD, &before);
	w->switches_in = -evmix_switches(&before);
	spin_cpu(evmix_seconds);
	t1 = wl_thread_cpu();
	getrusage(RUSAGE_THREAD, &before);
	touch_pages(evmix_pages);
	getrusage(RUSAGE_THREAD, &after);
	w->touch_faults = after.ru_minflt - before.ru_minflt;
	nap(30);
	getrusage(RUSAGE_THREAD, &after);
	w->tid = gettid();
	w->cpu_ns = evmix_ns(wl_thread_cpu());
	w->spin_ns = evmix_ns(t1 - t0);
	w->minflt = after.ru_minflt;
	w->switches_in += evmix_switches(&after);
	w->wall_ns = evmix_now_ns() - start;
	if (pthread_setspecific(evmix_key, w) != 0) {
		fprintf(stderr, "evmix: pthread_setspecific failed\n");
		exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[EVMIX_THREADS];

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: evmix TRUTHFILE [SECONDS] [PAGES]\n");
		return 2;
	}
	evmix_truth = argv[1];
	evmix_seconds = wl_seconds(argc > 2 ? argv[2] : NULL, evmix_seconds);
	if (argc > 3)
		evmix_pages = strtoul(argv[3], NULL, 10);
	if (pthread_key_create(&evmix_key, evmix_thread_end) != 0)
		return 1;
	for (int i = 0; i < EVMIX_THREADS; i++)
		if (pthread_create(&th[i], NULL, evmix_thread, NULL) != 0)
			return 1;
	for (int i = 0; i < EVMIX_THREADS; i++)
		pthread_join(th[i], NULL);
	printf("evmix done\n");
	return 0;
}
