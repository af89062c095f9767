/*
 * popener: runs itself twice through popen(), which starts /bin/sh -c CMD:
 *
 *   popen("popener reader SECONDS", "r")  the child burns SECONDS of CPU in
 *                                         burn_popen, prints three lines and
 *                                         exits 3; the parent reads them
 *   popen("popener writer SECONDS", "w")  the parent writes ten lines; the
 *                                         child reads them, burns SECONDS of
 *                                         CPU in burn_popen, prints what it
 *                                         read on its stdout (the parent's)
 *                                         and exits 4
 *
 * The parent prints what it read and each pclose() status. Nothing printed
 * depends on timing or pids; exits 0, or 1 if popen fails.
 *
 *   popener [SECONDS]   CPU seconds each child burns (default 0.2)
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define POPENER_LINES 10

static volatile uint64_t popener_sink;

__attribute__((noinline)) uint64_t burn_popen(uint64_t iters, uint64_t seed);

__attribute__((noinline)) uint64_t burn_popen(uint64_t iters, uint64_t seed)
{
	return wl_burn(iters, seed);
}

/* Burns seconds of CPU; returns a checksum that does not depend on timing. */
static uint64_t popener_burn(double seconds, uint64_t seed)
{
	double until = wl_thread_cpu() + seconds;
	uint64_t sum = burn_popen(WL_CHUNK, seed);

	while (wl_thread_cpu() < until)
		popener_sink += burn_popen(WL_CHUNK, popener_sink);
	return sum;
}

static int popener_reader(double seconds)
{
	uint64_t sum = popener_burn(seconds, 0x72656164);

	printf("reader: checksum %016llx\n", (unsigned long long)sum);
	printf("reader: second line\n");
	printf("reader: last line\n");
	return 3;
}

static int popener_writer(double seconds)
{
	char line[256];
	unsigned lines = 0, bytes = 0;
	uint64_t sum;

	while (fgets(line, sizeof(line), stdin)) {
		lines++;
		bytes += (unsigned)strlen(line);
	}
	sum = popener_burn(seconds, 0x7772697465 + bytes);
	printf("writer: read %u lines, %u bytes, checksum %016llx\n", lines, bytes,
	       (unsigned long long)sum);
	return 4;
}

static void popener_status(const char *how, int status)
{
	if (status == -1)
		printf("%s: pclose failed\n", how);
	else if (WIFEXITED(status))
		printf("%s: exit %d\n", how, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: signal %d\n", how, WTERMSIG(status));
}

int main(int argc, char **argv)
{
	const char *secs = argc > 2 ? argv[2] : argc > 1 ? argv[1] : "0.2";
	double seconds = wl_seconds(secs, 0.2);
	char self[4096], cmd[8400], line[256];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *p;

	if (argc > 1 && strcmp(argv[1], "reader") == 0)
		return popener_reader(seconds);
	if (argc > 1 && strcmp(argv[1], "writer") == 0)
		return popener_writer(seconds);
	if (len <= 0)
		return 1;
	self[len] = '\0';

	snprintf(cmd, sizeof(cmd), "'%s' reader %s", self, secs);
	p = popen(cmd, "r");
	if (!p) {
		perror("popener: popen r");
		return 1;
	}
	while (fgets(line, sizeof(line), p))
		printf("from the reader: %s", line);
	popener_status("pclose reader", pclose(p));

	snprintf(cmd, sizeof(cmd), "'%s' writer %s", self, secs);
	/* The writer prints on our stdout: ours goes out first. */
	fflush(stdout);
	p = popen(cmd, "w");
	if (!p) {
		perror("popener: popen w");
		return 1;
	}
	for (int i = 0; i < POPENER_LINES; i++)
		fprintf(p, "line %d for the writer\n", i);
	popener_status("pclose writer", pclose(p));
	return 0;
}
