/*
 * reader: loads a run's logs (see include/pprof/format.h) into plain structs.
 *
 * A run directory holds one <exe>.<pid>/ directory per process, each with
 * process.log and thread-<tid>.log files. Every file is treated as hostile:
 * every size is checked against the bytes left and PPF_RECORD_MAX before use.
 *
 * Errors (the load fails, nothing is returned):
 *   - wrong magic, byte order, version or file kind (offset 0);
 *   - a record whose size is < 8, not a multiple of 8, above PPF_RECORD_MAX,
 *     smaller than its fixed part (PPF_EVENT_V1_SIZE for an EVENT record,
 *     whose later fields read as zero when absent), or inconsistent with
 *     its own fields (nframes, exe_len + cmdline_len, path_len, source_len
 *     + text_len, a name without its NUL, an event without a name, a stack
 *     record whose id is not the count of those before it, a sample block
 *     entry naming a stack not written before it, ...);
 *   - a second PROCESS, CONFIG or THREAD record, a second EVENT with the
 *     same index, a second THREAD_EVENT for the same event in one thread;
 *   - a directory holding no process directory.
 * Warnings (the load goes on, what came before is kept):
 *   - a record that runs past the end of the file ("truncated at offset N";
 *     of a sample block cut short, the whole entries before the cut are read);
 *   - a log without its END record ("not finalised"), except for a process
 *     whose image exec replaced (struct pa_process.replaced): its
 *     process.log ends with PPF_REC_EXEC and its thread logs stop without
 *     END records by design, so nothing is said about them (the
 *     `processes` report shows "exec PATH"); and, when a whole run or
 *     process directory is loaded, for a process that ended without its
 *     END record otherwise (a raw exit_group, a kill; not a full disk):
 *     neither its logs nor its threads' are warned about one by one, the
 *     run says once how many processes ended so ("N processes ended
 *     without an end record (raw exit_group or killed): ...");
 *   - records of unknown type, skipped by their size (one warning per file
 *     with the count);
 *   - a thread log with totals (PPF_REC_THREAD_EVENT) for an event that its
 *     process.log does not list;
 *   - a thread log, or a process.log, that is not a regular file (a FIFO,
 *     a directory, a device, a socket, a symbolic link: see regfile.h): it
 *     is skipped (a process.log with its process) and the rest is read;
 *     unless no process at all could be read, which is the error.
 *   - logs that stopped early because they could not grow (PPF_REC_LOG_FULL:
 *     a full disk): one warning per process, on its directory, counting
 *     them.
 *
 * Everything is owned by the struct pa_run (or the struct returned by the
 * single-file loaders) and freed by the matching _free function. All
 * pointers inside stay valid until then.
 */
#ifndef PA_READER_H
#define PA_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprof/format.h"
#include "window.h"

#define PA_ERROR_REASON_MAX 256
#define PA_ERROR_PATH_MAX 4096

/*
 * Why something failed. Filled by every analyzer module that can fail; only
 * analyze/main.c prints it, as "pprof-analyze: PATH: offset N: REASON" (no
 * offset part when has_offset is false, no path part when path is empty).
 */
struct pa_error {
	char path[PA_ERROR_PATH_MAX];     /* file or directory, "" if none */
	uint64_t offset;                  /* byte offset in path */
	bool has_offset;                  /* offset is meaningful */
	char reason[PA_ERROR_REASON_MAX]; /* human-readable, no trailing newline */
};

/* A non-fatal problem, printed as "pprof-analyze: warning: PATH: offset N: REASON". */
struct pa_warning {
	char *path;
	uint64_t offset;
	bool has_offset;
	char *reason;
};

/* A growable list of warnings; zero-initialise it, release it with pa_warnings_release. */
struct pa_warnings {
	struct pa_warning *v;
	size_t n;
	size_t cap;
};

/*
 * One PPF_REC_EVENT. Logs written before config1 were added (104-byte
 * records) read with config1, config2, precise_ip and error 0 and spec a
 * copy of name (then the event's perf name).
 */
