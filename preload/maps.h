/*
 * maps: the module map. Every ELF object loaded in the process, with its
 * address range, load bias, file offset, path and build-id, goes to the
 * process log when first seen; an object that goes away gets an unload
 * record. Rescanned by the dlopen/dlclose hooks, never in signal context.
 */
#ifndef PP_MAPS_H
#define PP_MAPS_H

#include <link.h>
#include <stdint.h>

struct pp_config_event;
struct pp_logfile;
struct pp_thread_dir;

/*
 * Where the process's files go: a copy of the vDSO, <name>.vdso.so, when
 * the output root cannot take its image under its shared name (it has no
 * file of its own; sigsafe/threads.h). dir stays owned by the caller;
 * NULL: none.
 */
void pp_maps_set_dir(struct pp_thread_dir *dir);

/*
 * The program's path as /proc/self/exe named it at the process's start
 * (kept by the caller for the life of the process image; "" when unknown):
 * the path of the first module scans list, without reading /proc again.
 */
void pp_maps_set_exe(const char *exe);

/*
 * The output root (absolute path, and a descriptor of it, O_PATH will do),
 * where the vDSO's image and the records of modules with a build-id are
 * written once for the run (format.h, PPF_REC_MODULE_REF), at the start
 * and by later scans (dlopen), while rootfd still names the directory it
 * names now; -1 when the process no longer holds it open. rootfd stays
 * owned by the caller, who sets -1 before closing it.
 */
void pp_maps_set_root(int rootfd, const char *root);

/*
 * Compares the loaded objects with what was recorded and writes the
 * differences (PPF_REC_MODULE or PPF_REC_MODULE_REF, PPF_REC_MODULE_UNLOAD)
 * stamped now_ns, and gives the handler a new snapshot of them
 * (sigsafe/dlsnap.h). Samples meanwhile unwind with the snapshot they
 * find: a caller that has just unloaded objects holds them to the leaf
 * itself (pp_sampler_dl_enter_sigsafe) until this returns. in_dlopen: 1
 * when the caller is itself counted inside dlopen
 * (pp_sampler_dlopen_enter_sigsafe), which does not make the snapshot
 * partial; else 0.
 * Returns 0 or a negative errno.
 */
int pp_maps_scan(uint64_t now_ns, int in_dlopen);

/*
 * A handle dlmopen gave: when it is of a namespace of its own, its objects
 * are scanned from now on too (dl_iterate_phdr lists the caller's
 * namespace only), until pp_maps_namespace_drop (before its dlclose). At
 * most 64 such handles are followed.
 */
void pp_maps_namespace_add(void *handle);
/*
 * Says that the program changed the memory of a loaded object itself
 * (unmapped, protected or replaced part of it): from the next scan on, an
 * object whose read-only segments are not all readable is not given to
 * libunwind (sigsafe/dlsnap.h), one whose headers are not readable is not
 * read at all. Call it before the change and scan after it.
 */
void pp_maps_memory_changed(void);

/*
 * The dynamic loader's count of objects loaded and unloaded so far (every
 * namespace; dl_iterate_phdr's dlpi_adds and dlpi_subs) as one number: the
 * same before and after a dlopen or dlclose when it loaded and unloaded
 * nothing (a library already loaded, a handle still held elsewhere), whose
 * scan is then not needed. 0 when glibc does not say.
 */
uint64_t pp_maps_loader_generation(void);

/*
 * Whether the loader has loaded and unloaded nothing since the last scan
 * began: a dlopen or dlclose then needs no scan. Against the last scan,
 * not the call's start: glibc loads objects of its own without dlopen
 * (iconv's gconv modules, NSS modules, libgcc_s), which the next dlopen's
 * scan finds.
 */
int pp_maps_current(void);
void pp_maps_namespace_drop(void *handle);

/*
 * Writes event index's record (pp_records_event_sigsafe's arguments) to
 * log: a PPF_REC_EVENT_REF to its file at the output root, written once for
 * the run, or the whole PPF_REC_EVENT when the root cannot take it (no root
 * set yet). Returns 0 or a negative errno.
 */
int pp_maps_put_event(struct pp_logfile *log, unsigned index, const struct pp_config_event *ce,
		      int error, int refused);

/* Forgets every recorded module (a fork child starts a new log). */
void pp_maps_reset(void);

/*
 * glibc's dl_iterate_phdr, which the preload's own (sigsafe/dlsnap.h) calls
 * outside its handler. Not for signal context: it is found with dlsym the
 * first time, and glibc's takes the loader's lock.
 */
int pp_maps_glibc_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);

#endif
