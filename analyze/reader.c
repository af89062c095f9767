/* reader: loads and validates a run's logs; see reader.h. */
#include "grow.h"
#include "hash.h"
#include "parallel.h"
#include "reader.h"
#include "regfile.h"
#include "rootfiles.h"
#include "textsafe.h"
#include "wall.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* xxhash's XXH3, compiled in from its header: the key of a module's file at the root. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* A file read whole into memory, and where parsing stands. */
struct pa_log_buf {
	const char *path;
	char *data;
	size_t size;
	size_t mapped;     /* data is a private file mapping of this length, else malloc'd */
	uint64_t data_end; /* offset where the written data stops */
	size_t unknown;    /* records of unknown type skipped */
	bool saw_end;      /* the END record was read */
	const struct pa_log_full *full; /* its PPF_REC_LOG_FULL, when read */
	bool truncated;    /* the data stops inside a record */
};

int pa_error_set(struct pa_error *err, int code, const char *path, bool has_offset,
		 uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->has_offset = has_offset;
	err->offset = has_offset ? offset : 0;
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return code;
}

int pa_warnings_add(struct pa_warnings *warn, const char *path, bool has_offset,
		    uint64_t offset, const char *fmt, ...)
{
	struct pa_warning *w;
	va_list ap;
	int len;

	if (!warn)
		return 0;
	if (warn->n == warn->cap) {
		size_t cap = warn->cap ? warn->cap * 2 : 8;
		struct pa_warning *v = realloc(warn->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		warn->v = v;
		warn->cap = cap;
	}
	w = &warn->v[warn->n];
	w->path = strdup(path ? path : "");
	w->has_offset = has_offset;
	w->offset = offset;
	va_start(ap, fmt);
	len = vasprintf(&w->reason, fmt, ap);
	va_end(ap);
	if (!w->path || len < 0) {
		free(w->path);
		return -ENOMEM;
	}
	warn->n++;
	return 0;
}

void pa_warnings_release(struct pa_warnings *warn)
{
	if (!warn)
		return;
	for (size_t i = 0; i < warn->n; i++) {
		free(warn->v[i].path);
		free(warn->v[i].reason);
	}
	free(warn->v);
	warn->v = NULL;
	warn->n = warn->cap = 0;
}

/* Frees or unmaps buf's data. */
static void pa_reader_buf_release(struct pa_log_buf *buf)
{
	if (buf->mapped)
		munmap(buf->data, buf->mapped);
	else
		free(buf->data);
	buf->data = NULL;
	buf->mapped = 0;
}

static int pa_reader_read_file(const char *path, struct pa_log_buf *buf, struct pa_error *err)
{
	struct stat st;
	size_t got = 0;
	int fd;

	memset(buf, 0, sizeof(*buf));
	buf->path = path;
	/* The writer makes no links: a log that is one is as odd as a FIFO. */
	fd = pa_regfile_open(path, O_NOFOLLOW, &st, err);
	if (fd < 0)
		return fd;
	buf->size = (size_t)st.st_size;
	/*
	 * A private mapping of the page cache: reading into a malloc'd buffer
	 * copied every byte and faulted every page in twice (most of `top`'s
	 * time on large runs: 60 ms -> 32 ms for 115,000 samples). Not
	 * populated up front: the preallocated zero tail of a thread log is
	 * then never touched. Writable: a log in the other byte order is
	 * swapped in place, which copies those pages only.
	 */
	if (buf->size) {
		void *m = mmap(NULL, buf->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			close(fd);
			buf->data = m;
			buf->mapped = buf->size;
			return 0;
		}
	}
	buf->data = malloc(buf->size ? buf->size : 1);
	if (!buf->data) {
		close(fd);
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	}
	while (got < buf->size) {
		ssize_t n = read(fd, buf->data + got, buf->size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			pa_reader_buf_release(buf);
			return pa_error_set(err, -e, path, false, 0, "read failed: %s", strerror(e));
		}
		if (n == 0)
			break; /* shrank while reading: parse what we have */
		got += (size_t)n;
	}
	buf->size = got;
	close(fd);
	return 0;
}

/* A copy of size bytes at data as buf (malloc'd: aligned as a file's mapping is). */
static int pa_reader_copy_data(const char *name, const void *data, size_t size,
			       struct pa_log_buf *buf, struct pa_error *err)
{
	memset(buf, 0, sizeof(*buf));
	buf->path = name;
	buf->data = malloc(size ? size : 1);
	if (!buf->data)
		return pa_error_set(err, -ENOMEM, name, false, 0, "out of memory");
	if (size)
		memcpy(buf->data, data, size);
	buf->size = size;
	return 0;
}

static const char *pa_reader_kind_name(uint32_t kind)
{
	return kind == PPF_FILE_PROCESS ? "process log" :
	       kind == PPF_FILE_THREAD  ? "thread log" :
	       kind == PPF_FILE_WALL    ? "wall log" :
	       kind == PPF_FILE_SHARED  ? "file of the run's root" : "unknown kind";
}

/*
 * A file named like a log that is not one (another program's file, a log
 * whose first bytes were overwritten): skipped and said, as one that is
 * not a regular file, when the run has others (pa_reader_skippable).
 */
#define PA_READER_FOREIGN (-EBADMSG)

/* Check the file header; returns the offset of the first record or an error. */
static int pa_reader_check_header(struct pa_log_buf *buf, uint16_t want_kind,
				  uint64_t *first, struct pa_error *err)
{
	struct ppf_file_header h;

	if (buf->size < sizeof(h))
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "file too short for a header (%zu bytes, need %zu)",
				    buf->size, sizeof(h));
	memcpy(&h, buf->data, sizeof(h));
	if (memcmp(h.magic, PPF_MAGIC, PPF_MAGIC_LEN) != 0)
		return pa_error_set(err, PA_READER_FOREIGN, buf->path, true, 0,
				    "bad magic (expected \"%s\"): not a libpprof log", PPF_MAGIC);
	if (h.byte_order == __builtin_bswap32(PPF_BYTE_ORDER_MARK))
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "written in the other byte order (expected 0x%08x, found 0x%08x)",
				    PPF_BYTE_ORDER_MARK, h.byte_order);
	if (h.byte_order != PPF_BYTE_ORDER_MARK)
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "bad byte-order mark 0x%08x (expected 0x%08x)",
				    h.byte_order, PPF_BYTE_ORDER_MARK);
	if (h.version != PPF_VERSION)
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "unsupported format version %u (expected %u)",
				    h.version, PPF_VERSION);
	if (h.kind != want_kind)
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "file kind %u (%s), expected %u (%s)", h.kind,
				    pa_reader_kind_name(h.kind), want_kind,
				    pa_reader_kind_name(want_kind));
	if (h.header_size < sizeof(h) || h.header_size % PPF_RECORD_ALIGN ||
	    h.header_size > buf->size)
		return pa_error_set(err, -EINVAL, buf->path, true, 0,
				    "bad header size %u (file of %zu bytes)",
				    h.header_size, buf->size);
	*first = h.header_size;
	return 0;
}

/*
 * Copy a fixed-size, possibly unterminated name: a thread's name as
 * recorded, its control characters '?' (textsafe.h): a
 * program names its threads with any bytes, and a newline or an escape
 * would split every report's rows or reach the terminal.
 */
static void pa_reader_copy_name(char *dst, size_t dst_size, const char *src, size_t src_size)
{
	size_t n = strnlen(src, src_size);

	if (n >= dst_size)
		n = dst_size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	pa_text_clean(dst, n, false);
}

/*
 * Called once per well-sized record of a known or unknown type; rec points
 * at the whole record (size bytes, size >= 8). Returns 0 or an error.
 */
typedef int (*pa_reader_record_fn)(void *ctx, struct pa_log_buf *buf, uint64_t off,
				   const char *rec, uint32_t type, uint32_t size,
				   struct pa_warnings *warn, struct pa_error *err);

/* Whether the n bytes at p are all zero (written space the writer had not reached). */
static bool pa_reader_all_zero(const char *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Walk the records of buf from first, checking every size, and call fn for
 * each. Stops at an all-zero header or the end; a record past the end is a
 * warning. Sets buf->data_end.
 */
static int pa_reader_walk(struct pa_log_buf *buf, uint64_t first, pa_reader_record_fn fn,
			  void *ctx, struct pa_warnings *warn, struct pa_error *err)
{
	uint64_t off = first;

	while (off < buf->size) {
		uint64_t left = buf->size - off;
		struct ppf_record r;
		int ret;

		if (left < sizeof(r)) {
			bool zero = pa_reader_all_zero(buf->data + off, left);

			if (!zero)
				pa_warnings_add(warn, buf->path, true, off,
						"truncated: %llu bytes left, too few for a record header",
						(unsigned long long)left);
			buf->truncated = !zero;
			break;
		}
		memcpy(&r, buf->data + off, sizeof(r));
		if (r.type == 0 && r.size == 0)
			break; /* end of the written data */
		if (r.size < sizeof(r))
			return pa_error_set(err, -EINVAL, buf->path, true, off,
					    "record type %u: size %u is smaller than a record header (8)",
					    r.type, r.size);
		if (r.size % PPF_RECORD_ALIGN)
			return pa_error_set(err, -EINVAL, buf->path, true, off,
					    "record type %u: size %u is not a multiple of %u",
					    r.type, r.size, PPF_RECORD_ALIGN);
		if (r.size > PPF_RECORD_MAX)
			return pa_error_set(err, -EINVAL, buf->path, true, off,
					    "record type %u: size %u exceeds the maximum %u",
					    r.type, r.size, PPF_RECORD_MAX);
		if (r.size > left) {
			pa_warnings_add(warn, buf->path, true, off,
					"truncated: record type %u of %u bytes, only %llu bytes "
					"left; later data ignored", r.type, r.size,
					(unsigned long long)left);
			buf->truncated = true;
			/* A sample block cut short still holds whole entries: they are read. */
			if (r.type == PPF_REC_SAMPLE_BLOCK && left >= PPF_SAMPLE_BLOCK_HEAD) {
				ret = fn(ctx, buf, off, buf->data + off, r.type,
					 (uint32_t)(left & ~(uint64_t)(PPF_RECORD_ALIGN - 1)), warn,
					 err);
				if (ret < 0)
					return ret;
			}
			break;
		}
		ret = fn(ctx, buf, off, buf->data + off, r.type, r.size, warn, err);
		if (ret < 0)
			return ret;
		off += r.size;
	}
	buf->data_end = off;
	if (buf->unknown)
		pa_warnings_add(warn, buf->path, false, 0,
				"skipped %zu record%s of unknown type", buf->unknown,
				buf->unknown == 1 ? "" : "s");
	return 0;
}

/* After the walk: a log that should have ended with an END record and did not. */
static void pa_reader_check_end(const struct pa_log_buf *buf, bool expect_end,
				struct pa_warnings *warn)
{
	if (expect_end && !buf->saw_end && buf->full)
		pa_warnings_add(warn, buf->path, true, buf->data_end,
				"log not finalised (no END record) after it stopped "
				"early, unable to grow (%s): how it ended is unknown; "
				"data up to here kept", strerror(buf->full->error));
	else if (expect_end && !buf->saw_end)
		pa_warnings_add(warn, buf->path, true, buf->data_end,
				"log not finalised (no END record): the process was killed "
				"or is still running; data up to here kept");
}

/*
 * The path both kinds of log take: buf's header checked for file kind
 * kind, its records walked with fn(ctx), then *saw checked: whether fn
 * read the record that must come (named what in the message). Returns 0 or
 * a negative errno with err filled.
 */
static int pa_reader_parse(struct pa_log_buf *buf, uint16_t kind, const char *what,
			   pa_reader_record_fn fn, void *ctx, const bool *saw,
			   struct pa_warnings *warn, struct pa_error *err)
{
	uint64_t first = 0;
	int ret = pa_reader_check_header(buf, kind, &first, err);

	if (ret == 0)
		ret = pa_reader_walk(buf, first, fn, ctx, warn, err);
	if (ret == 0 && !*saw)
		ret = pa_error_set(err, -EINVAL, buf->path, true, buf->data_end,
				   "no %s record before the end of the data", what);
	return ret;
}

/* Check that a record of size bytes holds the fixed struct (need bytes) and copy it. */
static int pa_reader_fixed(struct pa_log_buf *buf, uint64_t off, const char *rec, uint32_t size,
			   void *dst, size_t need, const char *what, struct pa_error *err)
{
	if (size < need) {
		pa_error_set(err, -EINVAL, buf->path, true, off,
			     "%s record of %u bytes, needs at least %zu", what, size, need);
		return -EINVAL; /* visibly non-zero, so that dst is known set on 0 */
	}
	memcpy(dst, rec, need);
	return 0;
}

/*
 * pa_reader_fixed for a record that grew at its end: at least min bytes,
 * the fields up to need copied when present and zero when not.
 */
static int pa_reader_grown(struct pa_log_buf *buf, uint64_t off, const char *rec, uint32_t size,
			   void *dst, size_t min, size_t need, const char *what,
			   struct pa_error *err)
{
	size_t n = size < need ? size : need;

	if (size < min) {
		pa_error_set(err, -EINVAL, buf->path, true, off,
			     "%s record of %u bytes, needs at least %zu", what, size, min);
		return -EINVAL;
	}
	memset(dst, 0, need);
	memcpy(dst, rec, n);
	return 0;
}

/* A PPF_REC_LOG_FULL, in either kind of log; the first one counts. */
static int pa_reader_log_full_rec(struct pa_log_buf *buf, uint64_t off, const char *rec,
				  uint32_t size, struct pa_log_full *full,
				  struct pa_error *err)
{
	struct ppf_log_full r;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "log full", err) < 0)
		return -EINVAL;
	if (full->full)
		return 0;
	full->full = true;
	full->time_ns = r.time_ns;
	full->error = r.error;
	buf->full = full;
	return 0;
}

/*
 * A record type this file kind does not have: a known type of the other
 * kind is an error, an unknown one is counted and skipped.
 */
static int pa_reader_other_type(struct pa_log_buf *buf, uint64_t off, uint32_t type,
				const char *kind, struct pa_error *err)
{
	if ((type >= PPF_REC_PROCESS && type <= PPF_REC_THREAD_QUIET) || type == PPF_REC_VDSO ||
	    type == PPF_REC_IDENTITY || type == PPF_REC_MODULE_REF || type == PPF_REC_EVENT_REF ||
	    type == PPF_REC_MODULE_FILE ||
	    (type >= PPF_REC_THREAD && type <= PPF_REC_THREAD_EVENT) ||
	    type == PPF_REC_STACK || type == PPF_REC_SAMPLE_BLOCK || type == PPF_REC_STACK_SAMPLE)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "record type %u does not belong in a %s", type, kind);
	buf->unknown++;
	return 0;
}

/*
 * Why a run directory may be missing or hold no process: the likely causes,
 * for the user who expected one.
 */
#define PA_READER_NO_PROFILE                                                  \
	"was the program statically linked (LD_PRELOAD cannot enter it), did "   \
	"LD_PRELOAD not reach it (a wrapper or sudo drops it), or did "           \
	"PPROF_OUTPUT send its logs elsewhere?"
#define PA_READER_NO_RUN "No such file or directory; " PA_READER_NO_PROFILE

/* ---- process.log -------------------------------------------------------- */

struct pa_process_ctx {
	struct pa_process *proc;
	size_t events_cap;
	size_t modules_cap;
	size_t execs_cap;
	size_t unsampled_cap;
	size_t unprofiled_cap;
	size_t quiet_cap;
	bool saw_process;
	bool saw_config;
	bool saw_identity;
	bool last_exec; /* the latest record was PPF_REC_EXEC */
};

static int pa_reader_split_cmdline(struct pa_process *proc, const char *p, size_t len)
{
	size_t argc = 0;

	for (size_t i = 0; i < len; i++)
		argc += p[i] == '\0';
	proc->argv = calloc(argc + 1, sizeof(*proc->argv));
	if (!proc->argv)
		return -ENOMEM;
	for (size_t i = 0, a = 0; a < argc; a++) {
		proc->argv[a] = strdup(p + i);
		if (!proc->argv[a])
			return -ENOMEM;
		proc->argc = a + 1;
		i += strlen(p + i) + 1;
	}
	return 0;
}

