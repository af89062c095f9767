/* tst_log: hand-made logs for the analyzer's tests; see tst_log.h. */
#include "tst_log.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sigsafe/logfile.h"
#include "sigsafe/records.h"

static void *tst_log_space(struct tst_log *l, size_t n)
{
	if (l->len + n > l->cap) {
		size_t cap = (l->len + n) * 2;

		l->buf = realloc(l->buf, cap);
		cr_assert(l->buf);
		memset(l->buf + l->cap, 0, cap - l->cap);
		l->cap = cap;
	}
	l->len += n;
	return l->buf + l->len - n;
}

size_t tst_log_raw(struct tst_log *l, const void *p, size_t n)
{
	memcpy(tst_log_space(l, n), p, n);
	return l->len - n;
}

void tst_log_begin(struct tst_log *l, uint16_t kind)
{
	struct ppf_file_header h = {
		.byte_order = PPF_BYTE_ORDER_MARK,
		.version = PPF_VERSION,
		.kind = kind,
		.header_size = sizeof(h),
	};

	memset(l, 0, sizeof(*l));
	memcpy(h.magic, PPF_MAGIC, PPF_MAGIC_LEN);
	tst_log_raw(l, &h, sizeof(h));
}

/* Append a record: fixed part of fixed_size bytes, then tail, padded. */
static size_t tst_log_rec_add(struct tst_log *l, uint32_t type, void *fixed,
				 size_t fixed_size, const void *tail, size_t tail_len)
{
	uint32_t size = ppf_align((uint32_t)(fixed_size + tail_len));
	struct ppf_record *r = fixed;
	size_t off = l->len;
	char *p;

	r->type = type;
	r->size = size;
	p = tst_log_space(l, size);
	memset(p, 0, size);
	memcpy(p, fixed, fixed_size);
	if (tail_len)
		memcpy(p + fixed_size, tail, tail_len);
	return off;
}

size_t tst_log_process(struct tst_log *l, uint32_t pid, uint32_t ppid,
			  const char *exe, const char *const *argv)
{
	struct ppf_process p = { .pid = pid, .ppid = ppid, .start_ns = 1000,
				 .start_realtime_ns = 2000, .mode = PPF_MODE_SIGTRAP };
	char tail[1024];
	size_t n = strlen(exe) + 1;

	memcpy(tail, exe, n);
	p.exe_len = (uint32_t)n;
	for (size_t i = 0; argv && argv[i]; i++) {
		size_t a = strlen(argv[i]) + 1;

		cr_assert_lt(n + a, sizeof(tail));
		memcpy(tail + n, argv[i], a);
		n += a;
	}
	p.cmdline_len = (uint32_t)(n - p.exe_len);
	return tst_log_rec_add(l, PPF_REC_PROCESS, &p, sizeof(p), tail, n);
}

size_t tst_log_identity(struct tst_log *l, const char *host, uint8_t boot, int32_t rank,
			int32_t world_size, const char *job, uint64_t mono_ns, uint64_t real_ns)
{
	struct ppf_identity r = { .anchor_mono_ns = mono_ns, .anchor_real_ns = real_ns,
				  .rank = rank, .world_size = world_size,
				  .rank_source = rank >= 0 ? PPF_RANK_OMPI : PPF_RANK_NONE };
	char tail[512];
	size_t hn = strlen(host) + 1, jn = strlen(job) + 1;

	cr_assert_lt(hn + jn, sizeof(tail));
	memset(r.boot_id, boot, sizeof(r.boot_id));
	memcpy(tail, host, hn);
	memcpy(tail + hn, job, jn);
	r.host_len = (uint32_t)hn;
	r.job_len = (uint32_t)jn;
	return tst_log_rec_add(l, PPF_REC_IDENTITY, &r, sizeof(r), tail, hn + jn);
}

size_t tst_log_event(struct tst_log *l, uint32_t index, const char *name,
			uint64_t period, uint32_t flags)
{
	struct ppf_event e = { .index = index, .type = 1, .period = period, .flags = flags };

	snprintf(e.name, sizeof(e.name), "%s", name);
	return tst_log_rec_add(l, PPF_REC_EVENT, &e, sizeof(e), NULL, 0);
}