struct pa_event {
	uint32_t index;   /* what pa_sample.event refers to */
	uint32_t type;    /* perf_event_attr.type */
	uint64_t config;  /* perf_event_attr.config */
	uint64_t config1; /* perf_event_attr.config1 */
	uint64_t config2; /* perf_event_attr.config2 */
	uint64_t period;  /* sample period, or Hz with PPF_EVENT_FREQ; 0 counting */
	uint32_t flags;   /* enum ppf_event_flags */
	uint32_t error;   /* errno with PPF_EVENT_UNAVAILABLE, else 0 */
	uint32_t precise_ip;
	char name[PPF_NAME_MAX]; /* the configuration's section name */
	char spec[PPF_NAME_MAX]; /* the event as written ("cycles:u"); never empty */
};

/*
 * The PPF_REC_CONFIG record: the configuration in force in a process.
 * known is false when the log has none (written before it existed); then
 * every other field is 0 or NULL and reports say "unknown".
 */
struct pa_config {
	bool known;
	uint32_t mode_request; /* enum ppf_mode_request, as recorded (may be out of range) */
	uint32_t max_frames;
	uint32_t flags;        /* enum ppf_config_flags */
	char *source;          /* INI file's path, or "(embedded default)" */
	char *text;            /* the configuration text, text_len bytes then a NUL */
	size_t text_len;       /* may hold NUL bytes the file held */
};

/*
 * One PPF_REC_THREAD_EVENT: a thread's totals for one event, written when
 * the thread ended (so absent from a log cut short, or ended by exec).
 */
struct pa_thread_event {
	uint32_t event; /* pa_event.index */
	uint32_t flags; /* enum ppf_thread_event_flags */
	uint64_t samples; /* sampling events: taken, lost and throttled */
	uint64_t lost;
	uint64_t throttled; /* not taken, to bound the profiler's cost */
	uint64_t value;   /* counting events with PPF_THREAD_EVENT_COUNTED */
	uint64_t time_enabled;
	uint64_t time_running;
};

/* One PPF_REC_MODULE, with its unload time when a PPF_REC_MODULE_UNLOAD named it. */
struct pa_module {
	uint64_t id;
	uint64_t bias;  /* runtime address = ELF vaddr + bias */
	uint64_t start; /* [start, end): its PT_LOAD segments in memory */
	uint64_t end;
	uint64_t pgoff;
	uint64_t load_ns;
	uint64_t unload_ns; /* UINT64_MAX if never unloaded */
	uint32_t build_id_len; /* 0 when none was recorded */
	uint8_t build_id[PPF_BUILD_ID_MAX];
	char *path; /* as recorded; may be "" (then the process exe is used) */
	char *vdso_image; /* the vDSO's: its image's file name at the run's root
			     (PPF_REC_VDSO), else NULL */
	/* Without a build-id: its file as mapped (PPF_REC_MODULE_FILE), when has_file. */
	bool has_file;
	uint64_t file_size, file_mtime_ns;
};

/*
 * One PPF_REC_THREAD_UNSAMPLED: a thread the profiler could not sample. It
 * has no thread log, so no struct pa_thread; reports that list threads show
 * it with the reason (pa_unsampled_reason).
 */
struct pa_unsampled {
	uint32_t tid;
	uint32_t what;   /* enum ppf_unsampled_what, as recorded (may be out of range) */
	uint64_t time_ns;
	int32_t error;   /* errno of what failed */
	char name[PPF_THREAD_NAME_MAX + 1]; /* its name when it started; may be "" */
};

/* One PPF_REC_EXEC: an exec attempt, which failed unless it is the last record. */
struct pa_exec {
	uint64_t time_ns;
	char *path; /* as passed to exec */
};

/*
 * The process's CPU time (user space and kernel, every thread's, and the
 * images before an exec's) at one moment, from a PPF_REC_PROCESS_CPU.
 */
struct pa_cpu_mark {
	bool known;      /* the record was read */
	uint64_t user_ns;
	uint64_t system_ns;
	uint32_t tid;    /* the thread that wrote it (the main thread), and */
	uint64_t thread_user_ns;   /* its own CPU time then */
	uint64_t thread_system_ns;
};