static int pa_reader_process_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				 uint64_t off, const char *rec, uint32_t size,
				 struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_process p;
	const char *exe, *cmd;

	if (pa_reader_fixed(buf, off, rec, size, &p, sizeof(p), "process", err) < 0)
		return -EINVAL;
	if (c->saw_process)
		return pa_error_set(err, -EINVAL, buf->path, true, off, "second process record");
	if ((uint64_t)p.exe_len + p.cmdline_len > size - sizeof(p))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "process record: exe_len %u + cmdline_len %u exceed "
				    "the %zu bytes after the fixed part",
				    p.exe_len, p.cmdline_len, size - sizeof(p));
	exe = rec + sizeof(p);
	cmd = exe + p.exe_len;
	if (p.exe_len == 0 || exe[p.exe_len - 1] != '\0')
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "process record: exe path is not NUL-terminated");
	if (p.cmdline_len && cmd[p.cmdline_len - 1] != '\0')
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "process record: command line is not NUL-terminated");
	c->saw_process = true;
	proc->pid = p.pid;
	proc->ppid = p.ppid;
	proc->start_ns = p.start_ns;
	proc->start_realtime_ns = p.start_realtime_ns;
	proc->mode = p.mode;
	proc->signal = p.signal;
	proc->exe = strdup(exe);
	if (!proc->exe || pa_reader_split_cmdline(proc, cmd, p.cmdline_len) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	return 0;
}

/* A string of len bytes at p, NUL-terminated (its last byte), copied into *out. */
static int pa_reader_string_dup(struct pa_log_buf *buf, uint64_t off, const char *what,
				const char *p, uint32_t len, char **out, struct pa_error *err)
{
	if (len == 0 || p[len - 1] != '\0')
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "identity record: %s is not NUL-terminated", what);
	*out = strdup(p);
	return *out ? 0 : pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
}

/* A PPF_REC_IDENTITY: the host, boot, rank and job, and a wall-clock anchor. */
static int pa_reader_identity_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				  uint64_t off, const char *rec, uint32_t size,
				  struct pa_error *err)
{
	struct pa_identity *id = &c->proc->id;
	struct ppf_identity r;
	const char *host = rec + sizeof(r);

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "identity", err) < 0)
		return -EINVAL;
	if (c->saw_identity)
		return pa_error_set(err, -EINVAL, buf->path, true, off, "second identity record");
	if ((uint64_t)r.host_len + r.job_len > size - sizeof(r))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "identity record: host_len %u + job_len %u exceed the %zu "
				    "bytes after the fixed part", r.host_len, r.job_len,
				    size - sizeof(r));
	c->saw_identity = true;
	if (pa_reader_string_dup(buf, off, "host", host, r.host_len, &id->host, err) < 0 ||
	    pa_reader_string_dup(buf, off, "job", host + r.host_len, r.job_len, &id->job,
				 err) < 0)
		return -EINVAL;
	id->known = true;
	memcpy(id->boot_id, r.boot_id, sizeof(id->boot_id));
	id->rank = r.rank < 0 ? -1 : r.rank;
	id->world_size = r.world_size < 1 ? -1 : r.world_size;
	id->rank_source = r.rank_source;
	id->anchor_mono_ns = r.anchor_mono_ns;
	id->anchor_real_ns = r.anchor_real_ns;
	return 0;
}

static int pa_reader_event_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
			       uint64_t off, const char *rec, uint32_t size,
			       struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_event e;
	struct pa_event *pe;

	if (pa_reader_grown(buf, off, rec, size, &e, PPF_EVENT_V1_SIZE, sizeof(e), "event",
			    err) < 0)
		return -EINVAL;
	if (!memchr(e.name, '\0', sizeof(e.name)) || !memchr(e.spec, '\0', sizeof(e.spec)))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "event record %u: %s is not NUL-terminated", e.index,
				    memchr(e.name, '\0', sizeof(e.name)) ? "spec" : "name");
	/* A section name of the configuration (before config1, a perf name): never empty. */
	if (!e.name[0])
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "event record %u: empty name", e.index);
	if (pa_process_find_event(proc, e.index))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "second event with index %u", e.index);
	if (pa_grow((void **)&proc->events, &c->events_cap, proc->nevents, sizeof(*pe)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	pe = &proc->events[proc->nevents++];
	pe->index = e.index;
	pe->type = e.type;
	pe->config = e.config;
	pe->config1 = e.config1;
	pe->config2 = e.config2;
	pe->period = e.period;
	pe->flags = e.flags;
	pe->error = e.error;
	pe->precise_ip = e.precise_ip;
	memcpy(pe->name, e.name, sizeof(pe->name));
	/* Before spec existed, name was the event's perf name. */
	memcpy(pe->spec, e.spec[0] ? e.spec : e.name, sizeof(pe->spec));
	return 0;
}

/* The configuration record: source and text follow the fixed part, each NUL-terminated. */
static int pa_reader_config_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				uint64_t off, const char *rec, uint32_t size,
				struct pa_error *err)
{
	struct pa_config *pc = &c->proc->config;
	struct ppf_config r;
	const char *source, *text;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "config", err) < 0)
		return -EINVAL;
	if (c->saw_config)
		return pa_error_set(err, -EINVAL, buf->path, true, off, "second config record");
	if ((uint64_t)r.source_len + r.text_len > size - sizeof(r))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "config record: source_len %u + text_len %u exceed "
				    "the %zu bytes after the fixed part",
				    r.source_len, r.text_len, size - sizeof(r));
	source = rec + sizeof(r);
	text = source + r.source_len;
	if (r.source_len == 0 || strnlen(source, r.source_len) != r.source_len - 1)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "config record: source is not one NUL-terminated string");
	if (r.text_len && text[r.text_len - 1] != '\0')
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "config record: text is not NUL-terminated");
	c->saw_config = true;
	pc->known = true;
	pc->mode_request = r.mode_request;
	pc->max_frames = r.max_frames;
	pc->flags = r.flags;
	pc->text_len = r.text_len ? r.text_len - 1 : 0;
	pc->source = strdup(source);
	pc->text = malloc(pc->text_len + 1);
	if (!pc->source || !pc->text)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	memcpy(pc->text, text, pc->text_len);
	pc->text[pc->text_len] = '\0';
	return 0;
}

/*
 * Check the path that follows a record's fixed part: len bytes (NUL
 * included) of the avail bytes left in the record; len 0 only if allow_empty.
 */
static int pa_reader_path(struct pa_log_buf *buf, uint64_t off, const char *what,
			  const char *path, uint32_t len, size_t avail, bool allow_empty,
			  struct pa_error *err)
{
	if (len > avail)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "%s record: path_len %u exceeds the %zu bytes "
				    "after the fixed part", what, len, avail);
	if ((len == 0 && !allow_empty) || (len && path[len - 1] != '\0'))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "%s record: path is not NUL-terminated", what);
	return 0;
}

static int pa_reader_module_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				uint64_t off, const char *rec, uint32_t size,
				struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_module m;
	struct pa_module *pm;
	const char *path = rec + sizeof(m);

	if (pa_reader_fixed(buf, off, rec, size, &m, sizeof(m), "module", err) < 0)
		return -EINVAL;
	if (m.build_id_len > PPF_BUILD_ID_MAX)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "module record: build-id length %u exceeds %u",
				    m.build_id_len, PPF_BUILD_ID_MAX);
	if (pa_reader_path(buf, off, "module", path, m.path_len, size - sizeof(m), true, err) < 0)
		return -EINVAL;
	if (m.end < m.start)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "module record: end 0x%llx is below start 0x%llx",
				    (unsigned long long)m.end, (unsigned long long)m.start);
	if (pa_grow((void **)&proc->modules, &c->modules_cap, proc->nmodules, sizeof(*pm)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	pm = &proc->modules[proc->nmodules];
	memset(pm, 0, sizeof(*pm));
	pm->path = strdup(m.path_len ? path : "");
	if (!pm->path)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	proc->nmodules++;
	pm->id = m.id;
	pm->bias = m.bias;
	pm->start = m.start;
	pm->end = m.end;
	pm->pgoff = m.pgoff;
	pm->load_ns = m.load_ns;
	pm->unload_ns = UINT64_MAX;
	pm->build_id_len = m.build_id_len;
	memcpy(pm->build_id, m.build_id, m.build_id_len);
	return 0;
}

/*
 * Where the file name of the run's root is for the process log at log:
 * beside its process directory, or beside it when the log is alone at the
 * root (<exe>@<host>.<pid>.log). NULL when out of memory.
 */
static char *pa_reader_root_file(const char *log, const char *name)
{
	const char *slash = strrchr(log, '/');
	const char *base = slash ? slash + 1 : log;
	int len = slash ? (int)(slash - log) + 1 : 0;
	char *p;

	if (strcmp(base, PPF_PROCESS_LOG) == 0)
		return pa_parent_file(log, slash ? (size_t)(slash - log) : 0, name);
	if (asprintf(&p, "%.*s%s", len, log, name) < 0)
		return NULL;
	return p;
}

char *pa_parent_file(const char *dir, size_t len, const char *name)
{
	const char *slash;

	/* DIR/P/ (as a shell completes it) is DIR/P. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	slash = memrchr(dir, '/', len);
	const char *base = slash ? slash + 1 : dir;
	size_t blen = len - (size_t)(base - dir);
	char *p;
	int n;

	/* "", ".", "..": no name to take off; the directory's own parent. */
	if (blen == 0 || (blen == 1 && base[0] == '.') ||
	    (blen == 2 && base[0] == '.' && base[1] == '.'))
		n = len ? asprintf(&p, "%.*s/../%s", (int)len, dir, name) :
			  asprintf(&p, "../%s", name);
	else if (!slash)
		n = asprintf(&p, "%s", name);
	else
		n = asprintf(&p, "%.*s/%s", slash > dir ? (int)(slash - dir) : 0, dir, name);
	return n < 0 ? NULL : p;
}

/* The walk of a file at the root: its one record, of type type. */
struct pa_reader_shared_ctx {
	struct pa_process_ctx *c;
	uint32_t type;
	size_t n;
};

static int pa_reader_event_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
			       uint64_t off, const char *rec, uint32_t size,
			       struct pa_error *err);

static int pa_reader_shared_cb(void *ctx, struct pa_log_buf *buf, uint64_t off, const char *rec,
			       uint32_t type, uint32_t size, struct pa_warnings *warn,
			       struct pa_error *err)
{
	struct pa_reader_shared_ctx *s = ctx;

	(void)warn;
	if (type != s->type || s->n++)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "record type %u where the file's one %s record belongs", type,
				    s->type == PPF_REC_MODULE ? "module" : "event");
	return type == PPF_REC_MODULE ? pa_reader_module_rec(s->c, buf, off, rec, size, err) :
					pa_reader_event_rec(s->c, buf, off, rec, size, err);
}

/*
 * Reads the one record (of type type) of the file at the run's root that
 * key names (prefix + key in hex) for the process log being read (buf), after
 * checking that the file is what its name says, into c's process. A file
 * that is missing or not whole is said, once for the run (rootfiles.h), and
 * read as none: returns 1. Else 0, or a negative errno with err filled.
 */
static int pa_reader_shared(struct pa_process_ctx *c, struct pa_log_buf *buf,
			    const char *prefix, const uint8_t *key, uint32_t type,
			    struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_reader_shared_ctx s = { .c = c, .type = type };
	char name[32 + 2 * PPF_MODULE_KEY_LEN];
	struct pa_log_buf sb = { 0 };
	int kept;
	struct pa_error e = { 0 };
	XXH128_canonical_t sum;
	uint64_t first = 0;
	char *path;
	int ret, n;

	n = snprintf(name, sizeof(name), "%s", prefix);
	for (unsigned i = 0; i < PPF_MODULE_KEY_LEN; i++)
		n += snprintf(name + n, sizeof(name) - (size_t)n, "%02x", key[i]);
	path = pa_reader_root_file(buf->path, name);
	if (!path)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	/* Read once for the whole analysis: every process names the same few. */
	kept = pa_rootfiles_find(path, &sb.data, &sb.size);
	if (kept == 2) {
		/* Found bad for another process already, and said then. */
		free(path);
		return 1;
	}
	if (kept == 1) {
		sb.path = path;
		ret = 0;
	} else {
		ret = kept < 0 ? pa_error_set(&e, kept, path, false, 0, "out of memory") :
				 pa_reader_read_file(path, &sb, &e);
	}
	/* One record after the header: a larger file is none of ours (not read whole). */
	if (ret == 0 && kept != 1 && sb.size > sizeof(struct ppf_file_header) + PPF_RECORD_MAX) {
		ret = pa_error_set(&e, -EINVAL, path, false, 0,
				   "%zu bytes, more than the header and the one record such a "
				   "file holds (at most %zu): not the file libpprof wrote", sb.size,
				   sizeof(struct ppf_file_header) + (size_t)PPF_RECORD_MAX);
		pa_reader_buf_release(&sb);
	}
	if (ret == 0) {
		if (kept != 1) {
			XXH128_canonicalFromHash(&sum, XXH3_128bits(sb.data, sb.size));
			if (memcmp(sum.digest, key, PPF_MODULE_KEY_LEN) != 0)
				ret = pa_error_set(&e, -EINVAL, path, false, 0,
						   "its content is not what its name says (not "
						   "the file libpprof wrote)");
			/* Not kept when memory is short: read again next time. */
			if (ret == 0)
				(void)pa_rootfiles_keep(path, sb.data, sb.size);
		}
		if (ret == 0)
			ret = pa_reader_check_header(&sb, PPF_FILE_SHARED, &first, &e);
		if (ret == 0)
			ret = pa_reader_walk(&sb, first, pa_reader_shared_cb, &s, warn, &e);
		if (ret == 0 && !s.n)
			ret = pa_error_set(&e, -EINVAL, path, true, sb.data_end, "no %s record",
					   type == PPF_REC_MODULE ? "module" : "event");
		pa_reader_buf_release(&sb);
	}
	if (ret == -ENOMEM) {
		free(path);
		*err = e;
		return ret;
	}
	/*
	 * Said once for the run: a build's 350 processes all name the same
	 * file. Only what stays so is marked: a file missing, or not what its
	 * name says; one that could not be read now (out of descriptors, an
	 * I/O error) is tried again by the next process, and said again.
	 */
	if (ret < 0 && ((ret != -ENOENT && ret != -EINVAL) || pa_rootfiles_mark_bad(path) != 0))
		pa_warnings_add(warn, e.path, e.has_offset, e.offset,
				"%s; the %s it holds is left unknown in every process that "
				"names it", e.reason, type == PPF_REC_MODULE ? "module" : "event");
	free(path);
	return ret < 0 ? 1 : 0;
}

/*
 * A PPF_REC_MODULE_REF: the module's record is in a file at the run's root.
 * A file that is missing or not whole leaves the module unnamed, with a
 * warning: the process's other data still reads.
 */
static int pa_reader_module_ref_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				    uint64_t off, const char *rec, uint32_t size,
				    struct pa_warnings *warn, struct pa_error *err)
{
	struct ppf_module_ref r;
	struct pa_module *pm;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "module ref", err) < 0)
		return -EINVAL;
	ret = pa_reader_shared(c, buf, PPF_MODULE_FILE_PREFIX, r.key, PPF_REC_MODULE, warn,
			       err);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	pm = &c->proc->modules[c->proc->nmodules - 1];
	if (pm->start > UINT64_MAX - r.bias || pm->end > UINT64_MAX - r.bias) {
		c->proc->nmodules--;
		free(pm->path);
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "module ref record: bias 0x%llx puts the module past the "
				    "address space", (unsigned long long)r.bias);
	}
	pm->id = r.id;
	pm->bias = r.bias;
	pm->start += r.bias;
	pm->end += r.bias;
	pm->load_ns = r.load_ns;
	return 0;
}

