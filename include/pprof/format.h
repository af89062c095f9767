/*
 * The on-disk log format shared by libpprof.so (writer) and pprof-analyze
 * (reader). Nothing else lives here.
 *
 * A run writes every file into its output root, each process's named
 * after it, P being <exe>@<host>.<pid> (or <exe>@<host>.<pid>.<k> when
 * the name was taken; P always ends in a digit): <root>/P.log, its process
 * log; <root>/P.thread-<tid>.log, its thread logs (made at each thread's
 * first sample); <root>/P.wall.log; <root>/P.vdso.so (a vDSO copy of its
 * own, when the image could not go to the root). Runs before wrote a
 * directory per process that took a sample, <root>/P/ (<exe>.<pid>/ in
 * runs before the host was in the name), holding process.log,
 * thread-<tid>.log, wall.log and vdso.so, which readers still read. Below,
 * the files by their names in such a directory:
 *   process.log        header, PPF_REC_PROCESS, PPF_REC_IDENTITY (logs before
 *                      it have none), PPF_REC_CONFIG, PPF_REC_EVENT (or
 *                      PPF_REC_EVENT_REF, its record being in a file at
 *                      the root)...,
 *                      PPF_REC_MODULE (or PPF_REC_MODULE_REF, its record
 *                      being in a file at the root) and PPF_REC_MODULE_UNLOAD
 *                      as they happen (the vDSO's PPF_REC_MODULE or
 *                      PPF_REC_MODULE_REF followed by PPF_REC_VDSO),
 *                      PPF_REC_PROCESS_CPU (at the constructor, when
 *                      sampling starts, before each exec attempt),
 *                      PPF_REC_EXEC before each exec attempt,
 *                      PPF_REC_UNPROFILED for each program started that the
 *                      preload cannot enter,
 *                      PPF_REC_THREAD_UNSAMPLED for each thread the profiler
 *                      could not sample, PPF_REC_THREAD_QUIET for each
 *                      thread that ended (or was at an exec) without a
 *                      sample, PPF_REC_PROCESS_PAUSED (before
 *                      PPF_REC_PROCESS_END or PPF_REC_EXEC, when sampling
 *                      was paused at all), PPF_REC_PROCESS_END
 *   thread-<tid>.log   (made at the thread's first sample: a thread that
 *                      takes none has no log, only its PPF_REC_THREAD_QUIET;
 *                      one paused has a log)
 *                      header, PPF_REC_THREAD, the samples: PPF_REC_STACK,
 *                      PPF_REC_STACK_SAMPLE and PPF_REC_SAMPLE_BLOCK
 *                      records (or PPF_REC_SAMPLE
 *                      records, each with its whole stack; either kind may
 *                      be in any log; a PPF_REC_SAMPLE may follow a
 *                      PPF_REC_SAMPLE_WEIGHT), with a PPF_REC_THREAD_PROGRESS
 *                      among them now and then,
 *                      PPF_REC_THREAD_NAME, PPF_REC_THREAD_EVENT (one per
 *                      event), PPF_REC_THREAD_BLOCKED (when there is
 *                      something to say), PPF_REC_THREAD_PAUSED (when
 *                      its sampling was paused at all), PPF_REC_THREAD_END
 *   wall.log           (only with [sample wall]; written by the profiler's
 *                      helper thread) header of kind PPF_FILE_WALL,
 *                      PPF_REC_WALL_START, then as they are known: the
 *                      stacks of blocked threads (PPF_REC_STACK, numbered
 *                      in this log), PPF_REC_WALL_OLDER for each thread
 *                      older than the profiler, PPF_REC_WALL_INTERVAL for
 *                      each time a thread was off the CPU, PPF_REC_WALL_OPEN
 *                      for a wait still open a tick after it began,
 *                      PPF_REC_WALL_LOST when a thread's switch records
 *                      were lost, PPF_REC_WALL_YIELD for each stretch a
 *                      thread spent calling sched_yield, PPF_REC_WALL_THREAD for each thread at
 *                      its end; PPF_REC_WALL_END (at an exec too: when it
 *                      fails, the records go on after it, and the last END
 *                      holds the totals). One PPF_REC_WALL_ALIVE right
 *                      after the start, rewritten in place at every tick
 * and in any file PPF_REC_LOG_FULL when the file could not grow (a full
 * disk): only the closing records (the END records and a thread's name and
 * totals) follow it.
 *
 * The root (the directory that holds the processes' logs) also holds
 * what is written once for the whole run, whatever process wrote it first:
 *   vdso.<build-id>.so  the vDSO's image (struct ppf_vdso)
 *   module.<key>        a header of kind PPF_FILE_SHARED and one
 *                       PPF_REC_MODULE (struct ppf_module_ref)
 *   event.<key>         a header of kind PPF_FILE_SHARED and one
 *                       PPF_REC_EVENT (struct ppf_event_ref)
 * Each is written whole under a name of its own, then linked to its name,
 * which is never replaced: a file of such a name is only ever whole.
 *
 * Records may grow at their end in later writers: a reader takes the fields
 * it knows from a record at least as large as their first version and
 * treats missing later fields as zero.
 *
 * Every file starts with struct ppf_file_header, then a sequence of records.
 * Every record starts with struct ppf_record {type, size}; size counts the
 * header, is a multiple of PPF_RECORD_ALIGN and at most PPF_RECORD_MAX, so a
 * reader skips a type it does not know by its size. Thread logs are
 * preallocated file mappings: a record header that is all zero marks the end
 * of what was written (a log whose process was killed has no END record and
 * may end in zeros). All integers are in the writer's byte order, which
 * ppf_file_header.byte_order tells; all times are CLOCK_MONOTONIC nanoseconds
 * unless the field says otherwise.
 */
#ifndef PPROF_FORMAT_H
#define PPROF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PPF_MAGIC "PPROFLOG" /* 8 bytes, no NUL stored */
#define PPF_MAGIC_LEN 8
#define PPF_VERSION 1
#define PPF_BYTE_ORDER_MARK 0x01020304u

#define PPF_RECORD_ALIGN 8u
#define PPF_RECORD_MAX (1u << 20)
#define PPF_MAX_FRAMES 512u
#define PPF_BUILD_ID_MAX 32u
#define PPF_NAME_MAX 64u
#define PPF_THREAD_NAME_MAX 16u

#define PPF_PROCESS_LOG "process.log"
#define PPF_THREAD_LOG_PREFIX "thread-"
#define PPF_LOG_SUFFIX ".log"
/*
 * A JIT's perf map (lines "START SIZE NAME", as perf reads from
 * /tmp/perf-<pid>.map), copied beside its process's log when it ended:
 * <exe>@<host>.<pid>.perf.map.
 */
#define PPF_PERFMAP_FILE "perf.map"
#define PPF_PERFMAP_SUFFIX "." PPF_PERFMAP_FILE

