/*
 * report_pprof: the profile as pprof reads it: a gzip'd profile.proto
 * (github.com/google/pprof/proto/profile.proto), encoded by protobuf-c.
 *
 * Contents: one mapping per module of every selected process, one location
 * per distinct (process, address, caller or leaf), each with one line per
 * source frame (pa_symbols_lookup_src), innermost first as profile.proto
 * wants: every inline level, then the function that holds the address,
 * each with its line (for an inline level, where its code is; for the next
 * one out, the call site). Functions have their source file and start line
 * (DW_AT_decl_line) where the debug info gives them; an address without
 * source frames has one line naming it as top does ("module+0xOFFSET" or
 * "[unknown]" when unresolved), line 0. Mappings say they have functions,
 * file names, line numbers and inline frames, so pprof does not symbolise
 * again. One sample per distinct (thread, stack) with labels pid, tid
 * (numbers) and thread (its name). Sample types:
 * samples/count, then cpu/nanoseconds (samples x period) for an event that
 * counts nanoseconds at a fixed period, or EVENT/count (samples x period)
 * for another fixed-period event; a frequency event has samples/count only.
 * string_table[0] is "", every id is non-zero.
 */
#ifndef PA_REPORT_PPROF_H
#define PA_REPORT_PPROF_H

#include <stdio.h>

#include "profile.h"
#include "reader.h"

/*
 * Write the samples of run that f selects to out as a gzip'd profile.proto.
 * Symboliser warnings go to warn (may be NULL). Returns 0, -EIO on a write
 * error, or another negative errno with err filled.
 */
int pa_report_pprof(FILE *out, const struct pa_run *run, const struct pa_filter *f,
		    struct pa_warnings *warn, struct pa_error *err);

#endif /* PA_REPORT_PPROF_H */
