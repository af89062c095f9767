/*
 * events: perf_event_open. Sampling events in the sigtrap mode: one per
 * configured sampling event, opened once per process on the calling thread
 * with inherit + inherit_thread, so every thread created afterwards is
 * sampled too. Counting events: opened by (or for) each thread on its own,
 * not inherited, read when the thread ends.
 */
#ifndef PP_EVENTS_H
#define PP_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

/* Threads that existed before the constructor, whose events it opens too. */
#define PP_EVENTS_MAX_TASKS 256

struct pp_events {
	unsigned n;
	int fds[PP_CONFIG_MAX_EVENTS * (PP_EVENTS_MAX_TASKS + 1)];
	int error[PP_CONFIG_MAX_EVENTS]; /* errno of an event that could not be
					    opened (and was skipped), else 0 */
};

/* A thread's counting events. fd[i] is valid when bit i of open is set. */
struct pp_counters {
	uint32_t open;
	int fd[PP_CONFIG_MAX_EVENTS];
	uint64_t id[PP_CONFIG_MAX_EVENTS]; /* PERF_EVENT_IOC_ID, to know it is ours */
};

/* One counter's reading (read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING). */
struct pp_counter_value {
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};

#define PP_EVENTS_LINE_MAX 320

/*
 * Opens and enables every sampling event of cfg on the calling thread,
 * inherited by the threads it creates, and the calling thread's counting
 * events into self. An event the kernel refuses is, with
 * cfg->unavailable_off clear, skipped: its errno goes to ev->error[i] and a
 * line saying why and what to use instead to lines[i]. Returns 0, or a
 * negative errno with the reason in lines[i] of the event that stopped it
 * (everything opened is closed again): with unavailable_off set, any refused
 * event; -ENOENT when no event is left.
 */
int pp_events_open(struct pp_events *ev, const struct pp_config *cfg,
		   struct pp_counters *self,
		   char (*lines)[PP_EVENTS_LINE_MAX]);

/*
 * Opens every sampling event of cfg on the other threads of the process
 * that exist already (they inherit nothing: inheritance covers threads
 * created later). A thread that cannot get its events is skipped; returns
 * how many did.
 */
int pp_events_open_others(struct pp_events *ev, const struct pp_config *cfg);

/* Stops counting in every thread (the events are inherited). */
void pp_events_disable(struct pp_events *ev);

/* Closes every fd. */
void pp_events_close(struct pp_events *ev);

/*
 * Opens cfg's counting events for thread tid (0: the caller), skipping
 * those in ev->error. Returns 0, or the first negative errno (the counters
 * that did open stay open).
 */
int pp_events_counters_open(struct pp_counters *c, const struct pp_config *cfg,
			    const struct pp_events *ev, pid_t tid);

/*
 * Reads counter i. Returns 0, or -EBADF when the fd no longer is that
 * counter (the program closed it; the number may name another file now).
 */
int pp_events_counter_read(const struct pp_counters *c, unsigned i,
			   struct pp_counter_value *out);

/* Closes the counters that are still ours. */
void pp_events_counters_close(struct pp_counters *c);

/* The reason for errno err, and what to do about it, in one phrase. */
const char *pp_events_hint(int err);

#endif