enum ppf_file_kind {
	PPF_FILE_PROCESS = 1,
	PPF_FILE_THREAD = 2,
	PPF_FILE_WALL = 3,
	PPF_FILE_SHARED = 4, /* a file at the root written once for the run */
};

#define PPF_WALL_LOG "wall.log"

struct ppf_file_header {
	char magic[PPF_MAGIC_LEN]; /* PPF_MAGIC */
	uint32_t byte_order;       /* PPF_BYTE_ORDER_MARK as the writer stored it */
	uint16_t version;          /* PPF_VERSION */
	uint16_t kind;             /* enum ppf_file_kind */
	uint32_t header_size;      /* records start at this offset */
	uint32_t reserved;
};

struct ppf_record {
	uint32_t type; /* enum ppf_record_type */
	uint32_t size; /* whole record, header included, multiple of 8 */
};

enum ppf_record_type {
	/* process.log */
	PPF_REC_PROCESS = 1,
	PPF_REC_EVENT = 2,
	PPF_REC_MODULE = 3,
	PPF_REC_MODULE_UNLOAD = 4,
	PPF_REC_PROCESS_END = 5,
	PPF_REC_EXEC = 6,
	PPF_REC_CONFIG = 7,
	PPF_REC_THREAD_UNSAMPLED = 8,
	PPF_REC_PROCESS_CPU = 9,
	PPF_REC_UNPROFILED = 10,
	PPF_REC_THREAD_QUIET = 11,
	PPF_REC_VDSO = 13,
	PPF_REC_PROCESS_PAUSED = 14,
	PPF_REC_MODULE_REF = 15,
	PPF_REC_EVENT_REF = 40,
	PPF_REC_IDENTITY = 43,
	PPF_REC_MODULE_FILE = 44,
	/* thread-<tid>.log */
	PPF_REC_THREAD = 16,
	PPF_REC_SAMPLE = 17,
	PPF_REC_THREAD_NAME = 18,
	PPF_REC_THREAD_END = 19,
	PPF_REC_THREAD_EVENT = 20,
	PPF_REC_THREAD_BLOCKED = 23,
	PPF_REC_THREAD_PROGRESS = 25,
	PPF_REC_SAMPLE_WEIGHT = 28,
	PPF_REC_STACK = 32,
	PPF_REC_SAMPLE_BLOCK = 33,
	PPF_REC_THREAD_PAUSED = 37,
	PPF_REC_STACK_SAMPLE = 38,
	/* wall.log */
	PPF_REC_WALL_START = 50,
	PPF_REC_WALL_INTERVAL = 51,
	PPF_REC_WALL_THREAD = 52,
	PPF_REC_WALL_END = 53,
	PPF_REC_WALL_OLDER = 54,
	PPF_REC_WALL_OPEN = 57,
	PPF_REC_WALL_ALIVE = 58,
	PPF_REC_WALL_LOST = 59,
	PPF_REC_WALL_YIELD = 55,
	/* any file */
	PPF_REC_LOG_FULL = 21,
};

enum ppf_mode {
	PPF_MODE_SIGTRAP = 1, /* one inherited event per process, SIGTRAP */
	PPF_MODE_SIGNAL = 2,  /* per-thread events, F_SETOWN_EX */
	PPF_MODE_OFF = 3,     /* profiling could not start; see the stderr line */
};

/*
 * Followed by exe_len bytes of the executable's absolute path (NUL included)
 * and cmdline_len bytes of the command line (arguments each NUL-terminated),
 * then zero padding to the record size.
 */
struct ppf_process {
	struct ppf_record h;
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ns;
	uint64_t start_realtime_ns; /* CLOCK_REALTIME, for display */
	uint32_t mode;              /* enum ppf_mode */
	uint32_t exe_len;
	uint32_t cmdline_len;
	uint32_t signal;            /* the signal samples arrive on (SIGTRAP in
				       the sigtrap mode); 0 when off, or in logs
				       written before it was recorded */
};

/* Where a process's MPI rank came from (PPF_REC_IDENTITY.rank_source). */
enum ppf_rank_source {
	PPF_RANK_NONE = 0,  /* no launcher variable: rank and world_size are -1 */
	PPF_RANK_OMPI = 1,  /* Open MPI: OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE */
	PPF_RANK_PMI = 2,   /* MPICH/Hydra, Intel MPI (PMI): PMI_RANK, PMI_SIZE */
	PPF_RANK_PMIX = 3,  /* PMIx: PMIX_RANK (no size: world_size -1 unless
			       another variable gave it) */
	PPF_RANK_SLURM = 4, /* srun: SLURM_PROCID, SLURM_NTASKS */
};

/*
 * Who and where the process is, written right after PPF_REC_PROCESS: the
 * host (uname's nodename), the host's boot (the kernel's boot_id, so that
 * pids of one host and boot are one pid space: a reboot or another machine
 * starts another), the MPI rank and world size and the job, when a launcher
 * set them in the environment, and a wall-clock anchor: CLOCK_REALTIME
 * read between two CLOCK_MONOTONIC readings (anchor_mono_ns is their
 * middle), so that the monotonic times of processes on several hosts line
 * up as realtime = anchor_real_ns + (t - anchor_mono_ns).
 * Followed by host_len bytes of the host name (NUL included) and job_len
 * bytes of the job id (NUL included; 1 when none), then padding.
 */
struct ppf_identity {
	struct ppf_record h;
	uint64_t anchor_mono_ns;
	uint64_t anchor_real_ns;
	uint8_t boot_id[16];    /* PPF_BOOT_ID_PATH as bytes (ppf_boot_id_parse);
				   all zero when it could not be read */
	int32_t rank;           /* -1 when none */
	int32_t world_size;     /* -1 when none */
	uint32_t rank_source;   /* enum ppf_rank_source */
	uint32_t host_len;
	uint32_t job_len;
	uint32_t reserved;
};

/* Where ppf_identity.boot_id comes from: a UUID's text. */
#define PPF_BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/*
 * The len bytes at text (PPF_BOOT_ID_PATH's: 32 hex digits, dashes
 * between) as ppf_identity.boot_id's 16 bytes into id. Returns 1, or 0 with
 * id all zero when text is not one.
 */
