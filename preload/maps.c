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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* xxhash's XXH3, compiled in from its header. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pprof/format.h"
#include "proclog.h"
#include "respath.h"
#include "sigsafe/dlsnap.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"
#include "sigsafe/threads.h"
#include "sigsafe/yields.h"

struct pp_maps_entry {
	uint64_t id;
	uint64_t bias;
	uint64_t start;
	uint64_t end;
	int seen;            /* found by the current scan */
};

/* The readable ranges of the address space, from /proc/self/maps: [lo, hi) pairs, merged. */
struct pp_maps_readable {
	uint64_t *r;
	size_t n, cap;
};

struct pp_maps_scan_ctx {
	uint64_t now_ns;
	int first;
	int err;
	struct pp_dlsnap *snap; /* the handler's next copy of the list */
	size_t snap_cap;
	ElfW(Phdr) *phdrs; /* the snapshot's copies of program headers */
	size_t phdrs_n, phdrs_cap;
	/* Once the program changed an object's memory: what may be read. */
	const struct pp_maps_readable *readable;
	struct pp_respath respath; /* the scan's resolved directories */
};

typedef int (*pp_maps_iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *),
				  void *);
static pp_maps_iterate_fn pp_maps_real_iterate;

static pthread_mutex_t pp_maps_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pp_maps_entry *pp_maps;
static size_t pp_maps_n, pp_maps_cap;
static uint64_t pp_maps_next_id = 1;
static struct pp_thread_dir *pp_maps_dir;
static int pp_maps_rootfd = -1;
static char pp_maps_root[PATH_MAX];
/*
 * Handles dlmopen gave for a namespace of its own (not LM_ID_BASE), until
 * dlclose: dl_iterate_phdr lists the caller's namespace only, so their
 * objects are found from each handle's link map (pp_maps_namespace).
 */
#define PP_MAPS_NAMESPACES 64
static void *pp_maps_ns_handles[PP_MAPS_NAMESPACES];
static size_t pp_maps_ns_n;
/*
 * Set once the program unmapped, protected or replaced memory of a loaded
 * object itself (hooks.c): every scan from then on reads what is readable
 * before it reads an object's headers, and lists to libunwind only the
 * objects whose read-only segments are all readable (sigsafe/dlsnap.h).
 */
static int pp_maps_changed;
/* Atomic: pp_maps_loader_generation() as the last scan began (0: none yet). */
static uint64_t pp_maps_scan_gen;

void pp_maps_set_dir(struct pp_thread_dir *dir)
{
	pp_maps_dir = dir;
}

/* The root's identity when it was set: the app may close the descriptor and reuse its number. */
static uint64_t pp_maps_root_dev, pp_maps_root_ino;
static int pp_maps_root_state; /* this scan's check: 0 not yet, 1 the root, -1 not */

void pp_maps_set_root(int rootfd, const char *root)
{
	pp_maps_rootfd = rootfd;
	snprintf(pp_maps_root, sizeof(pp_maps_root), "%s", rootfd >= 0 ? root : "");
	pp_maps_root_dev = pp_maps_root_ino = 0;
	if (rootfd >= 0 && !pp_logfile_same_file_sigsafe(rootfd, &pp_maps_root_dev,
							  &pp_maps_root_ino))
		pp_maps_rootfd = -1;
}

