/*
 * records: every record of the logs (include/pprof/format.h) is made here,
 * one function per record type, as analyze/reader.c reads them all: each
 * fills its record from what the profiler knows and appends it to a log
 * file (logfile.h). process.log's records go to the log the caller holds
 * (proclog.h), a thread's to its own log. A log file's header and its
 * PPF_REC_LOG_FULL are the log file's own (logfile.h).
 *
 * Everything here is async-signal-safe: the handler writes samples, and the
 * first record of the threads it adopts. Functions that return an int
 * return 0 or a negative errno: -ENOSPC when the log is full or closed,
 * -E2BIG when the record would pass PPF_RECORD_MAX.
 */
#ifndef PP_RECORDS_H
#define PP_RECORDS_H

#include <stdint.h>

#include "pprof/format.h"

struct pp_config;
struct pp_config_event;
struct pp_counter_value;
struct pp_logfile;

/* A thread's or a process's totals: overflows sampled, lost and throttled. */
struct pp_records_counts {
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
};

/*
 * CPU time used: a clock's total, and the kernel's split of it between user
 * space and the kernel (ticks that found the thread in each, scaled to the
 * total). 0 where unknown; user_ns and system_ns both 0: no split.
 */
struct pp_records_cpu {
	uint64_t cpu_ns;
	uint64_t user_ns;
	uint64_t system_ns;
};

/* A loaded object, as PPF_REC_MODULE records it. */
struct pp_records_module {
	uint64_t id;             /* unique in the process; its unload names it */
	uint64_t bias;           /* load bias */
	uint64_t start, end;     /* its PT_LOAD segments in memory */
	uint64_t pgoff;          /* the file offset of its first PT_LOAD */
	uint64_t load_ns;        /* when it was seen loaded */
	const uint8_t *build_id; /* build_id_len bytes (at most PPF_BUILD_ID_MAX) */
	uint32_t build_id_len;   /* 0 when it has none */
	const char *path;        /* absolute */
	const char *vdso_image;  /* the vDSO's: its image's name at the output
				    root (PPF_REC_VDSO), else NULL */
	/* Without a build-id: the file as mapped (PPF_REC_MODULE_FILE); has_file 0: unknown. */
	int has_file;
	uint64_t file_size, file_mtime_ns, file_dev, file_ino;
};

/* Who and where a process is, as PPF_REC_IDENTITY records it. */
struct pp_records_identity {
	const char *host;        /* uname's nodename; "" when unknown */
	const char *job;         /* the job id; "" when none */
	uint8_t boot_id[16];     /* all zero when unknown */
	int32_t rank;            /* -1 when none */
	int32_t world_size;      /* -1 when none */
	uint32_t rank_source;    /* enum ppf_rank_source */
};

/* Runs in signal context. CLOCK_MONOTONIC in ns, the clock of the logs' times. */
uint64_t pp_records_now_sigsafe(void);

/*
 * Runs in signal context. The CPU time of the calling thread (who
 * RUSAGE_THREAD) or of the whole process (RUSAGE_SELF), from the raw
 * getrusage system call (microseconds), with cpu_ns = user_ns + system_ns;
 * all 0 when it fails.
 */
void pp_records_cpu_sigsafe(int who, struct pp_records_cpu *out);

/*
 * Async-signal-safe. PPF_REC_PROCESS: this process (pid, its parent ppid,
 * now), its mode (enum ppf_mode), the signal samples arrive on (0 when
 * off), its executable's path and its command line (cmdline_len bytes,
 * each argument NUL-terminated).
 */
int pp_records_process_sigsafe(struct pp_logfile *log, int ppid, uint32_t mode, int signal,
			       const char *exe, const char *cmdline, uint32_t cmdline_len);

/*
 * Async-signal-safe. PPF_REC_IDENTITY: id, with a wall-clock anchor taken
 * now (CLOCK_REALTIME between two CLOCK_MONOTONIC readings).
 */
int pp_records_identity_sigsafe(struct pp_logfile *log, const struct pp_records_identity *id);

/*
 * Async-signal-safe. PPF_REC_CONFIG: the configuration in force, with its
 * text when it came from a file (the embedded default's is left out).
 */
int pp_records_config_sigsafe(struct pp_logfile *log, const struct pp_config *cfg);

/*
 * Async-signal-safe. PPF_REC_EVENT: event index of the configuration;
 * error: the errno it could not be opened with (0: it runs); refused: not
 * opened because the mode could not sample it (pp_events_open).
 */
int pp_records_event_sigsafe(struct pp_logfile *log, unsigned index,
			     const struct pp_config_event *ce, int error, int refused);

/*
 * Async-signal-safe. The file at the output root that holds the
 * PPF_REC_EVENT of pp_records_event_sigsafe for the whole run
 * (PPF_FILE_SHARED, struct ppf_event_ref): its bytes into out (cap bytes).
 * Returns its size, or 0 when it does not fit.
 */
