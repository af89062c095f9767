/*
 * libslowinit: a library whose constructor runs before libpprof.so's (the
 * program links it; a preload's constructor runs after those of the
 * program's own libraries) and burns SLOWINIT_SECONDS (environment; default
 * 0) of CPU in burn_ctor, as a program's heavy start-up would (relocations,
 * a big constructor). It then notes the process's CPU time, which the
 * program reads with slowinit_ctor_end_cpu().
 */
#include <stdlib.h>

#include "wl.h"

double slowinit_ctor_end_cpu(void);
void burn_ctor(double seconds);

static volatile uint64_t slowinit_sink;
static double slowinit_end;

__attribute__((noinline)) void burn_ctor(double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		slowinit_sink += wl_burn(WL_CHUNK / 4, slowinit_sink);
}

double slowinit_ctor_end_cpu(void)
{
	return slowinit_end;
}

__attribute__((constructor)) static void slowinit_ctor(void)
{
	const char *s = getenv("SLOWINIT_SECONDS");

	burn_ctor(s ? atof(s) : 0.0);
	slowinit_end = wl_process_cpu();
}
