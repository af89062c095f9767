/*
 * errnos: the errno values a program sees, printed so that a run with the
 * profiler can be compared with one without. Nothing printed depends on
 * timing or pids. Exits 0 (1 if a thread cannot be made, 2 on bad usage).
 *
 *   errnos calls
 *     errno at the start of main (C says 0) and of a new thread; result and
 *     errno of failing libc calls (open of a missing file, ...); result and
 *     errno of the calls the profiler interposes (pthread_create, dlopen,
 *     dlclose, sigaction, signal, fork and waitpid, the exec family and
 *     posix_spawn failing, system), with errno set to a sentinel before
 *     each, so that a call that succeeds shows whether it left errno alone;
 *     the fork child prints the errno it starts with.
 *
 *   errnos burn [SECONDS]
 *     Three threads (main and two more) each set errno to a known value,
 *     burn about 10 ms of CPU in burn_errno (sampled many times) and read
 *     errno back, SECONDS x 100 + 1 times (default 0.3: 31 bursts; a fixed
 *     count, not measured); each prints how many bursts kept the value.
 *     The third thread first burns a few bursts (so that it has taken
 *     samples, and has its log), then closes every descriptor it did not open except
 *     perf events, with raw system calls, moves the directory PPROF_OUTPUT
 *     names (when set) out of the way (and back when it is done), and
 *     burns 100 frames deep: its log soon fills the space allocated before
 *     the close, and from then on the profiler's signal handler meets
 *     failing system calls at every sample (it must not leak their errno
 *     into the thread).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

/* Not an errno value of Linux: nothing but this program ever writes it. */
#define ERRNOS_SENTINEL 4242
/* Iterations of one burst: about 10 ms of CPU. */
#define ERRNOS_BURST (10 * (uint64_t)WL_CHUNK)
#define ERRNOS_MISSING "/nonexistent-errnos/prog"
/* Bursts the closer burns before it closes (about 30 ms of CPU). */
#define ERRNOS_WARM_BURSTS 3
/* Frames under the closer's bursts: a sample of them takes about 1 KiB. */
#define ERRNOS_DEEP 100

/* One burning thread's work and findings. */
struct errnos_job {
	const char *name;
	int base;        /* errno values this thread sets: base + burst index */
	long bursts;
	int closer;      /* closes the descriptors it did not open first */
	pthread_barrier_t *start; /* all burners set up before the closer closes */
	long kept;       /* bursts after which errno still held the value set */
	int first_bad;   /* the first value found instead, if any */
	int start_errno; /* errno when the thread began */
};

extern char **environ;
static volatile uint64_t errnos_sink;

__attribute__((noinline)) uint64_t burn_errno(uint64_t iters);

__attribute__((noinline)) uint64_t burn_errno(uint64_t iters)
{
	return wl_burn(iters, errnos_sink);
}

/* "N (ENAME)" for an errno value. */
static const char *errnos_name(int e, char *buf, size_t size)
{
	const char *name = strerrorname_np(e);

	snprintf(buf, size, "%d (%s)", e, name ? name : "?");
	return buf;
}

/* Prints what a call returned and the errno it left. */
static void errnos_show(const char *what, long ret, int err)
{
	char buf[64];

	printf("%s: ret %ld errno %s\n", what, ret, errnos_name(err, buf, sizeof(buf)));
}

/*
 * Burns depth frames down. The opaque asm on the result keeps gcc from
 * turning the recursion into a loop.
 */
__attribute__((noinline)) uint64_t errnos_deep(int depth);

__attribute__((noinline)) uint64_t errnos_deep(int depth)
{
	uint64_t r;

	if (depth == 0)
		return burn_errno(ERRNOS_BURST);
	r = errnos_deep(depth - 1);
	__asm__ volatile("" : "+r"(r));
	return r + (uint64_t)depth;
}

/*
 * A close loop that bypasses libc: closes every descriptor above stderr
 * with the raw system call (a profiler can interpose close() and
 * close_range(), not this), sparing perf events only: closing those would
 * end sampling, and with it the point. Without the profiler there is
 * nothing to close. With it, the profiler's logs can no longer grow, so
 * once this thread's log has filled the space allocated before, every
 * sample makes the signal handler's system calls fail: errno must survive
 * that too.
 */
