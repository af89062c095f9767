/*
 * rootfiles: the files at a run's root that are named by their content
 * (event.<key>, module.<key>: pprof/format.h), kept once read for the whole
 * analysis. Every process log of a run names the same few: the 350
 * processes of a profiled build named cc1's, as's and libc's module files
 * 7,000 times, each time an open, fstat, mmap, munmap and close (a third
 * of `top`'s time on that run). While it reads a run, the reader keeps a
 * file, by its path, once it has read it and found it to be what its name
 * says, and marks one it found not to be (or could not read) so that it
 * is said once for the whole run, not once per process. Safe to use from
 * several threads at once (the reader loads processes in parallel).
 */
#ifndef PA_ROOTFILES_H
#define PA_ROOTFILES_H

#include <stddef.h>

/*
 * The bytes kept for path: 1 with *data a malloc'd copy of them (the
 * caller frees it) and *size their count; 2 when path is marked bad
 * (pa_rootfiles_mark_bad; *data NULL); 0 when nothing is kept; -ENOMEM.
 */
int pa_rootfiles_find(const char *path, char **data, size_t *size);

/*
 * Keeps a copy of the size bytes at data as path's (a path kept already
 * keeps its first). Returns 0, or -ENOMEM with nothing kept.
 */
int pa_rootfiles_keep(const char *path, const void *data, size_t size);

/*
 * Marks path as a file that is not what its name says or could not be
 * read. Returns 1 when marked now (the caller says why, once), 0 when it
 * was kept or marked already, or -ENOMEM (not marked: said again).
 */
int pa_rootfiles_mark_bad(const char *path);

/* Frees everything kept: the reader does, once a run's processes are read. */
void pa_rootfiles_release(void);

#endif /* PA_ROOTFILES_H */
