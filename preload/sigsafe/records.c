/* Every record of the logs, filled and appended; see records.h. */
#include "records.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "logfile.h"

/* A full disk still leaves room for every closing record (logfile.h). */
_Static_assert(sizeof(struct ppf_log_full) + sizeof(struct ppf_thread_name) +
	       PP_CONFIG_MAX_EVENTS * sizeof(struct ppf_thread_event) +
	       sizeof(struct ppf_thread_blocked) +
	       sizeof(struct ppf_thread_end) + sizeof(struct ppf_record) <= PP_LOGFILE_KEEP,
	       "a thread's closing records fit in PP_LOGFILE_KEEP");
_Static_assert(sizeof(struct ppf_log_full) + sizeof(struct ppf_process_end) +
	       sizeof(struct ppf_record) <= PP_LOGFILE_KEEP,
	       "the process's closing records fit in PP_LOGFILE_KEEP");

/*
 * What follows a record's fixed part: len bytes of data, in space bytes
 * (the rest zero: a string's NUL).
 */
struct pp_records_tail {
	const void *data;
	uint32_t len;
	uint32_t space;
};

/* Runs in signal context. */
uint64_t pp_records_now_sigsafe(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs in signal context. */
void pp_records_cpu_sigsafe(int who, struct pp_records_cpu *out)
{
	struct rusage ru;

	*out = (struct pp_records_cpu){ 0 };
	if (syscall(SYS_getrusage, who, &ru) != 0)
		return;
	out->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
		       (uint64_t)ru.ru_utime.tv_usec * 1000ull;
	out->system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
			 (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	out->cpu_ns = out->user_ns + out->system_ns;
}

/* Runs in signal context. Zeroes record rec of size bytes and sets its header. */
static void pp_records_head_sigsafe(void *rec, uint32_t size, uint32_t type)
{
	struct ppf_record *h = rec;

	memset(rec, 0, size);
	h->type = type;
	h->size = size;
}

/*
 * Runs in signal context. A thread's name into out (PPF_THREAD_NAME_MAX
 * bytes, zeroed): name, or the calling thread's when name is NULL.
 */
static void pp_records_name_sigsafe(char *out, const char *name)
{
	size_t n;

	if (!name) {
		syscall(SYS_prctl, PR_GET_NAME, out, 0, 0, 0);
	} else {
		n = strnlen(name, PPF_THREAD_NAME_MAX - 1);
		memcpy(out, name, n);
	}
	out[PPF_THREAD_NAME_MAX - 1] = '\0';
}

/* Runs in signal context. String s as a tail, NUL included; at most max bytes of it. */
static struct pp_records_tail pp_records_string_sigsafe(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (len > max)
		len = max;
	return (struct pp_records_tail){ .data = s, .len = (uint32_t)len,
					 .space = (uint32_t)len + 1 };
}

/* Runs in signal context. Copies string src into the zeroed field dst, NUL kept. */
static void pp_records_copy_sigsafe(char *dst, size_t size, const char *src)
{
	memcpy(dst, src, strnlen(src, size - 1));
}

/*
 * Runs in signal context. Appends the record whose fixed part (its header's
 * type set) is fixed, followed by the tails, padded with zeros to the record
 * alignment; sets the header's size.
 */
static int pp_records_size_sigsafe(void *fixed, uint32_t fixed_size,
				   const struct pp_records_tail *tails, unsigned ntails)
{
	struct ppf_record *h = fixed;
	uint64_t total = fixed_size;

	for (unsigned i = 0; i < ntails; i++)
		total += tails[i].space;
	if (total > PPF_RECORD_MAX - PPF_RECORD_ALIGN)
		return -E2BIG;
	h->size = ppf_align((uint32_t)total);
	return 0;
}

/*
 * Runs in signal context. Copies the record sized by pp_records_size_sigsafe,
 * all but its header, to dst (h->size zeroed bytes).
 */
static void pp_records_lay_sigsafe(uint8_t *dst, const void *fixed, uint32_t fixed_size,
				   const struct pp_records_tail *tails, unsigned ntails)
{
	uint32_t total = fixed_size;

	memcpy(dst + sizeof(struct ppf_record), (const uint8_t *)fixed + sizeof(struct ppf_record),
	       fixed_size - sizeof(struct ppf_record));
	for (unsigned i = 0; i < ntails; i++) {
		if (tails[i].len)
			memcpy(dst + total, tails[i].data, tails[i].len);
		total += tails[i].space;
	}
}

static int pp_records_put_sigsafe(struct pp_logfile *log, void *fixed, uint32_t fixed_size,
				  const struct pp_records_tail *tails, unsigned ntails)
{
	struct ppf_record *h = fixed;
	uint8_t *dst;
	int err = pp_records_size_sigsafe(fixed, fixed_size, tails, ntails);

	if (err)
		return err;
	dst = pp_logfile_reserve_sigsafe(log, h->size);
	if (!dst)
		return -ENOSPC;
	pp_records_lay_sigsafe(dst, fixed, fixed_size, tails, ntails);
	pp_logfile_commit_sigsafe(log, dst, h->type, h->size);
	return 0;
}

/* Async-signal-safe. */
int pp_records_process_sigsafe(struct pp_logfile *log, int ppid, uint32_t mode, int signal,
			       const char *exe, const char *cmdline, uint32_t cmdline_len)
{
	struct pp_records_tail tails[2] = {
		pp_records_string_sigsafe(exe, UINT32_MAX - 1),
		{ .data = cmdline, .len = cmdline_len, .space = cmdline_len },
	};
	struct ppf_process rec;
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_PROCESS);
	rec.pid = (uint32_t)getpid();
	rec.ppid = (uint32_t)ppid;
	rec.start_ns = pp_records_now_sigsafe();
	rec.start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	rec.mode = mode;
	rec.signal = (uint32_t)signal;
	rec.exe_len = tails[0].space;
	rec.cmdline_len = cmdline_len;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), tails, 2);
}