/* One PPF_REC_UNPROFILED: a program it started that the preload could not enter. */
struct pa_unprofiled {
	uint64_t time_ns;
	uint32_t pid;    /* the program's process (this one's own after an exec) */
	uint32_t why;    /* enum ppf_unprofiled_why, as recorded */
	char *path;
};

/* A PPF_REC_LOG_FULL: the log stopped early, the file could not grow. */
struct pa_log_full {
	bool full;       /* the record was read; the fields below come from it */
	uint64_t time_ns;
	int32_t error;   /* errno: ENOSPC, EDQUOT, EFBIG, ... */
};

/*
 * One sample: a PPF_REC_SAMPLE, or an entry of a PPF_REC_SAMPLE_BLOCK with
 * the PPF_REC_STACK it names (the samples of one stack share their ips).
 */
struct pa_sample {
	uint64_t time_ns;
	uint32_t event;        /* pa_event.index */
	uint16_t flags;        /* enum ppf_sample_flags */
	uint16_t nframes;      /* 1..PPF_MAX_FRAMES */
	uint64_t count;        /* overflows this entry stands for: 1, or its
				  PPF_REC_SAMPLE_WEIGHT's count (a late sample
				  whose signal merged several), summed when
				  pa_load_opts.collapse merged identical ones;
				  with a period in that record (a frequency-mode
				  event whose period the kernel adjusts), the
				  events: overflows times period. Every report
				  counts samples by it */
	const uint64_t *ips;   /* nframes addresses: ips[0] interrupted, then callers */
};

/*
 * How long sampling was paused (PPF_REC_PROCESS_PAUSED,
 * PPF_REC_THREAD_PAUSED; all 0 without one: never paused, or a log cut
 * short).
 */
struct pa_paused {
	uint64_t paused_ns; /* wall time paused */
	uint64_t cpu_ns;    /* a thread's: CPU time it used while paused */
	uint64_t delay_ns;  /* a process's: the configuration's delay */
	uint32_t pauses;
	uint32_t flags;     /* enum ppf_paused_flags */
};

/*
 * The PPF_REC_IDENTITY record: who and where a process ran. known is false
 * in logs written before it (then host and job are NULL, rank and
 * world_size -1, the rest 0): such processes are taken to be of one host
 * and boot (pa_identity_same_pid_space).
 */
struct pa_identity {
	bool known;
	char *host;            /* uname's nodename, as recorded (may be "") */
	char *job;             /* the launcher's job id; "" when none */
	uint8_t boot_id[16];   /* all zero when the writer could not read it */
	int32_t rank;          /* MPI rank, -1 when none */
	int32_t world_size;    /* -1 when none */
	uint32_t rank_source;  /* enum ppf_rank_source, as recorded */
	uint64_t anchor_mono_ns; /* CLOCK_MONOTONIC ... */
	uint64_t anchor_real_ns; /* ... and CLOCK_REALTIME at one moment */
};

/* Events whose samples a thread's progress records are counted for (the writer's most). */
#define PA_PROGRESS_EVENTS 16