/* Whether the output root takes files: set, and its descriptor still names it (once a scan). */
static int pp_maps_root_ok(void)
{
	if (!pp_maps_root_state)
		pp_maps_root_state = pp_maps_rootfd >= 0 &&
				     pp_logfile_same_file_sigsafe(pp_maps_rootfd, &pp_maps_root_dev,
								  &pp_maps_root_ino) ? 1 : -1;
	return pp_maps_root_state > 0;
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

/* Bytes b[0..n) in lower-case hex into out (cap bytes); returns the digits written. */
static int pp_maps_hex(char *out, size_t cap, const uint8_t *b, uint32_t n)
{
	int len = 0;

	for (uint32_t i = 0; i < n && (size_t)len + 2 < cap; i++)
		len += snprintf(out + len, cap - (size_t)len, "%02x", b[i]);
	return len;
}

/*
 * The name of the vDSO's image at the output root (format.h, PPF_REC_VDSO):
 * by its build-id, else by a hash of the image. name holds NAME_MAX + 1.
 */
static void pp_maps_vdso_name(const struct dl_phdr_info *info, const void *image,
			      uint64_t size, char *name)
{
	struct pp_records_module m = { 0 };
	int n = snprintf(name, NAME_MAX + 1, "%s", PPF_VDSO_FILE_PREFIX);

	pp_maps_build_id(info, &m);
	n += pp_maps_hex(name + n, (size_t)(NAME_MAX + 1 - n), m.build_id, m.build_id_len);
	if (!m.build_id_len) {
		XXH128_hash_t h = XXH3_128bits(image, size);

		n += snprintf(name + n, (size_t)(NAME_MAX + 1 - n), PPF_VDSO_HASH_FMT,
			      (unsigned long long)h.high64, (unsigned long long)h.low64);
	}
	snprintf(name + n, (size_t)(NAME_MAX + 1 - n), PPF_VDSO_FILE_SUFFIX);
}

/*
 * Creates name under dirfd, never following a link nor replacing a file,
 * holding the size bytes of data, or nothing (a full disk leaves no half
 * file to misread). Returns 0 or a negative errno.
 */
static int pp_maps_file_write(int dirfd, const char *name, const void *data, uint64_t size)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, data, size);
	if (n != (ssize_t)size)
		err = n < 0 ? -errno : -ENOSPC;
	close(fd);
	if (err)
		unlinkat(dirfd, name, 0);
	return err;
}

/*
 * Whether name under dirfd is the file a process of this user put there:
 * a regular file (not a link to one) of size bytes. Such a file is only
 * ever whole (pp_maps_root_put), and two files of one name are the same.
 */
static int pp_maps_root_there(int dirfd, const char *name, uint64_t size)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && (uint64_t)st.st_size == size;
}

/*
 * Puts the size bytes of data at the output root as name, once for the run
 * however many of its processes do it at once, on this host or others
 * sharing the root: each writes a name of its own (its pid and the time:
 * pids of two hosts or namespaces may be equal), then links it to name,
 * which link() never replaces, so that name is only ever a whole file (a
 * process killed while writing leaves its own name, which readers skip:
 * it starts with '.'). Returns 1 when name holds data.
 */
static int pp_maps_root_put(const char *name, const void *data, uint64_t size)
{
	char tmp[NAME_MAX + 1];
	struct timespec ts;
	int ok;

	if (pp_maps_root_there(pp_maps_rootfd, name, size))
		return 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (snprintf(tmp, sizeof(tmp), ".%s.%d.%lld%09ld.tmp", name, (int)getpid(),
		     (long long)ts.tv_sec, ts.tv_nsec) >= (int)sizeof(tmp) ||
	    pp_maps_file_write(pp_maps_rootfd, tmp, data, size) != 0)
		return 0;
	ok = linkat(pp_maps_rootfd, tmp, pp_maps_rootfd, name, 0) == 0 ||
	     (errno == EEXIST && pp_maps_root_there(pp_maps_rootfd, name, size));
	unlinkat(pp_maps_rootfd, tmp, 0);
	return ok;
}

/*
 * The vDSO has no file: its image (ELF header to section headers, which
 * come last) is written once for the run at the output root, as perf keeps
 * a copy, so that the analyzer can name what runs in it; image gets its
 * name there. When the root cannot take it (a file system without hard
 * links, a name taken by something else, a root no longer open), a copy
 * of the process's own goes beside its log, <name>.vdso.so, and image is "". Returns 1
 * with path set.
 */
