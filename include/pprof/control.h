/*
 * pprof/control.h: a program pauses and resumes libpprof's sampling around
 * the parts it wants profiled (or not), as gperftools' ProfilerStart/Stop.
 *
 *     #include <pprof/control.h>
 *     pprof_pause();      ... work nobody should see in the profile ...
 *     pprof_resume();
 *
 * Header only, nothing to link: the functions find libpprof.so's with
 * dlsym(RTLD_DEFAULT, ...) at each call (libpprof.so preloaded or not) and
 * do nothing without it, so a program built with this header runs the
 * same with and without the profiler. Link with -ldl on glibc before 2.34.
 *
 * Paused, every event of the process is disabled in every thread (threads
 * started meanwhile start paused): no sample, and no cost. pprof_pause and
 * pprof_resume act on the whole process, not the calling thread; they do
 * not nest (one resume undoes any number of pauses). pprof_resume does not
 * end the configuration's `delay`. All three are async-signal-safe with the
 * profiler loaded. README.md, "Starting and stopping at run time".
 */
#ifndef PPROF_CONTROL_H
#define PPROF_CONTROL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * libpprof.so's function name, or NULL when it is not loaded. The
 * program's own functions below are static: the search finds the
 * profiler's, never these.
 */
static inline void *pprof_control_find_(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

/* Pauses sampling in the whole process; nothing without libpprof.so. */
static inline void pprof_pause(void)
{
	void (*fn)(void) = (void (*)(void))pprof_control_find_("pprof_pause");

	if (fn)
		fn();
}

/* Resumes sampling (unless the configuration's delay still runs). */
static inline void pprof_resume(void)
{
	void (*fn)(void) = (void (*)(void))pprof_control_find_("pprof_resume");

	if (fn)
		fn();
}

/* 1 when libpprof.so samples this process now, 0 otherwise (or without it). */
static inline int pprof_is_profiling(void)
{
	int (*fn)(void) = (int (*)(void))pprof_control_find_("pprof_is_profiling");

	return fn ? fn() : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* PPROF_CONTROL_H */