/* Runs in signal context. A clock's reading in ns. */
static uint64_t pp_records_clock_sigsafe(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Async-signal-safe. */
int pp_records_identity_sigsafe(struct pp_logfile *log, const struct pp_records_identity *id)
{
	struct pp_records_tail tails[2] = {
		pp_records_string_sigsafe(id->host, 255),
		pp_records_string_sigsafe(id->job, 255),
	};
	struct ppf_identity rec;
	uint64_t before, after;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_IDENTITY);
	before = pp_records_clock_sigsafe(CLOCK_MONOTONIC);
	rec.anchor_real_ns = pp_records_clock_sigsafe(CLOCK_REALTIME);
	after = pp_records_clock_sigsafe(CLOCK_MONOTONIC);
	rec.anchor_mono_ns = before + (after - before) / 2;
	memcpy(rec.boot_id, id->boot_id, sizeof(rec.boot_id));
	rec.rank = id->rank;
	rec.world_size = id->world_size;
	rec.rank_source = id->rank_source;
	rec.host_len = tails[0].space;
	rec.job_len = tails[1].space;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), tails, 2);
}

/* Async-signal-safe. */
int pp_records_config_sigsafe(struct pp_logfile *log, const struct pp_config *cfg)
{
	struct pp_records_tail tails[2] = {
		pp_records_string_sigsafe(cfg->source, UINT32_MAX - 1),
		/* The embedded default's text is the build's config/default.ini: not copied. */
		pp_records_string_sigsafe(cfg->text && cfg->from_file ? cfg->text : "",
					  UINT32_MAX - 1),
	};
	struct ppf_config rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_CONFIG);
	rec.mode_request = cfg->mode_request;
	rec.max_frames = cfg->max_frames;
	rec.flags = (cfg->follow_exec ? PPF_CONFIG_FOLLOW_EXEC : 0) |
		    (cfg->strict ? PPF_CONFIG_STRICT : 0) |
		    (cfg->unavailable_off ? PPF_CONFIG_UNAVAILABLE_OFF : 0) |
		    (cfg->from_file ? PPF_CONFIG_FROM_FILE : 0);
	rec.source_len = tails[0].space;
	rec.text_len = tails[1].space;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), tails, 2);
}

