/* The address-space calls of the program, watched for loaded objects; see memhooks.h. */
#include "memhooks.h"
#include "nextsym.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "maps.h"
#include "process.h"
#include "sigsafe/dlsnap.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"

#define PP_EXPORT __attribute__((visibility("default")))

typedef void *(*pp_mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*pp_munmap_fn)(void *, size_t);
typedef int (*pp_mprotect_fn)(void *, size_t, int);
typedef void *(*pp_mremap_fn)(void *, size_t, size_t, int, ...);

static struct {
	pp_mmap_fn mmap, mmap64;
	pp_munmap_fn munmap;
	pp_mprotect_fn mprotect;
	pp_mremap_fn mremap;
	int resolved;
} pp_memhooks_real;

static const struct pp_nextsym pp_memhooks_syms[] = {
	{ "mmap", (void **)&pp_memhooks_real.mmap },
	{ "mmap64", (void **)&pp_memhooks_real.mmap64 },
	{ "munmap", (void **)&pp_memhooks_real.munmap },
	{ "mprotect", (void **)&pp_memhooks_real.mprotect },
	{ "mremap", (void **)&pp_memhooks_real.mremap },
};

void pp_memhooks_resolve(void)
{
	pp_nextsym_resolve(pp_memhooks_syms,
			   sizeof(pp_memhooks_syms) / sizeof(pp_memhooks_syms[0]),
			   &pp_memhooks_real.resolved);
}

/*
 * Whether the real functions are there: not before the constructor looked
 * them up (another library's constructor, the dynamic loader's early
 * calls), when the calls below go to the kernel as they are (what glibc's
 * wrappers do); never looked up here, where it may be signal context.
 */
static int pp_memhooks_ready(void)
{
	return __atomic_load_n(&pp_memhooks_real.resolved, __ATOMIC_ACQUIRE);
}

/* [addr, addr + len) as a range of addresses; len clamped at the top. */
static void pp_memhooks_range(const void *addr, size_t len, uint64_t *lo, uint64_t *hi)
{
	*lo = (uint64_t)(uintptr_t)addr;
	*hi = len > UINT64_MAX - *lo ? UINT64_MAX : *lo + len;
}

/*
 * Before a change to [addr, addr + len) of loaded objects' memory: samples
 * to the leaf, and no unwind under way.
 */
static void pp_memhooks_before(void)
{
	pp_maps_memory_changed();
	pp_sampler_dl_enter_sigsafe();
	pp_sampler_dl_quiesce_sigsafe();
}

/* After it: the module map scanned again (when it was made), samples unwound again. */
static void pp_memhooks_after(int made)
{
	int saved = errno;

	if (made && pp_process_active())
		pp_maps_scan(pp_records_now_sigsafe(), 0);
	pp_sampler_dl_leave_sigsafe();
	errno = saved;
}

PP_EXPORT int munmap(void *addr, size_t len)
{
	uint64_t lo, hi;
	int rc;

	pp_memhooks_range(addr, len, &lo, &hi);
	if (!pp_memhooks_ready())
		return (int)syscall(SYS_munmap, addr, len);
	if (!pp_dlsnap_meets_sigsafe(lo, hi))
		return pp_memhooks_real.munmap(addr, len);
	pp_memhooks_before();
	rc = pp_memhooks_real.munmap(addr, len);
	pp_memhooks_after(rc == 0);
	return rc;
}

PP_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	uint64_t lo, hi;
	int meets, rc;

	pp_memhooks_range(addr, len, &lo, &hi);
	if (!pp_memhooks_ready())
		return (int)syscall(SYS_mprotect, addr, len, prot);
	/*
	 * Readable objects made unreadable, or unreadable ones made readable
	 * again; a readable object left readable (a text made writable to be
	 * patched, a RELRO page) changes nothing libunwind reads.
	 */
	meets = pp_dlsnap_meets_sigsafe(lo, hi);
	if (!((meets & 1) && !(prot & PROT_READ)) && !((meets & 2) && (prot & PROT_READ)))
		return pp_memhooks_real.mprotect(addr, len, prot);
	pp_memhooks_before();
	rc = pp_memhooks_real.mprotect(addr, len, prot);
	pp_memhooks_after(rc == 0);
	return rc;
}

/* mmap and mmap64 (one function on 64-bit Linux): only MAP_FIXED replaces what was there. */
static void *pp_memhooks_mmap(pp_mmap_fn real, void *addr, size_t len, int prot, int flags,
			      int fd, off_t off)
{
	uint64_t lo, hi;
	void *p;

	if (!pp_memhooks_ready() || !real)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	pp_memhooks_range(addr, len, &lo, &hi);
	if (!(flags & MAP_FIXED) || !pp_dlsnap_meets_sigsafe(lo, hi))
		return real(addr, len, prot, flags, fd, off);
	pp_memhooks_before();
	p = real(addr, len, prot, flags, fd, off);
	pp_memhooks_after(p != MAP_FAILED);
	return p;
}

PP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return pp_memhooks_mmap(pp_memhooks_real.mmap, addr, len, prot, flags, fd, off);
}

PP_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return pp_memhooks_mmap(pp_memhooks_real.mmap64, addr, len, prot, flags, fd, off);
}

/* The old range goes (moved, or its tail cut); MREMAP_FIXED replaces the new one's. */
PP_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *new_addr = NULL, *p;
	uint64_t lo, hi, nlo, nhi;
	int meets;

	if (flags & MREMAP_FIXED) {
		va_list ap;

		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!pp_memhooks_ready())
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	pp_memhooks_range(old, old_len, &lo, &hi);
	meets = pp_dlsnap_meets_sigsafe(lo, hi);
	if (flags & MREMAP_FIXED) {
		pp_memhooks_range(new_addr, new_len, &nlo, &nhi);
		meets |= pp_dlsnap_meets_sigsafe(nlo, nhi);
	}
	if (!meets)
		return pp_memhooks_real.mremap(old, old_len, new_len, flags, new_addr);
	pp_memhooks_before();
	p = pp_memhooks_real.mremap(old, old_len, new_len, flags, new_addr);
	pp_memhooks_after(p != MAP_FAILED);
	return p;
}
