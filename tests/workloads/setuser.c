/*
 * setuser: a service that drops its privileges, as root-started daemons do.
 * Burns SECONDS of CPU in setuser_before, forks a worker that becomes uid
 * 65534 (nobody) and burns SECONDS in setuser_worker, then becomes nobody
 * itself and burns SECONDS in setuser_after while a thread it starts then
 * burns SECONDS in setuser_thread. Must run as root. Prints "setuser: done";
 * exits 2 when it cannot change its user.
 *
 *     setuser SECONDS
 */
#include <pthread.h>
#include <sys/wait.h>

#include "wl.h"

#define SETUSER_UID 65534

static double setuser_seconds;

WL_BURNER(setuser_before, 11)
WL_BURNER(setuser_worker, 13)
WL_BURNER(setuser_after, 17)
WL_BURNER(setuser_thread, 19)

static int setuser_become(void)
{
	return setgid(SETUSER_UID) == 0 && setuid(SETUSER_UID) == 0 ? 0 : -1;
}

static void *setuser_thread_main(void *arg)
{
	(void)arg;
	setuser_thread(setuser_seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	int status;
	pid_t pid;

	setuser_seconds = argc > 1 ? atof(argv[1]) : 0.3;
	setuser_before(setuser_seconds);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		if (setuser_become() != 0)
			_exit(2);
		setuser_worker(setuser_seconds);
		_exit(0);
	}
	if (setuser_become() != 0)
		return 2;
	if (pthread_create(&thread, NULL, setuser_thread_main, NULL) != 0)
		return 4;
	setuser_after(setuser_seconds);
	pthread_join(thread, NULL);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 5;
	puts("setuser: done");
	return 0;
}
