/*
 * wideleaf: a leaf function some 20,000 instructions long, run over and
 * over on the main thread, so that nearly every sample lands on an
 * instruction no sample hit before and libunwind misses its cache at the
 * leaf every time (as in a compiler, whose stacks rarely repeat). It
 * counts its own thread's rt_sigprocmask system calls meanwhile with a
 * perf counter on the syscalls:sys_enter_rt_sigprocmask tracepoint; under
 * the preload those are the handler's (the workload makes none).
 *
 *   wideleaf [SECONDS]   default 0.3 (a fixed amount of work, ~SECONDS of CPU)
 *
 * stdout: "rt_sigprocmask N", or "rt_sigprocmask ? WHY" when the count is
 * not available (no tracefs, not permitted), then "checksum X" (the same
 * every run).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Calls of wide_leaf per second of CPU, roughly. */
#define WIDE_CALLS_PER_SECOND 125000.0

/* One step: an xorshift and a multiply, kept apart by an opaque asm. */
#define WIDE_1 x ^= x << 13; x ^= x >> 7; x *= 0x9e3779b97f4a7c15ull; \
	__asm__ volatile("" : "+r"(x));
#define WIDE_4 WIDE_1 WIDE_1 WIDE_1 WIDE_1
#define WIDE_16 WIDE_4 WIDE_4 WIDE_4 WIDE_4
#define WIDE_64 WIDE_16 WIDE_16 WIDE_16 WIDE_16
#define WIDE_256 WIDE_64 WIDE_64 WIDE_64 WIDE_64
#define WIDE_1024 WIDE_256 WIDE_256 WIDE_256 WIDE_256

__attribute__((noinline)) uint64_t wide_leaf(uint64_t x);
__attribute__((noinline)) uint64_t wide_run(long calls);

__attribute__((noinline)) uint64_t wide_leaf(uint64_t x)
{
	WIDE_1024 WIDE_1024 WIDE_1024 WIDE_1024
	return x;
}

__attribute__((noinline)) uint64_t wide_run(long calls)
{
	uint64_t x = 1;

	for (long i = 0; i < calls; i++)
		x = wide_leaf(x + (uint64_t)i);
	return x;
}

/* The tracepoint's id from tracefs, or -1 with why set. */
static long wide_tracepoint(char *why, size_t size)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/syscalls/sys_enter_rt_sigprocmask/id",
		"/sys/kernel/debug/tracing/events/syscalls/sys_enter_rt_sigprocmask/id",
	};
	long id = -1;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && id < 0; i++) {
		FILE *f = fopen(paths[i], "r");

		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	if (id < 0)
		snprintf(why, size, "no tracefs with the syscalls:sys_enter_rt_sigprocmask tracepoint");
	return id;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	long calls = (long)(seconds * WIDE_CALLS_PER_SECOND);
	char why[160] = "";
	struct perf_event_attr a;
	long id = wide_tracepoint(why, sizeof(why));
	int fd = -1;
	uint64_t n = 0, x;

	if (id >= 0) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)id;
		a.disabled = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			snprintf(why, sizeof(why), "perf_event_open of the tracepoint: %s",
				 strerror(errno));
	}
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	x = wide_run(calls);
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n)) {
			snprintf(why, sizeof(why), "read of the counter: %s", strerror(errno));
			fd = -1;
		}
	}
	if (fd >= 0)
		printf("rt_sigprocmask %llu\n", (unsigned long long)n);
	else
		printf("rt_sigprocmask ? %s\n", why);
	printf("checksum %llx\n", (unsigned long long)x);
	return 0;
}