static void errnos_close_all(void)
{
	char path[64], target[256];
	DIR *d = opendir("/proc/self/fd");
	int fds[1024], n = 0;
	struct dirent *de;

	while (d && (de = readdir(d)) && n < 1024) {
		int fd = atoi(de->d_name);
		ssize_t len;

		if (fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		target[len > 0 ? len : 0] = '\0';
		if (!strstr(target, "perf_event"))
			fds[n++] = fd;
	}
	if (d)
		closedir(d);
	for (int i = 0; i < n; i++)
		syscall(SYS_close, fds[i]);
}

/*
 * Sets errno, burns, reads it back. The volatile accesses make the compiler
 * store and load errno around every burst instead of keeping it in a register.
 */
static void errnos_bursts(struct errnos_job *job)
{
	volatile int *e = &errno;

	for (long b = 0; b < job->bursts; b++) {
		int want = job->base + (int)b;

		*e = want;
		errnos_sink += job->closer ? errnos_deep(ERRNOS_DEEP)
					   : burn_errno(ERRNOS_BURST);
		if (*e == want)
			job->kept++;
		else if (!job->first_bad)
			job->first_bad = *e;
	}
}

static void *errnos_thread(void *arg)
{
	struct errnos_job *job = arg;
	const char *out = getenv("PPROF_OUTPUT");
	char away[4096];
	int moved = 0;

	job->start_errno = errno;
	if (job->start)
		pthread_barrier_wait(job->start);
	if (job->closer) {
		/*
		 * Sampled first, so that its log and the process directory
		 * (made at a process's first thread log) are there before the
		 * close: made after it, they would hold fresh descriptors and
		 * the handler would meet no failing call.
		 */
		for (int i = 0; i < ERRNOS_WARM_BURSTS; i++)
			errnos_sink += errnos_deep(ERRNOS_DEEP);
		errnos_close_all();
	}
	/* A log whose directory's descriptor is gone opens it again by path: not there either. */
	if (job->closer && out && snprintf(away, sizeof(away), "%s.away", out) < (int)sizeof(away))
		moved = rename(out, away) == 0;
	errnos_bursts(job);
	if (moved)
		rename(away, out);
	return NULL;
}

static void errnos_report(const struct errnos_job *job)
{
	char buf[64];

	printf("%s: %ld bursts, errno kept in %ld", job->name, job->bursts, job->kept);
	if (job->kept != job->bursts)
		printf(", first changed to %s", errnos_name(job->first_bad, buf, sizeof(buf)));
	printf("\n");
}

/* libc calls that fail, none of them interposed. */
static void errnos_libc(void)
{
	char buf[8];
	long r;

	r = open(ERRNOS_MISSING, O_RDONLY);
	errnos_show("open missing file", r, errno);
	r = close(-1);
	errnos_show("close(-1)", r, errno);
	r = read(-1, buf, sizeof(buf));
	errnos_show("read(-1)", r, errno);
	r = mkdir("/", 0700);
	errnos_show("mkdir /", r, errno);
	r = chdir("/dev/null");
	errnos_show("chdir /dev/null", r, errno);
	r = strtol("999999999999999999999999", NULL, 10) == LONG_MAX;
	errnos_show("strtol overflow", r, errno);
	r = kill(INT_MAX, 0);
	errnos_show("kill(INT_MAX)", r, errno);
	r = malloc(SIZE_MAX / 2) != NULL;
	errnos_show("malloc(SIZE_MAX/2)", r, errno);
}

static void errnos_threads_created(void)
{
	struct errnos_job job = { .name = "short thread" };
	pthread_attr_t attr;
	pthread_t t;
	long r;

	errno = ERRNOS_SENTINEL;
	r = pthread_create(&t, NULL, errnos_thread, &job);
	errnos_show("pthread_create", r, errno);
	if (r == 0)
		pthread_join(t, NULL);
	errnos_show("errno at a new thread's start", 0, job.start_errno);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SIZE_MAX / 2);
	errno = ERRNOS_SENTINEL;
	r = pthread_create(&t, &attr, errnos_thread, &job);
	errnos_show("pthread_create huge stack", r, errno);
	if (r == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&attr);
}

/* libburn.so, which is beside this executable. */
static void errnos_dl(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	void *h;
	long r;

	errno = ERRNOS_SENTINEL;
	h = dlopen("libnosuchlib-errnos.so", RTLD_NOW);
	errnos_show("dlopen missing", h != NULL, errno);
	printf("dlerror: %s\n", h ? "none" : dlerror());
	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libburn.so");
	errno = ERRNOS_SENTINEL;
	h = dlopen(path, RTLD_NOW);
	errnos_show("dlopen libburn.so", h != NULL, errno);
	if (!h)
		return;
	errno = ERRNOS_SENTINEL;
	r = dlclose(h);
	errnos_show("dlclose", r, errno);
}

static void errnos_handler(int sig)
{
	(void)sig;
}