size_t tst_log_event_full(struct tst_log *l, struct ppf_event *e)
{
	return tst_log_rec_add(l, PPF_REC_EVENT, e, sizeof(*e), NULL, 0);
}

size_t tst_log_event_v1(struct tst_log *l, uint32_t index, const char *name,
			   uint64_t period, uint32_t flags)
{
	struct ppf_event e = { .index = index, .type = 1, .period = period, .flags = flags };

	snprintf(e.name, sizeof(e.name), "%s", name);
	return tst_log_rec_add(l, PPF_REC_EVENT, &e, PPF_EVENT_V1_SIZE, NULL, 0);
}

size_t tst_log_config(struct tst_log *l, uint32_t mode_request, uint32_t max_frames,
			 uint32_t flags, const char *source, const char *text)
{
	struct ppf_config c = { .mode_request = mode_request, .max_frames = max_frames,
				.flags = flags, .source_len = (uint32_t)strlen(source) + 1,
				.text_len = (uint32_t)strlen(text) + 1 };
	char *tail = malloc(c.source_len + c.text_len);
	size_t off;

	cr_assert(tail);
	memcpy(tail, source, c.source_len);
	memcpy(tail + c.source_len, text, c.text_len);
	off = tst_log_rec_add(l, PPF_REC_CONFIG, &c, sizeof(c), tail,
				 c.source_len + c.text_len);
	free(tail);
	return off;
}

size_t tst_log_thread_event(struct tst_log *l, uint32_t event, uint32_t flags,
			       uint64_t samples, uint64_t lost, uint64_t value,
			       uint64_t time_enabled, uint64_t time_running)
{
	struct ppf_thread_event e = { .event = event, .flags = flags, .samples = samples,
				      .lost = lost, .value = value,
				      .time_enabled = time_enabled,
				      .time_running = time_running };

	return tst_log_rec_add(l, PPF_REC_THREAD_EVENT, &e, sizeof(e), NULL, 0);
}

size_t tst_log_module(struct tst_log *l, uint64_t id, uint64_t bias,
			 uint64_t start, uint64_t end, uint64_t load_ns,
			 const char *path, const uint8_t *build_id, uint32_t build_id_len)
{
	struct ppf_module m = { .id = id, .bias = bias, .start = start, .end = end,
				.load_ns = load_ns, .build_id_len = build_id_len,
				.path_len = (uint32_t)strlen(path) + 1 };

	if (build_id_len)
		memcpy(m.build_id, build_id, build_id_len);
	return tst_log_rec_add(l, PPF_REC_MODULE, &m, sizeof(m), path, m.path_len);
}

size_t tst_log_module_ref(struct tst_log *l, uint64_t id, uint64_t bias, uint64_t load_ns,
			  const uint8_t key[PPF_MODULE_KEY_LEN])
{
	struct ppf_module_ref m = { .id = id, .bias = bias, .load_ns = load_ns };

	memcpy(m.key, key, sizeof(m.key));
	return tst_log_rec_add(l, PPF_REC_MODULE_REF, &m, sizeof(m), NULL, 0);
}

size_t tst_log_unload(struct tst_log *l, uint64_t id, uint64_t unload_ns)
{
	struct ppf_module_unload u = { .id = id, .unload_ns = unload_ns };

	return tst_log_rec_add(l, PPF_REC_MODULE_UNLOAD, &u, sizeof(u), NULL, 0);
}

size_t tst_log_exec(struct tst_log *l, uint64_t time_ns, const char *path)
{
	struct ppf_exec x = { .time_ns = time_ns, .path_len = (uint32_t)strlen(path) + 1 };

	return tst_log_rec_add(l, PPF_REC_EXEC, &x, sizeof(x), path, x.path_len);
}

size_t tst_log_vdso(struct tst_log *l, uint64_t module_id, const char *name)
{
	struct ppf_vdso v = { .module_id = module_id, .name_len = (uint32_t)strlen(name) + 1 };

	return tst_log_rec_add(l, PPF_REC_VDSO, &v, sizeof(v), name, v.name_len);
}

