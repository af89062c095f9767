/* The module map, from glibc's dl_iterate_phdr (outside signal context only). */
#include "maps.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprof/format.h"
#include "proclog.h"
#include "respath.h"
#include "sigsafe/dlsnap.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"

#define PP_MAPS_VDSO_FILE "vdso.so"

struct pp_maps_entry {
	uint64_t id;
	uint64_t bias;
	uint64_t start;
	uint64_t end;
	int seen;            /* found by the current scan */
};

struct pp_maps_scan_ctx {
	uint64_t now_ns;
	int first;
	int err;
	struct pp_dlsnap *snap; /* the handler's next copy of the list */
	size_t snap_cap;
	struct pp_respath respath; /* the scan's resolved directories */
};

typedef int (*pp_maps_iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *),
				  void *);
static pp_maps_iterate_fn pp_maps_real_iterate;

static pthread_mutex_t pp_maps_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pp_maps_entry *pp_maps;
static size_t pp_maps_n, pp_maps_cap;
static uint64_t pp_maps_next_id = 1;
static int pp_maps_dirfd = -1;
static char pp_maps_dir[PATH_MAX];

void pp_maps_set_dir(int dirfd, const char *dir)
{
	pp_maps_dirfd = dirfd;
	snprintf(pp_maps_dir, sizeof(pp_maps_dir), "%s", dir);
}

/*
 * The vDSO has no file: write its image (ELF header to section headers,
 * which come last) into the process directory, as perf keeps a copy, so
 * that the analyzer can name what runs in it. Returns 1 with path set.
 */
static int pp_maps_vdso(const struct dl_phdr_info *info, uint64_t start,
			uint64_t end, char *path)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	uint64_t size;
	int fd, ok;

	if (!eh || pp_maps_dirfd < 0 || (uint64_t)(uintptr_t)eh < start ||
	    (uint64_t)(uintptr_t)eh >= end ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
	(void)info;
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (size > end - (uint64_t)(uintptr_t)eh + 4096 || size > (1u << 20))
		return 0;
	fd = openat(pp_maps_dirfd, PP_MAPS_VDSO_FILE,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	ok = write(fd, eh, size) == (ssize_t)size;
	close(fd);
	if (!ok) {
		/* A full disk: no half copy for the analyzer to misread. */
		unlinkat(pp_maps_dirfd, PP_MAPS_VDSO_FILE, 0);
		return 0;
	}
	return snprintf(path, PATH_MAX, "%.*s/%s", PATH_MAX - 16, pp_maps_dir,
			PP_MAPS_VDSO_FILE) < PATH_MAX;
}

static struct pp_maps_entry *pp_maps_find(uint64_t bias, uint64_t start,
					  uint64_t end)
{
	for (size_t i = 0; i < pp_maps_n; i++)
		if (pp_maps[i].bias == bias && pp_maps[i].start == start &&
		    pp_maps[i].end == end)
			return &pp_maps[i];
	return NULL;
}

static struct pp_maps_entry *pp_maps_add(void)
{
	if (pp_maps_n == pp_maps_cap) {
		size_t cap = pp_maps_cap ? pp_maps_cap * 2 : 64;
		struct pp_maps_entry *m = realloc(pp_maps, cap * sizeof(*m));

		if (!m)
			return NULL;
		pp_maps = m;
		pp_maps_cap = cap;
	}
	memset(&pp_maps[pp_maps_n], 0, sizeof(*pp_maps));
	return &pp_maps[pp_maps_n++];
}

/* Copies the GNU build-id note of a loaded object, if it has one. */
static void pp_maps_build_id(const struct dl_phdr_info *info,
			     struct pp_records_module *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const uint8_t *name = p + sizeof(*nh);
			const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz &&
			    nh->n_descsz <= PPF_BUILD_ID_MAX) {
				m->build_id = desc;
				m->build_id_len = nh->n_descsz;
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

/*
 * The canonical path of the program (realpath of /proc/self/exe): the
 * kernel's name for it, resolved as any other path, saves resolving /proc.
 */
static int pp_maps_exe_path(struct pp_respath *rp, char *path)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || exe[0] != '/')
		return realpath("/proc/self/exe", path) != NULL;
	exe[n] = '\0';
	return pp_respath_resolve(rp, exe, path) == 0;
}

/* The absolute path of an object (a copy for the vDSO), or 0 if none. */
static int pp_maps_path(const struct dl_phdr_info *info, int first,
			uint64_t start, uint64_t end, char *path,
			struct pp_respath *rp)
{
	const char *name = info->dlpi_name;

	if ((!name || !*name) && first && pp_maps_exe_path(rp, path))
		return 1;
	if (name && *name && pp_respath_resolve(rp, name, path) == 0)
		return 1;
	return pp_maps_vdso(info, start, end, path);
}

static void pp_maps_record(const struct dl_phdr_info *info, const char *path,
			   uint64_t start, uint64_t end, uint64_t pgoff,
			   struct pp_maps_scan_ctx *ctx)
{
	struct pp_maps_entry *e = pp_maps_add();
	struct pp_records_module m;
	int err;

