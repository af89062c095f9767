/*
 * dlsnap: a copy of the loaded-object list for the signal handler, and the
 * dl_iterate_phdr the preload exports. libunwind calls dl_iterate_phdr on
 * every cache miss, and glibc's takes the loader's lock: a sample that lands
 * while its thread holds that lock (inside dl_iterate_phdr, dlopen,
 * dlclose) deadlocks. Ours, inside our handler, walks this snapshot without
 * any lock; everywhere else it is glibc's (maps.h). The snapshot is
 * refreshed by the module-map scans (maps.c); samples meanwhile unwind with
 * the one in use, freed only once no handler reads it. dlclose holds
 * samples to the leaf (pp_sampler_dl_enter_sigsafe) from before it unmaps
 * until its scan has replaced the snapshot, so a snapshot in use never
 * lists an object being unmapped. Inside dlopen it may
 * lack the objects being loaded (an unwind stops there), and a snapshot
 * built while a dlopen was under way is partial: it may list an object that
 * dlopen unmaps again if it fails, so no sample is unwound inside dlopen
 * while it is in use, and the failing dlopen rebuilds it (hooks.c).
 */
#ifndef PP_DLSNAP_H
#define PP_DLSNAP_H

#include <link.h>
#include <stddef.h>

/*
 * The program may unmap or protect an object's memory itself (munmap,
 * mprotect, mremap, mmap MAP_FIXED: hooks.c); libunwind reads an object's
 * program headers and unwind tables from memory on a cache miss, so the
 * snapshot reads neither from the object: its program headers are copied
 * (phdrs), and an object whose read-only segments are no longer all
 * readable is kept (its ranges: the hooks' overlap check) but not listed
 * to libunwind (unreadable).
 */
struct pp_dlsnap_obj {
	struct dl_phdr_info info; /* dlpi_phdr: into the snapshot's phdrs */
	uint64_t lo, hi; /* its segments' pages, lowest to highest */
	int unreadable;
};

struct pp_dlsnap {
	int partial; /* built while a dlopen was under way */
	size_t n;
	ElfW(Phdr) *phdrs; /* every object's, one block, freed with the snapshot */
	uint64_t page;     /* the page size */
	struct pp_dlsnap_obj obj[];
};


/*
 * Runs in signal context. Marks the calling thread as inside the handler,
 * and counts it among the threads that may be unwinding (until leave):
 * called before the handler checks whether it may unwind, so that a thread
 * that holds samples to the leaf and then waits for pp_dlsnap_unwinding
 * to come down to 0 knows no unwind reads memory it is about to change.
 */
void pp_dlsnap_enter_handler_sigsafe(void);
void pp_dlsnap_leave_handler_sigsafe(void);

/* Runs in signal context. How many threads are inside the handler's unwind. */
int pp_dlsnap_unwinding_sigsafe(void);

/* Runs in signal context. In a fork child: only the calling thread's counts remain. */
void pp_dlsnap_fork_child_sigsafe(void);

/* Runs in signal context. Whether the calling thread is inside the handler. */
int pp_dlsnap_in_handler_sigsafe(void);

/*
 * Runs in signal context. dl_iterate_phdr over the snapshot: no lock, no
 * allocation. Returns the callback's last result, 0 with no snapshot.
 */
int pp_dlsnap_iterate_sigsafe(int (*cb)(struct dl_phdr_info *, size_t, void *),
			      void *data);

/*
 * Async-signal-safe. Makes snap (allocated by the caller) the snapshot and
 * returns the previous one (NULL if none), which handlers may still be
 * reading: free it once pp_dlsnap_readers_sigsafe() has come down to 0.
 */
struct pp_dlsnap *pp_dlsnap_swap_sigsafe(struct pp_dlsnap *snap);

/* Runs in signal context. Whether an object of the snapshot in use maps ip. */
int pp_dlsnap_holds_sigsafe(uint64_t ip);

/*
 * Runs in signal context. Whether [lo, hi) meets the pages of an object's
 * segments that libunwind may read (those it does not write: headers,
 * code, read-only data; a guard page in a program's .bss is none of its
 * business) in the snapshot in use: 1 one libunwind is given, 2 one it is not
 * (unreadable), 3 both, 0 neither.
 */
int pp_dlsnap_meets_sigsafe(uint64_t lo, uint64_t hi);

/* Runs in signal context. Whether the snapshot now in use is partial. */
int pp_dlsnap_partial_sigsafe(void);

/* Runs in signal context. How many handlers are walking a snapshot now. */
int pp_dlsnap_readers_sigsafe(void);

#endif