/* A PPF_REC_EVENT_REF: the event's record is in a file at the run's root. */
static int pa_reader_event_ref_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				   uint64_t off, const char *rec, uint32_t size,
				   struct pa_warnings *warn, struct pa_error *err)
{
	struct ppf_event_ref r;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "event ref", err) < 0)
		return -EINVAL;
	ret = pa_reader_shared(c, buf, PPF_EVENT_FILE_PREFIX, r.key, PPF_REC_EVENT, warn,
			       err);
	if (ret == 1)
		c->proc->events_unread = true;
	return ret < 0 ? ret : 0;
}

/* The latest module of id (ids are unique, but be lenient), or NULL. */
static struct pa_module *pa_reader_module_of(struct pa_process *proc, uint64_t id)
{
	for (size_t i = proc->nmodules; i > 0; i--)
		if (proc->modules[i - 1].id == id)
			return &proc->modules[i - 1];
	return NULL;
}

/*
 * The path after the fixed part (fixed_size bytes) of a record of size
 * bytes, path_len bytes long: checked (pa_reader_path: not empty) and
 * copied into *out. Returns 0, or a negative errno with err filled.
 */
static int pa_reader_path_dup(struct pa_log_buf *buf, uint64_t off, const char *what,
			      const char *rec, uint32_t size, size_t fixed_size,
			      uint32_t path_len, char **out, struct pa_error *err)
{
	*out = NULL;
	if (pa_reader_path(buf, off, what, rec + fixed_size, path_len, size - fixed_size, false,
			   err) < 0)
		return -EINVAL;
	*out = strdup(rec + fixed_size);
	return *out ? 0 : pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
}

/* A PPF_REC_VDSO: its module's image is a file at the run's root. */
static int pa_reader_vdso_rec(struct pa_process_ctx *c, struct pa_log_buf *buf, uint64_t off,
			      const char *rec, uint32_t size, struct pa_warnings *warn,
			      struct pa_error *err)
{
	struct pa_module *pm;
	struct ppf_vdso r;
	char *name;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "vdso", err) < 0)
		return -EINVAL;
	ret = pa_reader_path_dup(buf, off, "vdso", rec, size, sizeof(r), r.name_len, &name, err);
	if (ret < 0)
		return ret;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		ret = pa_error_set(err, -EINVAL, buf->path, true, off,
				   "vdso record: '%s' is not a file name", name);
		free(name);
		return ret;
	}
	pm = pa_reader_module_of(c->proc, r.module_id);
	if (!pm) {
		free(name);
		pa_warnings_add(warn, buf->path, true, off,
				"vdso record of unknown module id %llu ignored",
				(unsigned long long)r.module_id);
		return 0;
	}
	free(pm->vdso_image);
	pm->vdso_image = name;
	return 0;
}

/* A PPF_REC_MODULE_FILE: the file of a module without a build-id as it was mapped. */
static int pa_reader_module_file_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				     uint64_t off, const char *rec, uint32_t size,
				     struct pa_warnings *warn, struct pa_error *err)
{
	struct ppf_module_file r;
	struct pa_module *pm;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "module file", err) < 0)
		return -EINVAL;
	pm = pa_reader_module_of(c->proc, r.module_id);
	if (!pm) {
		pa_warnings_add(warn, buf->path, true, off,
				"module file record of unknown module id %llu ignored",
				(unsigned long long)r.module_id);
		return 0;
	}
	pm->has_file = true;
	pm->file_size = r.size;
	pm->file_mtime_ns = r.mtime_ns;
	return 0;
}

static int pa_reader_exec_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
			      uint64_t off, const char *rec, uint32_t size,
			      struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_exec x;
	struct pa_exec *px;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &x, sizeof(x), "exec", err) < 0)
		return -EINVAL;
	if (pa_grow((void **)&proc->execs, &c->execs_cap, proc->nexecs, sizeof(*px)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	px = &proc->execs[proc->nexecs];
	px->time_ns = x.time_ns;
	ret = pa_reader_path_dup(buf, off, "exec", rec, size, sizeof(x), x.path_len, &px->path,
				 err);
	if (ret < 0)
		return ret;
	proc->nexecs++;
	return 0;
}

static int pa_reader_unsampled_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				   uint64_t off, const char *rec, uint32_t size,
				   struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_thread_unsampled r;
	struct pa_unsampled *u;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "unsampled thread", err) < 0)
		return -EINVAL;
	if (pa_grow((void **)&proc->unsampled, &c->unsampled_cap, proc->nunsampled,
		    sizeof(*u)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	u = &proc->unsampled[proc->nunsampled++];
	u->tid = r.tid;
	u->what = r.what;
	u->time_ns = r.time_ns;
	u->error = r.error;
	pa_reader_copy_name(u->name, sizeof(u->name), r.name, sizeof(r.name));
	return 0;
}

/*
 * PPF_REC_THREAD_QUIET: a thread with no sample, made a pa_thread as its
 * log would have made it; a later record of the same tid replaces it.
 */
static int pa_reader_quiet_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
			       uint64_t off, const char *rec, uint32_t size,
			       struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_thread_quiet r;
	struct pa_thread *t;
	size_t i;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "quiet thread", err) < 0)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(buf->path))) {
		free(t);
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	}
	t->pid = proc->pid;
	t->tid = r.tid;
	pa_reader_copy_name(t->name, sizeof(t->name), r.name, sizeof(r.name));
	t->start_ns = r.start_ns;
	t->cpu_ns = r.cpu_ns;
	t->user_ns = r.user_ns;
	t->system_ns = r.system_ns;
	/* At an exec: as a log whose last progress record was then. */
	t->ended = !(r.flags & PPF_QUIET_EXEC);
	t->progress = !t->ended;
	if (t->ended)
		t->end_ns = r.end_ns;
	else
		t->progress_ns = r.end_ns;
	for (i = 0; i < proc->nquiet && proc->quiet[i]->tid != r.tid; i++)
		;
	if (i < proc->nquiet) {
		pa_thread_free(proc->quiet[i]);
		proc->quiet[i] = t;
		return 0;
	}
	if (pa_grow((void **)&proc->quiet, &c->quiet_cap, proc->nquiet, sizeof(t)) < 0) {
		pa_thread_free(t);
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	}
	proc->quiet[proc->nquiet++] = t;
	return 0;
}

static int pa_reader_unprofiled_rec(struct pa_process_ctx *c, struct pa_log_buf *buf,
				    uint64_t off, const char *rec, uint32_t size,
				    struct pa_error *err)
{
	struct pa_process *proc = c->proc;
	struct ppf_unprofiled r;
	struct pa_unprofiled *u;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "unprofiled program", err) < 0)
		return -EINVAL;
	if (pa_grow((void **)&proc->unprofiled, &c->unprofiled_cap, proc->nunprofiled,
		    sizeof(*u)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	u = &proc->unprofiled[proc->nunprofiled];
	ret = pa_reader_path_dup(buf, off, "unprofiled program", rec, size, sizeof(r),
				 r.path_len, &u->path, err);
	if (ret < 0)
		return ret;
	u->time_ns = r.time_ns;
	u->pid = r.pid;
	u->why = r.why;
	proc->nunprofiled++;
	return 0;
}

/*
 * A PPF_REC_PROCESS_PAUSED (process) or PPF_REC_THREAD_PAUSED into *out:
 * the last one holds the totals so far (one before each exec attempt).
 */
static int pa_reader_paused_rec(struct pa_log_buf *buf, uint64_t off, const char *rec,
				uint32_t size, bool process, struct pa_paused *out,
				struct pa_error *err)
{
	struct ppf_thread_paused r; /* the process's has the same layout */

	if (pa_reader_grown(buf, off, rec, size, &r, sizeof(r), sizeof(r),
			    process ? "process paused" : "thread paused", err) < 0)
		return -EINVAL;
	*out = (struct pa_paused){ .paused_ns = r.paused_ns, .pauses = r.pauses,
				   .flags = r.flags };
	if (process)
		out->delay_ns = r.cpu_ns;
	else
		out->cpu_ns = r.cpu_ns;
	return 0;
}

/* A PPF_REC_PROCESS_CPU; a moment it does not know is skipped. */
static int pa_reader_cpu_rec(struct pa_process_ctx *c, struct pa_log_buf *buf, uint64_t off,
			     const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_process_cpu r;
	struct pa_cpu_mark *m;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "process CPU", err) < 0)
		return -EINVAL;
	switch (r.when) {
	case PPF_CPU_CONSTRUCTOR:
		m = &c->proc->cpu_entry;
		break;
	case PPF_CPU_SAMPLING:
		m = &c->proc->cpu_sampling;
		break;
	case PPF_CPU_EXEC:
		m = &c->proc->cpu_exec;
		break;
	default:
		return 0;
	}
	*m = (struct pa_cpu_mark){ .known = true, .user_ns = r.user_ns, .system_ns = r.system_ns,
				   .tid = r.tid, .thread_user_ns = r.thread_user_ns,
				   .thread_system_ns = r.thread_system_ns };
	return 0;
}

static int pa_reader_process_cb(void *ctx, struct pa_log_buf *buf, uint64_t off,
				const char *rec, uint32_t type, uint32_t size,
				struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_process_ctx *c = ctx;
	struct pa_process *proc = c->proc;

	c->last_exec = type == PPF_REC_EXEC; /* anything after an exec: it failed */
	switch (type) {
	case PPF_REC_PROCESS:
		return pa_reader_process_rec(c, buf, off, rec, size, err);
	case PPF_REC_EVENT:
		return pa_reader_event_rec(c, buf, off, rec, size, err);
	case PPF_REC_IDENTITY:
		return pa_reader_identity_rec(c, buf, off, rec, size, err);
	case PPF_REC_CONFIG:
		return pa_reader_config_rec(c, buf, off, rec, size, err);
	case PPF_REC_MODULE:
		return pa_reader_module_rec(c, buf, off, rec, size, err);
	case PPF_REC_EXEC:
		return pa_reader_exec_rec(c, buf, off, rec, size, err);
	case PPF_REC_THREAD_UNSAMPLED:
		return pa_reader_unsampled_rec(c, buf, off, rec, size, err);
	case PPF_REC_UNPROFILED:
		return pa_reader_unprofiled_rec(c, buf, off, rec, size, err);
	case PPF_REC_THREAD_QUIET:
		return pa_reader_quiet_rec(c, buf, off, rec, size, err);
	case PPF_REC_PROCESS_CPU:
		return pa_reader_cpu_rec(c, buf, off, rec, size, err);
	case PPF_REC_PROCESS_PAUSED:
		return pa_reader_paused_rec(buf, off, rec, size, true, &proc->paused, err);
	case PPF_REC_VDSO:
		return pa_reader_vdso_rec(c, buf, off, rec, size, warn, err);
	case PPF_REC_MODULE_FILE:
		return pa_reader_module_file_rec(c, buf, off, rec, size, warn, err);
	case PPF_REC_MODULE_REF:
		return pa_reader_module_ref_rec(c, buf, off, rec, size, warn, err);
	case PPF_REC_EVENT_REF:
		return pa_reader_event_ref_rec(c, buf, off, rec, size, warn, err);
	case PPF_REC_MODULE_UNLOAD: {
		struct ppf_module_unload u;
		struct pa_module *pm;

		if (pa_reader_fixed(buf, off, rec, size, &u, sizeof(u), "module unload", err) < 0)
			return -EINVAL;
		pm = pa_reader_module_of(proc, u.id);
		if (!pm)
			pa_warnings_add(warn, buf->path, true, off,
					"unload of unknown module id %llu ignored",
					(unsigned long long)u.id);
		else
			pm->unload_ns = u.unload_ns;
		return 0;
	}
	case PPF_REC_LOG_FULL:
		return pa_reader_log_full_rec(buf, off, rec, size, &proc->full, err);
	case PPF_REC_PROCESS_END: {
		struct ppf_process_end e;

		if (pa_reader_grown(buf, off, rec, size, &e, PPF_PROCESS_END_V1_SIZE, sizeof(e),
				    "process end", err) < 0)
			return -EINVAL;
		buf->saw_end = true;
		proc->ended = true;
		proc->end_ns = e.end_ns;
		proc->samples_taken = e.samples;
		proc->lost = e.lost;
		proc->throttled = e.throttled;
		proc->exit_how = e.how;
		proc->exit_status = e.status;
		proc->user_ns = e.user_ns;
		proc->system_ns = e.system_ns;
		return 0;
	}
	default:
		return pa_reader_other_type(buf, off, type, "process log", err);
	}
}