static int pp_maps_vdso(const struct dl_phdr_info *info, uint64_t start,
			uint64_t end, char *path, char *image)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	char file[NAME_MAX + 1];
	uint64_t size;

	image[0] = '\0';
	if (!eh || !pp_maps_dir || (uint64_t)(uintptr_t)eh < start ||
	    (uint64_t)(uintptr_t)eh >= end ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (size > end - (uint64_t)(uintptr_t)eh + 4096 || size > (1u << 20))
		return 0;
	pp_maps_vdso_name(info, eh, size, image);
	if (pp_maps_root_ok() && pp_maps_root_put(image, eh, size) &&
	    snprintf(path, PATH_MAX, "%s/%s", pp_maps_root, image) < PATH_MAX)
		return 1;
	image[0] = '\0';
	/* The root's descriptor checked: the program may have reused its number. */
	if (!pp_threads_root_ok_sigsafe(pp_maps_dir) ||
	    pp_threads_dir_file_sigsafe(pp_maps_dir, file, sizeof(file), PPF_VDSO_COPY) != 0 ||
	    pp_maps_file_write(pp_maps_dir->rootfd, file, eh, size) != 0)
		return 0;
	return snprintf(path, PATH_MAX, "%.*s/%s", PATH_MAX - NAME_MAX - 2, pp_maps_dir->root,
			file) < PATH_MAX;
}

/*
 * Puts the size bytes of file at the output root as prefix + its key (the
 * XXH3-128 of the bytes, in hex), once for the run. Returns 1 with key set
 * when the root holds it.
 */
static int pp_maps_shared_file(const char *prefix, const void *file, uint32_t size,
			       uint8_t key[PPF_MODULE_KEY_LEN])
{
	char name[NAME_MAX + 1];
	int n;

	if (!size)
		return 0;
	XXH128_canonicalFromHash((XXH128_canonical_t *)key, XXH3_128bits(file, size));
	n = snprintf(name, sizeof(name), "%s", prefix);
	pp_maps_hex(name + n, sizeof(name) - (size_t)n, key, PPF_MODULE_KEY_LEN);
	return pp_maps_root_put(name, file, size);
}

/*
 * Puts m's record at the output root, once for the run (format.h,
 * PPF_REC_MODULE_REF), named by key, the hash of the file. Only a module
 * with a build-id: a file rebuilt during the run (a build profiled) is
 * then another file. Returns 1 when the root holds it.
 */
static int pp_maps_shared(const struct pp_records_module *m, uint8_t key[PPF_MODULE_KEY_LEN])
{
	uint8_t file[sizeof(struct ppf_file_header) + sizeof(struct ppf_module) + PATH_MAX + 8];

	return m->build_id_len && pp_maps_root_ok() &&
	       pp_maps_shared_file(PPF_MODULE_FILE_PREFIX, file,
				   pp_records_module_file_sigsafe(file, sizeof(file), m), key);
}

int pp_maps_put_event(struct pp_logfile *log, unsigned index, const struct pp_config_event *ce,
		      int error, int refused)
{
	uint8_t file[sizeof(struct ppf_file_header) + sizeof(struct ppf_event)];
	uint8_t key[PPF_MODULE_KEY_LEN];
	uint64_t dev = pp_maps_root_dev, ino = pp_maps_root_ino;
	/* Not under the scans' mutex: the caller holds log, which a scan takes inside it. */
	int ok = pp_maps_rootfd >= 0 && (dev || ino) &&
		 pp_logfile_same_file_sigsafe(pp_maps_rootfd, &dev, &ino) &&
		 pp_maps_shared_file(PPF_EVENT_FILE_PREFIX, file,
				     pp_records_event_file_sigsafe(file, sizeof(file), index, ce,
								   error, refused), key);

	return ok ? pp_records_event_ref_sigsafe(log, key) :
		    pp_records_event_sigsafe(log, index, ce, error, refused);
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

/* /proc/self/exe's target as the process read it at its start (pp_maps_set_exe), or NULL. */
static const char *pp_maps_exe_link;

void pp_maps_set_exe(const char *exe)
{
	pp_maps_exe_link = exe;
}

/*
 * The canonical path of the program (realpath of /proc/self/exe): the
 * kernel's name for it, resolved as any other path, saves resolving /proc.
 */
static int pp_maps_exe_path(struct pp_respath *rp, char *path)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (pp_maps_exe_link && pp_maps_exe_link[0] == '/')
		return pp_respath_resolve(rp, pp_maps_exe_link, path) == 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || exe[0] != '/')
		return realpath("/proc/self/exe", path) != NULL;
	exe[n] = '\0';
	return pp_respath_resolve(rp, exe, path) == 0;
}