/* Runs in signal context. The PPF_REC_EVENT of pp_records_event_sigsafe into rec. */
static void pp_records_event_fill_sigsafe(struct ppf_event *rec, unsigned index,
					  const struct pp_config_event *ce, int error,
					  int refused)
{
	pp_records_head_sigsafe(rec, sizeof(*rec), PPF_REC_EVENT);
	rec->index = index;
	rec->type = ce->type;
	rec->config = ce->config;
	rec->period = ce->period;
	rec->flags = (ce->freq ? PPF_EVENT_FREQ : 0) |
		     (ce->exclude_kernel ? PPF_EVENT_EXCLUDE_KERNEL : 0) |
		     (ce->exclude_user ? PPF_EVENT_EXCLUDE_USER : 0) |
		     (ce->time_ns ? PPF_EVENT_TIME_NS : 0) |
		     (ce->count_only ? PPF_EVENT_COUNT : 0) |
		     (error ? PPF_EVENT_UNAVAILABLE : 0) |
		     (refused ? PPF_EVENT_MODE_REFUSED : 0);
	rec->error = (uint32_t)error;
	rec->config1 = ce->config1;
	rec->config2 = ce->config2;
	rec->precise_ip = ce->precise_ip;
	pp_records_copy_sigsafe(rec->name, sizeof(rec->name), ce->name);
	pp_records_copy_sigsafe(rec->spec, sizeof(rec->spec), ce->spec);
}

/* Async-signal-safe. */
int pp_records_event_sigsafe(struct pp_logfile *log, unsigned index,
			     const struct pp_config_event *ce, int error, int refused)
{
	struct ppf_event rec;

	pp_records_event_fill_sigsafe(&rec, index, ce, error, refused);
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/*
 * Runs in signal context. A file of the root (PPF_FILE_SHARED) holding the
 * record rec of size bytes (its header's size set) into out (cap bytes):
 * returns its size, 0 when it does not fit.
 */
static uint32_t pp_records_file_sigsafe(void *out, uint32_t cap, const void *rec, uint32_t size)
{
	struct ppf_file_header hdr;

	if (cap < sizeof(hdr) || size > cap - sizeof(hdr))
		return 0;
	pp_logfile_header_sigsafe(&hdr, PPF_FILE_SHARED);
	memcpy(out, &hdr, sizeof(hdr));
	if (rec != (uint8_t *)out + sizeof(hdr)) /* else laid out in place */
		memcpy((uint8_t *)out + sizeof(hdr), rec, size);
	return (uint32_t)sizeof(hdr) + size;
}

/* Async-signal-safe. */
uint32_t pp_records_event_file_sigsafe(void *out, uint32_t cap, unsigned index,
				       const struct pp_config_event *ce, int error, int refused)
{
	struct ppf_event rec;

	pp_records_event_fill_sigsafe(&rec, index, ce, error, refused);
	return pp_records_file_sigsafe(out, cap, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_event_ref_sigsafe(struct pp_logfile *log, const uint8_t key[PPF_MODULE_KEY_LEN])
{
	struct ppf_event_ref rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_EVENT_REF);
	memcpy(rec.key, key, sizeof(rec.key));
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. PPF_REC_VDSO: module id is the vDSO, its image name at the root. */
static int pp_records_vdso_sigsafe(struct pp_logfile *log, uint64_t id, const char *name)
{
	struct pp_records_tail tail = pp_records_string_sigsafe(name, PATH_MAX - 1);
	struct ppf_vdso rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_VDSO);
	rec.module_id = id;
	rec.name_len = tail.space;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), &tail, 1);
}

/*
 * Runs in signal context. m's PPF_REC_MODULE into rec, its path into *path;
 * shared: as the run's file at the root has it (no id, bias or load time;
 * start and end relative to the bias).
 */
static void pp_records_module_fill_sigsafe(struct ppf_module *rec, struct pp_records_tail *path,
					   const struct pp_records_module *m, int shared)
{
	uint64_t bias = shared ? m->bias : 0;

	*path = pp_records_string_sigsafe(m->path, UINT32_MAX - 1);
	pp_records_head_sigsafe(rec, sizeof(*rec), PPF_REC_MODULE);
	rec->id = shared ? 0 : m->id;
	rec->bias = m->bias - bias;
	rec->start = m->start - bias;
	rec->end = m->end - bias;
	rec->pgoff = m->pgoff;
	rec->load_ns = shared ? 0 : m->load_ns;
	rec->build_id_len = m->build_id_len <= PPF_BUILD_ID_MAX ? m->build_id_len : 0;
	if (rec->build_id_len)
		memcpy(rec->build_id, m->build_id, rec->build_id_len);
	rec->path_len = path->space;
}

