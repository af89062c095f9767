/*
 * threads: the per-thread state the signal handler needs, in a table found
 * by thread id (raw clone() threads share their parent's TLS, so TLS cannot
 * tell threads apart), mapped a chunk at a time as threads need it. Slots
 * are claimed with compare-and-swap.
 */
#ifndef PP_THREADS_H
#define PP_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "logfile.h"
#include "share.h"
#include "stacks.h"

#define PP_THREADS_MAX 8192
/* Frames kept of the stack a thread called dlopen from (sampler.h). */
#define PP_THREADS_DL_FRAMES 48

/*
 * A thread's part in pausing sampling (pause.h). Other threads switch its
 * events under lock, and only while live: from when its events are all
 * open to when they are about to be closed. lock is left alone when the
 * slot is claimed again (a thread that pauses may hold it a moment).
 */
struct pp_thread_pause {
	int lock;           /* atomic: 1 while its pause state is changed */
	int live;           /* its events may be switched by others */
	int applied;        /* PP_PAUSE_APPLIED_* (pause.h) */
	uint32_t pauses;    /* stretches its events were paused */
	uint64_t since_ns;  /* CLOCK_MONOTONIC when the current pause began */
	uint64_t cpu_since_ns; /* its CPU time then */
	uint64_t paused_ns; /* wall time paused, pauses ended */
	uint64_t cpu_ns;    /* CPU time it used while paused, pauses ended */
};

struct pp_thread {
	int tid;         /* atomic: 0 free, -1 released, else the owner */
	int busy;        /* atomic: 1 while profiler code runs for this thread */
	struct pp_logfile log;
	struct pp_stacks *stacks; /* the stacks its log holds (stacks.h) */
	uint64_t samples;
	uint64_t lost;   /* atomic */
	uint64_t ev_samples[PP_CONFIG_MAX_EVENTS]; /* per event: samples taken */
	uint64_t ev_lost[PP_CONFIG_MAX_EVENTS];    /* atomic; per event, lost */
	uint64_t throttled; /* overflows not taken: the handler's own cost */
	uint64_t ev_throttled[PP_CONFIG_MAX_EVENTS]; /* per event, throttled */
	uint64_t next_ns; /* its CPU time: no sample is taken before this */
	uint64_t paid_ns; /* its CPU time when the samples taken so far are
			     paced out (sampler.c's pace) */
	uint64_t cost_ns; /* what the last sample taken cost (its CPU time); 0
			     before the first, so that the first (its log made,
			     caches cold) throttles none */
	uint64_t held_since_ns; /* its CPU time when it began to hold the
				   program's own signal (appmask.h), 0 when
				   it holds none */
	uint64_t held_cpu_ns;   /* CPU time it ran holding one, in all */
	uint32_t holds;         /* how many times it began to hold one */
	/* sigtrap mode, per time event: its CPU time when the event's last
	   signal was handled (or its slot claimed), what a late signal's
	   merged overflows are counted from */
	uint64_t cpu_prev_ns[PP_CONFIG_MAX_EVENTS];
	/* the monotonic clock then (0: not known, cpu_prev_ns was set otherwise):
	   the CPU time since is no more than the wall time since */
	uint64_t wall_prev_ns[PP_CONFIG_MAX_EVENTS];
	/*
	 * Its CPU time as its last signal took it (read, or counted on from
	 * the read before: sampler.c's pp_sampler_cpu_sigsafe), that signal's
	 * event + 1 (0: none, or the chain is broken: the next is read), the
	 * signals that may still be counted on before one is read, and how
	 * many reads in a row found the count right; whether it was counted
	 * on.
	 */
	uint64_t cpu_last_ns;
	int cpu_last_guessed;
	unsigned cpu_last_event;
	unsigned cpu_guesses_left;
	unsigned cpu_guesses_right;
	/* sigtrap mode, per weighted event (pp_sampler_config.weighted): its
	   counter's value at the thread's last sample of it, 0 before */
	uint64_t count_prev[PP_CONFIG_MAX_EVENTS];
	uint64_t progress_ns; /* CLOCK_MONOTONIC of its last PPF_REC_THREAD_PROGRESS */
	uint64_t progress_samples; /* its samples then */
	struct pp_tevents tev; /* its own events: counters; signal mode: sampling */
	void *altstack;  /* our alternate signal stack, NULL if none */
	size_t altstack_size;
	uintptr_t tcb;   /* the thread's TLS block (%fs:0) */
	int leaf_only;   /* shares another thread's TLS: no unwinding */
	int late_counters; /* its counters were opened at its first sample
			      (adopted in the handler), not at its start */
	/*
	 * While it is inside dlopen (dl_depth calls deep): the stack it called
	 * the outermost from, glibc's dlopen first (dl_n frames, atomic: 0
	 * while written or when none), for samples whose unwind stops in an
	 * object being loaded (sampler.c)
	 */
	uint64_t dl_ips[PP_THREADS_DL_FRAMES];
	unsigned dl_n;
	unsigned dl_depth;
	int log_pending; /* atomic: its log is made at its first sample
			    (pp_threads_lazy_log_sigsafe); 0 once made, or
			    when it gets none */
	int log_err;     /* why its log could not be made then (positive
			    errno), 0 */
	int log_fd_kept; /* charge holds the descriptor its pending log is
			    made with (pp_threads_lazy_log_sigsafe) */
	int finish_later; /* at the process's end: a sample was being taken
			     at the first pass (thread.c) */
	uint64_t start_ns; /* CLOCK_MONOTONIC when its slot was claimed: the
			      thread's start, as its log says */
	unsigned ent;    /* its entry in the tid index */
	unsigned slot;   /* its number in the table */
	struct pp_share_cost charge; /* what its sampling state took of the
					profiler's share (share.h) */
	struct pp_thread_pause pause; /* pause.h */
};

