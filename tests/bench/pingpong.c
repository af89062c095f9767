/*
 * pingpong: two threads pass a byte back and forth through two pipes N
 * times, each blocking in read() for the other: 2 N context switches out
 * and back in, nearly nothing else, for the wall event's cost per switch
 * (tests/bench/wall.sh).
 *
 *   pingpong [N]   (default 100000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int pp_ab[2], pp_ba[2];
static long pp_n = 100000;

static void *pp_other(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < pp_n; i++)
		if (read(pp_ab[0], &c, 1) != 1 || write(pp_ba[1], &c, 1) != 1)
			exit(3);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char c = 'x';

	if (argc > 1)
		pp_n = atol(argv[1]);
	if (pp_n < 1 || pipe(pp_ab) || pipe(pp_ba) || pthread_create(&th, NULL, pp_other, NULL))
		return 2;
	for (long i = 0; i < pp_n; i++)
		if (write(pp_ab[1], &c, 1) != 1 || read(pp_ba[0], &c, 1) != 1)
			return 3;
	pthread_join(th, NULL);
	printf("pingpong: %ld round trips\n", pp_n);
	return 0;
}