/* Async-signal-safe. */
int pp_records_module_sigsafe(struct pp_logfile *log, const struct pp_records_module *m)
{
	struct pp_records_tail path;
	struct ppf_module rec;
	int err;

	pp_records_module_fill_sigsafe(&rec, &path, m, 0);
	err = pp_records_put_sigsafe(log, &rec, sizeof(rec), &path, 1);
	if (!err && m->vdso_image)
		err = pp_records_vdso_sigsafe(log, m->id, m->vdso_image);
	if (!err && m->has_file) {
		struct ppf_module_file f;

		pp_records_head_sigsafe(&f, sizeof(f), PPF_REC_MODULE_FILE);
		f.module_id = m->id;
		f.size = m->file_size;
		f.mtime_ns = m->file_mtime_ns;
		f.dev = m->file_dev;
		f.ino = m->file_ino;
		err = pp_records_put_sigsafe(log, &f, sizeof(f), NULL, 0);
	}
	return err;
}

/* Async-signal-safe. */
uint32_t pp_records_module_file_sigsafe(void *out, uint32_t cap,
					const struct pp_records_module *m)
{
	struct pp_records_tail path;
	struct ppf_module rec;
	uint8_t *dst = out;

	pp_records_module_fill_sigsafe(&rec, &path, m, 1);
	if (pp_records_size_sigsafe(&rec, sizeof(rec), &path, 1) != 0 ||
	    cap < sizeof(struct ppf_file_header) ||
	    rec.h.size > cap - sizeof(struct ppf_file_header))
		return 0;
	/* Laid out in place after the header, then the header before it. */
	dst += sizeof(struct ppf_file_header);
	memset(dst, 0, rec.h.size);
	memcpy(dst, &rec.h, sizeof(rec.h));
	pp_records_lay_sigsafe(dst, &rec, sizeof(rec), &path, 1);
	return pp_records_file_sigsafe(out, cap, dst, rec.h.size);
}

/* Async-signal-safe. */
int pp_records_module_ref_sigsafe(struct pp_logfile *log, const struct pp_records_module *m,
				  const uint8_t key[PPF_MODULE_KEY_LEN])
{
	struct ppf_module_ref rec;
	int err;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_MODULE_REF);
	rec.id = m->id;
	rec.bias = m->bias;
	rec.load_ns = m->load_ns;
	memcpy(rec.key, key, sizeof(rec.key));
	err = pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
	return err || !m->vdso_image ? err : pp_records_vdso_sigsafe(log, m->id, m->vdso_image);
}

/* Async-signal-safe. */
int pp_records_module_unload_sigsafe(struct pp_logfile *log, uint64_t id,
				     uint64_t unload_ns)
{
	struct ppf_module_unload rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_MODULE_UNLOAD);
	rec.id = id;
	rec.unload_ns = unload_ns;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_exec_sigsafe(struct pp_logfile *log, const char *path)
{
	struct pp_records_tail tail = pp_records_string_sigsafe(path ? path : "", PATH_MAX - 1);
	struct ppf_exec rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_EXEC);
	rec.time_ns = pp_records_now_sigsafe();
	rec.path_len = tail.space;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), &tail, 1);
}

/* Async-signal-safe. */
int pp_records_process_cpu_sigsafe(struct pp_logfile *log, uint32_t when,
				   const struct pp_records_cpu *cpu,
				   const struct pp_records_cpu *thread)
{
	struct ppf_process_cpu rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_PROCESS_CPU);
	rec.time_ns = pp_records_now_sigsafe();
	rec.user_ns = cpu->user_ns;
	rec.system_ns = cpu->system_ns;
	rec.when = when;
	rec.tid = (uint32_t)syscall(SYS_gettid);
	rec.thread_user_ns = thread->user_ns;
	rec.thread_system_ns = thread->system_ns;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_unprofiled_sigsafe(struct pp_logfile *log, int pid, uint32_t why,
				  const char *path)
{
	struct pp_records_tail tail = pp_records_string_sigsafe(path ? path : "", PATH_MAX - 1);
	struct ppf_unprofiled rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_UNPROFILED);
	rec.time_ns = pp_records_now_sigsafe();
	rec.pid = (uint32_t)pid;
	rec.why = why;
	rec.path_len = tail.space;
	return pp_records_put_sigsafe(log, &rec, sizeof(rec), &tail, 1);
}