uint32_t pp_records_event_file_sigsafe(void *out, uint32_t cap, unsigned index,
				       const struct pp_config_event *ce, int error, int refused);

/*
 * Async-signal-safe. PPF_REC_EVENT_REF: the event whose file at the root is
 * named by key (the XXH3-128 of pp_records_event_file_sigsafe's bytes).
 */
int pp_records_event_ref_sigsafe(struct pp_logfile *log, const uint8_t key[PPF_MODULE_KEY_LEN]);

/*
 * Async-signal-safe. PPF_REC_MODULE, then PPF_REC_VDSO for the vDSO, and
 * PPF_REC_MODULE_FILE when m->has_file.
 */
int pp_records_module_sigsafe(struct pp_logfile *log, const struct pp_records_module *m);

/*
 * Async-signal-safe. The file at the output root that holds m's record for
 * the whole run (PPF_FILE_SHARED, struct ppf_module_ref): its bytes into out
 * (cap bytes). Returns its size, or 0 when it does not fit.
 */
uint32_t pp_records_module_file_sigsafe(void *out, uint32_t cap,
					const struct pp_records_module *m);

/*
 * Async-signal-safe. PPF_REC_MODULE_REF: m is the module whose file at the
 * root is named by key (the XXH3-128 of pp_records_module_file_sigsafe's
 * bytes); then PPF_REC_VDSO for the vDSO.
 */
int pp_records_module_ref_sigsafe(struct pp_logfile *log, const struct pp_records_module *m,
				  const uint8_t key[PPF_MODULE_KEY_LEN]);

/* Async-signal-safe. PPF_REC_MODULE_UNLOAD: module id went away at unload_ns. */
int pp_records_module_unload_sigsafe(struct pp_logfile *log, uint64_t id,
				     uint64_t unload_ns);

/* Async-signal-safe. PPF_REC_EXEC: the process calls exec on path now. */
int pp_records_exec_sigsafe(struct pp_logfile *log, const char *path);

/*
 * Async-signal-safe. PPF_REC_PROCESS_CPU: the process had used cpu (its
 * user and system parts) now, and the calling thread thread, at the moment
 * when says (enum ppf_process_cpu_when).
 */
int pp_records_process_cpu_sigsafe(struct pp_logfile *log, uint32_t when,
				   const struct pp_records_cpu *cpu,
				   const struct pp_records_cpu *thread);

/*
 * Async-signal-safe. PPF_REC_UNPROFILED: the program at path, started now
 * as process pid, cannot be profiled, as why says (enum ppf_unprofiled_why).
 */
int pp_records_unprofiled_sigsafe(struct pp_logfile *log, int pid, uint32_t why,
				  const char *path);

/*
 * Async-signal-safe. PPF_REC_THREAD_UNSAMPLED: the calling thread, tid, runs
 * unsampled since now: what (enum ppf_unsampled_what) failed with errno err.
 */
int pp_records_thread_unsampled_sigsafe(struct pp_logfile *log, int tid, uint32_t what,
					int err);

/*
 * Async-signal-safe. PPF_REC_PROCESS_END, stamped now: the process's totals
 * and CPU time (its user and system parts), and how it ended (enum
 * ppf_exit_how) with status (kept only when how is known).
 */
int pp_records_process_end_sigsafe(struct pp_logfile *log,
				   const struct pp_records_counts *totals,
				   const struct pp_records_cpu *cpu, uint32_t how, int status);

/*
 * Runs in signal context. PPF_REC_THREAD: thread tid of process pid, started
 * at start_ns, with its name (NULL: the calling thread's, which must then
 * be tid).
 */
int pp_records_thread_sigsafe(struct pp_logfile *log, int pid, int tid, uint64_t start_ns,
			      const char *name);

/*
 * Async-signal-safe. PPF_REC_THREAD_QUIET: thread tid, started at start_ns,
 * named name, took no sample; it ended at end_ns having used cpu (or, with
 * PPF_QUIET_EXEC in flags, had used it by then, an exec).
 */
int pp_records_thread_quiet_sigsafe(struct pp_logfile *log, int tid, uint32_t flags,
				    uint64_t start_ns, uint64_t end_ns, const char *name,
				    const struct pp_records_cpu *cpu);

/*
 * Runs in signal context. PPF_REC_SAMPLE: nframes (1..PPF_MAX_FRAMES)
 * addresses at ips, taken at time_ns for event index event, with flags
 * (enum ppf_sample_flags), the whole stack in the record.
 */
int pp_records_sample_sigsafe(struct pp_logfile *log, const uint64_t *ips, unsigned nframes,
			      uint64_t time_ns, unsigned event, uint16_t flags);

/*
 * Runs in signal context. PPF_REC_STACK: the log's stack number id is ips
 * (nframes), whose outermost shared (0..nframes) are those of stack base.
 */
int pp_records_stack_sigsafe(struct pp_logfile *log, uint32_t id, const uint64_t *ips,
			     unsigned nframes, uint32_t base, unsigned shared);