/* One thread-<tid>.log. */
struct pa_thread {
	uint32_t pid;
	uint32_t tid;
	char name[PPF_THREAD_NAME_MAX + 1]; /* the latest of PPF_REC_THREAD's,
					       PPF_REC_THREAD_NAME's and (before
					       END) PPF_REC_THREAD_PROGRESS's */
	uint64_t start_ns;
	bool ended;            /* PPF_REC_THREAD_END was read; the fields below come from it */
	uint64_t end_ns;
	uint64_t samples_taken; /* as the writer counted them (0 if !ended) */
	/*
	 * Without END, lost, throttled and the CPU times come from the last
	 * PPF_REC_THREAD_PROGRESS (progress), as far as the thread had got
	 * then; 0 without one either.
	 */
	uint64_t lost;          /* dropped in this thread */
	uint64_t throttled;     /* not taken, to bound the profiler's cost */
	uint64_t cpu_ns;        /* thread CPU time at the end, 0 if unknown */
	/*
	 * From PPF_REC_THREAD_BLOCKED (0 without one): the CPU time the thread
	 * ran with the sampling signal blocked to hold back the program's own
	 * signal (not sampled), how many times, and enum ppf_thread_blocked_flags.
	 */
	uint64_t held_cpu_ns;
	uint32_t holds;
	uint32_t blocked_flags;
	struct pa_paused paused; /* its events paused (PPF_REC_THREAD_PAUSED) */
	uint64_t user_ns;       /* its parts in user space and in the kernel; */
	uint64_t system_ns;     /* both 0 when not known (older logs) */
	bool progress;          /* a PPF_REC_THREAD_PROGRESS was read */
	uint64_t progress_ns;   /* the last one's time */
	/*
	 * The samples read before the last one, by event index (below
	 * PA_PROGRESS_EVENTS), weighted as pa_sample.count: those its CPU
	 * times cover (coverage.h); NULL without one, or when memory was short.
	 */
	uint64_t *progress_samples;
	bool cpu_at_progress;   /* ended, its END without CPU times: the CPU
				   times are still its last progress record's */
	uint64_t proc_ns;       /* the last one with the process's CPU time: */
	uint64_t proc_user_ns;  /* its time, and that CPU time (0: none) */
	uint64_t proc_system_ns;
	struct pa_log_full full; /* stopped early: samples after it are in lost */
	struct pa_sample *samples; /* in file order (time order; wall samples,
				      wall.h, merged in by time) */
	size_t nsamples;
	/*
	 * From wall.log (wall.h): its time off the CPU by enum ppf_wall_state,
	 * in ns; all 0 without one.
	 */
	uint64_t off_ns[PPF_WALL_STATES];
	/* Its time wall.log cannot tell on or off the CPU: switch records lost. */
	uint64_t wall_lost_ns;
	struct pa_thread_event *events; /* per-event totals, in file order */
	size_t nevents;
	size_t unknown_records; /* records of unknown type skipped */
	char *path;             /* the log file */
	/*
	 * Read with pa_load_opts.stream: samples holds the collapsed
	 * samples, pa_thread_each_sample gives them one by one from the
	 * log: the first stream_samples of it, the samples read then (a log
	 * still being written has more now).
	 */
	bool stream;
	uint64_t stream_samples;
	uint64_t *ip_storage;   /* private: backs samples[].ips */
	size_t ip_mapped;       /* private: ip_storage is a file mapping of this length */
	void *ip_blocks;        /* private: back samples[].ips when collapsed */
	/*
	 * Private: collapsed with a wall.log, its samples of the CPU event
	 * (pa_wall_cpu_event) one by one in file order, for pa_wall_load,
	 * which frees them.
	 */
	struct pa_cpu_when *cpu_when;
	size_t ncpu_when;
};

struct pa_wall_info;

/*
 * One sample of a thread in time: when, its entry in samples, and its
 * count (a larger count is several of these in a row).
 */
struct pa_cpu_when {
	uint64_t time_ns;
	uint32_t entry;
	uint32_t count;
};

/* Appends (time_ns, entry, count) to *v (n, cap as pa_grow's): -ENOMEM. */
int pa_cpu_when_add(struct pa_cpu_when **v, size_t *n, size_t *cap, uint64_t time_ns,
		    uint32_t entry, uint64_t count);