size_t tst_log_module_file(struct tst_log *l, uint64_t module_id, uint64_t size,
			   uint64_t mtime_ns)
{
	struct ppf_module_file f = { .module_id = module_id, .size = size, .mtime_ns = mtime_ns };

	return tst_log_rec_add(l, PPF_REC_MODULE_FILE, &f, sizeof(f), NULL, 0);
}

size_t tst_log_unsampled(struct tst_log *l, uint32_t tid, uint32_t what, int32_t error,
			    uint64_t time_ns, const char *name)
{
	struct ppf_thread_unsampled u = { .tid = tid, .what = what, .error = error,
					  .time_ns = time_ns };

	strncpy(u.name, name, sizeof(u.name) - 1);
	return tst_log_rec_add(l, PPF_REC_THREAD_UNSAMPLED, &u, sizeof(u), NULL, 0);
}

size_t tst_log_quiet(struct tst_log *l, uint32_t tid, uint32_t flags, uint64_t start_ns,
		     uint64_t end_ns, uint64_t user_ns, uint64_t system_ns, const char *name)
{
	struct ppf_thread_quiet q = { .tid = tid, .flags = flags, .start_ns = start_ns,
				      .end_ns = end_ns, .cpu_ns = user_ns + system_ns,
				      .user_ns = user_ns, .system_ns = system_ns };

	strncpy(q.name, name, sizeof(q.name) - 1);
	return tst_log_rec_add(l, PPF_REC_THREAD_QUIET, &q, sizeof(q), NULL, 0);
}

size_t tst_log_process_end(struct tst_log *l, uint64_t end_ns, uint64_t samples,
			      uint64_t lost, uint32_t how, int32_t status)
{
	struct ppf_process_end e = { .end_ns = end_ns, .samples = samples, .lost = lost,
				     .how = how, .status = status };

	return tst_log_rec_add(l, PPF_REC_PROCESS_END, &e, sizeof(e), NULL, 0);
}

size_t tst_log_thread(struct tst_log *l, uint32_t pid, uint32_t tid,
			 uint64_t start_ns, const char *name)
{
	struct ppf_thread t = { .pid = pid, .tid = tid, .start_ns = start_ns };

	snprintf(t.name, sizeof(t.name), "%s", name);
	return tst_log_rec_add(l, PPF_REC_THREAD, &t, sizeof(t), NULL, 0);
}

size_t tst_log_sample(struct tst_log *l, uint64_t time_ns, uint32_t event,
			 uint16_t flags, uint16_t nframes, const uint64_t *ips)
{
	struct ppf_sample s = { .time_ns = time_ns, .event = event, .flags = flags,
				.nframes = nframes };

	return tst_log_rec_add(l, PPF_REC_SAMPLE, &s, sizeof(s), ips,
				  nframes * sizeof(uint64_t));
}

size_t tst_log_sample_weight(struct tst_log *l, uint64_t overflows, uint64_t period)
{
	struct ppf_sample_weight w = { .overflows = overflows, .period = period };

	return tst_log_rec_add(l, PPF_REC_SAMPLE_WEIGHT, &w, sizeof(w), NULL, 0);
}

size_t tst_log_stack(struct tst_log *l, uint32_t id, uint16_t nframes, const uint64_t *ips)
{
	return tst_log_stack_shared(l, id, nframes, 0, 0, ips);
}

size_t tst_log_stack_shared(struct tst_log *l, uint32_t id, uint16_t nframes, uint16_t shared,
			    uint32_t base, const uint64_t *ips)
{
	struct ppf_stack s = { .id = id, .nframes = nframes, .shared = shared, .base = base };

	return tst_log_rec_add(l, PPF_REC_STACK, &s, sizeof(s), ips,
				  (size_t)(nframes > shared ? nframes - shared : 0) * sizeof(uint64_t));
}