/* A sample of a stack: when, by which event, with which flags (enum ppf_sample_flags). */
struct pp_records_at {
	uint64_t time_ns;
	unsigned event;
	uint16_t flags;
};

/*
 * Runs in signal context. PPF_REC_STACK_SAMPLE: the stack of
 * pp_records_stack_sigsafe with its first sample, at.
 */
int pp_records_stack_sample_sigsafe(struct pp_logfile *log, uint32_t id, const uint64_t *ips,
				    unsigned nframes, uint32_t base, unsigned shared,
				    const struct pp_records_at *at);

/* Entries a PPF_REC_SAMPLE_BLOCK has room for (the most it holds). */
#define PP_RECORDS_BLOCK_ENTRIES 128u

/*
 * Runs in signal context. One sample of stack id stack, taken at time_ns
 * for event with flags: an entry added to the log's last record when that
 * is a PPF_REC_SAMPLE_BLOCK it fits in (same event and flags, time within
 * 2^32 ns of its base, room left), else to a new block (logfile.h: the
 * block is the log's open record until another record is written).
 */
int pp_records_block_entry_sigsafe(struct pp_logfile *log, uint32_t stack, uint64_t time_ns,
				   unsigned event, uint16_t flags);

/*
 * Runs in signal context. PPF_REC_SAMPLE_WEIGHT: the next sample written
 * stands for overflows overflows of period events each (0: not known).
 */
int pp_records_sample_weight_sigsafe(struct pp_logfile *log, uint64_t overflows,
				     uint64_t period);

/* Async-signal-safe. PPF_REC_THREAD_NAME: the thread was called name at time_ns. */
int pp_records_thread_name_sigsafe(struct pp_logfile *log, uint64_t time_ns,
				   const char *name);

/*
 * Async-signal-safe. PPF_REC_THREAD_EVENT of a sampling event: the thread's
 * counts; no_counter: in the signal mode, the thread had no event of its
 * own for it (it was not sampled).
 */
int pp_records_thread_samples_sigsafe(struct pp_logfile *log, unsigned event,
				      const struct pp_records_counts *counts, int no_counter);

/*
 * Async-signal-safe. PPF_REC_THREAD_EVENT of a counting event: the thread's
 * counter, NULL when it had none; late: it was opened at the thread's
 * first sample (PPF_THREAD_EVENT_LATE_COUNTER).
 */
int pp_records_thread_counter_sigsafe(struct pp_logfile *log, unsigned event,
				      const struct pp_counter_value *cv, int late);

/*
 * Async-signal-safe. PPF_REC_THREAD_BLOCKED at now: the CPU time the thread
 * ran holding the program's own signal, how many times it began to, and
 * flags (enum ppf_thread_blocked_flags).
 */
int pp_records_thread_blocked_sigsafe(struct pp_logfile *log, uint64_t now,
				      uint64_t held_cpu_ns, uint32_t holds, uint32_t flags);

/* What a PPF_REC_PROCESS_PAUSED or PPF_REC_THREAD_PAUSED says. */
struct pp_records_paused {
	uint64_t paused_ns;
	uint64_t other_ns; /* the process's delay_ns, or the thread's cpu_ns */
	uint32_t pauses;
	uint32_t flags;    /* enum ppf_paused_flags */
};

/*
 * Runs in signal context. Appends a PPF_REC_PROCESS_PAUSED or (type)
 * PPF_REC_THREAD_PAUSED record, taken at now.
 */
int pp_records_paused_sigsafe(struct pp_logfile *log, uint32_t type, uint64_t now,
			      const struct pp_records_paused *p);

/*
 * Async-signal-safe. PPF_REC_THREAD_END: the thread ends at end_ns, with its
 * totals and CPU time.
 */
int pp_records_thread_end_sigsafe(struct pp_logfile *log, uint64_t end_ns,
				  const struct pp_records_counts *counts,
				  const struct pp_records_cpu *cpu);

/*
 * Runs in signal context. PPF_REC_THREAD_PROGRESS: at time_ns the calling
 * thread had these totals and had used this CPU time (its user and system
 * parts); with its name, and the whole process's CPU time (proc; NULL when
 * not taken).
 */
int pp_records_thread_progress_sigsafe(struct pp_logfile *log, uint64_t time_ns,
				       const struct pp_records_counts *counts,
				       const struct pp_records_cpu *cpu,
				       const struct pp_records_cpu *proc);

/* The same for another thread than the caller, named name ("": none known). */
int pp_records_thread_progress_of_sigsafe(struct pp_logfile *log, uint64_t time_ns,
					  const struct pp_records_counts *counts,
					  const struct pp_records_cpu *cpu,
					  const struct pp_records_cpu *proc, const char *name);

/*
 * Runs in signal context (written from the wall helper, wall.h). One of
 * wall.log's records (PPF_REC_WALL_*): rec, size bytes, filled by the
 * caller but for its header. Returns 0 or -ENOSPC.
 */
int pp_records_wall_sigsafe(struct pp_logfile *log, uint32_t type, void *rec, uint32_t size);

#endif