/* One <exe>.<pid>/ directory. */
struct pa_process {
	uint32_t pid;
	uint32_t ppid;
	char *exe;       /* absolute path of the executable */
	char **argv;     /* argc strings, then NULL */
	size_t argc;
	uint32_t mode;   /* enum ppf_mode: the sampling mode in force */
	uint32_t signal; /* the signal samples came on (0: off, or not recorded) */
	struct pa_config config; /* what the configuration asked for */
	struct pa_identity id;   /* host, boot, rank (PPF_REC_IDENTITY) */
	uint64_t start_ns;
	uint64_t start_realtime_ns;
	bool ended;      /* PPF_REC_PROCESS_END was read; the fields below come from it */
	uint64_t end_ns;
	uint64_t samples_taken; /* all threads, as the writer counted them */
	uint64_t lost;
	uint64_t throttled;
	uint32_t exit_how;      /* enum ppf_exit_how; PPF_EXIT_UNKNOWN if !ended */
	int32_t exit_status;    /* exit status, or signal number with PPF_EXIT_SIGNAL */
	uint64_t user_ns;       /* CPU time of all its threads, in user space and */
	uint64_t system_ns;     /* in the kernel; both 0 when not known */
	/*
	 * Without END: the process's CPU time as its threads' logs last
	 * recorded it (PPF_REC_THREAD_PROGRESS), threads never sampled
	 * included; both 0 when not known.
	 */
	uint64_t last_user_ns;
	uint64_t last_system_ns;
	struct pa_log_full full; /* process.log stopped early: modules loaded
				    and exec attempts made after it are missing */
	struct pa_paused paused; /* sampling paused (PPF_REC_PROCESS_PAUSED: the last) */
	struct pa_event *events; /* in file order */
	size_t nevents;
	struct pa_module *modules; /* in file order */
	size_t nmodules;
	struct pa_exec *execs;   /* exec attempts, in file order */
	size_t nexecs;
	struct pa_unsampled *unsampled; /* threads it could not sample, sorted by tid */
	size_t nunsampled;
	struct pa_unprofiled *unprofiled; /* in file order */
	size_t nunprofiled;
	/*
	 * Its CPU time when the profiler's constructor began, when sampling
	 * started (what came before no sample covers), and at its last exec
	 * attempt (PPF_REC_PROCESS_CPU); not known in older logs.
	 */
	struct pa_cpu_mark cpu_entry;
	struct pa_cpu_mark cpu_sampling;
	struct pa_cpu_mark cpu_exec;
	/*
	 * The CPU time no sample covers, before sampling started in this
	 * image (cpu_sampling less the previous image's cpu_exec), and the
	 * pseudo-thread its estimated samples are counted in (before.h; not
	 * among threads); set by pa_before_link, else unknown and NULL.
	 */
	struct pa_cpu_mark before;
	struct pa_thread *before_thread;
	/*
	 * The CPU time of the images before this one (exec) that none of this
	 * one's threads carries on: the previous image's at its exec less that
	 * of the thread that exec'd (which goes on as this one's main thread);
	 * the process's clock holds it, no thread log of this image does. Set
	 * by pa_before_link, else 0.
	 */
	uint64_t carried_ns;
	bool replaced;   /* the image was replaced by exec: process.log ends with
			    PPF_REC_EXEC (execs[nexecs - 1]) and has no END; the
			    new image has a directory of its own, same pid */
	struct pa_thread **threads; /* sorted by tid; with those of quiet that have
				       no log (pa_process_load) */
	size_t nthreads;
	struct pa_wall_info *wall; /* its wall.log (wall.h), NULL without one */
	/*
	 * Threads that took no sample, as process.log names them
	 * (PPF_REC_THREAD_QUIET; the last of each tid), each made a thread
	 * with no sample: ended (or replaced by exec) as the record says, its
	 * path the process.log. pa_process_load moves those that have no
	 * thread log into threads.
	 */
	struct pa_thread **quiet;
	size_t nquiet;
	size_t unknown_records; /* in process.log */
	bool events_unread; /* an event.<key> it names could not be read (said) */
	char *dir;       /* the process directory ("" for pa_process_log_load) */
	char *run_dir;   /* pa_runs_merge given several: the one that held it; else NULL */
	char *path;      /* its process.log */
};

/* A whole run. */
struct pa_run {
	char *dir;
	struct pa_process **processes; /* sorted by pid */
	size_t nprocesses;
	struct pa_warnings warnings;   /* from every file, in load order */
};

/*
 * How thread logs are read; zeroed (or a NULL pointer) keeps every sample
 * as its own pa_sample, in file order.
 *
 * collapse: a thread's samples that cannot be told apart by any report
 * but a time-ordered one (same event, flags and addresses, taken while the
 * same modules were mapped: no module unloaded between them) become one
 * pa_sample whose count says how many; its time_ns is the latest one's.
 * Order is first appearance. Memory then grows with a thread's distinct
 * stacks, not with its samples: addresses are copied out and each log's
 * mapping is released as it is read.
 *
 * window: only the samples it holds (window.h) are kept, as
 * pa_filter_selects_time keeps them; the others are not read into memory
 * at all.
 */