static int pa_reader_cmp_unsampled(const void *a, const void *b)
{
	const struct pa_unsampled *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

void pa_unsampled_reason(const struct pa_unsampled *u, char *buf, size_t size)
{
	static const char *const what[] = {
		[PPF_UNSAMPLED_LOG] = "no log",
		[PPF_UNSAMPLED_ALTSTACK] = "no alternate signal stack",
		[PPF_UNSAMPLED_EVENTS] = "no sampling event",
	};

	if (u->what == PPF_UNSAMPLED_SHARE)
		snprintf(buf, size, "over the profiler's share of %s",
			 u->error == EMFILE ? "RLIMIT_NOFILE" : "RLIMIT_AS");
	else if (u->what == PPF_UNSAMPLED_TABLE && u->error == ENOSPC)
		snprintf(buf, size, "the profiler's thread table was full");
	else if (u->what == PPF_UNSAMPLED_TABLE)
		snprintf(buf, size, "no slot in the profiler's thread table: %s",
			 strerror(u->error));
	else if (u->what < sizeof(what) / sizeof(what[0]) && what[u->what])
		snprintf(buf, size, "%s: %s", what[u->what], strerror(u->error));
	else
		snprintf(buf, size, "reason %u: %s", u->what, strerror(u->error));
}

void pa_process_free(struct pa_process *proc)
{
	if (!proc)
		return;
	free(proc->exe);
	free(proc->id.host);
	free(proc->id.job);
	free(proc->run_dir);
	free(proc->config.source);
	free(proc->config.text);
	for (size_t i = 0; proc->argv && i < proc->argc; i++)
		free(proc->argv[i]);
	free(proc->argv);
	free(proc->events);
	for (size_t i = 0; i < proc->nmodules; i++) {
		free(proc->modules[i].path);
		free(proc->modules[i].vdso_image);
	}
	free(proc->modules);
	for (size_t i = 0; i < proc->nexecs; i++)
		free(proc->execs[i].path);
	free(proc->execs);
	free(proc->unsampled);
	for (size_t i = 0; i < proc->nunprofiled; i++)
		free(proc->unprofiled[i].path);
	free(proc->unprofiled);
	pa_thread_free(proc->before_thread);
	for (size_t i = 0; i < proc->nthreads; i++)
		pa_thread_free(proc->threads[i]);
	free(proc->threads);
	for (size_t i = 0; i < proc->nquiet; i++)
		pa_thread_free(proc->quiet[i]);
	free(proc->quiet);
	free(proc->dir);
	free(proc->path);
	free(proc->wall);
	free(proc);
}

/*
 * Whether proc ended without its END record, neither replaced by exec nor
 * stopped by a full disk: a raw exit_group (every dynamically linked Go
 * program), a kill, or still running. A run says so once for all of them
 * (pa_reader_warn_unended), not once per log.
 */
static bool pa_reader_unended(const struct pa_process *proc)
{
	return !proc->ended && !proc->replaced && !proc->full.full;
}

/*
 * Parses buf, a process.log named buf->path, into *out; releases buf's
 * data. quiet: say nothing of a missing END (pa_reader_unended).
 */
static int pa_reader_process_parse(struct pa_log_buf *buf, bool quiet, struct pa_process **out,
				   struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_process_ctx c = { 0 };
	const char *path = buf->path;
	int ret;

	c.proc = calloc(1, sizeof(*c.proc));
	if (c.proc) {
		c.proc->path = strdup(path);
		c.proc->dir = strdup("");
		c.proc->id.rank = c.proc->id.world_size = -1;
	}
	ret = !c.proc || !c.proc->path || !c.proc->dir ?
		pa_error_set(err, -ENOMEM, path, false, 0, "out of memory") :
		pa_reader_parse(buf, PPF_FILE_PROCESS, "process", pa_reader_process_cb, &c,
				&c.saw_process, warn, err);
	pa_reader_buf_release(buf);
	if (ret < 0) {
		pa_process_free(c.proc);
		return ret;
	}
	c.proc->unknown_records = buf->unknown;
	pa_grow_fit((void **)&c.proc->events, &c.events_cap, c.proc->nevents,
		    sizeof(*c.proc->events));
	pa_grow_fit((void **)&c.proc->modules, &c.modules_cap, c.proc->nmodules,
		    sizeof(*c.proc->modules));
	if (c.proc->nunsampled)
		qsort(c.proc->unsampled, c.proc->nunsampled, sizeof(*c.proc->unsampled),
		      pa_reader_cmp_unsampled);
	/* A truncated tail after the EXEC means more was written: the exec failed. */
	c.proc->replaced = c.last_exec && !buf->truncated && !c.proc->ended;
	pa_reader_check_end(buf, !c.proc->replaced && !(quiet && pa_reader_unended(c.proc)), warn);
	if (c.proc->mode == PPF_MODE_OFF)
		pa_warnings_add(warn, path, false, 0,
				"profiling was off in process %u (%s): its stderr has a "
				"'libpprof:' line saying why", c.proc->pid,
				c.proc->exe ? c.proc->exe : "?");
	*out = c.proc;
	return 0;
}

/* pa_process_log_load, quiet as for pa_reader_process_parse. */
/*
 * What pa_reader_thread_load returns for a log of a process that did not
 * end (killed, or replaced by an exec) whose header was never written: the
 * profiler made the file (in the handler, at the thread's first sample)
 * and the process died before the header went in. Skipped with a warning.
 * So is a process's own log in that state (made at its start: nothing in
 * it says whether the process ended), unless it is all a run has.
 */
#define PA_READER_NO_HEADER (-ENODATA)
/* pa_thread_each_sample: every sample the load read was given; the rest is newer. */
#define PA_READER_STOP (-ECHILD)

/* Whether buf holds no header: shorter than one, or zeros where it goes (allocated, unwritten). */
static bool pa_reader_no_header(const struct pa_log_buf *buf)
{
	return pa_reader_all_zero(buf->data, buf->size < sizeof(struct ppf_file_header) ?
					     buf->size : sizeof(struct ppf_file_header));
}

/*
 * Reads the process log at path. in_run: as one of a run's, where a log
 * whose header was never written is PA_READER_NO_HEADER (skipped).
 */
static int pa_reader_process_load(const char *path, bool quiet, bool in_run,
				  struct pa_process **out, struct pa_warnings *warn,
				  struct pa_error *err)
{
	struct pa_log_buf buf;
	int ret;

	*out = NULL;
	ret = pa_reader_read_file(path, &buf, err);
	if (ret < 0)
		return ret;
	if (in_run && pa_reader_no_header(&buf)) {
		pa_reader_buf_release(&buf);
		return pa_error_set(err, PA_READER_NO_HEADER, path, false, 0,
				    "no header: the log was being made when its process was "
				    "killed");
	}
	return pa_reader_process_parse(&buf, quiet, out, warn, err);
}

int pa_process_log_load(const char *path, struct pa_process **out,
			struct pa_warnings *warn, struct pa_error *err)
{
	return pa_reader_process_load(path, false, false, out, warn, err);
}

/* ---- thread-<tid>.log ---------------------------------------------------- */

/* What reading one process's thread logs needs: its pa_load_opts, and the process. */
struct pa_reader_topts {
	bool collapse;
	bool stream;              /* collapsed, to be read again one by one (pa_thread.stream) */
	/* Set: each sample goes to each(each_ctx, sample), not into the thread; the first each_limit. */
	int (*each)(void *ctx, const struct pa_sample *s);
	void *each_ctx;
	uint64_t each_limit;
	bool index_cpu;           /* collapsing a process with a wall.log: */
	uint32_t cpu_event;       /* its samples of this event into pa_thread.cpu_when */
	struct pa_window window;
	uint64_t start_ns;        /* the process start */
	uint64_t *unloads;        /* module unload times, ascending */
	size_t nunloads;
};

/* Collapsing: an entry of the table of a thread's distinct samples. */
struct pa_reader_slot {
	uint32_t hash;  /* low half of the sample's hash */
	uint32_t index; /* into samples, + 1; 0: free */
};

/* Collapsing: addresses of distinct samples, in blocks that never move. */
struct pa_reader_block {
	struct pa_reader_block *next;
	size_t used, cap;
	uint64_t v[];
};

#define PA_READER_BLOCK_MIN 32         /* addresses: small threads stay small */
#define PA_READER_BLOCK_MAX (1u << 17) /* addresses: 1 MiB */
#define PA_READER_RELEASE (4u << 20)   /* bytes of a mapping read before they are released */

/* A PPF_REC_STACK read: its addresses (in the log's data, or copied when collapsing). */
struct pa_reader_stack {
	const uint64_t *ips;
	uint16_t nframes;
};

struct pa_thread_ctx {
	struct pa_thread *thread;
	size_t samples_cap;
	size_t events_cap;
	struct pa_reader_stack *stacks; /* by id: the log's stack records so far */
	size_t nstacks;
	size_t stacks_cap;
	bool saw_thread;
	const struct pa_reader_topts *o;
	struct pa_reader_slot *slots; /* collapsing: power-of-two sized, at most half full */
	size_t slots_cap;
	uint64_t released;            /* collapsing: the mapping is released up to here */
	uint64_t weight;              /* the next record's PPF_REC_SAMPLE_WEIGHT, 0: none */
	size_t cpu_when_cap;
	uint64_t nread;               /* samples read so far, the window's too */
	uint64_t read_by_event[PA_PROGRESS_EVENTS]; /* weighted, by event index (not re-reads) */
};

size_t pa_unloads_epoch(const uint64_t *unloads, size_t n, uint64_t time_ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (unloads[mid] <= time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Modules unloaded at or before time_ns: samples of equal epoch and addresses mean the same. */
static size_t pa_reader_epoch(const struct pa_reader_topts *o, uint64_t time_ns)
{
	return pa_unloads_epoch(o->unloads, o->nunloads, time_ns);
}

int pa_cpu_when_add(struct pa_cpu_when **v, size_t *n, size_t *cap, uint64_t time_ns,
		    uint32_t entry, uint64_t count)
{
	do {
		uint32_t part = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;

		if (pa_grow((void **)v, cap, *n, sizeof(**v)) < 0)
			return -ENOMEM;
		(*v)[(*n)++] = (struct pa_cpu_when){ .time_ns = time_ns, .entry = entry,
						     .count = part };
		count -= part;
	} while (count);
	return 0;
}

/* Hash of what tells samples apart when collapsing: addresses, event, flags, epoch. */
static uint64_t pa_reader_sample_hash(const struct ppf_sample *s, const uint64_t *ips,
				      size_t epoch)
{
	uint64_t seed = (uint64_t)s->event | (uint64_t)s->flags << 32 | (uint64_t)epoch << 48;

	return pa_hash(ips, s->nframes * sizeof(*ips), seed);
}

/* Doubles c's slot table; -ENOMEM. */
static int pa_reader_slots_grow(struct pa_thread_ctx *c)
{
	size_t ncap = c->slots_cap ? c->slots_cap * 2 : 256;
	struct pa_reader_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < c->slots_cap; i++) {
		size_t j;

		if (!c->slots[i].index)
			continue;
		for (j = c->slots[i].hash & (ncap - 1); ns[j].index; j = (j + 1) & (ncap - 1))
			;
		ns[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = ns;
	c->slots_cap = ncap;
	return 0;
}

/* n addresses of room that stays put until the thread is freed; NULL: no memory. */
static uint64_t *pa_reader_block_take(struct pa_thread *t, size_t n)
{
	struct pa_reader_block *b = t->ip_blocks;

	if (!b || b->used + n > b->cap) {
		size_t cap = b ? b->cap * 2 : PA_READER_BLOCK_MIN;

		if (cap > PA_READER_BLOCK_MAX)
			cap = PA_READER_BLOCK_MAX;
		if (cap < n)
			cap = n;
		b = malloc(sizeof(*b) + cap * sizeof(b->v[0]));
		if (!b)
			return NULL;
		b->next = t->ip_blocks;
		b->used = 0;
		b->cap = cap;
		t->ip_blocks = b;
	}
	b->used += n;
	return &b->v[b->used - n];
}

/*
 * Collapsing: count sample s (addresses ips) into its entry in t->samples,
 * made when new, its index into *entry; -ENOMEM.
 */
static int pa_reader_collapse(struct pa_thread_ctx *c, const struct ppf_sample *s,
			      const uint64_t *ips, uint64_t weight, uint32_t *entry)
{
	struct pa_thread *t = c->thread;
	size_t epoch = c->o->nunloads ? pa_reader_epoch(c->o, s->time_ns) : 0;
	uint64_t h = pa_reader_sample_hash(s, ips, epoch);
	struct pa_sample *ps;
	uint64_t *copy;
	size_t j;

	if ((t->nsamples + 1) * 2 > c->slots_cap && pa_reader_slots_grow(c) < 0)
		return -ENOMEM;
	for (j = h & (c->slots_cap - 1); c->slots[j].index; j = (j + 1) & (c->slots_cap - 1)) {
		ps = &t->samples[c->slots[j].index - 1];
		if (c->slots[j].hash != (uint32_t)h || ps->nframes != s->nframes ||
		    ps->event != s->event || ps->flags != s->flags ||
		    ps->count > UINT64_MAX - weight ||
		    memcmp(ps->ips, ips, s->nframes * sizeof(*ips)) != 0 ||
		    (c->o->nunloads && pa_reader_epoch(c->o, ps->time_ns) != epoch))
			continue;
		ps->count += weight;
		if (s->time_ns > ps->time_ns)
			ps->time_ns = s->time_ns;
		*entry = c->slots[j].index - 1;
		return 0;
	}
	if (pa_grow((void **)&t->samples, &c->samples_cap, t->nsamples, sizeof(*ps)) < 0 ||
	    !(copy = pa_reader_block_take(t, s->nframes)))
		return -ENOMEM;
	memcpy(copy, ips, s->nframes * sizeof(*ips));
	ps = &t->samples[t->nsamples++];
	*ps = (struct pa_sample){ .time_ns = s->time_ns, .event = s->event, .flags = s->flags,
				  .nframes = s->nframes, .count = weight, .ips = copy };
	c->slots[j] = (struct pa_reader_slot){ .hash = (uint32_t)h,
					       .index = (uint32_t)t->nsamples };
	*entry = (uint32_t)t->nsamples - 1;
	return 0;
}

/* Collapsing: give back the pages of buf's mapping read before offset off. */
static void pa_reader_release_read(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				   uint64_t off)
{
	uint64_t end;

	if (!buf->mapped || off - c->released < PA_READER_RELEASE)
		return;
	/* Once every 4 MiB: sysconf is cheap there, and a cache would be shared by the workers. */
	end = off & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
	madvise(buf->data + c->released, end - c->released, MADV_DONTNEED);
	c->released = end;
}

/*
 * One sample s (its stack ips, in the log's data or owned by the thread),
 * read from the record at offset off, standing for weight overflows
 * (pa_sample.count), into c's thread as c->o says.
 */
static int pa_reader_add_sample(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				uint64_t off, const struct ppf_sample *s, const uint64_t *ips,
				uint64_t weight, struct pa_error *err)
{
	struct pa_thread *t = c->thread;
	struct pa_sample *ps;

	/* Read again: the samples the load read, not those written since. */
	if (c->o && c->o->each && c->nread == c->o->each_limit)
		return PA_READER_STOP;
	c->nread++;
	if (c->o && c->o->window.on &&
	    !pa_window_holds(&c->o->window, c->o->start_ns, s->time_ns))
		return 0;
	if (s->event < PA_PROGRESS_EVENTS && !(c->o && c->o->each))
		c->read_by_event[s->event] += weight;
	if (c->o && c->o->each) {
		struct pa_sample one = { .time_ns = s->time_ns, .event = s->event,
					 .flags = s->flags, .nframes = s->nframes,
					 .count = weight, .ips = ips };
		int ret = c->o->each(c->o->each_ctx, &one);

		if (ret == 0)
			pa_reader_release_read(c, buf, off);
		return ret;
	}
	if (c->o && c->o->collapse) {
		uint32_t entry;

		if (pa_reader_collapse(c, s, ips, weight, &entry) < 0 ||
		    (c->o->index_cpu && s->event == c->o->cpu_event &&
		     pa_cpu_when_add(&t->cpu_when, &t->ncpu_when, &c->cpu_when_cap, s->time_ns,
				     entry, weight) < 0))
			return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
		pa_reader_release_read(c, buf, off);
		return 0;
	}
	if (pa_grow((void **)&t->samples, &c->samples_cap, t->nsamples, sizeof(*ps)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	ps = &t->samples[t->nsamples++];
	ps->time_ns = s->time_ns;
	ps->event = s->event;
	ps->flags = s->flags;
	ps->nframes = s->nframes;
	ps->count = weight;
	ps->ips = ips;
	return 0;
}

/* A sample that stands for weight overflows (pa_sample.count). */
static int pa_reader_sample_rec(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				uint64_t off, const char *rec, uint32_t size, uint64_t weight,
				struct pa_error *err)
{
	struct ppf_sample s;

	if (pa_reader_fixed(buf, off, rec, size, &s, sizeof(s), "sample", err) < 0)
		return -EINVAL;
	if (s.nframes == 0 || s.nframes > PPF_MAX_FRAMES)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "sample record: %u frames (expected 1..%u)",
				    s.nframes, PPF_MAX_FRAMES);
	if (ppf_sample_size(s.nframes) > size)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "sample record of %u bytes cannot hold its %u frames "
				    "(needs %u)", size, s.nframes, ppf_sample_size(s.nframes));
	/* Records are 8-aligned in an 8-aligned buffer: ips are aligned. */
	return pa_reader_add_sample(c, buf, off, &s,
				    (const uint64_t *)(const void *)(rec + sizeof(s)), weight, err);
}

/* Checks a stack record's counts against the stacks before it. */
static int pa_reader_stack_check(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				 uint64_t off, const struct ppf_stack *s, struct pa_error *err)
{
	if (s->nframes == 0 || s->nframes > PPF_MAX_FRAMES)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "stack record: %u frames (expected 1..%u)",
				    s->nframes, PPF_MAX_FRAMES);
	if (s->shared > s->nframes)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "stack record of %u frames shares %u", s->nframes, s->shared);
	if (s->id != c->nstacks)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "stack record with id %u, expected %zu (the stack "
				    "records before it)", s->id, c->nstacks);
	if (s->shared && (s->base >= s->id || c->stacks[s->base].nframes < s->shared))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "stack record %u shares %u frames of stack %u, which %s",
				    s->id, s->shared, s->base, s->base >= s->id ?
				    "does not come before it" : "has fewer");
	return 0;
}

/*
 * A stack record's stack s, checked (pa_reader_stack_check), whose own
 * addresses are at ips: the next id's addresses, in the log's data when it
 * has them all; made whole in memory the thread owns when it shares frames
 * of another, or when collapsing (the log's pages are given back as they
 * are read). owned: ips is such memory already, with room for them all.
 */
static int pa_reader_stack_add(struct pa_thread_ctx *c, struct pa_log_buf *buf,
			       const struct ppf_stack *s, const uint64_t *ips, uint64_t *owned,
			       struct pa_error *err)
{
	uint64_t *copy = owned;

	if (pa_grow((void **)&c->stacks, &c->stacks_cap, c->nstacks, sizeof(*c->stacks)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	if (owned || s->shared || (c->o && (c->o->collapse || c->o->each))) {
		const struct pa_reader_stack *base = &c->stacks[s->base];
		uint32_t own = s->nframes - s->shared;

		if (!copy)
			copy = pa_reader_block_take(c->thread, s->nframes);
		if (!copy)
			return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
		if (copy != ips)
			memcpy(copy, ips, own * sizeof(*ips));
		if (s->shared)
			memcpy(copy + own, base->ips + base->nframes - s->shared,
			       s->shared * sizeof(*ips));
		ips = copy;
	}
	c->stacks[c->nstacks++] = (struct pa_reader_stack){ .ips = ips, .nframes = s->nframes };
	return 0;
}

/* A PPF_REC_STACK. */
static int pa_reader_stack_rec(struct pa_thread_ctx *c, struct pa_log_buf *buf,
			       uint64_t off, const char *rec, uint32_t size,
			       struct pa_error *err)
{
	struct ppf_stack s;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &s, sizeof(s), "stack", err) < 0)
		return -EINVAL;
	ret = pa_reader_stack_check(c, buf, off, &s, err);
	if (ret < 0)
		return ret;
	if (ppf_stack_size(s.nframes - s.shared) > size)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "stack record of %u bytes cannot hold its %u frames "
				    "(needs %u)", size, s.nframes - s.shared,
				    ppf_stack_size(s.nframes - s.shared));
	return pa_reader_stack_add(c, buf, &s, (const uint64_t *)(const void *)(rec + sizeof(s)),
				   NULL, err);
}