/*
 * Whether name is a link to a file that has no path any more (a memfd's
 * "/memfd:NAME (deleted)", a deleted file's "/path (deleted)"), as
 * /proc/self/exe or a /proc/self/fd/N that dlopen was given is: its text
 * into path, which no reader opens but every reader names (the module's
 * frames are then said unresolved, naming it, rather than left unknown).
 */
static int pp_maps_link_text(const char *name, char *path)
{
	static const char deleted[] = " (deleted)";
	ssize_t n;

	if (strncmp(name, "/proc/", 6) != 0 && strncmp(name, "/dev/fd/", 8) != 0)
		return 0;
	n = readlink(name, path, PATH_MAX - 1);
	if (n <= 0 || path[0] != '/')
		return 0;
	path[n] = '\0';
	return (size_t)n > sizeof(deleted) - 1 &&
	       strcmp(path + n - (sizeof(deleted) - 1), deleted) == 0;
}

/*
 * The absolute path of an object (an image of the vDSO, whose name at the
 * output root goes into image, else image is ""), or 0 if none. Paths are
 * resolved as realpath(3) does, each directory once a scan (respath.h).
 */
static int pp_maps_path(const struct dl_phdr_info *info, int first,
			uint64_t start, uint64_t end, char *path, char *image,
			struct pp_respath *rp)
{
	const char *name = info->dlpi_name;

	image[0] = '\0';
	if ((!name || !*name) && first && pp_maps_exe_path(rp, path))
		return 1;
	if (name && *name && pp_respath_resolve(rp, name, path) == 0)
		return 1;
	/* A file with no path (memfd, deleted): what its link says, for the reader to name. */
	if ((!name || !*name) && first && pp_maps_link_text("/proc/self/exe", path))
		return 1;
	if (name && *name && pp_maps_link_text(name, path))
		return 1;
	/* Gone since it was loaded: its name as given, which the reader says it cannot open. */
	if (name && name[0] == '/' && strlen(name) < PATH_MAX && access(name, F_OK) != 0) {
		strcpy(path, name);
		return 1;
	}
	return pp_maps_vdso(info, start, end, path, image);
}

/*
 * An object without a build-id: its file as mapped now (its size and
 * modification time), that a reader can tell a file rebuilt since from.
 * The vDSO has no file; its image at the root is named by its content.
 */
static void pp_maps_file_id(struct pp_records_module *m)
{
	struct stat st;

	if (m->build_id_len || m->vdso_image || stat(m->path, &st) != 0)
		return;
	m->has_file = 1;
	m->file_size = (uint64_t)st.st_size;
	m->file_mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	m->file_dev = (uint64_t)st.st_dev;
	m->file_ino = (uint64_t)st.st_ino;
}

static void pp_maps_record(const struct dl_phdr_info *info, const char *path,
			   const char *image, uint64_t start, uint64_t end, uint64_t pgoff,
			   struct pp_maps_scan_ctx *ctx)
{
	struct pp_maps_entry *e = pp_maps_add();
	struct pp_records_module m;
	uint8_t key[PPF_MODULE_KEY_LEN];
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
	m.vdso_image = image[0] ? image : NULL;
	pp_maps_build_id(info, &m);
	pp_maps_file_id(&m);
	err = pp_maps_shared(&m, key) ? pp_records_module_ref_sigsafe(pp_proclog_hold(), &m, key) :
					 pp_records_module_sigsafe(pp_proclog_hold(), &m);
	pp_proclog_release();
	if (err)
		ctx->err = err;
}