struct pa_load_opts {
	bool collapse;
	/*
	 * stream: for a report that takes every sample one by one in time
	 * order (pa_thread_each_sample): a thread is read collapsed, as above,
	 * for everything else, and marked to be read again sample by sample
	 * (pa_thread.stream), so that memory follows its distinct stacks. Not
	 * the threads of a process with a wall.log (wall.h), whose wall
	 * samples are merged in as they are read: those keep every sample.
	 */
	bool stream;
	struct pa_window window;
};

/*
 * Load every <exe>.<pid>/ directory under dir (a directory is a process
 * directory when it holds a process.log). Returns 0 and sets *out, to be
 * freed with pa_run_free; or a negative errno (-EINVAL for bad content,
 * -ENOENT when there is no process directory, ...) with err filled and *out
 * set to NULL. pa_run_load_opts reads thread logs as opts says (may be NULL).
 */
int pa_run_load(const char *dir, struct pa_run **out, struct pa_error *err);
int pa_run_load_opts(const char *dir, const struct pa_load_opts *opts, struct pa_run **out,
		     struct pa_error *err);
void pa_run_free(struct pa_run *run);

/*
 * Load one process directory: its process.log and every thread-*.log, read
 * as opts says (may be NULL). Same return convention; warnings are appended
 * to warn (which may be NULL).
 */
int pa_process_load_opts(const char *dir, const struct pa_load_opts *opts,
			 struct pa_process **out, struct pa_warnings *warn,
			 struct pa_error *err);

/*
 * The path of proc's file what ("wall.log", "vdso.so", "thread-<tid>.log")
 * in the layout its log is in: beside its log at the run's root,
 * <P>.<what> (proc->dir being <root>/<P>), or in its directory in older
 * runs, <P>/<what>. malloc'd; NULL when out of memory.
 */
char *pa_process_file(const struct pa_process *proc, const char *what);

/*
 * name in the parent of the directory whose path is the len bytes at dir,
 * by that path (DIR/P -> DIR/name, P -> name): a process directory of an
 * older run that is a symbolic link has its run's root there, where
 * DIR/P/.. would be the link target's parent. "." and ".." (and "") are
 * taken as DIR/../name. malloc'd; NULL when out of memory.
 */
char *pa_parent_file(const char *dir, size_t len, const char *name);

/* Load a single process.log (no threads). */
int pa_process_log_load(const char *path, struct pa_process **out,
			struct pa_warnings *warn, struct pa_error *err);

/*
 * The samples of t, read with pa_load_opts.stream (t->stream), one by one
 * in file order (time order) as they are in its log, uncollapsed: fn(ctx,
 * s) for each, s and its addresses valid during the call only; the log is
 * read again, its pages given back as they are read, its distinct stacks
 * kept meanwhile, up to the samples read when it was loaded (a log still
 * being written has more now, which its load did not count). The time
 * window is not applied (the caller's pa_filter_selects_time does).
 * Returns 0, fn's negative return, which stops the reading, or a negative
 * errno with err filled: the log went away, or changed otherwise than by
 * growing (fewer samples, another thread's).
 */
int pa_thread_each_sample(const struct pa_thread *t,
			  int (*fn)(void *ctx, const struct pa_sample *s), void *ctx,
			  struct pa_error *err);

/* Load a single thread-<tid>.log. */
int pa_thread_log_load(const char *path, struct pa_thread **out,
		       struct pa_warnings *warn, struct pa_error *err);

/*
 * The same from memory (tests, the fuzz target tests/fuzz/fuzz_reader.c):
 * size bytes at data (copied; the caller keeps data) read as the file name,
 * which messages name. pa_thread_log_parse reads the log as
 * pa_process_load_opts reads a thread log of proc: with opts (may be NULL),
 * and with proc's checks (its pid, its events) when proc is not NULL.
 */
int pa_process_log_parse(const char *name, const void *data, size_t size,
			 struct pa_process **out, struct pa_warnings *warn,
			 struct pa_error *err);
