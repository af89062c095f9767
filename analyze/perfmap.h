/*
 * perfmap: the names a JIT compiler gives the code it makes, from the
 * perf map file it writes, as perf reads it: /tmp/perf-<pid>.map, one line
 * per piece of code, "START SIZE NAME" (START and SIZE in hex, with or
 * without 0x; NAME the rest of the line). Java's perf-map-agent, node and
 * V8 (--perf-basic-prof), .NET (DOTNET_PerfMapEnabled), Python 3.12 (-X
 * perf) and LuaJIT built with LUAJIT_USE_PERFTOOLS write it.
 *
 * Where a process's map is read from: the copy the preload made at the
 * run's root when the process ended (<P>.perf.map beside its log: still
 * right when the run is read elsewhere, or after the pid was reused); else
 * /tmp/perf-<pid>.map itself, when the process ran on this machine since
 * its last boot (host name and boot id), the file is a regular file owned
 * by the user reading it or by root (perf's rule: another user could plant
 * names), and it was last written while the process ran (from its start to
 * its end; a process without END: to PA_PERFMAP_AFTER_NS after its logs'
 * last record). /tmp's is read instead of the copy when it
 * meets those and is longer: the copy was made as the process ended, before
 * exit wrote out what a JIT still held in its stdio buffer.
 *
 * Lines are kept in file order's last word: where two pieces of code start
 * at one address (code freed and made again), the later line names it;
 * an address in several pieces that start apart is named by the one that
 * holds it and starts nearest below it (the lines cut into disjoint
 * segments once, looked up by bisection). A line that is not START SIZE NAME is skipped,
 * and the first such line is said (file and line) with how many there were.
 * Names are cleaned as thread names are (textsafe.h).
 */
#ifndef PA_PERFMAP_H
#define PA_PERFMAP_H

#include <stdint.h>

#include "reader.h"

/* The module name frames in JIT code show (pa_frame.module). */
#define PA_PERFMAP_MODULE "[jit]"

struct pa_perfmap;

struct pa_perfmap_entry {
	uint64_t start, end; /* [start, end), the process's addresses */
	const char *name;    /* never NULL */
};

/*
 * proc's perf map, read as above; *out NULL (and 0 returned) when it has
 * none. A map that cannot be read or has bad lines adds a warning to warn
 * (may be NULL). Returns 0, or -ENOMEM.
 */
int pa_perfmap_load(const struct pa_process *proc, struct pa_perfmap **out,
		    struct pa_warnings *warn);

/* The piece of code holding addr, or NULL. map may be NULL. */
const struct pa_perfmap_entry *pa_perfmap_find(const struct pa_perfmap *map, uint64_t addr);

void pa_perfmap_free(struct pa_perfmap *map);

#endif /* PA_PERFMAP_H */
