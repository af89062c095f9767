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
 *   fdreuse files [SECONDS]     dup2 a file of its own holding "mine\n"
 *                               over every pipe from 3 to 4095 it did not
 *                               make (an inherited one), burn SECONDS of
 *                               CPU 30 calls deep (default 0.3, in
 *                               burn_deep), then check that no file was
 *                               read, written or moved in the meantime;
 *                               stderr says how many it put (at least one
 *                               is needed: exit status 3 otherwise)
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

__attribute__((noinline)) int burn_deep(int depth, double seconds);

__attribute__((noinline)) int burn_deep(int depth, double seconds)
{
	if (depth > 0)
		return burn_deep(depth - 1, seconds) + 1;
	burn_after_reuse(seconds);
	return 0;
}

static int fdreuse_files(const char *dir)
{
	char path[4096], buf[16];
	int bad = 0, n = 0, fds[64];

	for (int fd = 3; fd < 4096 && n < 64; fd++) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
			fds[n++] = fd;
	}
	if (n == 0)
		return 3;
	for (int i = 0; i < n; i++) {
		int f, fd = fds[i];

		snprintf(path, sizeof(path), "%s/fdreuse.%d", dir, fd);
		f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (f < 0 || write(f, "mine\n", 5) != 5 || lseek(f, 0, SEEK_SET) != 0 ||
		    dup2(f, fd) != fd)
			return 1;
		close(f);
		unlink(path);
	}
	if (burn_deep(30, fdreuse_seconds) != 30)
		return 1;
	for (int i = 0; i < n; i++) {
		struct stat st;
		int fd = fds[i];

		if (fstat(fd, &st) != 0 || st.st_size != 5 || lseek(fd, 0, SEEK_CUR) != 0 ||
		    read(fd, buf, sizeof(buf)) != 5 || memcmp(buf, "mine\n", 5) != 0) {
			fprintf(stderr, "fdreuse: descriptor %d was used behind the program's back\n",
				fd);
			bad = 1;
		}
	}
	return bad;
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
	else if (strcmp(how, "files") == 0)
		ret = fdreuse_files(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	else {
		fprintf(stderr, "usage: fdreuse devnull|files [SECONDS] | fdreuse fork\n");
		return 2;
	}
	if (ret == 0)
		puts("ok");
	return ret;
}