size_t tst_log_stack_sample(struct tst_log *l, uint32_t id, uint16_t nframes, uint16_t shared,
			    uint32_t base, uint64_t time_ns, uint16_t event, uint16_t flags,
			    const uint64_t *ips)
{
	struct ppf_stack_sample s = { .id = id, .nframes = nframes, .shared = shared,
				      .base = base, .event = event, .flags = flags,
				      .time_ns = time_ns };
	uint8_t frames[PPF_MAX_FRAMES * PPF_STACK_SAMPLE_VARINT_MAX];
	size_t len = 0;
	uint64_t prev = 0;

	/* format.h's encoding, written out here as the format says it, not as records.c does */
	for (unsigned i = 0; nframes > shared && i < (unsigned)(nframes - shared); i++) {
		int64_t d = (int64_t)(ips[i] - prev);
		uint64_t z = d < 0 ? ((uint64_t)(-(d + 1)) << 1) | 1 : (uint64_t)d << 1;

		do {
			frames[len] = (uint8_t)(z & 0x7f);
			z >>= 7;
			frames[len++] |= z ? 0x80 : 0;
		} while (z);
		prev = ips[i];
	}
	return tst_log_rec_add(l, PPF_REC_STACK_SAMPLE, &s, sizeof(s), frames, len);
}

size_t tst_log_block(struct tst_log *l, uint64_t base_ns, uint32_t event, uint16_t flags,
		     uint32_t count, const struct ppf_block_entry *entries)
{
	struct ppf_sample_block b = { .base_ns = base_ns, .event = event, .flags = flags,
				      .count = count };

	return tst_log_rec_add(l, PPF_REC_SAMPLE_BLOCK, &b, sizeof(b), entries,
				  count * sizeof(*entries));
}

size_t tst_log_thread_name(struct tst_log *l, uint64_t time_ns, const char *name)
{
	struct ppf_thread_name n = { .time_ns = time_ns };

	snprintf(n.name, sizeof(n.name), "%s", name);
	return tst_log_rec_add(l, PPF_REC_THREAD_NAME, &n, sizeof(n), NULL, 0);
}

size_t tst_log_thread_end(struct tst_log *l, uint64_t end_ns, uint64_t samples,
			     uint64_t lost, uint64_t cpu_ns)
{
	struct ppf_thread_end e = { .end_ns = end_ns, .samples = samples, .lost = lost,
				    .cpu_ns = cpu_ns };

	return tst_log_rec_add(l, PPF_REC_THREAD_END, &e, sizeof(e), NULL, 0);
}

size_t tst_log_thread_blocked(struct tst_log *l, uint64_t time_ns, uint64_t held_cpu_ns,
				 uint32_t holds, uint32_t flags)
{
	struct ppf_thread_blocked b = { .time_ns = time_ns, .held_cpu_ns = held_cpu_ns,
					.holds = holds, .flags = flags };

	return tst_log_rec_add(l, PPF_REC_THREAD_BLOCKED, &b, sizeof(b), NULL, 0);
}

size_t tst_log_thread_progress(struct tst_log *l, uint64_t time_ns, uint64_t user_ns,
				  uint64_t system_ns, uint64_t samples)
{
	struct ppf_thread_progress p = { .time_ns = time_ns, .user_ns = user_ns,
					 .system_ns = system_ns, .samples = samples };

	return tst_log_rec_add(l, PPF_REC_THREAD_PROGRESS, &p, sizeof(p), NULL, 0);
}

size_t tst_log_log_full(struct tst_log *l, uint64_t time_ns, int32_t error)
{
	struct ppf_log_full f = { .time_ns = time_ns, .error = error };

	return tst_log_rec_add(l, PPF_REC_LOG_FULL, &f, sizeof(f), NULL, 0);
}

struct ppf_record *tst_log_rec(struct tst_log *l, size_t off)
{
	cr_assert_leq(off + sizeof(struct ppf_record), l->len);
	return (struct ppf_record *)(void *)(l->buf + off);
}