static inline int ppf_boot_id_parse(const char *text, size_t len, uint8_t id[16])
{
	size_t k = 0;

	for (size_t i = 0; i < 16; i++)
		id[i] = 0;
	for (size_t i = 0; i < len && k < 32; i++) {
		char c = text[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (v < 0 && c != '-')
			break;
		if (v < 0)
			continue;
		id[k / 2] |= (uint8_t)(k % 2 ? v : v << 4);
		k++;
	}
	if (k == 32)
		return 1;
	for (size_t i = 0; i < 16; i++)
		id[i] = 0;
	return 0;
}

/* The sampling mode the configuration asked for (PPF_REC_CONFIG). */
enum ppf_mode_request {
	PPF_MODE_REQUEST_AUTO = 0,
	PPF_MODE_REQUEST_SIGTRAP = 1,
	PPF_MODE_REQUEST_SIGNAL = 2,
};

enum ppf_config_flags {
	PPF_CONFIG_FOLLOW_EXEC = 1u << 0,  /* exec hooks put the preload back */
	PPF_CONFIG_STRICT = 1u << 1,       /* start-up problems stop the program */
	PPF_CONFIG_UNAVAILABLE_OFF = 1u << 2, /* an unavailable event turns profiling off */
	PPF_CONFIG_FROM_FILE = 1u << 3,    /* source names an INI file, else embedded */
};

/*
 * The configuration in force. Followed by source_len bytes naming where it
 * came from (the INI file's absolute path, or "(embedded default)"; NUL
 * included), then text_len bytes of the configuration text as read (NUL
 * included), then padding.
 */
struct ppf_config {
	struct ppf_record h;
	uint32_t mode_request; /* enum ppf_mode_request */
	uint32_t max_frames;
	uint32_t flags;        /* enum ppf_config_flags */
	uint32_t source_len;
	uint32_t text_len;
	uint32_t reserved;
};

enum ppf_event_flags {
	PPF_EVENT_FREQ = 1u << 0,           /* period holds a frequency in Hz */
	PPF_EVENT_EXCLUDE_KERNEL = 1u << 1,
	PPF_EVENT_EXCLUDE_USER = 1u << 2,
	PPF_EVENT_TIME_NS = 1u << 3,        /* the counter counts nanoseconds */
	PPF_EVENT_COUNT = 1u << 4,          /* counting only: no samples, totals
					       in PPF_REC_THREAD_EVENT */
	PPF_EVENT_UNAVAILABLE = 1u << 5,    /* could not be opened (error says
					       why) and was skipped */
	PPF_EVENT_WALL = 1u << 7,           /* the wall-clock event (wall.log),
					       period in ns of wall time; not
					       on disk: the analyzer adds it */
	PPF_EVENT_MODE_REFUSED = 1u << 6,   /* with UNAVAILABLE: not opened, as
					       in this sampling mode its signal
					       would interrupt the program's
					       system calls (a switch-out event
					       in the signal mode); error is
					       EOPNOTSUPP */
};

/*
 * One per configured event, sampling or counting; samples name it by index.
 * The fields from config1 on were added after the first version (104 bytes).
 */
struct ppf_event {
	struct ppf_record h;
	uint32_t index;  /* PPF_REC_SAMPLE.event */
	uint32_t type;   /* perf_event_attr.type */
	uint64_t config; /* perf_event_attr.config */
	uint64_t period; /* sample_period, or Hz with PPF_EVENT_FREQ; 0 counting */
	uint32_t flags;  /* enum ppf_event_flags */
	uint32_t error;  /* errno with PPF_EVENT_UNAVAILABLE, else 0 */
	char name[PPF_NAME_MAX]; /* the section's name; NUL-terminated */
	uint64_t config1;
	uint64_t config2;
	uint32_t precise_ip;
	uint32_t reserved;
	char spec[PPF_NAME_MAX]; /* the event as the user wrote it ("cycles:u",
				    "r00c0"); NUL-terminated */
};

#define PPF_EVENT_V1_SIZE 104u

/*
 * A loaded ELF object. [start, end) covers its PT_LOAD segments in memory;
 * bias is the load bias (runtime address = ELF vaddr + bias); pgoff is the
 * file offset of its first PT_LOAD. Followed by path_len bytes of path (NUL
 * included) and padding. id is unique within the process; an unload names it.
 * load_ns is when the object was seen loaded (the process start for what was
 * there before the profiler).
 */
struct ppf_module {
	struct ppf_record h;
	uint64_t id;
	uint64_t bias;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t load_ns;
	uint32_t build_id_len; /* 0 when the object has none */
	uint32_t path_len;
	uint8_t build_id[PPF_BUILD_ID_MAX];
};

/*
 * The module of id module_id (the PPF_REC_MODULE just before) is the vDSO,
 * which has no file of its own. Its image was written once for the whole
 * run at the output root (the directory that holds the processes' logs),
 * named name there: "vdso.<its build-id in hex>.so", or
 * "vdso.xxh128-<XXH3-128 of the image in hex>.so" when it has none. The
 * module's path is that file's absolute path when it was written; a reader
 * finds it beside the process's log (or its directory), where the run is now. Followed by
 * name_len bytes of name (NUL included, no '/') and padding.
 * Logs without it (written before it was added, or when the image could
 * not be put at the root) name a copy of the process's own: P.vdso.so
 * beside its log, or "vdso.so" in its directory in older runs.
 */
struct ppf_vdso {
	struct ppf_record h;
	uint64_t module_id;
	uint32_t name_len;
	uint32_t reserved;
};

/*
 * The file of module module_id (the PPF_REC_MODULE just before), an object
 * without a build-id, as it was when the process mapped it: its size and
 * modification time (and device and inode), so that a reader tells a file
 * rebuilt or replaced since, whose addresses would name other functions.
 * Logs without it (written before it was added; an object the writer could
 * not stat) say nothing of the file.
 */
struct ppf_module_file {
	struct ppf_record h;
	uint64_t module_id;
	uint64_t size;
	uint64_t mtime_ns; /* st_mtim, in ns since the epoch */
	uint64_t dev;
	uint64_t ino;
};

#define PPF_VDSO_FILE_PREFIX "vdso."
/*
 * After the prefix, for a vDSO without a build-id: its image's XXH3-128
 * (high then low 64 bits, in hex), then ".so" (printf format, two
 * unsigned long long).
 */
#define PPF_VDSO_HASH_FMT "xxh128-%016llx%016llx"
#define PPF_VDSO_FILE_SUFFIX ".so"

/*
 * A module of this process whose record is written once for the whole run:
 * the file PPF_MODULE_FILE_PREFIX + key in 32 lower-case hex digits at the
 * output root (beside the process's log, or beside its directory in older
 * runs) holds a header of kind PPF_FILE_SHARED and one
 * PPF_REC_MODULE, whose path and build-id are the module's, whose id, bias
 * and load_ns are 0, and whose start and end are relative to the bias (its
 * pgoff is the module's). key is the XXH3-128 of the whole file (canonical,
 * big-endian bytes), so that processes that load the same file at any
 * address name the same record, and a reader knows a file that is not what
 * was written. This record says where this process has it: the module is
 * the file's record with this id, bias and load_ns and start and end plus
 * bias. Written instead of PPF_REC_MODULE for a module with a build-id when
 * the root takes the file; a PPF_REC_VDSO may follow it as it follows a
 * PPF_REC_MODULE.
 */
struct ppf_module_ref {
	struct ppf_record h;
	uint64_t id;
	uint64_t bias;
	uint64_t load_ns;
	uint8_t key[16];
};

#define PPF_MODULE_FILE_PREFIX "module."
#define PPF_MODULE_KEY_LEN 16u

/*
 * An event of this process whose PPF_REC_EVENT (index included) is the one
 * record of the file PPF_EVENT_FILE_PREFIX + key in hex at the output root,
 * key being the XXH3-128 of that whole file, as for struct ppf_module_ref:
 * processes with the same configuration share it. Written instead of
 * PPF_REC_EVENT when the root takes the file.
 */
struct ppf_event_ref {
	struct ppf_record h;
	uint8_t key[16];
};

#define PPF_EVENT_FILE_PREFIX "event."
#define PPF_VDSO_COPY "vdso.so" /* P.vdso.so beside P.log (vdso.so in P/, the older way) */

struct ppf_module_unload {
	struct ppf_record h;
	uint64_t id;
	uint64_t unload_ns;
};

/*
 * Written just before the process calls exec. If more records follow, the
 * exec failed and the process went on; if it is the last record (no
 * PPF_REC_PROCESS_END), the process image was replaced: the new image
 * writes its own <exe>@<host>.<pid>/ directory, with the same pid, and the logs of
 * this one end here without END records. Followed by path_len bytes of the
 * path passed to exec (NUL included) and padding.
 */
struct ppf_exec {
	struct ppf_record h;
	uint64_t time_ns;
	uint32_t path_len;
	uint32_t reserved;
};

enum ppf_exit_how {
	PPF_EXIT_UNKNOWN = 0, /* no END record: killed, or still running */
	PPF_EXIT_NORMAL = 1,  /* exit(), _exit() or return from main; status is set */
	PPF_EXIT_SIGNAL = 2,  /* status holds the signal number (abort(): SIGABRT) */
};

/*
 * The fields from throttled on were added after the first version (40
 * bytes), user_ns and system_ns after the second (48 bytes).
 */
struct ppf_process_end {
	struct ppf_record h;
	uint64_t end_ns;
	uint64_t samples; /* taken in this process, all threads */
	uint64_t lost;    /* dropped in this process, all threads */
	uint32_t how;     /* enum ppf_exit_how */
	int32_t status;
	uint64_t throttled; /* overflows not taken, all threads (see
			       ppf_thread_end.throttled) */
	uint64_t user_ns;   /* the process's CPU time in user space and in the
			       kernel, every thread's that ever ran in it
			       (getrusage(RUSAGE_SELF)); both 0 when unknown */
	uint64_t system_ns;
};

#define PPF_PROCESS_END_V1_SIZE 40u
#define PPF_PROCESS_END_V2_SIZE 48u

/* When a PPF_REC_PROCESS_CPU was taken. */
enum ppf_process_cpu_when {
	PPF_CPU_CONSTRUCTOR = 1, /* the profiler's constructor began (a fork
				    child: its fork handler began) */
	PPF_CPU_SAMPLING = 2,    /* sampling was about to start: everything
				    before was not sampled */
	PPF_CPU_EXEC = 3,        /* the process was about to call exec; the
				    new image's CPU time goes on from this */
};

/*
 * The process's CPU time so far (getrusage(RUSAGE_SELF): every thread that
 * ever ran in it, and, as the kernel keeps it across exec, the images it
 * ran before this one), in user space and in the kernel; and that of the
 * thread that wrote the record (RUSAGE_THREAD: the constructor's thread,
 * the program's main thread). The time before PPF_CPU_SAMPLING is CPU time
 * no sample covers: the dynamic loader's relocations, other libraries'
 * constructors, the profiler's own start.
 */
struct ppf_process_cpu {
	struct ppf_record h;
	uint64_t time_ns;
	uint64_t user_ns;
	uint64_t system_ns;
	uint32_t when;     /* enum ppf_process_cpu_when */
	uint32_t tid;      /* the thread that wrote it */
	uint64_t thread_user_ns;
	uint64_t thread_system_ns;
};

/* Why a program started by the process could not be profiled. */
enum ppf_unprofiled_why {
	PPF_UNPROFILED_STATIC = 1, /* statically linked: no PT_INTERP, so no
				      dynamic loader reads LD_PRELOAD */
};

/*
 * A program the process started (exec, posix_spawn) that the preload
 * cannot enter: it writes no logs. Written just before the exec (pid is
 * then the process's own) or after posix_spawn started it (the child's
 * pid). Followed by path_len bytes of the program's path (NUL included)
 * and padding.
 */
struct ppf_unprofiled {
	struct ppf_record h;
	uint64_t time_ns;
	uint32_t pid;
	uint32_t why;      /* enum ppf_unprofiled_why */
	uint32_t path_len;
	uint32_t reserved;
};

/* What kept a thread from being sampled (PPF_REC_THREAD_UNSAMPLED). */
enum ppf_unsampled_what {
	PPF_UNSAMPLED_SHARE = 1,    /* its sampling state would have taken the
				       profiler past its share of a limit:
				       error ENOMEM for RLIMIT_AS, EMFILE for
				       RLIMIT_NOFILE */
	PPF_UNSAMPLED_LOG = 2,      /* its log file could not be created */
	PPF_UNSAMPLED_ALTSTACK = 3, /* its alternate signal stack could not be
				       mapped */
	PPF_UNSAMPLED_EVENTS = 4,   /* signal mode: none of its sampling events
				       could be opened */
	PPF_UNSAMPLED_TABLE = 5,    /* no slot in the profiler's thread table:
				       error ENOSPC when it was full, ENOMEM
				       when there was no memory for it */
};

/*
 * A thread of this process that runs unsampled: it has no thread log (what
 * had been made for it is released), and the program's own thread runs as
 * it would without the profiler. Written when the thread started (or, for
 * the main thread, when the process did).
 */
struct ppf_thread_unsampled {
	struct ppf_record h;
	uint32_t tid;
	uint32_t what;    /* enum ppf_unsampled_what */
	uint64_t time_ns;
	int32_t error;    /* errno of what failed */
	uint32_t reserved;
	char name[PPF_THREAD_NAME_MAX]; /* the thread's name then; may be empty */
};

enum ppf_thread_quiet_flags {
	PPF_QUIET_EXEC = 1u << 0, /* written before an exec of the process: the
				     thread went on to the exec (its record
				     says what it had done by then); else the
				     thread ended */
};

/*
 * A thread that took no sample, and so has no thread log: what its log's
 * PPF_REC_THREAD and PPF_REC_THREAD_END would have said. Written when the
 * thread ended (or was finished at the process's end), and before each
 * exec attempt for the threads then alive (PPF_QUIET_EXEC; a thread whose
 * exec failed writes another record later: the last one of a tid holds).
 * A thread with anything more to say (samples, lost or throttled
 * overflows, counters, a blocked signal) has a thread log instead. A
 * killed process's threads that took no sample are named nowhere.
 */
struct ppf_thread_quiet {
	struct ppf_record h;
	uint32_t tid;
	uint32_t flags;    /* enum ppf_thread_quiet_flags */
	uint64_t start_ns; /* as in ppf_thread */
	uint64_t end_ns;   /* as in ppf_thread_end */
	uint64_t cpu_ns;
	uint64_t user_ns;
	uint64_t system_ns;
	char name[PPF_THREAD_NAME_MAX]; /* its name at the end; may be empty */
};

struct ppf_thread {
	struct ppf_record h;
	uint32_t pid;
	uint32_t tid;
	uint64_t start_ns;
	char name[PPF_THREAD_NAME_MAX]; /* NUL-terminated, may be empty */
};

enum ppf_sample_flags {
	PPF_SAMPLE_TRUNCATED = 1u << 0, /* the stack was deeper than recorded */
	PPF_SAMPLE_LEAF_ONLY = 1u << 1, /* unwinding was skipped; ips[0] only */
	PPF_SAMPLE_LATE = 1u << 2,      /* signal arrived after a block (async):
					   the stack is where it landed, and
					   with a PPF_REC_SAMPLE_WEIGHT the
					   sample stands for overflows that
					   happened before, elsewhere */
	PPF_SAMPLE_RECOVERED = 1u << 3, /* signal mode: an overflow whose signal
					   merged with another's, taken from the
					   event's ring buffer: ips[0] is where it
					   happened, as the kernel recorded it, and
					   the only frame (no stack) */
};

/*
 * One sample. ips[0] is the interrupted instruction; ips[1..] are return
 * addresses, innermost first (symbolise them at ip - 1).
 */
struct ppf_sample {
	struct ppf_record h;
	uint64_t time_ns;
	uint32_t event;   /* struct ppf_event.index */
	uint16_t flags;   /* enum ppf_sample_flags */
	uint16_t nframes; /* 1..PPF_MAX_FRAMES */
	uint64_t ips[];
};

/*
 * What the PPF_REC_SAMPLE right after it stands for, when that is not one
 * overflow of its event's configured period: overflows, how many (a late
 * sample whose signal merged several; 1 when only period is said), and
 * period, the event count of each, 0 when not known. A period is written
 * for the samples of a frequency-mode event other than a time event (the
 * kernel adjusts its period): in the signal mode the kernel's, from the
 * overflow's ring-buffer record; in the sigtrap mode what the thread's
 * counter of the event counted since its previous sample of it. Such a
 * sample stands for overflows * period events. A reader takes it for the
 * next record only when that is a sample; a sample without one stands for
 * one overflow.
 */
struct ppf_sample_weight {
	struct ppf_record h;
	uint64_t overflows;
	uint64_t period;
};

/*
 * A stack, written once per thread log (until the writer's table of the
 * stacks it wrote fills and starts again: the same stack may then be
 * written again, with a new id): the samples of PPF_REC_SAMPLE_BLOCK
 * records name it by id. ids count from 0 in each log, one more for each
 * stack record, so that a reader knows them all from the records before
 * the sample. The stack is nframes addresses, innermost first as in struct
 * ppf_sample: the record holds the nframes - shared innermost, and its
 * outermost shared frames are the outermost shared frames of stack base,
 * written before it (stacks of one thread mostly differ in their innermost
 * frames only).
 */
struct ppf_stack {
	struct ppf_record h;
	uint32_t id;      /* the number of PPF_REC_STACK records before it in the log */
	uint16_t nframes; /* 1..PPF_MAX_FRAMES, in all */
	uint16_t shared;  /* 0..nframes outermost frames taken from stack base */
	uint32_t base;    /* with shared: the id of a stack before it; else 0 */
	uint32_t reserved;
	uint64_t ips[];   /* its nframes - shared innermost frames */
};

/*
 * A new stack and its first sample in one record: a PPF_REC_STACK (the
 * same fields, the same numbering: it counts as a stack record for the ids
 * of those after it) whose stack was sampled once, at time_ns, by event
 * with flags. Later samples of the stack go into PPF_REC_SAMPLE_BLOCK
 * records as those of any other stack. Logs before it have a PPF_REC_STACK
 * and a PPF_REC_SAMPLE_BLOCK instead.
 * Its nframes - shared own addresses, innermost first, follow as
 * variable-length integers (PPF_STACK_SAMPLE_VARINT_MAX bytes at most
 * each): address i is address i - 1 (0 for the first) plus the signed
 * difference d, stored zigzag-encoded ((d << 1) ^ (d >> 63), so that small
 * differences of either sign are small numbers) as LEB128 (7 bits a byte,
 * least significant first, the high bit set on every byte but the last);
 * then zero padding to the record size. Return addresses of one module
 * are near each other: 2 to 4 bytes each instead of 8.
 */
struct ppf_stack_sample {
	struct ppf_record h;
	uint32_t id;      /* as struct ppf_stack's */
	uint16_t nframes;
	uint16_t shared;
	uint32_t base;
	uint16_t event;   /* struct ppf_event.index */
	uint16_t flags;   /* enum ppf_sample_flags */
	uint64_t time_ns;
	uint8_t frames[]; /* its nframes - shared innermost frames, encoded */
};

#define PPF_STACK_SAMPLE_VARINT_MAX 10u

/* One sample of a PPF_REC_SAMPLE_BLOCK. */
struct ppf_block_entry {
	uint32_t stack;    /* struct ppf_stack.id */
	uint32_t delta_ns; /* its time is the block's base_ns + delta_ns */
};

/*
 * Samples of one event with the same flags, 8 bytes each: the record is
 * written with room for more entries than it holds (size counts the room),
 * and count says how many it holds. The writer adds a sample by writing its
 * entry and then storing count, so a log whose process was killed is read
 * up to its last whole entry; before it writes any other record after the
 * block, it sets size to what the block holds (PPF_SAMPLE_BLOCK_HEAD +
 * count * 8). A reader takes the first count entries; the rest of the
 * room, if any, is zero.
 */
struct ppf_sample_block {
	struct ppf_record h;
	uint64_t base_ns;  /* time of its first sample */
	uint32_t event;    /* struct ppf_event.index */
	uint16_t flags;    /* enum ppf_sample_flags, of every sample in it */
	uint16_t reserved;
	uint32_t count;    /* entries that follow */
	uint32_t reserved2;
	struct ppf_block_entry entries[];
};

#define PPF_SAMPLE_BLOCK_HEAD 32u

struct ppf_thread_name {
	struct ppf_record h;
	uint64_t time_ns;
	char name[PPF_THREAD_NAME_MAX];
};

enum ppf_thread_event_flags {
	PPF_THREAD_EVENT_COUNTED = 1u << 0, /* value, time_enabled, time_running hold
					       this thread's counter */
	PPF_THREAD_EVENT_NO_COUNTER = 1u << 1, /* an event of the thread's own
						  that it could not open (or,
						  for a thread adopted in the
						  handler, could not open
						  there): a
						  counting event, or in the
						  signal mode a sampling event
						  (the thread was not sampled) */
	PPF_THREAD_EVENT_LATE_COUNTER = 1u << 2, /* with COUNTED: a counter
						    opened at the thread's
						    first sample (a thread
						    the profiler did not see
						    start: older than its
						    constructor, or made by
						    raw clone()); it misses
						    what came before */
};

/*
 * This thread's totals for one event, written when the thread ends (before
 * PPF_REC_THREAD_END). Sampling events: samples taken, lost and throttled.
 * Counting events: the raw count and the kernel's enabled/running times;
 * when time_running < time_enabled the counter was multiplexed and its
 * estimate is value * time_enabled / time_running. throttled was added
 * after the first version (56 bytes).
 */
struct ppf_thread_event {
	struct ppf_record h;
	uint32_t event; /* struct ppf_event.index */
	uint32_t flags; /* enum ppf_thread_event_flags */
	uint64_t samples;
	uint64_t lost;
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t throttled;
};

#define PPF_THREAD_EVENT_V1_SIZE 56u

/* What else kept the sampling signal blocked (PPF_REC_THREAD_BLOCKED.flags). */
enum ppf_thread_blocked_flags {
	PPF_BLOCKED_HELD_AT_END = 1u << 0, /* a signal was still held when the
					      thread's log was finished */
	PPF_BLOCKED_UNSEEN = 1u << 1,      /* the kernel's mask blocked the signal
					      when the thread's log was finished,
					      set by no call the profiler wraps (a
					      raw rt_sigprocmask system call, ...):
					      its samples from then on are late or
					      missing, and in the signal mode
					      queue up as real-time signals */
};

/*
 * Why the thread's sampling signal was blocked while it ran on the CPU, as
 * far as the profiler knows; written before PPF_REC_THREAD_END when there
 * is something to say. The profiler keeps the signal deliverable whatever
 * mask the program sets; it stays blocked while the program's own signal
 * of that number, which the program blocks, is held back for it (held:
 * that CPU time was not sampled; its overflows of time events are counted
 * as throttled), and where the program's mask was set behind the
 * profiler's back (flags).
 */
struct ppf_thread_blocked {
	struct ppf_record h;
	uint64_t time_ns;
	uint64_t held_cpu_ns; /* CPU time the thread ran holding a signal */
	uint32_t holds;       /* times it began to hold one */
	uint32_t flags;       /* enum ppf_thread_blocked_flags */
};

/* Why sampling was paused (PPF_REC_PROCESS_PAUSED.flags). */
enum ppf_paused_flags {
	PPF_PAUSED_DELAY = 1u << 0,  /* the configuration's delay held it */
	PPF_PAUSED_SIGNAL = 1u << 1, /* the toggle signal paused it */
	PPF_PAUSED_CALL = 1u << 2,   /* the program called pprof_pause() */
	PPF_PAUSED_AT_END = 1u << 3, /* it was still paused when the record
					was written (the end, or exec) */
};

/*
 * The time this process's sampling was paused (the delay, the toggle
 * signal, pprof_pause(): include/pprof/control.h), written when the
 * process ends or calls exec when it was paused at all: every event was
 * disabled in every thread for paused_ns of wall time in all, in pauses
 * stretches. A pause still running counts up to time_ns.
 */
struct ppf_process_paused {
	struct ppf_record h;
	uint64_t time_ns;
	uint64_t paused_ns;
	uint64_t delay_ns;  /* the configuration's delay, from the run's start */
	uint32_t pauses;
	uint32_t flags;     /* enum ppf_paused_flags */
};

/*
 * The time this thread's events were paused (see ppf_process_paused),
 * written before PPF_REC_THREAD_END when it was paused at all: paused_ns
 * of wall time in pauses stretches, during which it used cpu_ns of CPU
 * time that no sample stands for. A pause still running counts up to
 * time_ns.
 */
struct ppf_thread_paused {
	struct ppf_record h;
	uint64_t time_ns;
	uint64_t paused_ns;
	uint64_t cpu_ns;
	uint32_t pauses;
	uint32_t flags;     /* PPF_PAUSED_AT_END */
};

/*
 * lost: overflows the profiler could not record (re-entry, log full, ...).
 * throttled: overflows it chose not to take, to bound its own cost: those
 * that came too soon after a dear sample, and in the signal mode those
 * queued while a sample was taken. throttled was added after the first
 * version (40 bytes), user_ns and system_ns after the second (48 bytes).
 */
struct ppf_thread_end {
	struct ppf_record h;
	uint64_t end_ns;
	uint64_t samples;
	uint64_t lost;   /* dropped in this thread (re-entry, log full, ...) */
	uint64_t cpu_ns; /* CLOCK_THREAD_CPUTIME_ID at the end, 0 if unknown */
	uint64_t throttled;
	uint64_t user_ns;   /* its CPU time in user space and in the kernel, as
			       the kernel splits it (by the ticks that found
			       the thread in each); both 0 when unknown */
	uint64_t system_ns;
};

#define PPF_THREAD_END_V1_SIZE 40u
#define PPF_THREAD_END_V2_SIZE 48u

/*
 * Written by the signal handler after a sample, at most once every few
 * milliseconds (PP_SAMPLER_PROGRESS_NS in preload/sigsafe/sampler.c): the
 * thread's CPU time and totals so far (all events), as PPF_REC_THREAD_END
 * would give them, and its name. A log that never gets its END record (the process
 * called exit_group directly, as Go programs do, or was killed) still says
 * how much CPU time its thread had used by its last such record.
 */
struct ppf_thread_progress {
	struct ppf_record h;
	uint64_t time_ns;
	uint64_t user_ns;   /* as in ppf_thread_end */
	uint64_t system_ns;
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
	char name[PPF_THREAD_NAME_MAX]; /* its name then (a log without END has
					   no PPF_REC_THREAD_NAME); may be empty */
	uint64_t proc_user_ns;   /* the whole process's CPU time then, in user
				    space and in the kernel (as in
				    ppf_process_end), in one such record of
				    the process per PP_SAMPLER_PROGRESS_NS at
				    the most; both 0 in the others */
	uint64_t proc_system_ns;
};

/*
 * wall.log: the wall-clock event ([sample wall]). period_ns is the wall
 * time one sample stands for; tick_ns how often the helper thread looks at
 * blocked threads; cpu_rings the process's rings of switch records, one per
 * CPU, whose events the threads it makes inherit (0: none, in older logs
 * too: each thread has a ring of its own); ring_pages the data pages of
 * each of those, else of each thread's ring.
 */
struct ppf_wall_start {
	struct ppf_record h;
	uint64_t period_ns;
	uint64_t tick_ns;
	uint64_t start_ns;
	uint32_t ring_pages;
	uint32_t cpu_rings;
};

/* What a thread was doing off the CPU (PPF_REC_WALL_INTERVAL.state). */
enum ppf_wall_state {
	PPF_WALL_UNKNOWN = 0,  /* blocked, not looked at: no system call known */
	PPF_WALL_SLEEP = 1,    /* nanosleep, clock_nanosleep */
	PPF_WALL_FUTEX = 2,    /* futex: mutexes, condition variables, semaphores */
	PPF_WALL_IO = 3,       /* read, write, recv, send, accept, ... */
	PPF_WALL_POLL = 4,     /* poll, select, epoll_wait and their variants */
	PPF_WALL_SYSCALL = 5,  /* another system call (nr says which) */
	PPF_WALL_RUNNABLE = 6, /* preempted: ready to run, waiting for a CPU */
	PPF_WALL_OTHER = 7,    /* blocked outside a system call (a page fault) */
	PPF_WALL_STATES = 8,
};

/* PPF_REC_WALL_INTERVAL.flags */
enum ppf_wall_flags {
	PPF_WALL_OPEN_AT_END = 1u << 0,  /* still off the CPU when the log ended:
					    in_ns is the end */
	PPF_WALL_LOOK_ONLY = 1u << 1,    /* a thread without a ring: its time off
					    the CPU between two looks (their wall
					    time less its CPU time), given to
					    the wait one of them found */
	PPF_WALL_PAUSE_GUESSED = 1u << 2, /* pause switches inside the wait were
					    missed (more than the helper keeps
					    between two ticks): its paused part,
					    left out, is an estimate */
};

#define PPF_WALL_NO_STACK UINT32_MAX

/*
 * A thread was off the CPU from out_ns to in_ns (its switch records):
 * blocked in state, or preempted (PPF_WALL_RUNNABLE). stack names the
 * PPF_REC_STACK of this log that the helper read while the thread was
 * blocked in this interval, innermost first (the address after the
 * system call's instruction, then return addresses), or
 * PPF_WALL_NO_STACK when it was not looked at; nr is the system call
 * (-1: none or not known).
 */
struct ppf_wall_interval {
	struct ppf_record h;
	uint32_t tid;
	uint16_t state;   /* enum ppf_wall_state */
	uint16_t flags;   /* enum ppf_wall_flags */
	uint64_t out_ns;
	uint64_t in_ns;
	uint32_t stack;
	int32_t nr;
};

/*
 * PPF_REC_WALL_OPEN, a struct ppf_wall_interval: a wait of the thread that
 * began at out_ns was still going on at in_ns, a tick or more later (one
 * such record per wait, written after the helper looked at it: stack and
 * nr as in its interval). Its PPF_REC_WALL_INTERVAL follows when it ends;
 * in a log without PPF_REC_WALL_END (the process was killed) the wait
 * lasted until the log's PPF_REC_WALL_ALIVE time, as far as is known.
 *
 * PPF_REC_WALL_ALIVE: the helper was still running at alive_ns; rewritten
 * in place at each of its ticks (the last one a killed process made).
 */
struct ppf_wall_alive {
	struct ppf_record h;
	uint64_t alive_ns;
};

/*
 * The kernel dropped lost switch records of thread tid (its ring was
 * full): from from_ns (its last record before them) to to_ns (when the
 * kernel could write again) its time on and off the CPU is not known.
 */
struct ppf_wall_lost {
	struct ppf_record h;
	uint32_t tid;
	uint32_t reserved;
	uint64_t lost;
	uint64_t from_ns;
	uint64_t to_ns;
};

/*
 * Thread tid called sched_yield calls times from from_ns (the first call's
 * start) to to_ns (the last one's return), each call less than
 * PPF_WALL_YIELD_GAP_NS after the one before returned, in_calls_ns of it
 * inside the calls: a wait loop that yields the CPU (MPI libraries on an
 * oversubscribed node, spin-then-yield locks). Its time in the kernel is
 * not sampled user-only, and it is preempted at every call another thread
 * is ready: the analyzer gives the stretch's time to its stack (the
 * caller's of sched_yield, return addresses, in this log's PPF_REC_STACK
 * numbering). dropped: stretches of any thread not written before this
 * one. A record with calls 0 (and times 0) only says dropped (the event's
 * end). Records of PPF_WALL_YIELD_V1_SIZE bytes have no in_calls_ns.
 */
struct ppf_wall_yield {
	struct ppf_record h;
	uint32_t tid;
	uint32_t dropped;
	uint64_t calls;
	uint64_t from_ns;
	uint64_t to_ns;
	uint32_t stack;   /* PPF_WALL_NO_STACK: none */
	uint32_t reserved;
	uint64_t in_calls_ns;
};
#define PPF_WALL_YIELD_V1_SIZE 48
#define PPF_WALL_YIELD_GAP_NS 1000000ull

/*
 * A thread's wall-clock bookkeeping, at its end (or the log's): error is
 * the errno its ring could not be made with (0: it had one; EPERM: the
 * locked-memory limit), lost the switch records the kernel dropped,
 * end_ns when it ended (its end seen, or gone at the log's end: its last
 * switch), 0 when it was still there at the log's end (absent in a
 * record of PPF_WALL_THREAD_V1_SIZE bytes: not known). cpu_ns is the CPU
 * time the thread used from born_ns (when the helper began to follow it)
 * to the record (its end, or the log's); born_ns 0: not known (the thread
 * was gone; absent in a record of PPF_WALL_THREAD_V2_SIZE bytes). The
 * analyzer takes the kernel's switch path out of its waits with them.
 */
struct ppf_wall_thread {
	struct ppf_record h;
	uint32_t tid;
	uint32_t ring_pages;
	int32_t error;
	uint32_t reserved;
	uint64_t lost;
	uint64_t intervals;
	uint64_t end_ns;
	uint64_t born_ns;
	uint64_t cpu_ns;
};
#define PPF_WALL_THREAD_V1_SIZE 40
#define PPF_WALL_THREAD_V2_SIZE 48

/*
 * A thread older than the profiler (a library's constructor started it):
 * no hook saw it start, so no other log may name it. Its name then.
 */
struct ppf_wall_older {
	struct ppf_record h;
	uint32_t tid;
	uint32_t reserved;
	char name[PPF_THREAD_NAME_MAX];
};

/* The helper's totals, at the end of the log. */
struct ppf_wall_end {
	struct ppf_record h;
	uint64_t end_ns;
	uint64_t looks;         /* stacks read */
	uint64_t looks_dropped; /* read, but the thread ran meanwhile */
	uint64_t helper_cpu_ns; /* the helper thread's CPU time */
	uint32_t threads;       /* threads seen */
	uint32_t no_ring;       /* of which without a ring (look-only) */
	uint64_t lost;          /* switch records lost, all threads */
	uint64_t ticks;         /* times the helper woke and looked */
	uint64_t degraded;      /* times the cost cap stepped in */
	uint64_t looks_only;    /* looks at threads without a ring (each stands
				   for the time since that thread's previous) */
};

/*
 * The log could not grow (the disk was full, a quota or RLIMIT_FSIZE was
 * reached): written into the room every log keeps for its closing records.
 * Nothing but closing records follows: a thread's samples after time_ns
 * were not written (they are counted as lost in its totals and END), nor
 * were a process's module records.
 */
struct ppf_log_full {
	struct ppf_record h;
	uint64_t time_ns;
	int32_t error;   /* the errno growing the file failed with: ENOSPC, ... */
	uint32_t reserved;
};

_Static_assert(sizeof(struct ppf_file_header) == 24, "ppf_file_header");
_Static_assert(sizeof(struct ppf_record) == 8, "ppf_record");
_Static_assert(sizeof(struct ppf_process) == 48, "ppf_process");
_Static_assert(sizeof(struct ppf_identity) == 64, "ppf_identity");
_Static_assert(sizeof(struct ppf_config) == 32, "ppf_config");
_Static_assert(sizeof(struct ppf_event) == 192, "ppf_event");
_Static_assert(offsetof(struct ppf_event, config1) == PPF_EVENT_V1_SIZE, "ppf_event v1");
_Static_assert(sizeof(struct ppf_thread_event) == 64, "ppf_thread_event");
_Static_assert(offsetof(struct ppf_thread_event, throttled) == PPF_THREAD_EVENT_V1_SIZE,
	       "ppf_thread_event v1");
_Static_assert(sizeof(struct ppf_module) == 96, "ppf_module");
_Static_assert(sizeof(struct ppf_module_unload) == 24, "ppf_module_unload");
_Static_assert(sizeof(struct ppf_vdso) == 24, "ppf_vdso");
_Static_assert(sizeof(struct ppf_module_file) == 48, "ppf_module_file");
_Static_assert(sizeof(struct ppf_module_ref) == 48, "ppf_module_ref");
_Static_assert(sizeof(struct ppf_event_ref) == 24, "ppf_event_ref");
_Static_assert(sizeof(struct ppf_process_end) == 64, "ppf_process_end");
_Static_assert(offsetof(struct ppf_process_end, throttled) == PPF_PROCESS_END_V1_SIZE,
	       "ppf_process_end v1");
_Static_assert(offsetof(struct ppf_process_end, user_ns) == PPF_PROCESS_END_V2_SIZE,
	       "ppf_process_end v2");
_Static_assert(sizeof(struct ppf_exec) == 24, "ppf_exec");
_Static_assert(sizeof(struct ppf_process_cpu) == 56, "ppf_process_cpu");
_Static_assert(sizeof(struct ppf_unprofiled) == 32, "ppf_unprofiled");
_Static_assert(sizeof(struct ppf_thread_unsampled) == 48, "ppf_thread_unsampled");
_Static_assert(sizeof(struct ppf_thread) == 40, "ppf_thread");
_Static_assert(sizeof(struct ppf_thread_quiet) == 72, "ppf_thread_quiet");
_Static_assert(sizeof(struct ppf_sample) == 24, "ppf_sample");
_Static_assert(sizeof(struct ppf_thread_name) == 32, "ppf_thread_name");
_Static_assert(sizeof(struct ppf_sample_weight) == 24, "ppf_sample_weight");
_Static_assert(sizeof(struct ppf_stack) == 24, "ppf_stack");
_Static_assert(sizeof(struct ppf_block_entry) == 8, "ppf_block_entry");
_Static_assert(sizeof(struct ppf_stack_sample) == 32, "ppf_stack_sample");
_Static_assert(sizeof(struct ppf_sample_block) == PPF_SAMPLE_BLOCK_HEAD, "ppf_sample_block");
_Static_assert(sizeof(struct ppf_thread_end) == 64, "ppf_thread_end");
_Static_assert(offsetof(struct ppf_thread_end, throttled) == PPF_THREAD_END_V1_SIZE,
	       "ppf_thread_end v1");
_Static_assert(offsetof(struct ppf_thread_end, user_ns) == PPF_THREAD_END_V2_SIZE,
	       "ppf_thread_end v2");
_Static_assert(sizeof(struct ppf_thread_progress) == 88, "ppf_thread_progress");
_Static_assert(sizeof(struct ppf_log_full) == 24, "ppf_log_full");
_Static_assert(sizeof(struct ppf_thread_blocked) == 32, "ppf_thread_blocked");
_Static_assert(sizeof(struct ppf_process_paused) == 40, "ppf_process_paused");
_Static_assert(sizeof(struct ppf_thread_paused) == 40, "ppf_thread_paused");
_Static_assert(sizeof(struct ppf_wall_start) == 40, "ppf_wall_start");
_Static_assert(sizeof(struct ppf_wall_interval) == 40, "ppf_wall_interval");
_Static_assert(sizeof(struct ppf_wall_thread) == 64, "ppf_wall_thread");
_Static_assert(sizeof(struct ppf_wall_end) == 80, "ppf_wall_end");
_Static_assert(sizeof(struct ppf_wall_older) == 32, "ppf_wall_older");
_Static_assert(sizeof(struct ppf_wall_alive) == 16, "ppf_wall_alive");
_Static_assert(sizeof(struct ppf_wall_lost) == 40, "ppf_wall_lost");
_Static_assert(sizeof(struct ppf_wall_yield) == 56, "ppf_wall_yield");

/* Round n up to the record alignment. */
static inline uint32_t ppf_align(uint32_t n)
{
	return (n + PPF_RECORD_ALIGN - 1) & ~(PPF_RECORD_ALIGN - 1);
}

/* Size of a sample record holding nframes addresses. */
static inline uint32_t ppf_sample_size(uint32_t nframes)
{
	return (uint32_t)sizeof(struct ppf_sample) + nframes * (uint32_t)sizeof(uint64_t);
}

/* Size of a stack record holding n of its addresses (nframes - shared). */
static inline uint32_t ppf_stack_size(uint32_t n)
{
	return (uint32_t)sizeof(struct ppf_stack) + n * (uint32_t)sizeof(uint64_t);
}

/* The most a PPF_REC_STACK_SAMPLE holding n addresses takes. */
static inline uint32_t ppf_stack_sample_max(uint32_t n)
{
	return ppf_align((uint32_t)sizeof(struct ppf_stack_sample) +
			 n * PPF_STACK_SAMPLE_VARINT_MAX);
}

#endif /* PPROF_FORMAT_H */
