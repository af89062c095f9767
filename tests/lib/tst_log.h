/*
 * tst_log: builds libpprof logs by hand for the analyzer's tests, and
 * describes a module of the test binary itself for symbolisation tests.
 * Every function aborts the test (cr_assert) when something fails.
 */
#ifndef TST_LOG_H
#define TST_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprof/format.h"
#include "reader.h"

/* A log file being built in memory. */
struct tst_log {
	char *buf;
	size_t len;
	size_t cap;
};

/* Start a log with a valid header of the given enum ppf_file_kind. */
void tst_log_begin(struct tst_log *l, uint16_t kind);
/* Append raw bytes; returns the offset where they start. */
size_t tst_log_raw(struct tst_log *l, const void *p, size_t n);
/* Each returns the offset of the record it appended. */
size_t tst_log_process(struct tst_log *l, uint32_t pid, uint32_t ppid,
			  const char *exe, const char *const *argv);
/*
 * A PPF_REC_IDENTITY: host, boot id (its 16 bytes all boot), rank and
 * world size (-1: none), job; the anchor says CLOCK_REALTIME was real_ns
 * when CLOCK_MONOTONIC was mono_ns.
 */
size_t tst_log_identity(struct tst_log *l, const char *host, uint8_t boot, int32_t rank,
			int32_t world_size, const char *job, uint64_t mono_ns, uint64_t real_ns);
size_t tst_log_event(struct tst_log *l, uint32_t index, const char *name,
			uint64_t period, uint32_t flags);
/* e's fields from index on as given; its record header is filled in. */
size_t tst_log_event_full(struct tst_log *l, struct ppf_event *e);
/* An event record of the first version (PPF_EVENT_V1_SIZE bytes, no spec). */
size_t tst_log_event_v1(struct tst_log *l, uint32_t index, const char *name,
			   uint64_t period, uint32_t flags);
size_t tst_log_config(struct tst_log *l, uint32_t mode_request, uint32_t max_frames,
			 uint32_t flags, const char *source, const char *text);
size_t tst_log_thread_event(struct tst_log *l, uint32_t event, uint32_t flags,
			       uint64_t samples, uint64_t lost, uint64_t value,
			       uint64_t time_enabled, uint64_t time_running);
size_t tst_log_module(struct tst_log *l, uint64_t id, uint64_t bias,
			 uint64_t start, uint64_t end, uint64_t load_ns,
			 const char *path, const uint8_t *build_id, uint32_t build_id_len);
/* A PPF_REC_MODULE_REF: module id at bias, its record in the root's file named by key. */
size_t tst_log_module_ref(struct tst_log *l, uint64_t id, uint64_t bias, uint64_t load_ns,
			  const uint8_t key[PPF_MODULE_KEY_LEN]);
size_t tst_log_unload(struct tst_log *l, uint64_t id, uint64_t unload_ns);
/* A PPF_REC_VDSO: module id is the vDSO, its image named name at the run's root. */
size_t tst_log_vdso(struct tst_log *l, uint64_t module_id, const char *name);
/* A PPF_REC_MODULE_FILE: module id's file was size bytes, modified at mtime_ns. */
size_t tst_log_module_file(struct tst_log *l, uint64_t module_id, uint64_t size,
			   uint64_t mtime_ns);
size_t tst_log_exec(struct tst_log *l, uint64_t time_ns, const char *path);
size_t tst_log_unsampled(struct tst_log *l, uint32_t tid, uint32_t what, int32_t error,
			    uint64_t time_ns, const char *name);
/* PPF_REC_THREAD_QUIET: a thread with no sample (flags: enum ppf_thread_quiet_flags). */
size_t tst_log_quiet(struct tst_log *l, uint32_t tid, uint32_t flags, uint64_t start_ns,
		     uint64_t end_ns, uint64_t user_ns, uint64_t system_ns, const char *name);
size_t tst_log_process_end(struct tst_log *l, uint64_t end_ns, uint64_t samples,
			      uint64_t lost, uint32_t how, int32_t status);
size_t tst_log_thread(struct tst_log *l, uint32_t pid, uint32_t tid,
			 uint64_t start_ns, const char *name);
size_t tst_log_sample(struct tst_log *l, uint64_t time_ns, uint32_t event,
			 uint16_t flags, uint16_t nframes, const uint64_t *ips);
/* A PPF_REC_SAMPLE_WEIGHT: the next sample stands for overflows overflows. */
size_t tst_log_sample_weight(struct tst_log *l, uint64_t overflows, uint64_t period);
/* A PPF_REC_STACK, and a PPF_REC_SAMPLE_BLOCK holding count entries (its size fits them). */
size_t tst_log_stack(struct tst_log *l, uint32_t id, uint16_t nframes, const uint64_t *ips);
/* A PPF_REC_STACK whose outermost shared frames are stack base's: ips holds the others. */
size_t tst_log_stack_shared(struct tst_log *l, uint32_t id, uint16_t nframes, uint16_t shared,
			    uint32_t base, const uint64_t *ips);
