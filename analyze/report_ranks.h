/*
 * report_ranks: what the `ranks` report counts as a rank's time in MPI
 * calls (its WAIT(s) and INMPI(s) columns), for its tests.
 */
#ifndef PA_REPORT_RANKS_H
#define PA_REPORT_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "symbols.h"

/*
 * Whether the frames (innermost first) are the program in an MPI call: a
 * frame of the program (in a known module that is neither the MPI library
 * nor a library it runs on, report_ranks.c) calls the outermost MPI frame,
 * directly or not. A thread the libraries started (progress threads,
 * waiting all their life) has none. truncated: the stack was deeper than
 * recorded, its outer frames (the program's, below a call) are missing:
 * any MPI frame counts.
 */
bool pa_ranks_program_in_mpi(const struct pa_frame *frames, size_t n, bool truncated);

#endif /* PA_REPORT_RANKS_H */