/*
 * The n addresses a PPF_REC_STACK_SAMPLE stores from p (avail bytes; format.h)
 * into out. Returns 0, or a negative errno with err filled (off: the record's).
 */
static int pa_reader_varints(struct pa_log_buf *buf, uint64_t off, const uint8_t *p,
			     size_t avail, uint64_t *out, uint32_t n, struct pa_error *err)
{
	uint64_t prev = 0;
	size_t at = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t z = 0;
		unsigned shift = 0;
		uint8_t b;

		do {
			if (at == avail || shift >= 7 * PPF_STACK_SAMPLE_VARINT_MAX ||
			    (shift == 63 && p[at] > 1))
				return pa_error_set(err, -EINVAL, buf->path, true, off,
						    "stack sample record: frame %u of %u %s", i, n,
						    at == avail ? "runs past the record" :
						    "is no 64-bit number");
			b = p[at++];
			z |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		prev += (z >> 1) ^ (0 - (z & 1));
		out[i] = prev;
	}
	return 0;
}

/* A PPF_REC_STACK_SAMPLE: a stack record, and a sample of it standing for weight overflows. */
static int pa_reader_stack_sample_rec(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				      uint64_t off, const char *rec, uint32_t size,
				      uint64_t weight, struct pa_error *err)
{
	struct ppf_stack_sample r;
	struct ppf_stack s;
	struct ppf_sample one;
	uint64_t *ips;
	int ret;

	if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "stack sample", err) < 0)
		return -EINVAL;
	s = (struct ppf_stack){ .id = r.id, .nframes = r.nframes, .shared = r.shared,
				.base = r.base };
	ret = pa_reader_stack_check(c, buf, off, &s, err);
	if (ret < 0)
		return ret;
	ips = pa_reader_block_take(c->thread, s.nframes);
	if (!ips)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	ret = pa_reader_varints(buf, off, (const uint8_t *)rec + sizeof(r), size - sizeof(r), ips,
				s.nframes - s.shared, err);
	if (ret == 0)
		ret = pa_reader_stack_add(c, buf, &s, ips, ips, err);
	if (ret < 0)
		return ret;
	one = (struct ppf_sample){ .time_ns = r.time_ns, .event = r.event, .flags = r.flags,
				   .nframes = r.nframes };
	return pa_reader_add_sample(c, buf, off, &one, c->stacks[r.id].ips, weight, err);
}

/* A PPF_REC_SAMPLE_BLOCK: its count entries, each a sample of a stack read before. */
static int pa_reader_block_rec(struct pa_thread_ctx *c, struct pa_log_buf *buf,
			       uint64_t off, const char *rec, uint32_t size,
			       struct pa_error *err)
{
	struct ppf_sample_block b;

	if (pa_reader_fixed(buf, off, rec, size, &b, sizeof(b), "sample block", err) < 0)
		return -EINVAL;
	/* Cut short with the file (the walk said so): the entries that are there. */
	if (buf->truncated && b.count > (size - sizeof(b)) / sizeof(struct ppf_block_entry))
		b.count = (uint32_t)((size - sizeof(b)) / sizeof(struct ppf_block_entry));
	if (b.count > (size - sizeof(b)) / sizeof(struct ppf_block_entry))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "sample block of %u bytes cannot hold its %u entries "
				    "(needs %llu)", size, b.count,
				    (unsigned long long)sizeof(b) +
				    (unsigned long long)b.count * sizeof(struct ppf_block_entry));
	for (uint32_t i = 0; i < b.count; i++) {
		uint64_t at = sizeof(b) + (uint64_t)i * sizeof(struct ppf_block_entry);
		struct ppf_block_entry e;
		struct ppf_sample s;
		int ret;

		memcpy(&e, rec + at, sizeof(e));
		if (e.stack >= c->nstacks)
			return pa_error_set(err, -EINVAL, buf->path, true, off + at,
					    "sample block entry %u names stack %u, but the log "
					    "has %zu stack records before it", i, e.stack,
					    c->nstacks);
		s = (struct ppf_sample){ .time_ns = b.base_ns + e.delta_ns, .event = b.event,
					 .flags = b.flags,
					 .nframes = c->stacks[e.stack].nframes };
		ret = pa_reader_add_sample(c, buf, off + at, &s, c->stacks[e.stack].ips, 1, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int pa_reader_thread_event_rec(struct pa_thread_ctx *c, struct pa_log_buf *buf,
				      uint64_t off, const char *rec, uint32_t size,
				      struct pa_error *err)
{
	const uint32_t both = PPF_THREAD_EVENT_COUNTED | PPF_THREAD_EVENT_NO_COUNTER;
	struct pa_thread *t = c->thread;
	struct ppf_thread_event r;
	struct pa_thread_event *pe;

	if (pa_reader_grown(buf, off, rec, size, &r, PPF_THREAD_EVENT_V1_SIZE, sizeof(r),
			    "thread event", err) < 0)
		return -EINVAL;
	if ((r.flags & both) == both)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "thread event record for event %u: flags 0x%x say both "
				    "counted and no counter", r.event, r.flags);
	if (pa_thread_find_event(t, r.event))
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "second thread event record for event %u", r.event);
	if (pa_grow((void **)&t->events, &c->events_cap, t->nevents, sizeof(*pe)) < 0)
		return pa_error_set(err, -ENOMEM, buf->path, false, 0, "out of memory");
	pe = &t->events[t->nevents++];
	pe->event = r.event;
	pe->flags = r.flags;
	pe->samples = r.samples;
	pe->lost = r.lost;
	pe->throttled = r.throttled;
	pe->value = r.value;
	pe->time_enabled = r.time_enabled;
	pe->time_running = r.time_running;
	return 0;
}

/*
 * A PPF_REC_SAMPLE_WEIGHT: what the next record stands for, when it is a
 * sample, into *weight (pa_sample.count): its overflows, times their period
 * when the record gives one (a frequency-mode event's: the count is then
 * in events). Overflows above 2^32, or a product that does not fit, are no
 * count a writer makes.
 */
static int pa_reader_weight_rec(struct pa_log_buf *buf, uint64_t off, const char *rec,
				uint32_t size, uint64_t *weight, struct pa_error *err)
{
	struct ppf_sample_weight r;

	if (pa_reader_grown(buf, off, rec, size, &r, sizeof(r), sizeof(r), "sample weight",
			    err) < 0)
		return -EINVAL;
	if (r.overflows == 0 || r.overflows > UINT32_MAX)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "sample weight record: %" PRIu64 " overflows (expected "
				    "1..%" PRIu32 ")", r.overflows, UINT32_MAX);
	if (r.period > UINT64_MAX / 2 / r.overflows)
		return pa_error_set(err, -EINVAL, buf->path, true, off,
				    "sample weight record: %" PRIu64 " overflows of %" PRIu64
				    " events each (more than 2^63 events)", r.overflows, r.period);
	*weight = r.period ? r.overflows * r.period : r.overflows;
	return 0;
}

static int pa_reader_thread_cb(void *ctx, struct pa_log_buf *buf, uint64_t off,
			       const char *rec, uint32_t type, uint32_t size,
			       struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_thread_ctx *c = ctx;
	struct pa_thread *t = c->thread;
	/* A weight applies to the record right after it only. */
	uint64_t weight = c->weight ? c->weight : 1;

	(void)warn;
	c->weight = 0;
	switch (type) {
	case PPF_REC_SAMPLE_WEIGHT:
		return pa_reader_weight_rec(buf, off, rec, size, &c->weight, err);
	case PPF_REC_THREAD: {
		struct ppf_thread r;

		if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "thread", err) < 0)
			return -EINVAL;
		if (c->saw_thread)
			return pa_error_set(err, -EINVAL, buf->path, true, off, "second thread record");
		c->saw_thread = true;
		t->pid = r.pid;
		t->tid = r.tid;
		t->start_ns = r.start_ns;
		pa_reader_copy_name(t->name, sizeof(t->name), r.name, sizeof(r.name));
		return 0;
	}
	case PPF_REC_SAMPLE:
		return pa_reader_sample_rec(c, buf, off, rec, size, weight, err);
	case PPF_REC_STACK:
		return pa_reader_stack_rec(c, buf, off, rec, size, err);
	case PPF_REC_STACK_SAMPLE:
		return pa_reader_stack_sample_rec(c, buf, off, rec, size, weight, err);
	case PPF_REC_SAMPLE_BLOCK:
		return pa_reader_block_rec(c, buf, off, rec, size, err);
	case PPF_REC_THREAD_EVENT:
		return pa_reader_thread_event_rec(c, buf, off, rec, size, err);
	case PPF_REC_THREAD_NAME: {
		struct ppf_thread_name r;

		if (pa_reader_fixed(buf, off, rec, size, &r, sizeof(r), "thread name", err) < 0)
			return -EINVAL;
		pa_reader_copy_name(t->name, sizeof(t->name), r.name, sizeof(r.name));
		return 0;
	}
	case PPF_REC_LOG_FULL:
		return pa_reader_log_full_rec(buf, off, rec, size, &t->full, err);
	case PPF_REC_THREAD_PAUSED:
		return pa_reader_paused_rec(buf, off, rec, size, false, &t->paused, err);
	case PPF_REC_THREAD_BLOCKED: {
		struct ppf_thread_blocked r;

		if (pa_reader_grown(buf, off, rec, size, &r, sizeof(r), sizeof(r),
				    "thread blocked", err) < 0)
			return -EINVAL;
		t->held_cpu_ns = r.held_cpu_ns;
		t->holds = r.holds;
		t->blocked_flags = r.flags;
		return 0;
	}
	case PPF_REC_THREAD_PROGRESS: {
		struct ppf_thread_progress r;

		if (pa_reader_grown(buf, off, rec, size, &r, sizeof(r), sizeof(r),
				    "thread progress", err) < 0)
			return -EINVAL;
		/* END's figures are the last word. */
		if (t->ended)
			return 0;
		/* The samples before it (a re-read counts none: the first read's stand). */
		if (!(c->o && c->o->each)) {
			if (!t->progress_samples)
				t->progress_samples = calloc(PA_PROGRESS_EVENTS,
							     sizeof(*t->progress_samples));
			if (t->progress_samples)
				memcpy(t->progress_samples, c->read_by_event,
				       sizeof(c->read_by_event));
		}
		t->progress = true;
		t->progress_ns = r.time_ns;
		t->user_ns = r.user_ns;
		t->system_ns = r.system_ns;
		t->cpu_ns = r.user_ns + r.system_ns;
		t->lost = r.lost;
		t->throttled = r.throttled;
		if (r.name[0])
			pa_reader_copy_name(t->name, sizeof(t->name), r.name, sizeof(r.name));
		if (r.proc_user_ns || r.proc_system_ns) {
			t->proc_ns = r.time_ns;
			t->proc_user_ns = r.proc_user_ns;
			t->proc_system_ns = r.proc_system_ns;
		}
		return 0;
	}
	case PPF_REC_THREAD_END: {
		struct ppf_thread_end r;

		if (pa_reader_grown(buf, off, rec, size, &r, PPF_THREAD_END_V1_SIZE, sizeof(r),
				    "thread end", err) < 0)
			return -EINVAL;
		buf->saw_end = true;
		t->ended = true;
		t->end_ns = r.end_ns;
		t->samples_taken = r.samples;
		t->lost = r.lost;
		t->throttled = r.throttled;
		/*
		 * A thread no hook saw end (started before the profiler, raw
		 * clone) was gone when the process's end wrote its END: its
		 * clock could not be read then (0), and its last progress
		 * says how far it had got.
		 */
		if (r.cpu_ns || r.user_ns || r.system_ns || !t->progress) {
			t->cpu_ns = r.cpu_ns;
			t->user_ns = r.user_ns;
			t->system_ns = r.system_ns;
		} else {
			t->cpu_at_progress = true;
		}
		return 0;
	}
	default:
		return pa_reader_other_type(buf, off, type, "thread log", err);
	}
}

uint64_t *pa_thread_take_ips(struct pa_thread *t, size_t n)
{
	return pa_reader_block_take(t, n);
}

void pa_thread_free(struct pa_thread *thread)
{
	if (!thread)
		return;
	free(thread->samples);
	free(thread->events);
	free(thread->cpu_when);
	free(thread->progress_samples);
	if (thread->ip_mapped)
		munmap(thread->ip_storage, thread->ip_mapped);
	else
		free(thread->ip_storage);
	while (thread->ip_blocks) {
		struct pa_reader_block *b = thread->ip_blocks;

		thread->ip_blocks = b->next;
		free(b);
	}
	free(thread->path);
	free(thread);
}

/*
 * Keep only the written part of the buffer (thread logs are preallocated and
 * mostly zero) as the storage behind samples[].ips.
 */
static int pa_reader_keep_ips(struct pa_thread *t, struct pa_log_buf *buf)
{
	char *keep = buf->data;

	if (buf->data_end < buf->size / 2) {
		keep = malloc(buf->data_end ? buf->data_end : 1);
		if (!keep)
			return -ENOMEM;
		memcpy(keep, buf->data, buf->data_end);
		for (size_t i = 0; i < t->nsamples; i++) {
			uintptr_t ips = (uintptr_t)t->samples[i].ips, data = (uintptr_t)buf->data;

			/* Stacks made whole in memory of their own stay where they are. */
			if (ips < data || ips >= data + buf->data_end)
				continue;
			t->samples[i].ips = (const uint64_t *)(const void *)(keep + (ips - data));
		}
		pa_reader_buf_release(buf);
	} else {
		t->ip_mapped = buf->mapped;
	}
	buf->data = NULL;
	buf->mapped = 0;
	t->ip_storage = (uint64_t *)(void *)keep;
	return 0;
}

/*
 * Parses buf, a thread log named buf->path, into *out; releases buf's data
 * (or keeps it behind samples[].ips). expect_end false: the log may end
 * without END, say nothing; o: how to read samples (NULL: every one, as it
 * is).
 */
static int pa_reader_thread_parse(struct pa_log_buf *buf, bool expect_end,
				  const struct pa_reader_topts *o, struct pa_thread **out,
				  struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_thread_ctx c = { .o = o };
	const char *path = buf->path;
	int ret;

	c.thread = calloc(1, sizeof(*c.thread));
	if (c.thread)
		c.thread->path = strdup(path);
	ret = !c.thread || !c.thread->path ?
		pa_error_set(err, -ENOMEM, path, false, 0, "out of memory") :
		pa_reader_parse(buf, PPF_FILE_THREAD, "thread", pa_reader_thread_cb, &c,
				&c.saw_thread, warn, err);
	if (ret == 0 && !(o && (o->collapse || o->each)) && pa_reader_keep_ips(c.thread, buf) < 0)
		ret = pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	if (ret == 0 && o && o->stream) {
		c.thread->stream = true;
		c.thread->stream_samples = c.nread;
	}
	pa_reader_buf_release(buf);
	free(c.slots);
	free(c.stacks);
	if (ret < 0) {
		pa_thread_free(c.thread);
		return ret;
	}
	c.thread->unknown_records = buf->unknown;
	pa_grow_fit((void **)&c.thread->samples, &c.samples_cap, c.thread->nsamples,
		    sizeof(*c.thread->samples));
	pa_grow_fit((void **)&c.thread->events, &c.events_cap, c.thread->nevents,
		    sizeof(*c.thread->events));
	pa_reader_check_end(buf, expect_end, warn);
	*out = c.thread;
	return 0;
}