/* Async-signal-safe. */
int pp_records_thread_unsampled_sigsafe(struct pp_logfile *log, int tid, uint32_t what,
					int err)
{
	struct ppf_thread_unsampled rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_UNSAMPLED);
	rec.tid = (uint32_t)tid;
	rec.what = what;
	rec.time_ns = pp_records_now_sigsafe();
	rec.error = err;
	pp_records_name_sigsafe(rec.name, NULL);
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_process_end_sigsafe(struct pp_logfile *log,
				   const struct pp_records_counts *totals,
				   const struct pp_records_cpu *cpu, uint32_t how, int status)
{
	struct ppf_process_end rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_PROCESS_END);
	rec.end_ns = pp_records_now_sigsafe();
	rec.samples = totals->samples;
	rec.lost = totals->lost;
	rec.throttled = totals->throttled;
	rec.user_ns = cpu->user_ns;
	rec.system_ns = cpu->system_ns;
	rec.how = how;
	rec.status = how != PPF_EXIT_UNKNOWN ? status : 0;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Runs in signal context. */
int pp_records_thread_sigsafe(struct pp_logfile *log, int pid, int tid, uint64_t start_ns,
			      const char *name)
{
	struct ppf_thread rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD);
	rec.pid = (uint32_t)pid;
	rec.tid = (uint32_t)tid;
	rec.start_ns = start_ns;
	pp_records_name_sigsafe(rec.name, name);
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_quiet_sigsafe(struct pp_logfile *log, int tid, uint32_t flags,
				    uint64_t start_ns, uint64_t end_ns, const char *name,
				    const struct pp_records_cpu *cpu)
{
	struct ppf_thread_quiet rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_QUIET);
	rec.tid = (uint32_t)tid;
	rec.flags = flags;
	rec.start_ns = start_ns;
	rec.end_ns = end_ns;
	rec.cpu_ns = cpu->cpu_ns;
	rec.user_ns = cpu->user_ns;
	rec.system_ns = cpu->system_ns;
	pp_records_name_sigsafe(rec.name, name);
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Runs in signal context. */
int pp_records_sample_sigsafe(struct pp_logfile *log, const uint64_t *ips, unsigned nframes,
			      uint64_t time_ns, unsigned event, uint16_t flags)
{
	uint32_t size = ppf_sample_size(nframes);
	struct ppf_sample *s = pp_logfile_reserve_sigsafe(log, size);

	if (!s)
		return -ENOSPC;
	s->time_ns = time_ns;
	s->event = event;
	s->flags = flags;
	s->nframes = (uint16_t)nframes;
	memcpy(s->ips, ips, nframes * sizeof(*ips));
	pp_logfile_commit_sigsafe(log, s, PPF_REC_SAMPLE, size);
	return 0;
}

/*
 * Runs in signal context. The n addresses at ips as PPF_REC_STACK_SAMPLE
 * stores them (format.h) into dst; returns the bytes written.
 */
static uint32_t pp_records_varints_sigsafe(uint8_t *dst, const uint64_t *ips, unsigned n)
{
	uint64_t prev = 0;
	uint32_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t d = ips[i] - prev;
		uint64_t z = (d << 1) ^ (uint64_t)((int64_t)d >> 63);

		while (z >= 0x80) {
			dst[len++] = (uint8_t)(z | 0x80);
			z >>= 7;
		}
		dst[len++] = (uint8_t)z;
		prev = ips[i];
	}
	return len;
}

/*
 * Runs in signal context. A PPF_REC_STACK, or with at a PPF_REC_STACK_SAMPLE
 * of the sample at says (the fields both share are at the same places).
 */
