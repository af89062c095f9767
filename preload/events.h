/*
 * events: perf_event_open, in two modes. sigtrap: one event per configured
 * sampling event, opened once per process on the calling thread with
 * inherit + inherit_thread, so every thread created afterwards is sampled
 * too; overflows raise a synchronous SIGTRAP in the thread. signal: every
 * thread opens its own events (O_ASYNC, F_SETSIG, F_SETOWN_EX to itself);
 * overflows raise the chosen signal in that thread, si_fd naming the event.
 * Counting events are always the thread's own, read when it ends.
 */
#ifndef PP_EVENTS_H
#define PP_EVENTS_H

#include <stddef.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

/* Threads that existed before the constructor, whose events it opens too. */
#define PP_EVENTS_MAX_TASKS 256
#define PP_EVENTS_LINE_MAX 512

/*
 * sig_data of the sigtrap mode's events (si_perf_data in the handler): this
 * tag in the high bits, the event index low.
 */
#define PP_EVENTS_SIGDATA_TAG 0x7070726f66000000ull /* "pprof" */
#define PP_EVENTS_SIGDATA_MASK 0xffffffffff000000ull

struct pp_events {
	int mode;  /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL */
	unsigned n;
	int fds[PP_CONFIG_MAX_EVENTS * (PP_EVENTS_MAX_TASKS + 1)];
	void *rbs[PP_CONFIG_MAX_EVENTS * (PP_EVENTS_MAX_TASKS + 1)]; /* signal mode */
	int error[PP_CONFIG_MAX_EVENTS]; /* errno of an event that could not be
					    opened (and was skipped), else 0 */
	uint32_t refused; /* bit i: event i was not opened because this mode
			     cannot sample it without disturbing the program
			     (error[i] is EOPNOTSUPP); see pp_events_open */
};

/*
 * A thread's own events: its counting events and, in the signal mode, its
 * sampling events; in the sigtrap mode, a counter for each weighted
 * sampling event (pp_events_weighted), which the handler reads at each of
 * its samples. fd[i] is valid when bit i of open is set.
 */
struct pp_tevents {
	uint32_t open;
	int fd[PP_CONFIG_MAX_EVENTS];
	uint64_t id[PP_CONFIG_MAX_EVENTS]; /* PERF_EVENT_IOC_ID, to know it is ours */
	void *rb[PP_CONFIG_MAX_EVENTS];    /* signal mode: its ring buffer, or NULL */
};

/*
 * The signal mode maps a small ring buffer per sampling event (one page of
 * metadata, one of data) where the kernel writes each overflow's
 * instruction address: the handler compares it with where the signal
 * landed to tell a late delivery (the thread had blocked the signal).
 */
#define PP_EVENTS_RB_PAGES 2

/* One counter's reading (read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING). */
struct pp_counter_value {
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};

/*
 * Whether the kernel takes sigtrap events (Linux 5.13 and later): 0, or the
 * negative errno of a probe event (-EINVAL when it does not know sigtrap).
 */
int pp_events_probe_sigtrap(void);

/*
 * Opens the process's events in mode (PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL,
 * which raises the sampling signal, sigsafe/sampsig.h): the sampling events (sigtrap: inherited; signal: the
 * calling thread's, into self), disabled until pp_events_enable, and the
 * calling thread's counting events (into self). An event the kernel refuses is, with cfg->unavailable_off
 * clear, skipped: its errno goes to ev->error[i] and a line saying why and
 * what to use instead to lines[i]. So is, in the signal mode, a sampling
 * event counted as a thread leaves the CPU (context-switches,
 * cgroup-switches): its signal would wake the thread from the call it
 * sleeps in, which then fails with EINTR (bit i of ev->refused). Returns 0, or a negative errno with the
 * reason in lines[i] of the event that stopped it (everything opened is
 * closed again): with unavailable_off set, any refused event; -ENOENT when
 * no event is left.
 */
int pp_events_open(struct pp_events *ev, const struct pp_config *cfg, int mode,
		   struct pp_tevents *self, char (*lines)[PP_EVENTS_LINE_MAX]);

/*
 * Opens every sampling event of cfg for the other threads of the process
 * that exist already (they inherit nothing: inheritance covers threads
 * created later; in the signal mode their overflows are routed to them),
 * disabled until pp_events_enable. A thread that cannot get its events is
 * skipped; returns how many did.
 */
int pp_events_open_others(struct pp_events *ev, const struct pp_config *cfg);

/*
 * The counting events of cfg that ev opened (none of ev->error): bit i of
 * the returned mask, with their attributes in attrs[i] (counting from the
 * moment they are opened, for the calling thread), for threads that open
 * their own counters outside these functions (sigsafe/sampler.h).
 */
uint32_t pp_events_count_attrs(const struct pp_events *ev, const struct pp_config *cfg,
			       struct perf_event_attr attrs[PP_CONFIG_MAX_EVENTS]);

/*
 * Starts sampling: the process-wide events of ev (sigtrap: in every thread,
 * those created since included) and the sampling events in self (the
 * signal mode's, of the thread that opened ev; may be NULL).
 */
void pp_events_enable(struct pp_events *ev, struct pp_tevents *self);

/* Stops the process-wide events (sigtrap: in every thread). */
void pp_events_disable(struct pp_events *ev);

/* Closes every fd of ev. */
void pp_events_close(struct pp_events *ev);

/*
 * Opens the calling thread's own events: its counting events and, in the
 * signal mode, its sampling events (disabled until the thread goes live:
 * sigsafe/pause.h), in the sigtrap mode the counters of its weighted
 * sampling events; skips those in ev->error. Returns 0, or
 * the first negative errno (what did open stays open).
 */
int pp_events_thread_open(struct pp_tevents *te, const struct pp_config *cfg,
			  const struct pp_events *ev);

/*
 * Reads counter i. Returns 0, or -EBADF when the fd no longer is that
 * counter (the program closed it; the number may name another file now).
 */
int pp_events_counter_read(const struct pp_tevents *te, unsigned i,
			   struct pp_counter_value *out);

/* Stops the thread's sampling events: no signal comes from them after this. */
void pp_events_thread_disable(struct pp_tevents *te);

/* Starts the thread's sampling events again (signal mode). */
void pp_events_thread_enable(struct pp_tevents *te);

/* Closes the thread's events that are still ours. */
void pp_events_thread_close(struct pp_tevents *te);

/*
 * Whether the samples of ce each stand for a period of their own: a
 * frequency asked of an event that is not a time event (the kernel adjusts
 * its period as it goes; cpu-clock and task-clock keep 1 s / frequency).
 * The signal mode's ring buffer records each overflow's period; the
 * sigtrap mode counts the event in each thread (struct pp_tevents) and
 * reads what the thread counted since its last sample.
 */
int pp_events_weighted(const struct pp_config_event *ce);

/*
 * The reason event ce was refused with errno err, and what to do about it,
 * in one phrase.
 */
const char *pp_events_hint(const struct pp_config_event *ce, int err);

/*
 * The process is ending: from now on an event's ring buffer is closed but
 * not unmapped, as another thread's handler may still read it.
 */
void pp_events_process_ends(void);

#endif