/* pa_thread_log_load, with expect_end and o as for pa_reader_thread_parse. */
static int pa_reader_thread_load(const char *path, bool expect_end,
				 const struct pa_reader_topts *o, struct pa_thread **out,
				 struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_log_buf buf;
	int ret;

	*out = NULL;
	ret = pa_reader_read_file(path, &buf, err);
	if (ret < 0)
		return ret;
	if (!expect_end && pa_reader_no_header(&buf)) {
		pa_error_set(err, PA_READER_NO_HEADER, path, false, 0,
			     "no header: the log was being made when its process was killed "
			     "(or replaced by an exec)");
		pa_reader_buf_release(&buf);
		return PA_READER_NO_HEADER;
	}
	return pa_reader_thread_parse(&buf, expect_end, o, out, warn, err);
}

int pa_thread_log_load(const char *path, struct pa_thread **out,
		       struct pa_warnings *warn, struct pa_error *err)
{
	return pa_reader_thread_load(path, true, NULL, out, warn, err);
}

int pa_thread_each_sample(const struct pa_thread *t,
			  int (*fn)(void *ctx, const struct pa_sample *s), void *ctx,
			  struct pa_error *err)
{
	struct pa_reader_topts o = { .each = fn, .each_ctx = ctx,
				     .each_limit = t->stream_samples };
	struct pa_thread_ctx c = { .o = &o };
	struct pa_log_buf buf;
	int ret = pa_reader_read_file(t->path, &buf, err);

	if (ret < 0)
		return ret;
	/*
	 * The whole file as it is now: a thread's log only grows while it
	 * runs, but the room of its last sample block is given back when it
	 * ends; so the file may be shorter than when it was loaded, and
	 * still hold every sample the load read.
	 */
	c.thread = calloc(1, sizeof(*c.thread));
	ret = !c.thread ? pa_error_set(err, -ENOMEM, t->path, false, 0, "out of memory") :
		pa_reader_parse(&buf, PPF_FILE_THREAD, "thread", pa_reader_thread_cb, &c,
				&c.saw_thread, NULL, err);
	if (ret == PA_READER_STOP)
		ret = 0;
	if (ret == 0 && (c.nread < t->stream_samples || c.thread->tid != t->tid ||
			 c.thread->pid != t->pid || c.thread->start_ns != t->start_ns))
		ret = pa_error_set(err, -EINVAL, t->path, false, 0,
				   "the log changed while it was read: %" PRIu64 " samples of "
				   "thread %u then, %" PRIu64 " of thread %u now", t->stream_samples,
				   t->tid, c.nread, c.thread->tid);
	pa_reader_buf_release(&buf);
	free(c.slots);
	free(c.stacks);
	pa_thread_free(c.thread);
	return ret;
}

/* ---- directories ---------------------------------------------------------- */

static char *pa_reader_join(const char *dir, const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", dir, name) < 0)
		return NULL;
	return s;
}

static bool pa_reader_is_thread_log(const char *name)
{
	size_t n = strlen(name), p = strlen(PPF_THREAD_LOG_PREFIX), s = strlen(PPF_LOG_SUFFIX);

	return n > p + s && strncmp(name, PPF_THREAD_LOG_PREFIX, p) == 0 &&
	       strcmp(name + n - s, PPF_LOG_SUFFIX) == 0;
}

/*
 * Whether name, at a run's root, is a file of a process that took samples
 * beside its log <P>.log (P being <exe>@<host>.<pid>, or that and .<k>,
 * always ending in digits): <P>.thread-<tid>.log, or <P>.<what> for what
 * given (wall.log, vdso.so). Sets *plen to P's length.
 */
static bool pa_reader_flat_file(const char *name, const char *what, size_t *plen)
{
	size_t n = strlen(name), w = strlen(what);

	if (n <= w + 2 || name[n - w - 1] != '.' || strcmp(name + n - w, what) != 0 ||
	    name[n - w - 2] < '0' || name[n - w - 2] > '9')
		return false;
	*plen = n - w - 1;
	return true;
}

static bool pa_reader_flat_thread_log(const char *name, size_t *plen)
{
	size_t n = strlen(name), s = strlen(PPF_LOG_SUFFIX), p = strlen(PPF_THREAD_LOG_PREFIX);
	size_t d = n > s ? n - s : 0, at;

	if (d == 0 || strcmp(name + d, PPF_LOG_SUFFIX) != 0)
		return false;
	at = d;
	while (at > 0 && name[at - 1] >= '0' && name[at - 1] <= '9')
		at--;
	if (at == d || at < p + 2 || strncmp(name + at - p, PPF_THREAD_LOG_PREFIX, p) != 0 ||
	    name[at - p - 1] != '.' || name[at - p - 2] < '0' || name[at - p - 2] > '9')
		return false;
	*plen = at - p - 1;
	return true;
}

/* A file at the root that belongs to a process beside its log: never a process log. */
static bool pa_reader_flat_other(const char *name)
{
	size_t plen;

	return pa_reader_flat_thread_log(name, &plen) ||
	       pa_reader_flat_file(name, PPF_WALL_LOG, &plen);
}

static int pa_reader_cmp_thread(const void *a, const void *b)
{
	const struct pa_thread *x = *(struct pa_thread *const *)a;
	const struct pa_thread *y = *(struct pa_thread *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int pa_reader_cmp_process(const void *a, const void *b)
{
	const struct pa_process *x = *(struct pa_process *const *)a;
	const struct pa_process *y = *(struct pa_process *const *)b;

	int space;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* Processes of several hosts: their clocks are not comparable. */
	space = pa_process_cmp_pid_space(x, y);
	if (space)
		return space;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int pa_reader_cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void pa_reader_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Sorted names of the entries of dir that pass keep(). */
static int pa_reader_list_dir(const char *dir, bool (*keep)(const char *dir, const char *name),
			      char ***names, size_t *n, struct pa_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return pa_error_set(err, -errno, dir, false, 0, "cannot open directory: %s",
				    strerror(errno));
	while ((de = readdir(d))) {
		char *s;

		/* Not "." and "..": a program's name may start with a dot (.x-wrapped). */
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    !keep(dir, de->d_name))
			continue;
		s = strdup(de->d_name);
		if (!s || pa_grow((void **)names, &cap, *n, sizeof(char *)) < 0) {
			free(s);
			closedir(d);
			pa_reader_free_names(*names, *n);
			*names = NULL;
			*n = 0;
			return pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
		}
		(*names)[(*n)++] = s;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(char *), pa_reader_cmp_name);
	return 0;
}

static bool pa_reader_keep_thread_log(const char *dir, const char *name)
{
	(void)dir;
	return pa_reader_is_thread_log(name);
}

static bool pa_reader_keep_flat_thread_log(const char *dir, const char *name)
{
	size_t plen;

	(void)dir;
	return pa_reader_flat_thread_log(name, &plen);
}

/*
 * The thread logs of the process whose log is <P>.log at the root: those
 * of flat (the root's <P>.thread-<tid>.log names, sorted) that start with
 * "<P>.thread-", copied into *names. Returns 0 or -ENOMEM.
 */
static int pa_reader_flat_threads(char *const *flat, size_t nflat, const char *p,
				  char ***names, size_t *n)
{
	size_t plen = strlen(p), lo = 0, hi = nflat, cap = 0;

	*names = NULL;
	*n = 0;
	/* The first name not below P: P's own come right after it, together. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(flat[mid], p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nflat && strncmp(flat[i], p, plen) == 0; i++) {
		size_t got;
		char *c;

		if (!pa_reader_flat_thread_log(flat[i], &got) || got != plen)
			continue;
		c = strdup(flat[i]);
		if (!c || pa_grow((void **)names, &cap, *n, sizeof(char *)) < 0) {
			free(c);
			pa_reader_free_names(*names, *n);
			*names = NULL;
			*n = 0;
			return -ENOMEM;
		}
		(*names)[(*n)++] = c;
	}
	return 0;
}

/*
 * Whether the first end bytes of name are a process's name as the writer
 * makes it, <exe>@<host>.<pid>[.<k>] (the exe's name may start with a dot,
 * .x-wrapped, and hold anything else).
 */
static bool pa_reader_process_name(const char *name, size_t end)
{
	const char *at = memrchr(name, '@', end);

	if (!at || at == name)
		return false;
	/* .<pid>, then maybe .<k> before it: one or two groups of digits. */
	for (int groups = 0; groups < 2; groups++) {
		size_t d = end;

		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d == end || d == 0 || name[d - 1] != '.') {
			if (groups == 0)
				return false;
			break;
		}
		end = d - 1;
	}
	return (size_t)(at - name) + 1 < end; /* a host between the '@' and the pid */
}

/*
 * Whether name in dir is a process's log at the run's root: a name ending
 * in a digit and ".log" (a directory's process.log is none, nor are the
 * files beside a process's log) that is either a regular file starting as
 * a process log or, whatever it holds, named as the writer names one,
 * <P>.log. Such a file is then read, and what is wrong with it said: a
 * damaged one is an error naming it, one that is not a regular file or was
 * never written is skipped with a warning, as a directory's process.log is.
 */
static bool pa_reader_is_root_log(const char *dir, const char *name)
{
	size_t len = strlen(name), sl = strlen(PPF_LOG_SUFFIX);
	struct ppf_file_header h;
	char *p = NULL;
	struct stat st;
	bool ok = false;
	FILE *f;

	if (len <= sl || strcmp(name + len - sl, PPF_LOG_SUFFIX) != 0 ||
	    name[len - sl - 1] < '0' || name[len - sl - 1] > '9' || pa_reader_flat_other(name) ||
	    asprintf(&p, "%s/%s", dir, name) < 0)
		return false;
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (f = fopen(p, "rbe")) != NULL) {
		ok = fread(&h, sizeof(h), 1, f) == 1 &&
		     memcmp(h.magic, PPF_MAGIC, PPF_MAGIC_LEN) == 0 &&
		     (h.kind == PPF_FILE_PROCESS ||
		      __builtin_bswap16(h.kind) == PPF_FILE_PROCESS);
		fclose(f);
	}
	if (!ok)
		ok = pa_reader_process_name(name, len - sl) &&
		     (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode));
	free(p);
	return ok;
}

static bool pa_reader_keep_process_dir(const char *dir, const char *name)
{
	char *p = NULL;
	struct stat st;
	bool ok;

	if (pa_reader_flat_other(name))
		return false;
	if (asprintf(&p, "%s/%s/%s", dir, name, PPF_PROCESS_LOG) < 0)
		return false;
	/* A process's one that cannot be looked at (EACCES) is said when it is read. */
	ok = lstat(p, &st) == 0 || (errno != ENOENT && errno != ENOTDIR &&
				    pa_reader_process_name(name, strlen(name)));
	free(p);
	return ok || pa_reader_is_root_log(dir, name);
}

/* Warn about what in a thread log does not fit its process. */
static void pa_reader_check_thread(const struct pa_process *proc, const struct pa_thread *t,
				   const char *path, struct pa_warnings *warn)
{
	if (t->pid != proc->pid)
		pa_warnings_add(warn, path, false, 0,
				"thread log of pid %u in the directory of pid %u", t->pid, proc->pid);
	/* An event whose file could not be read was said then: not for each thread. */
	for (size_t i = 0; i < t->nevents && !proc->events_unread; i++)
		if (!pa_process_find_event(proc, t->events[i].event))
			pa_warnings_add(warn, path, false, 0,
					"totals for event %u, which %s does not list; ignored",
					t->events[i].event, PPF_PROCESS_LOG);
}

/*
 * Whether thread t, read from the log name (thread-<tid>.log or
 * <P>.thread-<tid>.log), is the thread its name says: a log linked or
 * copied under another thread's name would count one thread twice. One that
 * is not is left out, said.
 */
static bool pa_reader_tid_named(const struct pa_thread *t, const char *name,
				struct pa_warnings *warn)
{
	size_t n = strlen(name), s = strlen(PPF_LOG_SUFFIX), p = strlen(PPF_THREAD_LOG_PREFIX);
	size_t d = n > s ? n - s : 0, at = d;
	unsigned long long tid = 0;

	while (at > 0 && name[at - 1] >= '0' && name[at - 1] <= '9')
		at--;
	if (at == d || d - at > 10 || at < p || strncmp(name + at - p, PPF_THREAD_LOG_PREFIX, p) != 0)
		return true; /* not named by a tid: nothing to hold it to */
	for (size_t i = at; i < d; i++)
		tid = tid * 10 + (unsigned)(name[i] - '0');
	if (tid == t->tid)
		return true;
	pa_warnings_add(warn, t->path, false, 0,
			"holds thread %u, not thread %llu as its name says (a copy or a link of "
			"another thread's log?); left out", t->tid, tid);
	return false;
}

/*
 * Whether a log that could not be read is skipped, said, rather than the
 * run's error: not a regular file, never written, not a libpprof log at
 * all, or not readable by the user (another user's process writing to a
 * shared root, its logs 0600).
 */
static bool pa_reader_skippable(int ret)
{
	return ret == PA_REGFILE_NOT_REGULAR || ret == PA_READER_NO_HEADER || ret == -EACCES ||
	       ret == -EPERM || ret == PA_READER_FOREIGN;
}

/*
 * A log that is not a regular file (a FIFO, a directory, a device named
 * like one: nothing the writer makes) is left out with a warning saying
 * what it is; the rest of the run is read.
 */
static void pa_reader_skipped(struct pa_warnings *warn, const struct pa_error *why,
			      const char *what)
{
	pa_warnings_add(warn, why->path, false, 0, "%s; %s, the rest of the run is read",
			why->reason, what);
}

/* Loading a process's thread logs, on several threads when there are many. */
struct pa_reader_jobs {
	const char *dir;
	char **names;
	size_t n;
	bool expect_end;
	const struct pa_reader_topts *o;
	struct pa_thread **threads;  /* per log, NULL until loaded */
	struct pa_warnings *warns;   /* per log, merged in order afterwards */
	struct pa_error *errs;       /* per log */
	int *rets;                   /* per log */
};

#define PA_READER_PARALLEL_MIN 32 /* logs; fewer are read on the calling thread */

static size_t pa_reader_progress_done; /* atomic: thread logs read */

size_t pa_reader_logs_read(void)
{
	return __atomic_load_n(&pa_reader_progress_done, __ATOMIC_RELAXED);
}

static void pa_reader_job(void *arg, size_t i)
{
	struct pa_reader_jobs *jobs = arg;
	char *path = pa_reader_join(jobs->dir, jobs->names[i]);

	if (!path) {
		jobs->rets[i] = pa_error_set(&jobs->errs[i], -ENOMEM, jobs->dir, false, 0,
					     "out of memory");
		return;
	}
	/* exec ends every thread of the old image without END records. */
	jobs->rets[i] = pa_reader_thread_load(path, jobs->expect_end, jobs->o, &jobs->threads[i],
					      &jobs->warns[i], &jobs->errs[i]);
	free(path);
	__atomic_add_fetch(&pa_reader_progress_done, 1, __ATOMIC_RELAXED);
}

/* Loads every job, on several threads when there are many. */
static void pa_reader_run_jobs(struct pa_reader_jobs *jobs)
{
	pa_parallel_run(jobs->n, PA_READER_PARALLEL_MIN, pa_reader_job, jobs);
}

/*
 * Loads the n thread logs names (in dir) into proc, in parallel when there
 * are many; warnings and the first error come in the names' order, as if
 * read one after another.
 */