	if (!e) {
		ctx->err = -ENOMEM;
		return;
	}
	e->id = pp_maps_next_id++;
	e->bias = info->dlpi_addr;
	e->start = start;
	e->end = end;
	e->seen = 1;
	memset(&m, 0, sizeof(m));
	m.id = e->id;
	m.bias = info->dlpi_addr;
	m.start = start;
	m.end = end;
	m.pgoff = pgoff;
	m.load_ns = ctx->now_ns;
	m.path = path;
	pp_maps_build_id(info, &m);
	err = pp_records_module_sigsafe(pp_proclog_hold(), &m);
	pp_proclog_release();
	if (err)
		ctx->err = err;
}

/* Appends a copy of info to the snapshot being built. */
static void pp_maps_snap_add(struct pp_maps_scan_ctx *ctx,
			     const struct dl_phdr_info *info, size_t size)
{
	if (!ctx->snap || ctx->snap->n == ctx->snap_cap) {
		size_t cap = ctx->snap_cap ? ctx->snap_cap * 2 : 64;
		struct pp_dlsnap *s = realloc(ctx->snap, sizeof(*s) +
					      cap * sizeof(s->info[0]));

		if (!s) {
			ctx->err = -ENOMEM;
			return;
		}
		if (!ctx->snap)
			s->n = 0;
		ctx->snap = s;
		ctx->snap_cap = cap;
	}
	memset(&ctx->snap->info[ctx->snap->n], 0, sizeof(*info));
	memcpy(&ctx->snap->info[ctx->snap->n++], info,
	       size < sizeof(*info) ? size : sizeof(*info));
}

static int pp_maps_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pp_maps_scan_ctx *ctx = arg;
	uint64_t start = UINT64_MAX, end = 0, pgoff = 0;
	struct pp_maps_entry *e;
	char path[PATH_MAX];
	int first = ctx->first;

	ctx->first = 0;
	pp_maps_snap_add(ctx, info, size);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (start == UINT64_MAX)
			pgoff = ph->p_offset;
		if (info->dlpi_addr + ph->p_vaddr < start)
			start = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > end)
			end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (start >= end)
		return 0;
	e = pp_maps_find(info->dlpi_addr, start, end);
	if (e) {
		e->seen = 1;
		return 0;
	}
	if (pp_maps_path(info, first, start, end, path, &ctx->respath))
		pp_maps_record(info, path, start, end, pgoff, ctx);
	return 0;
}

/* Writes unload records for what the scan did not see, and drops them. */
static void pp_maps_sweep(struct pp_maps_scan_ctx *ctx)
{
	struct pp_logfile *log = pp_proclog_hold();
	size_t keep = 0;

	for (size_t i = 0; i < pp_maps_n; i++) {
		if (pp_maps[i].seen) {
			pp_maps[keep++] = pp_maps[i];
			continue;
		}
		if (pp_records_module_unload_sigsafe(log, pp_maps[i].id, ctx->now_ns) != 0)
			ctx->err = -ENOSPC;
	}
	pp_proclog_release();
	pp_maps_n = keep;
}

/*
 * Makes snap the handler's snapshot and frees the one it replaces, once no
 * handler reads it (they read for microseconds).
 */
static void pp_maps_publish(struct pp_dlsnap *snap)
{
	struct pp_dlsnap *old = pp_dlsnap_swap_sigsafe(snap);

	while (pp_dlsnap_readers_sigsafe())
		sched_yield();
	free(old);
}

static pp_maps_iterate_fn pp_maps_real(void)
{
	pp_maps_iterate_fn fn = __atomic_load_n(&pp_maps_real_iterate,
						__ATOMIC_ACQUIRE);

	if (!fn) {
		fn = (pp_maps_iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
		__atomic_store_n(&pp_maps_real_iterate, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

int pp_maps_scan(uint64_t now_ns)
{
	struct pp_maps_scan_ctx ctx = { .now_ns = now_ns, .first = 1 };

	/* While the list is read and the snapshot replaced: leaf-only samples. */
	pp_sampler_dl_enter_sigsafe();
	pthread_mutex_lock(&pp_maps_mutex);
	for (size_t i = 0; i < pp_maps_n; i++)
		pp_maps[i].seen = 0;
	pp_maps_real()(pp_maps_visit, &ctx);
	pp_maps_sweep(&ctx);
	pp_respath_release(&ctx.respath);
	if (ctx.snap && !ctx.err)
		pp_maps_publish(ctx.snap);
	else
		free(ctx.snap);
	pthread_mutex_unlock(&pp_maps_mutex);
	pp_sampler_dl_leave_sigsafe();
	return ctx.err;
}

int pp_maps_glibc_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	return pp_maps_real()(cb, data);
}

void pp_maps_reset(void)
{
	pp_maps_dirfd = -1;
	pthread_mutex_init(&pp_maps_mutex, NULL);
	pp_maps_n = 0;
}