/* Appends [lo, hi) to rd, merged with the last range when they touch. */
static int pp_maps_readable_add(struct pp_maps_readable *rd, uint64_t lo, uint64_t hi)
{
	if (rd->n && rd->r[2 * rd->n - 1] >= lo) {
		if (hi > rd->r[2 * rd->n - 1])
			rd->r[2 * rd->n - 1] = hi;
		return 0;
	}
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 256;
		uint64_t *r = realloc(rd->r, cap * 2 * sizeof(*r));

		if (!r)
			return -ENOMEM;
		rd->r = r;
		rd->cap = cap;
	}
	rd->r[2 * rd->n] = lo;
	rd->r[2 * rd->n + 1] = hi;
	rd->n++;
	return 0;
}

/* One line of /proc/self/maps ("lo-hi rwxp ..."): its range, if readable. */
static int pp_maps_readable_line(struct pp_maps_readable *rd, const char *line)
{
	unsigned long long lo, hi;
	char perms[5];

	if (sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3 || perms[0] != 'r')
		return 0;
	return pp_maps_readable_add(rd, lo, hi);
}

/*
 * Loads rd from /proc/self/maps (sorted by address). Returns 0 or a
 * negative errno (rd then empty).
 */
static int pp_maps_readable_load(struct pp_maps_readable *rd)
{
	char buf[8192];
	size_t have = 0;
	ssize_t got;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), err = 0;

	rd->n = 0;
	if (fd < 0)
		return -errno;
	while (!err && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)got;
		buf[have] = '\0';
		while (!err && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			err = pp_maps_readable_line(rd, line);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		/* A line longer than the buffer (a path of PATH_MAX): its range is at its start. */
		if (have == sizeof(buf) - 1) {
			err = pp_maps_readable_line(rd, buf);
			have = 0;
			while ((got = read(fd, buf, 1)) == 1 && buf[0] != '\n')
				;
		}
	}
	if (got < 0 && !err)
		err = -errno;
	close(fd);
	if (err)
		rd->n = 0;
	return err;
}

/* Whether every byte of [lo, hi) is readable by rd. */
static int pp_maps_readable_has(const struct pp_maps_readable *rd, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = rd->n;

	if (lo >= hi)
		return 1;
	/* The last range starting at or below lo. */
	while (a < b) {
		size_t m = (a + b) / 2;

		if (rd->r[2 * m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a > 0 && rd->r[2 * (a - 1) + 1] >= hi;
}

/*
 * Whether libunwind may read the object's tables: every segment it does
 * not write (headers, code, read-only data: .eh_frame_hdr and .eh_frame
 * are there) readable now.
 */
static int pp_maps_object_readable(const struct pp_maps_readable *rd,
				   const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) &&
		    !pp_maps_readable_has(rd, lo, lo + ph->p_memsz))
			return 0;
	}
	return 1;
}

/*
 * Appends a copy of info to the snapshot being built, with a copy of its
 * program headers (pointed to once the snapshot is done: pp_maps_snap_done).
 */
static void pp_maps_snap_add(struct pp_maps_scan_ctx *ctx,
			     const struct dl_phdr_info *info, size_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo = UINT64_MAX, hi = 0;
	struct pp_dlsnap_obj *o;

	if (!ctx->snap || ctx->snap->n == ctx->snap_cap) {
		size_t cap = ctx->snap_cap ? ctx->snap_cap * 2 : 64;
		struct pp_dlsnap *s = realloc(ctx->snap, sizeof(*s) +
					      cap * sizeof(s->obj[0]));

		if (!s) {
			ctx->err = -ENOMEM;
			return;
		}
		if (!ctx->snap)
			s->n = 0;
		ctx->snap = s;
		ctx->snap_cap = cap;
	}
	if (ctx->phdrs_cap - ctx->phdrs_n < info->dlpi_phnum) {
		size_t cap = ctx->phdrs_cap * 2 + info->dlpi_phnum + 64;
		ElfW(Phdr) *p = realloc(ctx->phdrs, cap * sizeof(*p));

		if (!p) {
			ctx->err = -ENOMEM;
			return;
		}
		ctx->phdrs = p;
		ctx->phdrs_cap = cap;
	}
	o = &ctx->snap->obj[ctx->snap->n++];
	memset(o, 0, sizeof(*o));
	memcpy(&o->info, info, size < sizeof(o->info) ? size : sizeof(o->info));
	memcpy(ctx->phdrs + ctx->phdrs_n, info->dlpi_phdr,
	       info->dlpi_phnum * sizeof(*ctx->phdrs));
	/* Its index until the copies stop moving. */
	o->info.dlpi_phdr = (const ElfW(Phdr) *)(uintptr_t)ctx->phdrs_n;
	ctx->phdrs_n += info->dlpi_phnum;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if ((a & ~(page - 1)) < lo)
			lo = a & ~(page - 1);
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	o->lo = lo;
	o->hi = hi;
	o->unreadable = ctx->readable && !pp_maps_object_readable(ctx->readable, info);
}