static int pa_reader_load_threads(struct pa_process *proc, const char *dir, char **names,
				  size_t n, const struct pa_reader_topts *o,
				  struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_reader_jobs jobs = {
		.dir = dir, .names = names, .n = n, .o = o,
		/* A process's end finishes its threads' logs: none without it. */
		.expect_end = !proc->replaced && !pa_reader_unended(proc),
		.threads = calloc(n, sizeof(*jobs.threads)),
		.warns = calloc(n, sizeof(*jobs.warns)),
		.errs = calloc(n, sizeof(*jobs.errs)),
		.rets = calloc(n, sizeof(*jobs.rets)),
	};
	int ret = 0;

	if (!jobs.threads || !jobs.warns || !jobs.errs || !jobs.rets)
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	else
		pa_reader_run_jobs(&jobs);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		for (size_t k = 0; k < jobs.warns[i].n; k++)
			pa_warnings_add(warn, jobs.warns[i].v[k].path, jobs.warns[i].v[k].has_offset,
					jobs.warns[i].v[k].offset, "%s", jobs.warns[i].v[k].reason);
		if (pa_reader_skippable(jobs.rets[i])) {
			pa_reader_skipped(warn, &jobs.errs[i], "skipped");
			continue;
		}
		if (jobs.rets[i] < 0) {
			*err = jobs.errs[i];
			ret = jobs.rets[i];
			break;
		}
		if (!pa_reader_tid_named(jobs.threads[i], names[i], warn))
			continue;
		/* A thread of another process (a log copied from elsewhere) is not this one's. */
		if (jobs.threads[i]->pid != proc->pid) {
			pa_warnings_add(warn, jobs.threads[i]->path, false, 0,
					"a thread of pid %u, not of process %u beside which it is; "
					"left out", jobs.threads[i]->pid, proc->pid);
			continue;
		}
		pa_reader_check_thread(proc, jobs.threads[i], jobs.threads[i]->path, warn);
		proc->threads[proc->nthreads++] = jobs.threads[i];
		jobs.threads[i] = NULL;
	}
	for (size_t i = 0; i < n && jobs.warns; i++)
		pa_warnings_release(&jobs.warns[i]);
	for (size_t i = 0; i < n && jobs.threads; i++)
		pa_thread_free(jobs.threads[i]);
	free(jobs.threads);
	free(jobs.warns);
	free(jobs.errs);
	free(jobs.rets);
	return ret;
}

static int pa_reader_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int pa_process_unloads(const struct pa_process *proc, uint64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < proc->nmodules; i++) {
		if (proc->modules[i].unload_ns == UINT64_MAX)
			continue;
		if (!*out && !(*out = malloc(proc->nmodules * sizeof(**out))))
			return -ENOMEM;
		(*out)[(*n)++] = proc->modules[i].unload_ns;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), pa_reader_cmp_u64);
	return 0;
}

/*
 * How to read proc's thread logs as opts says (NULL: as they are); -ENOMEM.
 * wall: proc has a wall.log; collapsing, each thread's samples of the CPU
 * event are listed in time order too (pa_thread.cpu_when): its preempted
 * time goes to the CPU sample nearest in time (wall.h).
 */
static int pa_reader_topts_init(struct pa_reader_topts *o, const struct pa_load_opts *opts,
				const struct pa_process *proc, bool wall)
{
	const struct pa_event *cpu = wall ? pa_wall_cpu_event(proc) : NULL;

	*o = (struct pa_reader_topts){ .start_ns = proc->start_ns };
	if (opts) {
		o->collapse = opts->collapse;
		o->window = opts->window;
		/* Wall samples are merged into a thread's as read: those are kept. */
		o->stream = opts->stream && !wall;
		o->collapse |= o->stream;
	}
	if (!o->collapse)
		return 0;
	o->index_cpu = cpu != NULL;
	o->cpu_event = cpu ? cpu->index : 0;
	return pa_process_unloads(proc, &o->unloads, &o->nunloads);
}

/* Seconds from proc's start to f's time, for the warning below. */
static double pa_reader_full_after(const struct pa_process *proc, const struct pa_log_full *f)
{
	return f->time_ns > proc->start_ns ? (double)(f->time_ns - proc->start_ns) / 1e9 : 0.0;
}

/*
 * One warning for the logs of proc that stopped early (PPF_REC_LOG_FULL):
 * how many thread logs, with the first one's reason and time, and what a
 * full process.log leaves out.
 */
static void pa_reader_warn_full(const struct pa_process *proc, struct pa_warnings *warn)
{
	const struct pa_log_full *first = NULL;
	size_t nfull = 0;
	char also[160] = "";

	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_log_full *f = &proc->threads[i]->full;

		if (!f->full)
			continue;
		nfull++;
		if (!first || f->time_ns < first->time_ns)
			first = f;
	}
	if (proc->full.full)
		snprintf(also, sizeof(also), "%sprocess.log stopped %.3f s after the process "
			 "started: modules loaded after that are not named", first ? "; " : "",
			 pa_reader_full_after(proc, &proc->full));
	if (first)
		pa_warnings_add(warn, proc->dir, false, 0,
				"%zu of %zu thread log%s stopped early, unable to grow (%s), the "
				"first %.3f s after the process started: their samples after "
				"that were not written (counted as lost)%s", nfull,
				proc->nthreads, proc->nthreads == 1 ? "" : "s",
				strerror(first->error), pa_reader_full_after(proc, first), also);
	else if (proc->full.full)
		pa_warnings_add(warn, proc->dir, false, 0, "logs stopped early, unable to grow "
				"(%s): %s", strerror(proc->full.error), also);
}

/*
 * Moves proc's quiet threads (process.log's PPF_REC_THREAD_QUIET) that
 * have no thread log of their own into its threads; -ENOMEM.
 */
static int pa_reader_add_quiet(struct pa_process *proc)
{
	size_t n = proc->nthreads, keep = 0;
	struct pa_thread **all;

	if (!proc->nquiet)
		return 0;
	all = realloc(proc->threads, (n + proc->nquiet) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	proc->threads = all;
	for (size_t q = 0; q < proc->nquiet; q++) {
		struct pa_thread *t = proc->quiet[q];
		size_t i;

		for (i = 0; i < n && all[i]->tid != t->tid; i++)
			;
		if (i < n)
			proc->quiet[keep++] = t;
		else
			all[proc->nthreads++] = t;
	}
	proc->nquiet = keep;
	return 0;
}

/* proc's CPU time as its threads' logs last recorded it, when it has no END. */
static void pa_reader_last_cpu(struct pa_process *proc)
{
	uint64_t at = 0;

	for (size_t i = 0; !proc->ended && i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];

		if (t->proc_ns > at && (t->proc_user_ns || t->proc_system_ns)) {
			at = t->proc_ns;
			proc->last_user_ns = t->proc_user_ns;
			proc->last_system_ns = t->proc_system_ns;
		}
	}
}

/*
 * pa_process_load_opts, for a process at the root of a run whose thread
 * logs at the root are flat (nflat sorted names) when root_listed; else
 * the root is listed here when needed.
 */
static int pa_reader_process_load_in(const char *dir, const struct pa_load_opts *opts,
				     bool root_listed, char *const *flat, size_t nflat,
				     struct pa_process **out, struct pa_warnings *warn,
				     struct pa_error *err)
{
	struct pa_reader_topts o = { 0 };
	struct pa_process *proc = NULL;
	size_t n = 0, len = strlen(dir), sl = strlen(PPF_LOG_SUFFIX), nlisted = 0;
	/*
	 * A process whose log is at the root, <P>.log (P: <exe>@<host>.<pid>),
	 * with its thread logs beside it, <P>.thread-<tid>.log, and no
	 * directory; older runs had a directory <P>/ holding process.log and
	 * thread-<tid>.log for a process that took samples.
	 */
	struct stat st;
	bool alone = len > sl && strcmp(dir + len - sl, PPF_LOG_SUFFIX) == 0 &&
		     (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode));
	char *path = alone ? strdup(dir) : pa_reader_join(dir, PPF_PROCESS_LOG);
	const char *slash = strrchr(dir, '/');
	char **names = NULL, **listed = NULL, *root = NULL;
	int ret;

	*out = NULL;
	if (!path)
		return pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	ret = pa_reader_process_load(path, true, true, &proc, warn, err);
	free(path);
	if (ret < 0)
		return ret;
	free(proc->dir);
	proc->dir = alone ? strndup(dir, len - sl) : strdup(dir);
	if (alone)
		root = slash ? strndup(dir, (size_t)(slash - dir)) : strdup(".");
	if (!proc->dir || (alone && !root))
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	else if (!alone)
		ret = pa_reader_list_dir(dir, pa_reader_keep_thread_log, &names, &n, err);
	else if (!root_listed && (ret = pa_reader_list_dir(root, pa_reader_keep_flat_thread_log,
						    &listed, &nlisted, err)) == 0) {
		flat = listed;
		nflat = nlisted;
	}
	if (ret == 0 && alone &&
	    pa_reader_flat_threads(flat, nflat, proc->dir + (slash ? slash - dir + 1 : 0),
				   &names, &n) < 0)
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	pa_reader_free_names(listed, nlisted);
	if (ret == 0 && n) {
		proc->threads = calloc(n, sizeof(*proc->threads));
		if (!proc->threads)
			ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	}
	if (ret == 0 && n && pa_reader_topts_init(&o, opts, proc, pa_wall_present(proc)) < 0)
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	if (ret == 0 && n)
		ret = pa_reader_load_threads(proc, alone ? root : dir, names, n, &o, warn, err);
	free(root);
	if (ret == 0 && pa_reader_add_quiet(proc) < 0)
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	free(o.unloads);
	pa_reader_free_names(names, n);
	if (ret < 0) {
		pa_process_free(proc);
		return ret;
	}
	if (proc->nthreads)
		qsort(proc->threads, proc->nthreads, sizeof(*proc->threads), pa_reader_cmp_thread);
	ret = pa_wall_load(proc, opts, warn, err);
	if (ret < 0) {
		pa_process_free(proc);
		return ret;
	}
	pa_reader_last_cpu(proc);
	pa_reader_warn_full(proc, warn);
	*out = proc;
	return 0;
}

char *pa_process_file(const struct pa_process *proc, const char *what)
{
	const char *slash = proc->path ? strrchr(proc->path, '/') : NULL;
	const char *base = slash ? slash + 1 : proc->path;
	bool in_dir = base && strcmp(base, PPF_PROCESS_LOG) == 0;
	char *p;

	return asprintf(&p, in_dir ? "%s/%s" : "%s.%s", proc->dir, what) < 0 ? NULL : p;
}

int pa_process_load_opts(const char *dir, const struct pa_load_opts *opts,
			 struct pa_process **out, struct pa_warnings *warn,
			 struct pa_error *err)
{
	int ret = pa_reader_process_load_in(dir, opts, false, NULL, 0, out, warn, err);

	pa_rootfiles_release();
	return ret;
}

/* ---- other logs ------------------------------------------------------------ */

struct pa_reader_any_ctx {
	pa_log_record_fn fn;
	void *ctx;
};

static int pa_reader_any_cb(void *ctx, struct pa_log_buf *buf, uint64_t off, const char *rec,
			    uint32_t type, uint32_t size, struct pa_warnings *warn,
			    struct pa_error *err)
{
	struct pa_reader_any_ctx *c = ctx;

	(void)warn;
	return c->fn(c->ctx, buf->path, off, rec, type, size, err);
}

int pa_log_walk_file(const char *path, uint16_t kind, pa_log_record_fn fn, void *ctx,
		     struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_reader_any_ctx c = { .fn = fn, .ctx = ctx };
	struct pa_log_buf buf;
	bool saw = true;
	int ret = pa_reader_read_file(path, &buf, err);

	if (ret < 0)
		return ret;
	ret = pa_reader_parse(&buf, kind, "", pa_reader_any_cb, &c, &saw, warn, err);
	pa_reader_buf_release(&buf);
	return ret;
}

/* ---- logs in memory ------------------------------------------------------ */

int pa_log_walk_data(const char *name, const void *data, size_t size, uint16_t kind,
		     pa_log_record_fn fn, void *ctx, struct pa_warnings *warn,
		     struct pa_error *err)
{
	struct pa_reader_any_ctx c = { .fn = fn, .ctx = ctx };
	struct pa_log_buf buf;
	bool saw = true;
	int ret = pa_reader_copy_data(name, data, size, &buf, err);

	if (ret < 0)
		return ret;
	ret = pa_reader_parse(&buf, kind, "", pa_reader_any_cb, &c, &saw, warn, err);
	pa_reader_buf_release(&buf);
	return ret;
}

int pa_process_log_parse(const char *name, const void *data, size_t size,
			 struct pa_process **out, struct pa_warnings *warn,
			 struct pa_error *err)
{
	struct pa_log_buf buf;
	int ret;

	*out = NULL;
	ret = pa_reader_copy_data(name, data, size, &buf, err);
	return ret < 0 ? ret : pa_reader_process_parse(&buf, false, out, warn, err);
}

int pa_thread_log_parse(const char *name, const void *data, size_t size,
			const struct pa_process *proc, const struct pa_load_opts *opts,
			struct pa_thread **out, struct pa_warnings *warn,
			struct pa_error *err)
{
	static const struct pa_process none;
	struct pa_reader_topts o;
	struct pa_log_buf buf;
	int ret;

	*out = NULL;
	if (pa_reader_topts_init(&o, opts, proc ? proc : &none, proc && proc->wall) < 0)
		return pa_error_set(err, -ENOMEM, name, false, 0, "out of memory");
	o.stream = false; /* no file to read again: collapsed, as the stream's load */
	ret = pa_reader_copy_data(name, data, size, &buf, err);
	if (ret == 0)
		ret = pa_reader_thread_parse(&buf, !(proc && proc->replaced), &o, out, warn, err);
	if (ret == 0 && proc)
		pa_reader_check_thread(proc, *out, name, warn);
	free(o.unloads);
	return ret;
}

void pa_run_free(struct pa_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->nprocesses; i++)
		pa_process_free(run->processes[i]);
	free(run->processes);
	pa_warnings_release(&run->warnings);
	free(run->dir);
	free(run);
}

int pa_run_load(const char *dir, struct pa_run **out, struct pa_error *err)
{
	return pa_run_load_opts(dir, NULL, out, err);
}

/* How many process directories pa_reader_warn_unended names at the most. */
#define PA_READER_UNENDED_NAMED 3

/*
 * One warning for every process of run that ended without its END record
 * (pa_reader_unended), naming the first few by their directory.
 */
static void pa_reader_warn_unended(struct pa_run *run)
{
	char names[512] = "";
	size_t n = 0, len = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *proc = run->processes[i];
		const char *base = strrchr(proc->dir, '/') ? strrchr(proc->dir, '/') + 1 : proc->dir;
		int w;

		if (!pa_reader_unended(proc))
			continue;
		if (n++ >= PA_READER_UNENDED_NAMED)
			continue;
		w = snprintf(names + len, sizeof(names) - len, "%s%s", n > 1 ? ", " : "",
			     strcmp(base, ".") ? base : proc->dir);
		if (w > 0 && (size_t)w < sizeof(names) - len)
			len += (size_t)w;
	}
	if (n)
		pa_warnings_add(&run->warnings, run->dir, false, 0,
				"%zu process%s ended without an end record (raw exit_group or "
				"killed): %s%s; %s threads' samples are reported, with the CPU "
				"time their logs last recorded", n, n == 1 ? "" : "es", names,
				n > PA_READER_UNENDED_NAMED ? ", ..." : "", n == 1 ? "its" : "their");
}

/* Loading a run's process directories, on several threads. */
struct pa_reader_pjobs {
	const char *dir;
	char **names;
	char **flat;                /* the root's thread logs, <P>.thread-<tid>.log, sorted */
	size_t nflat;
	const struct pa_load_opts *opts;
	struct pa_process **procs;  /* per directory, NULL until loaded */
	struct pa_warnings *warns;  /* per directory, merged in order afterwards */
	struct pa_error **errs;     /* per directory that failed (malloc'd; NULL: no memory) */
	int *rets;
};

#define PA_READER_PROCESSES_PARALLEL_MIN 2 /* directories; fewer are read on the calling thread */

static void pa_reader_pjob(void *arg, size_t i)
{
	struct pa_reader_pjobs *j = arg;
	char *pdir = strcmp(j->names[i], ".") ? pa_reader_join(j->dir, j->names[i]) :
						 strdup(j->dir);
	/* Kept only on failure: a pa_error is 4 KiB, and a run may have 100,000 processes. */
	struct pa_error err = { 0 };

	j->rets[i] = pdir ? pa_reader_process_load_in(pdir, j->opts, true, j->flat, j->nflat,
						     &j->procs[i], &j->warns[i], &err) :
			    pa_error_set(&err, -ENOMEM, j->dir, false, 0, "out of memory");
	if (j->rets[i] != 0 && (j->errs[i] = malloc(sizeof(err))) != NULL)
		*j->errs[i] = err;
	free(pdir);
}