int pa_thread_log_parse(const char *name, const void *data, size_t size,
			const struct pa_process *proc, const struct pa_load_opts *opts,
			struct pa_thread **out, struct pa_warnings *warn,
			struct pa_error *err);

void pa_process_free(struct pa_process *proc);
void pa_thread_free(struct pa_thread *thread);

/*
 * Called for each record of a log pa_log_walk_file reads: rec points at the
 * whole record (size >= 8 bytes, checked against the file), off is its
 * offset. Returns 0 or a negative errno with err filled.
 */
typedef int (*pa_log_record_fn)(void *ctx, const char *path, uint64_t off, const char *rec,
				uint32_t type, uint32_t size, struct pa_error *err);

/*
 * Reads the log at path (of enum ppf_file_kind kind: its header checked)
 * and calls fn(ctx) for each record, as the process and thread logs are
 * read (a truncated tail is a warning). Returns 0 or a negative errno with
 * err filled.
 */
int pa_log_walk_file(const char *path, uint16_t kind, pa_log_record_fn fn, void *ctx,
		     struct pa_warnings *warn, struct pa_error *err);
/* The same over size bytes at data (copied), which messages name name. */
int pa_log_walk_data(const char *name, const void *data, size_t size, uint16_t kind,
		     pa_log_record_fn fn, void *ctx, struct pa_warnings *warn,
		     struct pa_error *err);

/*
 * Room for n addresses that lives as long as thread t (for samples the
 * analyzer adds to it, wall.h); NULL when out of memory.
 */
uint64_t *pa_thread_take_ips(struct pa_thread *t, size_t n);

/*
 * proc's module unload times, ascending, into *out (malloc'd, the
 * caller's; NULL when none) and *n: addresses of samples taken between
 * the same two unloads (the same epoch) mean the same. -ENOMEM.
 */
int pa_process_unloads(const struct pa_process *proc, uint64_t **out, size_t *n);
/* The epoch of time_ns: how many of unloads[0..n) (ascending) are at or before it. */
size_t pa_unloads_epoch(const uint64_t *unloads, size_t n, uint64_t time_ns);

/*
 * How many thread logs this process has read so far (any thread may ask,
 * while a load runs on others): for a progress display.
 */
size_t pa_reader_logs_read(void);

/* Find by id; NULL if absent. */
const struct pa_event *pa_process_find_event(const struct pa_process *proc, uint32_t index);
/* The event whose name is name, else the first whose spec is name; NULL if none. */
const struct pa_event *pa_process_find_event_named(const struct pa_process *proc,
						   const char *name);
const struct pa_thread_event *pa_thread_find_event(const struct pa_thread *thread,
						   uint32_t index);

/*
 * Why the profiler could not sample u, in words ("over the profiler's share
 * of RLIMIT_AS", "no log: Too many open files", ...), into buf.
 */
void pa_unsampled_reason(const struct pa_unsampled *u, char *buf, size_t size);

/* The basename of proc->exe ("" when unknown); points into proc->exe. */
const char *pa_process_exe_base(const struct pa_process *proc);

/* Whether proc runs name: its executable's basename or full path equals name. */
bool pa_process_runs(const struct pa_process *proc, const char *name);

/*
 * Whether a and b ran in one pid space: the same host and boot
 * (struct pa_identity; processes of logs without it count as one host), so
 * that their pids, ppids and monotonic times can be compared.
 * pa_process_cmp_pid_space orders pid spaces (host name, then boot id).
 */
bool pa_process_same_pid_space(const struct pa_process *a, const struct pa_process *b);
int pa_process_cmp_pid_space(const struct pa_process *a, const struct pa_process *b);

/* Append a warning (copies path and reason). Returns 0 or -ENOMEM. */
int pa_warnings_add(struct pa_warnings *warn, const char *path, bool has_offset,
		    uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void pa_warnings_release(struct pa_warnings *warn);

/* Fill err (err and path may be NULL) and return code, a negative errno. */
int pa_error_set(struct pa_error *err, int code, const char *path, bool has_offset,
		 uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif /* PA_READER_H */
