/*
 * jitcode: code made at run time, as a JIT compiler makes it, named in a
 * perf map as perf reads it (/tmp/perf-<pid>.map: "START SIZE NAME").
 * Two pieces of machine code (a counted loop in a frame of its own: push
 * rbp; mov rbp, rsp; ...; pop rbp; ret) are copied into an anonymous
 * mapping made executable, named "jit_one" and "JIT two [tier 1]", and
 * called from jit_caller for SECONDS and twice SECONDS of CPU time. Prints
 * its pid, the map's path and the CPU time spent calling each piece.
 *
 *   jitcode [SECONDS]   (0.3 by default)
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

typedef void (*jitcode_fn)(void);

/* push rbp; mov rbp, rsp; mov rcx, 0x40000; 1: dec rcx; jnz 1b; pop rbp; ret */
static const unsigned char jitcode_loop[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xc7, 0xc1,
					      0x00, 0x00, 0x04, 0x00, 0x48, 0xff, 0xc9,
					      0x75, 0xfb, 0x5d, 0xc3 };

/* Calls f until the thread has used seconds more of CPU; returns the CPU time it took. */
__attribute__((noinline)) static double jit_caller(jitcode_fn f, double seconds)
{
	double start = wl_thread_cpu(), now = start;

	while (now < start + seconds) {
		f();
		now = wl_thread_cpu();
	}
	return now - start;
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3), one, two;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *code = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *map;

	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(code, jitcode_loop, sizeof(jitcode_loop));
	memcpy(code + page, jitcode_loop, sizeof(jitcode_loop));
	if (mprotect(code, (size_t)page * 2, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx jit_one\n%lx %zx JIT two [tier 1]\n", (unsigned long)code,
		sizeof(jitcode_loop), (unsigned long)(code + page), sizeof(jitcode_loop));
	if (fclose(map) != 0) {
		perror(path);
		return 1;
	}
	one = jit_caller((jitcode_fn)(void *)code, seconds);
	two = jit_caller((jitcode_fn)(void *)(code + page), 2 * seconds);
	printf("jitcode: pid %d map %s one %.6f two %.6f\n", (int)getpid(), path, one, two);
	return 0;
}