static int pp_records_stack_put_sigsafe(struct pp_logfile *log, uint32_t id,
					const uint64_t *ips, unsigned nframes, uint32_t base,
					unsigned shared, const struct pp_records_at *at)
{
	uint32_t size = at ? ppf_stack_sample_max(nframes - shared) :
			     ppf_stack_size(nframes - shared);
	struct ppf_stack_sample *s = pp_logfile_reserve_sigsafe(log, size);

	if (!s)
		return -ENOSPC;
	s->id = id;
	s->nframes = (uint16_t)nframes;
	s->shared = (uint16_t)shared;
	s->base = shared ? base : 0;
	if (at) {
		s->event = (uint16_t)at->event;
		s->flags = at->flags;
		s->time_ns = at->time_ns;
		size = ppf_align((uint32_t)sizeof(*s) +
				 pp_records_varints_sigsafe(s->frames, ips, nframes - shared));
	} else {
		memcpy((uint8_t *)s + sizeof(struct ppf_stack), ips,
		       (nframes - shared) * sizeof(*ips));
	}
	pp_logfile_commit_sigsafe(log, s, at ? PPF_REC_STACK_SAMPLE : PPF_REC_STACK, size);
	return 0;
}

/* Runs in signal context. */
int pp_records_stack_sigsafe(struct pp_logfile *log, uint32_t id, const uint64_t *ips,
			     unsigned nframes, uint32_t base, unsigned shared)
{
	return pp_records_stack_put_sigsafe(log, id, ips, nframes, base, shared, NULL);
}

/* Runs in signal context. */
int pp_records_stack_sample_sigsafe(struct pp_logfile *log, uint32_t id, const uint64_t *ips,
				    unsigned nframes, uint32_t base, unsigned shared,
				    const struct pp_records_at *at)
{
	return pp_records_stack_put_sigsafe(log, id, ips, nframes, base, shared, at);
}

/*
 * Runs in signal context. The log's open sample block, when the sample of
 * event with flags at time_ns may go into it; else NULL.
 */
static struct ppf_sample_block *pp_records_block_for_sigsafe(struct pp_logfile *log,
							    uint64_t time_ns,
							    unsigned event, uint16_t flags)
{
	struct ppf_sample_block *b = pp_logfile_open_record_sigsafe(log);

	if (!b || b->h.type != PPF_REC_SAMPLE_BLOCK || b->event != event || b->flags != flags ||
	    time_ns < b->base_ns || time_ns - b->base_ns > UINT32_MAX ||
	    b->count >= PP_RECORDS_BLOCK_ENTRIES)
		return NULL;
	return b;
}

/* Runs in signal context. */
int pp_records_block_entry_sigsafe(struct pp_logfile *log, uint32_t stack, uint64_t time_ns,
				   unsigned event, uint16_t flags)
{
	const uint32_t room = PPF_SAMPLE_BLOCK_HEAD +
			      PP_RECORDS_BLOCK_ENTRIES * (uint32_t)sizeof(struct ppf_block_entry);
	struct ppf_sample_block *b = pp_records_block_for_sigsafe(log, time_ns, event, flags);
	uint32_t count;

	if (!b) {
		b = pp_logfile_reserve_sigsafe(log, room);
		if (!b)
			return -ENOSPC;
		b->base_ns = time_ns;
		b->event = event;
		b->flags = flags;
		pp_logfile_commit_open_sigsafe(log, b, PPF_REC_SAMPLE_BLOCK, room,
					       PPF_SAMPLE_BLOCK_HEAD);
	}
	count = b->count;
	b->entries[count].stack = stack;
	b->entries[count].delta_ns = (uint32_t)(time_ns - b->base_ns);
	/* The entry first, then the count that makes it part of the log. */
	__atomic_store_n(&b->count, count + 1, __ATOMIC_RELEASE);
	pp_logfile_grow_sigsafe(log, sizeof(struct ppf_block_entry));
	return 0;
}