/*
 * Where a process's logs go: the output root itself, each file named
 * <name>.<what> (<name> being <exe>@<host>.<pid>, or that and .<k>, as its
 * process log <name>.log): thread logs <name>.thread-<tid>.log, made at a
 * thread's first sample, and <name>.wall.log. No directory is made: a
 * directory is a block on disk of its own, and making one in the signal
 * handler, at a process's first sample, raced the process's other threads.
 */
struct pp_thread_dir {
	int pid;      /* the process it belongs to */
	const char *path; /* <root>/<name>, absolute (NULL: none) */
	int rootfd;   /* the output root; -1: none */
	const char *root; /* the root's absolute path, to open it again by
			     when the program closed rootfd (threads.c) */
	uint64_t root_dev, root_ino; /* what rootfd must still name */
	const char *name; /* the process's name in the root */
};

/* Runs in signal context. Whether dir->rootfd still names the output root. */
int pp_threads_root_ok_sigsafe(const struct pp_thread_dir *dir);

/*
 * Runs in signal context. Writes <dir's name>.<what> into buf (size
 * bytes). Returns 0, or -ENAMETOOLONG when it does not fit.
 */
int pp_threads_dir_file_sigsafe(const struct pp_thread_dir *dir, char *buf, size_t size,
				const char *what);

/* Runs in signal context. The name of tid's log in dir's root, <name>.thread-<tid>.log. */
int pp_threads_log_name_sigsafe(const struct pp_thread_dir *dir, int tid, char *buf, size_t size);

/*
 * Runs in signal context. Creates t's log, <name>.thread-<tid>.log in dir's
 * root, and writes its PPF_REC_THREAD record (pid, tid, t->start_ns, name;
 * NULL: the calling thread's, t must then be the calling thread's). The log
 * is then detached (logfile.h: it holds no descriptor) unless that fails.
 * When the program has closed the root's descriptor (as daemons close
 * every descriptor they did not open), the root is opened again by its
 * path a moment, and the log made there grows only while the root's
 * descriptor is ours again, as a log made before the close does. Returns 0
 * or a negative errno (-EBADF when the root cannot be found again).
 */
int pp_threads_open_log_sigsafe(struct pp_thread *t, struct pp_thread_dir *dir,
				const char *name);

/*
 * Runs in signal context. Makes the log of t (busy), whose log is pending
 * (t->log_pending), as pp_threads_open_log_sigsafe does, with the
 * descriptor t->charge keeps for it (t->log_fd_kept: given back once the
 * log is made, unless the log keeps its descriptor), else one taken from
 * the profiler's share (share.h) while it is made. A thread's log is made
 * so at its first sample, in the handler, or at its end when it has more
 * to say than PPF_REC_THREAD_QUIET holds. Returns 0 (the log is open), or
 * a negative errno: -EMFILE, out of descriptors now (still pending: tried
 * again at the next sample); else the log is no longer pending and
 * t->log_err says why.
 */
int pp_threads_lazy_log_sigsafe(struct pp_thread *t, struct pp_thread_dir *dir,
				const char *name);

/*
 * Runs in signal context. Makes t's log (busy) hold its descriptor from now
 * on (pp_logfile_attach_sigsafe), charged to t. Returns 0 or a negative
 * errno.
 */
int pp_threads_keep_log_fd_sigsafe(struct pp_thread *t);

/* Runs in signal context. t's totals now: its samples, lost and throttled overflows. */
struct pp_records_counts;
void pp_threads_counts_sigsafe(const struct pp_thread *t, struct pp_records_counts *c);

/* Runs in signal context. The thread's slot, or NULL. */
struct pp_thread *pp_threads_find_sigsafe(int tid);

/*
 * Runs in signal context. Claims a slot for tid (busy set); NULL with errno
 * ENOSPC when the table is full, ENOMEM when there is no memory for it.
 */
struct pp_thread *pp_threads_claim_sigsafe(int tid);

/* Runs in signal context. Frees a slot claimed by pp_threads_claim_sigsafe. */
void pp_threads_release_sigsafe(struct pp_thread *t);

/*
 * Runs in signal context. Marks t busy; returns 0 if it already was (the
 * caller must then leave t alone).
 */
int pp_threads_enter_sigsafe(struct pp_thread *t);

/* Runs in signal context. Clears the busy mark set by enter/claim. */
void pp_threads_leave_sigsafe(struct pp_thread *t);

/* Runs in signal context. Calls fn on every claimed slot. */
void pp_threads_each_sigsafe(void (*fn)(struct pp_thread *t, void *arg),
			     void *arg);

/* Runs in signal context. The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID), 0 if unknown. */
uint64_t pp_threads_cpu_sigsafe(void);

/*
 * Runs in signal context. The CPU time in ns of thread tid of this process
 * (its clock, by the kernel's clock id for a thread), 0 if unknown.
 */
uint64_t pp_threads_cpu_of_sigsafe(int tid);

/* Runs in signal context. The calling thread's id (raw syscall). */
int pp_threads_gettid_sigsafe(void);

/* Runs in signal context. The calling thread's TLS block address (%fs:0). */
uintptr_t pp_threads_tcb_sigsafe(void);

/*
 * Runs in signal context. Whether another claimed slot has this TLS block:
 * a thread made by clone() without CLONE_SETTLS shares its parent's.
 */
int pp_threads_tcb_shared_sigsafe(uintptr_t tcb, int tid);

#endif