/* The snapshot's program headers where they now stay. */
static void pp_maps_snap_done(struct pp_maps_scan_ctx *ctx)
{
	ctx->snap->phdrs = ctx->phdrs;
	ctx->snap->page = (uint64_t)sysconf(_SC_PAGESIZE);
	ctx->phdrs = NULL;
	for (size_t i = 0; i < ctx->snap->n; i++)
		ctx->snap->obj[i].info.dlpi_phdr =
			ctx->snap->phdrs + (uintptr_t)ctx->snap->obj[i].info.dlpi_phdr;
}

static void pp_maps_snap_free(struct pp_dlsnap *snap)
{
	if (!snap)
		return;
	free(snap->phdrs);
	free(snap);
}

static int pp_maps_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pp_maps_scan_ctx *ctx = arg;
	uint64_t start = UINT64_MAX, end = 0, pgoff = 0;
	struct pp_maps_entry *e;
	char path[PATH_MAX], image[NAME_MAX + 1];
	int first = ctx->first;

	ctx->first = 0;
	/* Its headers unmapped or protected by the program: nothing to read there. */
	if (ctx->readable &&
	    !pp_maps_readable_has(ctx->readable, (uint64_t)(uintptr_t)info->dlpi_phdr,
				  (uint64_t)(uintptr_t)(info->dlpi_phdr + info->dlpi_phnum)))
		return 0;
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
	if (pp_maps_path(info, first, start, end, path, image, &ctx->respath))
		pp_maps_record(info, path, image, start, end, pgoff, ctx);
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
		pp_yields_raw_sigsafe();
	pp_maps_snap_free(old);
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

/*
 * The objects of the namespace of handle (dlinfo's link map, from its
 * first), visited as dl_iterate_phdr's would be: their program headers
 * are those of the ELF header each maps at its lowest address.
 */
static void pp_maps_namespace(void *handle, struct pp_maps_scan_ctx *ctx)
{
	struct link_map *lm = NULL;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return;
	while (lm->l_prev)
		lm = lm->l_prev;
	for (; lm; lm = lm->l_next) {
		const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)lm->l_addr;
		unsigned char in_core;
		struct dl_phdr_info info;

		/*
		 * Its header where a shared object maps it (its first segment at
		 * address 0 of its own), when that page is mapped; not else (a
		 * position-dependent object: l_addr 0).
		 */
		if (!lm->l_addr || (lm->l_addr & (uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) ||
		    mincore((void *)lm->l_addr, 1, &in_core) != 0 ||
		    (ctx->readable && !pp_maps_readable_has(ctx->readable, lm->l_addr,
							    lm->l_addr + sizeof(*eh))) ||
		    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
		    eh->e_phentsize != sizeof(ElfW(Phdr)))
			continue;
		memset(&info, 0, sizeof(info));
		info.dlpi_addr = lm->l_addr;
		info.dlpi_name = lm->l_name;
		info.dlpi_phdr = (const ElfW(Phdr) *)(lm->l_addr + eh->e_phoff);
		info.dlpi_phnum = eh->e_phnum;
		ctx->first = 0;
		pp_maps_visit(&info, sizeof(info), ctx);
	}
}

