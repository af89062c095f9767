/*
 * jitmap: a JIT compiler's perf map (/tmp/perf-<pid>.map, where it names
 * the code it makes; perf reads it at report time) copied beside the
 * process's log as <name>.perf.map when the process ends, so that the run
 * names its JIT code wherever and whenever it is read (analyze/perfmap.h
 * reads it). Only a regular file of this user written since the process
 * started is taken; a process killed or ended by a raw exit_group leaves
 * none (the analyzer then reads /tmp's, when it still can).
 */
#ifndef PP_JITMAP_H
#define PP_JITMAP_H

#include <stdint.h>

/*
 * Copies the calling process's perf map, if it has one, to <name>.perf.map
 * under rootfd (whole or not at all). since_ns: the process's start
 * (CLOCK_REALTIME ns), called only when there is a map. Not
 * async-signal-safe only in its snprintf.
 */
void pp_jitmap_keep(int rootfd, const char *name, uint64_t (*since_ns)(void));

#endif /* PP_JITMAP_H */