/* A PPF_REC_STACK_SAMPLE: a stack (as tst_log_stack_shared's) and its first sample. */
size_t tst_log_stack_sample(struct tst_log *l, uint32_t id, uint16_t nframes, uint16_t shared,
			    uint32_t base, uint64_t time_ns, uint16_t event, uint16_t flags,
			    const uint64_t *ips);
size_t tst_log_block(struct tst_log *l, uint64_t base_ns, uint32_t event, uint16_t flags,
		     uint32_t count, const struct ppf_block_entry *entries);
size_t tst_log_thread_name(struct tst_log *l, uint64_t time_ns, const char *name);
size_t tst_log_thread_end(struct tst_log *l, uint64_t end_ns, uint64_t samples,
			     uint64_t lost, uint64_t cpu_ns);
/* A PPF_REC_THREAD_BLOCKED (masks: a held signal, or enum ppf_thread_blocked_flags). */
size_t tst_log_thread_blocked(struct tst_log *l, uint64_t time_ns, uint64_t held_cpu_ns,
				 uint32_t holds, uint32_t flags);
/* A PPF_REC_THREAD_PROGRESS with the thread's user and system time (no process time). */
size_t tst_log_thread_progress(struct tst_log *l, uint64_t time_ns, uint64_t user_ns,
				  uint64_t system_ns, uint64_t samples);
/* A PPF_REC_LOG_FULL, in either kind of log. */
size_t tst_log_log_full(struct tst_log *l, uint64_t time_ns, int32_t error);
/* The record header at offset off, to corrupt it. */
/* Records of type in the log file at path, up to its end (a zero header). */
size_t tst_log_count(const char *path, uint32_t type);
struct ppf_record *tst_log_rec(struct tst_log *l, size_t off);
/* Write the log to dir/name (dir/name's directories must exist) and free it. */
void tst_log_write(struct tst_log *l, const char *dir, const char *name);
/*
 * The name the preload gives the vDSO image in file when it has no
 * build-id (vdso.xxh128-HEX.so: the hash of its bytes), into name.
 */
void tst_log_vdso_hash_name(const char *file, char *name, size_t size);
/* Copy the file at from to the new file to (a fixture's image next to a run's logs). */
void tst_log_copy(const char *from, const char *to);
/* Write size bytes of value byte to dir/name: a file that is no log (zeros: a log never written). */
void tst_log_fill(const char *dir, const char *name, int byte, size_t size);

/*
 * Starts dir/wall.log with the preload's own writers, as preload/wall.c
 * does: the file made, then st (its PPF_REC_WALL_START). The caller writes
 * the rest with pp_records_*_sigsafe and closes it with
 * pp_logfile_close_sigsafe.
 */
struct pp_logfile;
void tst_wall_log_start(const char *dir, struct ppf_wall_start *st, struct pp_logfile *log);

/*
 * Compare text with tests/golden/name; with PA_UPDATE_GOLDEN=1 in the
 * environment, rewrite the file first (then review the diff).
 */
void tst_log_golden(const char *text, const char *name);

/*
 * Replace every from in text by to, in place (to may not be longer than
 * from): temporary and build paths become stable names for golden files.
 * Returns text.
 */
char *tst_log_replace(char *text, const char *from, const char *to);

/*
 * The ELF address of symbol name in the file path, and its size into *size
 * (size may be NULL), as `nm -S` prints them; fails the test when absent.
 */
uint64_t tst_log_nm(const char *path, const char *name, uint64_t *size);

/* A fresh temporary directory (malloc'd path); tst_log_rmdir removes it all. */
char *tst_log_tmpdir(void);
void tst_log_rmdir(char *dir);
/*
 * A suite's scratch directory: with .init = tst_log_dir_setup and .fini =
 * tst_log_dir_teardown, each test gets a fresh tst_log_dir, removed after it.
 */
extern char *tst_log_dir;
void tst_log_dir_setup(void);
void tst_log_dir_teardown(void);
/* Make dir/sub and return its malloc'd path. */
char *tst_log_subdir(const char *dir, const char *sub);

/*
 * Makes at path what no writer makes, kind saying which: "fifo", "directory",
 * "socket", "symlink" (to /dev/zero) or "device" (a character device like
 * /dev/null). Returns false, having made nothing, where this machine does not
 * allow it (a device needs CAP_MKNOD): the test then skips, saying so.
 */
bool tst_log_odd_file(const char *path, const char *kind);

/* Where a loaded object of this process lies, as the preload records it. */
struct tst_log_self {
	char path[4096];
	uint64_t bias;
	uint64_t start;
	uint64_t end;
	uint8_t build_id[PPF_BUILD_ID_MAX];
	uint32_t build_id_len;
};

/* Describe the object holding addr (the test binary, libc, ...). */
void tst_log_self_module(const void *addr, struct tst_log_self *out);

/* The first process of run (sorted by pid) with that pid; NULL if none. */
const struct pa_process *tst_log_find_process(const struct pa_run *run, uint32_t pid);

/* The thread of proc with that tid; NULL if none. */
const struct pa_thread *tst_log_find_thread(const struct pa_process *proc, uint32_t tid);

#endif /* TST_LOG_H */
