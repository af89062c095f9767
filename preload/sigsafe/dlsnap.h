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

struct pp_dlsnap {
	int partial; /* built while a dlopen was under way */
	size_t n;
	struct dl_phdr_info info[];
};

/* Runs in signal context. Marks the calling thread as inside the handler. */
void pp_dlsnap_enter_handler_sigsafe(void);
void pp_dlsnap_leave_handler_sigsafe(void);

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

/* Runs in signal context. Whether the snapshot now in use is partial. */
int pp_dlsnap_partial_sigsafe(void);

/* Runs in signal context. How many handlers are walking a snapshot now. */
int pp_dlsnap_readers_sigsafe(void);

#endif
