/*
 * unwload: what loading libunwind costs a process that has just started,
 * the part of the profiler's start that is libunwind's own. Run without the
 * preload, it loads libunwind the way libpprof's constructor does
 * (dlopen(RTLD_NOW | RTLD_LOCAL) of libunwind.so.8, which brings
 * liblzma.so.5; then its first call, unw_set_cache_size, which sets it up;
 * then an unw_backtrace that asks for no frame, which sets up its state in
 * the process without making the thread's trace cache) and prints the CPU
 * time (CLOCK_THREAD_CPUTIME_ID, ns) of each step: "DLOPEN FIRST_CALL
 * FIRST_BACKTRACE". A thread's first real backtrace, at its first sample,
 * costs more (its trace cache made, every frame unwound cold): not here.
 *
 *   unwload          one measurement, in this fresh process
 *   unwload RUNS     RUNS fresh processes (this program exec'd again each
 *                    time, so that none inherits a warm address space),
 *                    then the median of each step in us
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define UNWLOAD_MAX_RUNS 10000
/* The exported name of a libunwind function, as libunwind.h spells it. */
#define UNWLOAD_STR(x) #x
#define UNWLOAD_NAME(x) UNWLOAD_STR(x)

static uint64_t unwload_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One measurement in this process; 0 or 1 (what failed is said). */
static int unwload_once(void)
{
	int (*set_cache_size)(void *, size_t, int);
	int (*backtrace_fn)(void **, int);
	void **local, *frames[1], *h;
	uint64_t t0, t1, t2, t3;

	t0 = unwload_cpu_ns();
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	t1 = unwload_cpu_ns();
	if (!h) {
		fprintf(stderr, "unwload: %s\n", dlerror());
		return 1;
	}
	*(void **)&set_cache_size = dlsym(h, UNWLOAD_NAME(unw_set_cache_size));
	local = dlsym(h, UNWLOAD_NAME(unw_local_addr_space));
	*(void **)&backtrace_fn = dlsym(h, UNWLOAD_NAME(unw_backtrace));
	if (!set_cache_size || !local || !backtrace_fn) {
		fprintf(stderr, "unwload: libunwind.so.8 lacks unw_set_cache_size, "
				"unw_local_addr_space or unw_backtrace\n");
		return 1;
	}
	set_cache_size(*local, 32768, 0);
	t2 = unwload_cpu_ns();
	backtrace_fn(frames, 0);
	t3 = unwload_cpu_ns();
	printf("%llu %llu %llu\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)(t2 - t1), (unsigned long long)(t3 - t2));
	return 0;
}

static int unwload_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static uint64_t v[3][UNWLOAD_MAX_RUNS];
	long runs;
	int n = 0;

	if (argc < 2)
		return unwload_once();
	runs = atol(argv[1]);
	if (runs < 1 || runs > UNWLOAD_MAX_RUNS) {
		fprintf(stderr, "unwload: RUNS must be 1 to %d, not %s\n", UNWLOAD_MAX_RUNS,
			argv[1]);
		return 2;
	}
	for (long i = 0; i < runs; i++) {
		int p[2], status;
		char line[128];
		unsigned long long a, b, c;
		FILE *f;
		pid_t pid;

		if (pipe(p) != 0 || (pid = fork()) < 0) {
			perror("unwload");
			return 1;
		}
		if (pid == 0) {
			dup2(p[1], 1);
			close(p[0]);
			close(p[1]);
			execl("/proc/self/exe", argv[0], (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		f = fdopen(p[0], "r");
		if (f && fgets(line, sizeof(line), f) &&
		    sscanf(line, "%llu %llu %llu", &a, &b, &c) == 3) {
			v[0][n] = a;
			v[1][n] = b;
			v[2][n] = c;
			n++;
		}
		if (f)
			fclose(f);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return 1;
	}
	for (int k = 0; k < 3; k++)
		qsort(v[k], (size_t)n, sizeof(v[k][0]), unwload_cmp);
	printf("%.1f %.1f %.1f\n", v[0][n / 2] / 1e3, v[1][n / 2] / 1e3, v[2][n / 2] / 1e3);
	return 0;
}