void tst_log_write(struct tst_log *l, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	cr_assert(f, "cannot create %s", path);
	cr_assert_eq(fwrite(l->buf, 1, l->len, f), l->len);
	cr_assert_eq(fclose(f), 0);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

void tst_log_golden(const char *text, const char *name)
{
	char path[4096], *want = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", PP_TEST_SOURCE_DIR, name);
	if (getenv("PA_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		cr_assert(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
	}
	f = fopen(path, "r");
	cr_assert(f, "cannot open %s", path);
	cr_assert_gt(getdelim(&want, &len, '\0', f), 0);
	fclose(f);
	cr_assert_str_eq(text, want, "output differs from %s:\n%s", path, text);
	free(want);
}

char *tst_log_replace(char *text, const char *from, const char *to)
{
	size_t n = strlen(from), m = strlen(to);
	char *at = text;

	cr_assert(m <= n && n > 0, "cannot replace '%s' by '%s'", from, to);
	while ((at = strstr(at, from))) {
		memcpy(at, to, m);
		memmove(at + m, at + n, strlen(at + n) + 1);
		at += m;
	}
	return text;
}

char *tst_log_tmpdir(void)
{
	char *d = strdup("/tmp/pa-test-XXXXXX");

	cr_assert(d && mkdtemp(d));
	return d;
}

static int tst_log_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tst_log_rmdir(char *dir)
{
	if (!dir)
		return;
	nftw(dir, tst_log_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *tst_log_dir;

void tst_log_dir_setup(void)
{
	tst_log_dir = tst_log_tmpdir();
}

void tst_log_dir_teardown(void)
{
	tst_log_rmdir(tst_log_dir);
	tst_log_dir = NULL;
}

char *tst_log_subdir(const char *dir, const char *sub)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, sub) > 0);
	cr_assert_eq(mkdir(p, 0700), 0, "mkdir %s", p);
	return p;
}

struct tst_log_find {
	uint64_t addr;
	struct tst_log_self *out;
	int found;
};

static void tst_log_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph,
				struct tst_log_self *out)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	const char *end = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const void *)p;
		const char *desc = p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);

		if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= PPF_BUILD_ID_MAX &&
		    n->n_namesz == 4 && memcmp(p + sizeof(*n), "GNU", 4) == 0) {
			memcpy(out->build_id, desc, n->n_descsz);
			out->build_id_len = n->n_descsz;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int tst_log_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct tst_log_find *f = data;
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (f->addr < lo || f->addr >= hi)
		return 0;
	f->out->bias = info->dlpi_addr;
	f->out->start = lo;
	f->out->end = hi;
	if (info->dlpi_name[0]) {
		snprintf(f->out->path, sizeof(f->out->path), "%s", info->dlpi_name);
	} else {
		ssize_t n = readlink("/proc/self/exe", f->out->path, sizeof(f->out->path) - 1);

		cr_assert_gt(n, 0);
		f->out->path[n] = '\0';
	}
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE && !f->out->build_id_len)
			tst_log_build_id(info, &info->dlpi_phdr[i], f->out);
	f->found = 1;
	return 1;
}

void tst_log_self_module(const void *addr, struct tst_log_self *out)
{
	struct tst_log_find f = { .addr = (uint64_t)(uintptr_t)addr, .out = out };

	memset(out, 0, sizeof(*out));
	dl_iterate_phdr(tst_log_phdr_cb, &f);
	cr_assert(f.found, "no loaded object holds %p", addr);
}

uint64_t tst_log_nm(const char *path, const char *name, uint64_t *size)
{
	char cmd[4200], line[512], sname[256], type;
	unsigned long long addr, sz;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &addr, &sz, &type, sname) == 4 &&
		    strcmp(sname, name) == 0) {
			pclose(p);
			if (size)
				*size = sz;
			return addr;
		}
	pclose(p);
	cr_assert_fail("%s has no symbol %s", path, name);
	return 0;
}