static void errnos_signals(void)
{
	struct sigaction sa, old;
	long r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = errnos_handler;
	sigemptyset(&sa.sa_mask);
	errno = ERRNOS_SENTINEL;
	r = sigaction(SIGUSR1, &sa, &old);
	errnos_show("sigaction SIGUSR1", r, errno);
	errno = ERRNOS_SENTINEL;
	r = sigaction(SIGKILL, &sa, &old);
	errnos_show("sigaction SIGKILL", r, errno);
	errno = ERRNOS_SENTINEL;
	r = sigaction(65, &sa, &old);
	errnos_show("sigaction 65", r, errno);
	errno = ERRNOS_SENTINEL;
	r = sigaction(SIGTRAP, &sa, &old);
	errnos_show("sigaction SIGTRAP", r, errno);
	errno = ERRNOS_SENTINEL;
	r = sigaction(SIGTRAP, NULL, &old);
	errnos_show("sigaction SIGTRAP query", r, errno);
	printf("SIGTRAP action is ours: %s\n",
	       old.sa_handler == errnos_handler ? "yes" : "no");
	errno = ERRNOS_SENTINEL;
	r = signal(SIGUSR2, SIG_IGN) == SIG_ERR;
	errnos_show("signal SIGUSR2 is SIG_ERR", r, errno);
	errno = ERRNOS_SENTINEL;
	r = signal(SIGKILL, SIG_IGN) == SIG_ERR;
	errnos_show("signal SIGKILL is SIG_ERR", r, errno);
	errno = ERRNOS_SENTINEL;
	r = signal(SIGTRAP, SIG_DFL) == errnos_handler;
	errnos_show("signal SIGTRAP gives back ours", r, errno);
}

/* The child says what errno fork left it, then exits 5. */
static void errnos_fork(void)
{
	char buf[64];
	int status = 0;
	pid_t pid;
	long r;

	fflush(stdout);
	errno = ERRNOS_SENTINEL;
	pid = fork();
	if (pid == 0) {
		printf("fork child: errno %s\n", errnos_name(errno, buf, sizeof(buf)));
		fflush(stdout);
		_exit(5);
	}
	errnos_show("fork parent", pid > 0, errno);
	errno = ERRNOS_SENTINEL;
	r = waitpid(pid, &status, 0) == pid;
	errnos_show("waitpid", r, errno);
	printf("child status: exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	r = waitpid(-1, NULL, WNOHANG);
	errnos_show("waitpid without children", r, errno);
}

/* Every exec fails, so the calls return here. */
static void errnos_exec(void)
{
	char *argv[] = { "errnos-child", NULL };
	pid_t pid;
	long r;

	errno = ERRNOS_SENTINEL;
	r = execve(ERRNOS_MISSING, argv, environ);
	errnos_show("execve missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execve(ERRNOS_MISSING, argv, (char *[]){ NULL });
	errnos_show("execve missing, empty env", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execve("/etc/passwd", argv, environ);
	errnos_show("execve not executable", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execv(ERRNOS_MISSING, argv);
	errnos_show("execv missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execvp("no-such-command-errnos", argv);
	errnos_show("execvp missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execl(ERRNOS_MISSING, "errnos-child", (char *)NULL);
	errnos_show("execl missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execlp("no-such-command-errnos", "errnos-child", (char *)NULL);
	errnos_show("execlp missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = execle(ERRNOS_MISSING, "errnos-child", (char *)NULL, environ);
	errnos_show("execle missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = fexecve(-1, argv, environ);
	errnos_show("fexecve(-1)", r, errno);
	errno = ERRNOS_SENTINEL;
	r = posix_spawn(&pid, ERRNOS_MISSING, NULL, NULL, argv, environ);
	errnos_show("posix_spawn missing", r, errno);
	errno = ERRNOS_SENTINEL;
	r = posix_spawnp(&pid, "no-such-command-errnos", NULL, NULL, argv, environ);
	errnos_show("posix_spawnp missing", r, errno);
	fflush(stdout);
	errno = ERRNOS_SENTINEL;
	r = system("exit 3");
	errnos_show("system(exit 3)", r, errno);
}

/*
 * Main and two threads set errno and burn, all at once. The barrier holds
 * the closer until every thread runs its own code: the profiler's setup of
 * a new thread (its log) is done by then.
 */
static int errnos_burn_all(double seconds)
{
	long bursts = (long)(seconds * 100) + 1;
	pthread_barrier_t start;
	struct errnos_job jobs[3] = {
		{ .name = "main", .base = 1000 },
		{ .name = "thread 1", .base = 2000 },
		{ .name = "thread 2 (closes fds)", .base = 3000, .closer = 1 },
	};
	pthread_t t[2];

	pthread_barrier_init(&start, NULL, 3);
	for (int i = 0; i < 3; i++) {
		jobs[i].bursts = bursts;
		jobs[i].start = &start;
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, errnos_thread, &jobs[i + 1]) != 0) {
			fprintf(stderr, "errnos: cannot create a thread\n");
			return 1;
		}
	pthread_barrier_wait(&start);
	errnos_bursts(&jobs[0]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < 3; i++)
		errnos_report(&jobs[i]);
	return 0;
}

int main(int argc, char **argv)
{
	int start_errno = errno;

	if (argc > 1 && strcmp(argv[1], "calls") == 0) {
		errnos_show("errno at main's start", 0, start_errno);
		errnos_libc();
		errnos_threads_created();
		errnos_dl();
		errnos_signals();
		errnos_fork();
		errnos_exec();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "burn") == 0)
		return errnos_burn_all(wl_seconds(argc > 2 ? argv[2] : NULL, 0.3));
	fprintf(stderr, "usage: errnos calls | errnos burn [SECONDS]\n");
	return 2;
}
