/*
 * fdcloser: a daemon-like program that closes every descriptor it did not
 * open, then opens and uses many of its own and burns CPU.
 *
 *   fdcloser close_range|closefrom|loop [SECONDS]
 *
 * close_range(3, ~0U, 0), closefrom(3), or close() on every number from 3 to
 * 4095. Then it opens /dev/null 600 times, writes a pipe and reads it back,
 * and burns SECONDS of CPU (default 0.3) in burn_after_close. stdout: "ok".
 * The CPU time burnt goes to the file PPROF_TRUTH names, if set, as a line
 * "burn_after_close SECONDS".
 * Exit status 1 if any of its own descriptors misbehaved.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static volatile uint64_t fdcloser_sink;

__attribute__((noinline)) void burn_after_close(double seconds);

__attribute__((noinline)) void burn_after_close(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < end)
		fdcloser_sink += wl_burn(WL_CHUNK / 10, 0x636c6f7365);
}

static int fdcloser_use_own(void)
{
	int fds[600], p[2];
	char buf[8] = "";

	for (int i = 0; i < 600; i++)
		if ((fds[i] = open("/dev/null", O_RDONLY)) < 0)
			return -1;
	if (pipe(p) != 0 || write(p[1], "pipe", 5) != 5 || read(p[0], buf, 5) != 5 ||
	    strcmp(buf, "pipe") != 0)
		return -1;
	for (int i = 0; i < 600; i++)
		if (close(fds[i]) != 0)
			return -1;
	return close(p[0]) | close(p[1]);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	const char *truth = getenv("PPROF_TRUTH");
	double seconds = wl_seconds(argc > 2 ? argv[2] : NULL, 0.3), t0;
	FILE *f;

	if (strcmp(how, "close_range") == 0) {
		if (close_range(3, ~0u, 0) != 0)
			return 1;
	} else if (strcmp(how, "closefrom") == 0) {
		closefrom(3);
	} else if (strcmp(how, "loop") == 0) {
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
	} else {
		fprintf(stderr, "usage: fdcloser close_range|closefrom|loop [SECONDS]\n");
		return 2;
	}
	if (fdcloser_use_own() != 0) {
		printf("own descriptors misbehaved\n");
		return 1;
	}
	t0 = wl_thread_cpu();
	burn_after_close(seconds);
	if (truth && (f = fopen(truth, "w")) != NULL) {
		fprintf(f, "burn_after_close %.6f\n", wl_thread_cpu() - t0);
		fclose(f);
	}
	printf("ok\n");
	return 0;
}
