/*
 * quickexit: ends by quick_exit(13), which runs no destructor and leaves by
 * glibc's own _exit. Two threads burn CPU in quick_worker until it does;
 * main burns 0.1 s in quick_main, and its at_quick_exit handler 0.05 s in
 * quick_handler (so that the END records come after it). Prints "quickexit:
 * handler ran" from the handler.
 */
#include <pthread.h>
#include <stdlib.h>

#include "wl.h"

WL_BURNER(quick_main, 3)
WL_BURNER(quick_handler, 5)
WL_BURNER(quick_worker, 7)

static void *quick_thread(void *arg)
{
	(void)arg;
	for (;;)
		quick_worker(0.01);
	return NULL;
}

static void quick_at_exit(void)
{
	quick_handler(0.05);
	puts("quickexit: handler ran");
	fflush(stdout);
}

int main(void)
{
	pthread_t t;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, quick_thread, NULL) != 0)
			return 2;
	at_quick_exit(quick_at_exit);
	quick_main(0.1);
	quick_exit(13);
}