/* The error job i of j failed with, into out (out of memory when it could not be kept). */
static void pa_reader_pjob_error(const struct pa_reader_pjobs *j, size_t i, struct pa_error *out)
{
	if (j->errs[i])
		*out = *j->errs[i];
	else
		pa_error_set(out, -ENOMEM, j->dir, false, 0, "out of memory");
}

/*
 * Loads the n process directories names (in run->dir) into run, in
 * parallel; warnings, skips and the first error come in the names' order,
 * as if read one after another. Returns 0 or the first error (err filled).
 */
static int pa_reader_load_processes(struct pa_run *run, char **names, size_t n,
				    char **flat, size_t nflat,
				    const struct pa_load_opts *opts, struct pa_error *err)
{
	struct pa_reader_pjobs j = {
		.dir = run->dir, .names = names, .flat = flat, .nflat = nflat, .opts = opts,
		.procs = calloc(n, sizeof(*j.procs)),
		.warns = calloc(n, sizeof(*j.warns)),
		.errs = calloc(n, sizeof(*j.errs)),
		.rets = calloc(n, sizeof(*j.rets)),
	};
	int ret = 0;

	if (!j.procs || !j.warns || !j.errs || !j.rets)
		ret = pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
	else
		pa_parallel_run(n, PA_READER_PROCESSES_PARALLEL_MIN, pa_reader_pjob, &j);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		for (size_t k = 0; k < j.warns[i].n; k++)
			pa_warnings_add(&run->warnings, j.warns[i].v[k].path, j.warns[i].v[k].has_offset,
					j.warns[i].v[k].offset, "%s", j.warns[i].v[k].reason);
		ret = j.rets[i];
		if (ret == 0) {
			run->processes[run->nprocesses++] = j.procs[i];
			j.procs[i] = NULL;
		} else if (pa_reader_skippable(ret) && (i + 1 < n || run->nprocesses)) {
			/* Skipped; unless nothing at all could be read: then it is the error. */
			struct pa_error skipped;

			pa_reader_pjob_error(&j, i, &skipped);
			pa_reader_skipped(&run->warnings, &skipped, "that process is skipped");
			ret = 0;
		} else {
			pa_reader_pjob_error(&j, i, err);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (j.procs)
			pa_process_free(j.procs[i]);
		if (j.warns)
			pa_warnings_release(&j.warns[i]);
		if (j.errs)
			free(j.errs[i]);
	}
	free(j.procs);
	free(j.warns);
	free(j.errs);
	free(j.rets);
	return ret;
}

/* Whether u is the first record of run naming its path (u in proc, of run). */
static bool pa_reader_unprofiled_first(const struct pa_run *run, size_t pi, size_t ui)
{
	const char *path = run->processes[pi]->unprofiled[ui].path;

	for (size_t i = 0; i <= pi; i++) {
		const struct pa_process *q = run->processes[i];

		for (size_t k = 0; k < (i == pi ? ui : q->nunprofiled); k++)
			if (strcmp(q->unprofiled[k].path, path) == 0)
				return false;
	}
	return true;
}

/*
 * One warning for the statically linked programs the run's processes
 * started (PPF_REC_UNPROFILED), naming the first few, each once.
 */
static void pa_reader_warn_unprofiled(struct pa_run *run)
{
	char names[1024] = "";
	size_t n = 0, starts = 0, len = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		for (size_t k = 0; k < run->processes[i]->nunprofiled; k++) {
			int w;

			starts++;
			if (!pa_reader_unprofiled_first(run, i, k) || n++ >= PA_READER_UNENDED_NAMED)
				continue;
			w = snprintf(names + len, sizeof(names) - len, "%s%s", n > 1 ? ", " : "",
				     run->processes[i]->unprofiled[k].path);
			if (w > 0 && (size_t)w < sizeof(names) - len)
				len += (size_t)w;
		}
	}
	if (n)
		pa_warnings_add(&run->warnings, run->dir, false, 0,
				"%zu program%s %s statically linked and not profiled (started "
				"%zu time%s; LD_PRELOAD cannot enter a program without a dynamic "
				"loader): %s%s", n, n == 1 ? "" : "s", n == 1 ? "was" : "were",
				starts, starts == 1 ? "" : "s", names,
				n > PA_READER_UNENDED_NAMED ? ", ..." : "");
}

/*
 * The image exec replaced just before proc started: same pid of the same
 * host and boot, replaced, started before.
 */
static const struct pa_process *pa_reader_previous_image(const struct pa_run *run,
						  const struct pa_process *proc)
{
	const struct pa_process *best = NULL;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *q = run->processes[i];

		if (q != proc && q->pid == proc->pid && q->replaced && q->start_ns < proc->start_ns &&
		    pa_process_same_pid_space(q, proc) && (!best || q->start_ns > best->start_ns))
			best = q;
	}
	return best;
}

/* a - b, 0 when b is larger (clocks read at different moments). */
static uint64_t pa_reader_cpu_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * Sets each process's before (its CPU time before the profiler began, less
 * what the image that exec replaced before it, the process of the same pid
 * in run, had used at its exec) and before_thread (before.h). The profiler's
 * own start, from its constructor (a fork child: its fork handler) to
 * sampling, is none of the program's work, as its frames in samples are
 * not: logs older than the constructor's mark count it in. Returns 0 or
 * -ENOMEM.
 */
static int pa_reader_link_before(struct pa_run *run)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		struct pa_process *proc = run->processes[i];
		const struct pa_process *prev;
		struct pa_thread *t;

		if (!proc->cpu_sampling.known)
			continue;
		proc->before = proc->cpu_entry.known ? proc->cpu_entry : proc->cpu_sampling;
		prev = pa_reader_previous_image(run, proc);
		if (prev && prev->cpu_exec.known) {
			const struct pa_cpu_mark *x = &prev->cpu_exec;

			proc->before.user_ns = pa_reader_cpu_sub(proc->before.user_ns, x->user_ns);
			proc->before.system_ns = pa_reader_cpu_sub(proc->before.system_ns,
							       x->system_ns);
			proc->carried_ns = pa_reader_cpu_sub(x->user_ns + x->system_ns,
							     x->thread_user_ns + x->thread_system_ns);
		}
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		/* Nameless, tid 0: reports name it PA_BEFORE_NAME themselves. */
		t->pid = proc->pid;
		t->start_ns = proc->start_ns;
		proc->before_thread = t;
	}
	return 0;
}

/*
 * Thread logs at the root of run whose process log, <P>.log, is not among
 * the names of the processes found (*names, *n, sorted): the log is read
 * all the same when it is there (a damaged one is then said, naming it, as
 * the process.log of a directory is), else they are left out, said once
 * per process. Returns 0 or -ENOMEM.
 */
static int pa_reader_orphans(struct pa_run *run, char ***names, size_t *n, char *const *flat,
			     size_t nflat)
{
	size_t cap = *n, added = 0, nsaid = 0, said_cap = 0;
	const char **said = NULL; /* the thread logs (one of each P) already said */

	for (size_t i = 0; i < nflat; i++) {
		size_t plen, prev;
		char *log = NULL, *path = NULL;
		struct stat st;
		bool there, again = false;

		/* P's thread logs sort together (mostly: see said): P is looked at once. */
		if (!pa_reader_flat_thread_log(flat[i], &plen) ||
		    (i > 0 && pa_reader_flat_thread_log(flat[i - 1], &prev) && prev == plen &&
		     strncmp(flat[i - 1], flat[i], plen) == 0))
			continue;
		if (asprintf(&log, "%.*s%s", (int)plen, flat[i], PPF_LOG_SUFFIX) < 0) {
			free(said);
			return -ENOMEM;
		}
		/* Another process named as P's thread logs are (P.thread-5@h.9) splits them. */
		for (size_t k = 0; k < nsaid && !again; k++)
			again = strlen(said[k]) > plen && said[k][plen] == '.' &&
				strncmp(said[k], flat[i], plen) == 0 &&
				pa_reader_flat_thread_log(said[k], &prev) && prev == plen;
		if (again || bsearch(&log, *names, *n - added, sizeof(char *), pa_reader_cmp_name)) {
			free(log);
			continue;
		}
		if (pa_grow((void **)&said, &said_cap, nsaid, sizeof(*said)) < 0) {
			free(log);
			free(said);
			return -ENOMEM;
		}
		said[nsaid++] = flat[i];
		if (asprintf(&path, "%s/%s", run->dir, log) < 0) {
			free(log);
			free(said);
			return -ENOMEM;
		}
		there = lstat(path, &st) == 0;
		if (there && S_ISREG(st.st_mode)) {
			if (pa_grow((void **)names, &cap, *n, sizeof(char *)) < 0) {
				free(log);
				free(path);
				free(said);
				return -ENOMEM;
			}
			(*names)[(*n)++] = log;
			added++;
			log = NULL;
		} else {
			pa_warnings_add(&run->warnings, path, false, 0,
					"%s: the thread logs %.*s.thread-*.log beside it are left out",
					there ? "not a regular file" : "missing", (int)plen,
					flat[i]);
		}
		free(log);
		free(path);
	}
	free(said);
	if (added)
		qsort(*names, *n, sizeof(char *), pa_reader_cmp_name);
	return 0;
}

static int pa_reader_finish_run(struct pa_run *run, struct pa_run **out, struct pa_error *err);

/*
 * A run of the one process whose log is path (<root>/<P>.log, its thread
 * logs beside it), as a user names one process of a run; a file that is
 * no process log is an error saying what is expected.
 */
static int pa_reader_run_of_log(const char *path, const struct pa_load_opts *opts,
				struct pa_run **out, struct pa_error *err)
{
	const char *slash = strrchr(path, '/');
	char *root = slash ? strndup(path, slash > path ? (size_t)(slash - path) : 1) : strdup(".");
	const char *base = slash ? slash + 1 : path;
	char **names = NULL, **flat = NULL;
	size_t nflat = 0;
	struct pa_run *run = NULL;
	int ret = 0;

	if (!root)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	/* The process.log of an older run's process directory: that directory. */
	if (strcmp(base, PPF_PROCESS_LOG) == 0) {
		ret = pa_run_load_opts(root, opts, out, err);
		free(root);
		return ret;
	}
	if (!pa_reader_is_root_log(root, base)) {
		free(root);
		return pa_error_set(err, -ENOTDIR, path, false, 0,
				    "not a directory, nor a process's log (<exe>@<host>.<pid>%s)",
				    PPF_LOG_SUFFIX);
	}
	run = calloc(1, sizeof(*run));
	names = calloc(1, sizeof(*names));
	if (!run || !names || !(names[0] = strdup(base)) ||
	    !(run->processes = calloc(1, sizeof(*run->processes)))) {
		ret = pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	} else {
		run->dir = root;
		root = NULL;
		ret = pa_reader_list_dir(run->dir, pa_reader_keep_flat_thread_log, &flat, &nflat,
					 err);
	}
	if (ret == 0)
		ret = pa_reader_load_processes(run, names, 1, flat, nflat, opts, err);
	pa_rootfiles_release();
	pa_reader_free_names(names, names && names[0] ? 1 : 0);
	pa_reader_free_names(flat, nflat);
	free(root);
	/* Read: the run is named as the user named it (diff's and speedscope's labels). */
	if (ret == 0) {
		char *named = strdup(path);

		if (named) {
			free(run->dir);
			run->dir = named;
		}
	}
	if (ret < 0) {
		pa_run_free(run);
		return ret;
	}
	return pa_reader_finish_run(run, out, err);
}

int pa_run_load_opts(const char *dir, const struct pa_load_opts *opts, struct pa_run **out,
		     struct pa_error *err)
{
	struct pa_run *run;
	struct stat st;
	char **names = NULL, **flat = NULL;
	size_t n = 0, nflat = 0;
	int ret;

	*out = NULL;
	if (stat(dir, &st) < 0 && errno == ENOENT)
		return pa_error_set(err, -ENOENT, dir, false, 0, "%s", PA_READER_NO_RUN);
	if (stat(dir, &st) < 0)
		return pa_error_set(err, -errno, dir, false, 0, "%s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return pa_reader_run_of_log(dir, opts, out, err);
	run = calloc(1, sizeof(*run));
	if (!run || !(run->dir = strdup(dir))) {
		free(run);
		return pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	}
	ret = pa_reader_list_dir(dir, pa_reader_keep_process_dir, &names, &n, err);
	if (ret == 0)
		ret = pa_reader_list_dir(dir, pa_reader_keep_flat_thread_log, &flat, &nflat, err);
	if (ret == 0 && pa_reader_orphans(run, &names, &n, flat, nflat) < 0)
		ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	if (ret == 0 && n == 0) {
		/* The directory of one process given directly. */
		if (pa_reader_keep_process_dir(dir, ".")) {
			free(names);
			names = malloc(sizeof(*names));
			if (names && (names[0] = strdup(".")))
				n = 1;
			else
				ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
		} else
			ret = pa_error_set(err, -ENOENT, dir, false, 0,
					   "no process log (<exe>@<host>.<pid>%s) or process "
					   "directory (<exe>@<host>.<pid>/%s) here; %s", PPF_LOG_SUFFIX,
					   PPF_PROCESS_LOG, PA_READER_NO_PROFILE);
	}
	if (ret == 0 && n) {
		run->processes = calloc(n, sizeof(*run->processes));
		if (!run->processes)
			ret = pa_error_set(err, -ENOMEM, dir, false, 0, "out of memory");
	}
	if (ret == 0 && n)
		ret = pa_reader_load_processes(run, names, n, flat, nflat, opts, err);
	/* Kept for this run's processes only: a file may be gone by the next load. */
	pa_rootfiles_release();
	pa_reader_free_names(names, n);
	pa_reader_free_names(flat, nflat);
	if (ret < 0) {
		pa_run_free(run);
		return ret;
	}
	return pa_reader_finish_run(run, out, err);
}

/* The run's processes read: sorted, linked to the images before them, said about. */
static int pa_reader_finish_run(struct pa_run *run, struct pa_run **out, struct pa_error *err)
{
	qsort(run->processes, run->nprocesses, sizeof(*run->processes), pa_reader_cmp_process);
	if (pa_reader_link_before(run) < 0) {
		pa_error_set(err, -ENOMEM, run->dir, false, 0, "out of memory");
		pa_run_free(run);
		return -ENOMEM;
	}
	pa_reader_warn_unended(run);
	pa_reader_warn_unprofiled(run);
	*out = run;
	return 0;
}

const struct pa_event *pa_process_find_event(const struct pa_process *proc, uint32_t index)
{
	for (size_t i = 0; i < proc->nevents; i++)
		if (proc->events[i].index == index)
			return &proc->events[i];
	return NULL;
}

const struct pa_event *pa_process_find_event_named(const struct pa_process *proc,
						   const char *name)
{
	for (size_t i = 0; i < proc->nevents; i++)
		if (strcmp(proc->events[i].name, name) == 0)
			return &proc->events[i];
	for (size_t i = 0; i < proc->nevents; i++)
		if (strcmp(proc->events[i].spec, name) == 0)
			return &proc->events[i];
	return NULL;
}

const struct pa_thread_event *pa_thread_find_event(const struct pa_thread *thread,
						   uint32_t index)
{
	for (size_t i = 0; i < thread->nevents; i++)
		if (thread->events[i].event == index)
			return &thread->events[i];
	return NULL;
}

const char *pa_process_exe_base(const struct pa_process *proc)
{
	const char *slash;

	if (!proc->exe)
		return "";
	slash = strrchr(proc->exe, '/');
	return slash ? slash + 1 : proc->exe;
}

bool pa_process_runs(const struct pa_process *proc, const char *name)
{
	return strcmp(pa_process_exe_base(proc), name) == 0 ||
	       (proc->exe && strcmp(proc->exe, name) == 0);
}

int pa_process_cmp_pid_space(const struct pa_process *a, const struct pa_process *b)
{
	const char *ha = a->id.host ? a->id.host : "", *hb = b->id.host ? b->id.host : "";
	int c = strcmp(ha, hb);

	return c ? c : memcmp(a->id.boot_id, b->id.boot_id, sizeof(a->id.boot_id));
}

bool pa_process_same_pid_space(const struct pa_process *a, const struct pa_process *b)
{
	return pa_process_cmp_pid_space(a, b) == 0;
}
