/*
 * events: perf_event_open in sigtrap mode. One event per configured event,
 * opened once per process on the calling thread with inherit +
 * inherit_thread, so every thread created afterwards is sampled too.
 */
#ifndef PP_EVENTS_H
#define PP_EVENTS_H

#include "config.h"

/* Threads that existed before the constructor, whose events it opens too. */
#define PP_EVENTS_MAX_TASKS 256

struct pp_events {
	unsigned n;
	int fds[PP_CONFIG_MAX_EVENTS * (PP_EVENTS_MAX_TASKS + 1)];
};

/*
 * Opens and enables every event of cfg. On failure closes what it opened,
 * writes why into msg (one line, no newline: the event, the errno text and
 * what to do) and returns a negative errno.
 */
int pp_events_open(struct pp_events *ev, const struct pp_config *cfg,
		   char *msg, size_t msg_size);

/*
 * Opens every event of cfg on the other threads of the process that exist
 * already (they inherit nothing: inheritance covers threads created later).
 * A thread that cannot get its events is skipped; returns how many did.
 */
int pp_events_open_others(struct pp_events *ev, const struct pp_config *cfg);

/* Stops counting in every thread (the events are inherited). */
void pp_events_disable(struct pp_events *ev);

/* Closes every fd. */
void pp_events_close(struct pp_events *ev);

#endif
