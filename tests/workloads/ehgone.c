/*
 * ehgone: a program that takes a loaded library's memory away itself, as a
 * custom loader or a sandbox may: it loads libehgone.so (beside it), burns
 * in ehgone_before, then makes the segment that holds the library's
 * .eh_frame_hdr unreadable (or unmaps its headers), burns in
 * ehgone_during, then (where it can) makes it readable again and burns in
 * ehgone_after. Unprofiled it runs to the end: the library's code never
 * reads that memory. Prints "ehgone: HOW done".
 *
 *   ehgone HOW [SECONDS]   SECONDS of CPU per burn (default 0.2); HOW:
 *     mprotect  PROT_NONE, then PROT_READ again
 *     munmap    unmapped, then the file mapped there again (mmap MAP_FIXED)
 *     anon      replaced by an anonymous PROT_NONE mapping (mmap MAP_FIXED),
 *               then that moved away (mremap MREMAP_FIXED) and the file
 *               mapped there again
 *     headers   the page with its ELF and program headers unmapped (no after)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

typedef uint64_t (*ehgone_fn)(uint64_t);

static volatile uint64_t ehgone_sink;

/* The library's segment holding PT_GNU_EH_FRAME, or its first one (headers). */
struct ehgone_seg {
	uintptr_t lo, hi;
	off_t off;
	int found;
	int headers;
};

static int ehgone_find(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ehgone_seg *s = data;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t eh = 0;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libehgone.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			eh = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (s->headers ? ph->p_offset == 0 : eh >= lo && eh < lo + ph->p_memsz) {
			s->lo = lo & ~(uintptr_t)(page - 1);
			s->hi = (lo + ph->p_memsz + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
			s->off = (off_t)(ph->p_offset & ~(uint64_t)(page - 1));
			s->found = 1;
			return 1;
		}
	}
	return 1;
}

/* Iterations of wl_burn that take about seconds of CPU here. */
static uint64_t ehgone_iters(double seconds)
{
	double t0 = wl_thread_cpu(), t;
	uint64_t n = 0;

	do {
		ehgone_sink += wl_burn(WL_CHUNK, n);
		n += WL_CHUNK;
		t = wl_thread_cpu() - t0;
	} while (t < 0.02);
	return (uint64_t)((double)n * seconds / t);
}

/* Burns seconds of CPU in fn, in slices. */
static void ehgone_burn(ehgone_fn fn, uint64_t per_slice, double seconds)
{
	double until = wl_thread_cpu() + seconds;

	while (wl_thread_cpu() < until)
		ehgone_sink += fn(per_slice);
}

static void ehgone_die(const char *what)
{
	perror(what);
	exit(1);
}

/* The library's file mapped back at the segment, read-only. */
static void ehgone_map_back(const char *path, const struct ehgone_seg *s)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || mmap((void *)s->lo, s->hi - s->lo, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
			   s->off) == MAP_FAILED)
		ehgone_die("ehgone: mapping the library back");
	close(fd);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	double seconds = wl_seconds(argc > 2 ? argv[2] : NULL, 0.2);
	struct ehgone_seg seg = { .headers = strcmp(how, "headers") == 0 };
	ehgone_fn before, during, after;
	char path[4200], *slash;
	uint64_t slice;
	ssize_t n;
	void *h;

	if (strcmp(how, "mprotect") && strcmp(how, "munmap") && strcmp(how, "anon") && !seg.headers) {
		fprintf(stderr, "usage: ehgone mprotect|munmap|anon|headers [SECONDS]\n");
		return 2;
	}
	/* Beside this program. */
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0 || !(slash = memrchr(path, '/', (size_t)n)))
		ehgone_die("ehgone: /proc/self/exe");
	strcpy(slash + 1, "libehgone.so");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h || !(before = (ehgone_fn)dlsym(h, "ehgone_before")) ||
	    !(during = (ehgone_fn)dlsym(h, "ehgone_during")) ||
	    !(after = (ehgone_fn)dlsym(h, "ehgone_after"))) {
		fprintf(stderr, "ehgone: %s\n", dlerror());
		return 1;
	}
	dl_iterate_phdr(ehgone_find, &seg);
	if (!seg.found) {
		fprintf(stderr, "ehgone: no such segment in libehgone.so\n");
		return 1;
	}
	slice = ehgone_iters(0.001);
	ehgone_burn(before, slice, seconds);
	if (!strcmp(how, "mprotect")) {
		if (mprotect((void *)seg.lo, seg.hi - seg.lo, PROT_NONE) != 0)
			ehgone_die("ehgone: mprotect");
	} else if (!strcmp(how, "anon")) {
		if (mmap((void *)seg.lo, seg.hi - seg.lo, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			ehgone_die("ehgone: mmap");
	} else if (munmap((void *)seg.lo, seg.hi - seg.lo) != 0) {
		ehgone_die("ehgone: munmap");
	}
	ehgone_burn(during, slice, seconds);
	if (!strcmp(how, "mprotect")) {
		if (mprotect((void *)seg.lo, seg.hi - seg.lo, PROT_READ) != 0)
			ehgone_die("ehgone: mprotect");
	} else if (!strcmp(how, "anon")) {
		/* Moved to a spot of its own (MREMAP_FIXED), then the file mapped back. */
		size_t len = seg.hi - seg.lo;
		void *spot = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (spot == MAP_FAILED ||
		    mremap((void *)seg.lo, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, spot) != spot)
			ehgone_die("ehgone: mremap");
		ehgone_map_back(path, &seg);
	} else if (!seg.headers) {
		ehgone_map_back(path, &seg);
	}
	if (!seg.headers)
		ehgone_burn(after, slice, seconds);
	printf("ehgone: %s done\n", how);
	return 0;
}
