/*
 * fdreuse: a program that puts files of its own at numbers it did not
 * open, as a daemon's descriptor hygiene does, and goes on working.
 *
 *   fdreuse devnull [SECONDS]   dup2 /dev/null over every open descriptor
 *                               from 3 to 4095 that names a directory, then
 *                               two threads burn SECONDS of CPU each
 *                               (default 0.3) in burn_after_reuse
 *   fdreuse fork                dup2 a file of its own onto each number
 *                               from 500 to 540, fork; the child writes
 *                               "child" to each, the parent then "parent"
 *
 * stdout: "ok" when every write went through and every file holds what was
 * written. The CPU time burnt goes to the file PPROF_TRUTH names, if set, as
 * a line "burn_after_reuse SECONDS". Exit status 1 when something failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "wl.h"

#define FDREUSE_LO 500
#define FDREUSE_HI 540

static volatile uint64_t fdreuse_sink;
static double fdreuse_seconds;
static double fdreuse_burnt[2];

__attribute__((noinline)) void burn_after_reuse(double seconds);

__attribute__((noinline)) void burn_after_reuse(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < end)
		fdreuse_sink += wl_burn(WL_CHUNK / 10, 0x7265757365);
}

static void *fdreuse_worker(void *arg)
{
	double *burnt = arg, t0 = wl_thread_cpu();

	burn_after_reuse(fdreuse_seconds);
	*burnt = wl_thread_cpu() - t0;
	return NULL;
}

static int fdreuse_devnull(void)
{
	pthread_t th[2];
	const char *truth = getenv("PPROF_TRUTH");
	int null = open("/dev/null", O_RDONLY);
	FILE *f;

	if (null < 0)
		return 1;
	for (int fd = 3; fd < 4096; fd++) {
		struct stat st;

		if (fd != null && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && dup2(null, fd) != fd)
			return 1;
	}
	close(null);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, fdreuse_worker, &fdreuse_burnt[i]) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (truth && (f = fopen(truth, "w"))) {
		fprintf(f, "burn_after_reuse %.6f\n", fdreuse_burnt[0] + fdreuse_burnt[1]);
		fclose(f);
	}
	return 0;
}

static int fdreuse_fork(const char *dir)
{
	char path[4096], buf[64];
	pid_t pid;
	int status, bad = 0;

	for (int fd = FDREUSE_LO; fd <= FDREUSE_HI; fd++) {
		int f;

		snprintf(path, sizeof(path), "%s/fdreuse.%d", dir, fd);
		f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (f < 0 || dup2(f, fd) != fd)
			return 1;
		close(f);
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (int fd = FDREUSE_LO; fd <= FDREUSE_HI; fd++)
			if (write(fd, "child\n", 6) != 6)
				bad = 1;
		_exit(bad);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	for (int fd = FDREUSE_LO; fd <= FDREUSE_HI; fd++) {
		ssize_t n;

		if (write(fd, "parent\n", 7) != 7 || lseek(fd, 0, SEEK_SET) != 0)
			return 1;
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0)
			return 1;
		buf[n] = '\0';
		if (strcmp(buf, "child\nparent\n") != 0)
			return 1;
		snprintf(path, sizeof(path), "%s/fdreuse.%d", dir, fd);
		unlink(path);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int ret;

	fdreuse_seconds = wl_seconds(argc > 2 ? argv[2] : NULL, 0.3);
	if (strcmp(how, "devnull") == 0)
		ret = fdreuse_devnull();
	else if (strcmp(how, "fork") == 0)
		ret = fdreuse_fork(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	else {
		fprintf(stderr, "usage: fdreuse devnull [SECONDS] | fdreuse fork\n");
		return 2;
	}
	if (ret == 0)
		puts("ok");
	return ret;
}
