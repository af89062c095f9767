/*
 * openguard: open(2) as libdw and libelf see it in pprof-analyze.
 *
 * libdw opens files itself, by names that come from the modules a log
 * names: separate debug information found by build-id or .gnu_debuglink
 * (next to the module, in its .debug/, under the debuginfo path), dwz alt
 * files, split-DWARF .dwo files. A FIFO there would block its open()
 * forever, and /dev/zero would feed its CRC check forever. This module
 * defines open() (and open64) in the executable, which the dynamic linker
 * binds libdw's calls to: an open to read goes through pa_regfile_open, and
 * what is not a regular file fails with ENOENT, so that libdw goes on to its
 * next candidate as for a missing file, and is remembered for a warning.
 * Every other open passes through unchanged.
 *
 * Linked into pprof-analyze only: the tests' runner links the other
 * analyzer objects, and its harness opens /dev/null.
 */
#ifndef PA_OPENGUARD_H
#define PA_OPENGUARD_H

#include "reader.h"

/*
 * Appends to warn one warning per file refused so far (each path once,
 * "is a FIFO, not a regular file; ..."), and forgets them.
 */
void pa_openguard_take(struct pa_warnings *warn);

#endif /* PA_OPENGUARD_H */