bool tst_log_odd_file(const char *path, const char *kind)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strcmp(kind, "fifo") == 0)
		cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo %s: %s", path, strerror(errno));
	else if (strcmp(kind, "directory") == 0)
		cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %s", path, strerror(errno));
	else if (strcmp(kind, "symlink") == 0)
		cr_assert_eq(symlink("/dev/zero", path), 0, "symlink %s: %s", path,
			     strerror(errno));
	else if (strcmp(kind, "device") == 0)
		return mknod(path, S_IFCHR | 0600, makedev(1, 3)) == 0;
	else if (strcmp(kind, "socket") == 0) {
		/* A socket file outlives its descriptor. */
		cr_assert_lt(strlen(path), sizeof(sun.sun_path), "%s: too long for a socket", path);
		strcpy(sun.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
		cr_assert_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0, "bind %s: %s",
			     path, strerror(errno));
		close(fd);
	} else
		cr_assert_fail("unknown kind %s", kind);
	return true;
}

const struct pa_process *tst_log_find_process(const struct pa_run *run, uint32_t pid)
{
	for (size_t i = 0; i < run->nprocesses; i++)
		if (run->processes[i]->pid == pid)
			return run->processes[i];
	return NULL;
}

const struct pa_thread *tst_log_find_thread(const struct pa_process *proc, uint32_t tid)
{
	for (size_t i = 0; i < proc->nthreads; i++)
		if (proc->threads[i]->tid == tid)
			return proc->threads[i];
	return NULL;
}

size_t tst_log_count(const char *path, uint32_t type)
{
	struct ppf_file_header h;
	struct stat sb;
	size_t n = 0;
	uint8_t *buf;
	FILE *f;

	cr_assert_eq(stat(path, &sb), 0, "%s", path);
	buf = malloc((size_t)sb.st_size + 1);
	f = fopen(path, "rb");
	cr_assert(buf && f && fread(buf, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size, "%s",
		  path);
	fclose(f);
	cr_assert_geq((size_t)sb.st_size, sizeof(h), "%s", path);
	memcpy(&h, buf, sizeof(h));
	for (size_t off = h.header_size; off + sizeof(struct ppf_record) <= (size_t)sb.st_size;) {
		struct ppf_record r;

		memcpy(&r, buf + off, sizeof(r));
		if (r.size == 0)
			break;
		n += r.type == type;
		off += r.size;
	}
	free(buf);
	return n;
}

void tst_wall_log_start(const char *dir, struct ppf_wall_start *st, struct pp_logfile *log)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);

	cr_assert_geq(dirfd, 0, "%s", dir);
	pp_logfile_init_sigsafe(log);
	cr_assert_eq(pp_logfile_create_sigsafe(log, dirfd, PPF_WALL_LOG, PPF_FILE_WALL), 0,
		     "%s/" PPF_WALL_LOG, dir);
	close(dirfd);
	cr_assert_eq(pp_records_wall_sigsafe(log, PPF_REC_WALL_START, st, sizeof(*st)), 0);
}

void tst_log_fill(const char *dir, const char *name, int byte, size_t size)
{
	char path[4096];
	char *b = malloc(size ? size : 1);
	FILE *f;

	cr_assert_not_null(b);
	memset(b, byte, size);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(b, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
	free(b);
}

void tst_log_copy(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wbx");
	char buf[65536];
	size_t n;

	cr_assert_not_null(in, "%s", from);
	cr_assert_not_null(out, "%s", to);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	cr_assert(!ferror(in), "%s", from);
	cr_assert_eq(fclose(in), 0);
	cr_assert_eq(fclose(out), 0, "%s", to);
}

void tst_log_vdso_hash_name(const char *file, char *name, size_t size)
{
	FILE *f = fopen(file, "rb");
	static char data[1 << 20];
	size_t n;
	XXH128_hash_t h;

	cr_assert_not_null(f, "%s", file);
	n = fread(data, 1, sizeof(data), f);
	cr_assert(feof(f), "%s: larger than a vDSO image", file);
	cr_assert_eq(fclose(f), 0);
	h = XXH3_128bits(data, n);
	snprintf(name, size, PPF_VDSO_FILE_PREFIX PPF_VDSO_HASH_FMT PPF_VDSO_FILE_SUFFIX,
		 (unsigned long long)h.high64, (unsigned long long)h.low64);
}