void pp_maps_namespace_add(void *handle)
{
	Lmid_t id = LM_ID_BASE;

	if (!handle || dlinfo(handle, RTLD_DI_LMID, &id) != 0 || id == LM_ID_BASE)
		return;
	pthread_mutex_lock(&pp_maps_mutex);
	if (pp_maps_ns_n < PP_MAPS_NAMESPACES)
		pp_maps_ns_handles[pp_maps_ns_n++] = handle;
	pthread_mutex_unlock(&pp_maps_mutex);
}

void pp_maps_namespace_drop(void *handle)
{
	pthread_mutex_lock(&pp_maps_mutex);
	for (size_t i = 0; i < pp_maps_ns_n; i++)
		if (pp_maps_ns_handles[i] == handle) {
			pp_maps_ns_handles[i] = pp_maps_ns_handles[--pp_maps_ns_n];
			break;
		}
	pthread_mutex_unlock(&pp_maps_mutex);
}

int pp_maps_scan(uint64_t now_ns, int in_dlopen)
{
	struct pp_maps_scan_ctx ctx = { .now_ns = now_ns, .first = 1 };
	struct pp_maps_readable readable = { 0 };
	unsigned gen;
	int inside, after;

	/*
	 * No samples held to the leaf meanwhile: the snapshot in use stays
	 * valid (pp_maps_publish frees it once nobody reads it), and a scan
	 * preempted for tens of milliseconds (dozens of dlopens in a row, a
	 * busy machine) would leave every thread without stacks that long.
	 */
	pthread_mutex_lock(&pp_maps_mutex);
	for (size_t i = 0; i < pp_maps_n; i++)
		pp_maps[i].seen = 0;
	pp_maps_root_state = 0;
	/* Not known: every object as it is listed (the scan before the change's). */
	if (__atomic_load_n(&pp_maps_changed, __ATOMIC_ACQUIRE) &&
	    pp_maps_readable_load(&readable) == 0)
		ctx.readable = &readable;
	gen = pp_sampler_dlopen_state_sigsafe(&inside);
	/* Before the walk: a load meanwhile makes the next check scan again. */
	__atomic_store_n(&pp_maps_scan_gen, pp_maps_loader_generation(), __ATOMIC_RELEASE);
	pp_maps_real()(pp_maps_visit, &ctx);
	for (size_t i = 0; i < pp_maps_ns_n; i++)
		pp_maps_namespace(pp_maps_ns_handles[i], &ctx);
	pp_maps_sweep(&ctx);
	pp_respath_release(&ctx.respath);
	if (ctx.snap)
		ctx.snap->partial = inside > in_dlopen ||
				    pp_sampler_dlopen_state_sigsafe(&after) != gen;
	if (ctx.snap && !ctx.err) {
		pp_maps_snap_done(&ctx);
		pp_maps_publish(ctx.snap);
	} else {
		free(ctx.snap);
	}
	free(ctx.phdrs);
	free(readable.r);
	pthread_mutex_unlock(&pp_maps_mutex);
	return ctx.err;
}

void pp_maps_memory_changed(void)
{
	__atomic_store_n(&pp_maps_changed, 1, __ATOMIC_RELEASE);
}

/* dl_iterate_phdr's callback: the loader's counts of loads and unloads, from its first object. */
static int pp_maps_generation_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *gen = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*gen = (uint64_t)info->dlpi_adds * 0x9e3779b97f4a7c15ull + (uint64_t)info->dlpi_subs;
	return 1;
}

uint64_t pp_maps_loader_generation(void)
{
	uint64_t gen = 0;

	pp_maps_real()(pp_maps_generation_cb, &gen);
	return gen;
}

int pp_maps_current(void)
{
	uint64_t gen = pp_maps_loader_generation();

	return gen && gen == __atomic_load_n(&pp_maps_scan_gen, __ATOMIC_ACQUIRE);
}

int pp_maps_glibc_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	return pp_maps_real()(cb, data);
}

void pp_maps_reset(void)
{
	pp_maps_dir = NULL;
	pp_maps_rootfd = -1;
	pthread_mutex_init(&pp_maps_mutex, NULL);
	pp_maps_n = 0;
}