/* Runs in signal context. */
int pp_records_sample_weight_sigsafe(struct pp_logfile *log, uint64_t overflows,
				     uint64_t period)
{
	struct ppf_sample_weight rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_SAMPLE_WEIGHT);
	rec.overflows = overflows;
	rec.period = period;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_name_sigsafe(struct pp_logfile *log, uint64_t time_ns,
				   const char *name)
{
	struct ppf_thread_name rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_NAME);
	rec.time_ns = time_ns;
	pp_records_copy_sigsafe(rec.name, sizeof(rec.name), name);
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_samples_sigsafe(struct pp_logfile *log, unsigned event,
				      const struct pp_records_counts *counts, int no_counter)
{
	struct ppf_thread_event rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_EVENT);
	rec.event = event;
	rec.flags = no_counter ? PPF_THREAD_EVENT_NO_COUNTER : 0;
	rec.samples = counts->samples;
	rec.lost = counts->lost;
	rec.throttled = counts->throttled;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_counter_sigsafe(struct pp_logfile *log, unsigned event,
				      const struct pp_counter_value *cv, int late)
{
	struct ppf_thread_event rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_EVENT);
	rec.event = event;
	rec.flags = PPF_THREAD_EVENT_NO_COUNTER;
	if (cv) {
		rec.flags = PPF_THREAD_EVENT_COUNTED | (late ? PPF_THREAD_EVENT_LATE_COUNTER : 0);
		rec.value = cv->value;
		rec.time_enabled = cv->time_enabled;
		rec.time_running = cv->time_running;
	}
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_blocked_sigsafe(struct pp_logfile *log, uint64_t now,
				      uint64_t held_cpu_ns, uint32_t holds, uint32_t flags)
{
	struct ppf_thread_blocked rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_BLOCKED);
	rec.time_ns = now;
	rec.held_cpu_ns = held_cpu_ns;
	rec.holds = holds;
	rec.flags = flags;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Both paused records have one layout. */
_Static_assert(offsetof(struct ppf_process_paused, delay_ns) ==
	       offsetof(struct ppf_thread_paused, cpu_ns) &&
	       sizeof(struct ppf_process_paused) == sizeof(struct ppf_thread_paused),
	       "paused records");

/* Runs in signal context. */
int pp_records_paused_sigsafe(struct pp_logfile *log, uint32_t type, uint64_t now,
			      const struct pp_records_paused *p)
{
	struct ppf_thread_paused rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), type);
	rec.time_ns = now;
	rec.paused_ns = p->paused_ns;
	rec.cpu_ns = p->other_ns;
	rec.pauses = p->pauses;
	rec.flags = p->flags;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Async-signal-safe. */
int pp_records_thread_end_sigsafe(struct pp_logfile *log, uint64_t end_ns,
				  const struct pp_records_counts *counts,
				  const struct pp_records_cpu *cpu)
{
	struct ppf_thread_end rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_END);
	rec.end_ns = end_ns;
	rec.samples = counts->samples;
	rec.lost = counts->lost;
	rec.throttled = counts->throttled;
	rec.cpu_ns = cpu->cpu_ns;
	rec.user_ns = cpu->user_ns;
	rec.system_ns = cpu->system_ns;
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

/* Runs in signal context. */
int pp_records_thread_progress_sigsafe(struct pp_logfile *log, uint64_t time_ns,
				       const struct pp_records_counts *counts,
				       const struct pp_records_cpu *cpu,
				       const struct pp_records_cpu *proc)
{
	return pp_records_thread_progress_of_sigsafe(log, time_ns, counts, cpu, proc, NULL);
}

/* Runs in signal context. */
int pp_records_thread_progress_of_sigsafe(struct pp_logfile *log, uint64_t time_ns,
					  const struct pp_records_counts *counts,
					  const struct pp_records_cpu *cpu,
					  const struct pp_records_cpu *proc, const char *name)
{
	struct ppf_thread_progress rec;

	pp_records_head_sigsafe(&rec, sizeof(rec), PPF_REC_THREAD_PROGRESS);
	rec.time_ns = time_ns;
	rec.user_ns = cpu->user_ns;
	rec.system_ns = cpu->system_ns;
	rec.samples = counts->samples;
	rec.lost = counts->lost;
	rec.throttled = counts->throttled;
	pp_records_name_sigsafe(rec.name, name);
	if (proc) {
		rec.proc_user_ns = proc->user_ns;
		rec.proc_system_ns = proc->system_ns;
	}
	return pp_logfile_append_sigsafe(log, &rec, sizeof(rec));
}

int pp_records_wall_sigsafe(struct pp_logfile *log, uint32_t type, void *rec, uint32_t size)
{
	struct ppf_record *h = rec;

	h->type = type;
	h->size = size;
	return pp_logfile_append_sigsafe(log, rec, size);
}
