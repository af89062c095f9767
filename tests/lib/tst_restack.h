/*
 * tst_restack: writes a run again with each stack once. A copy of a run
 * whose thread logs hold whole-stack samples (PPF_REC_SAMPLE: `stacks =
 * whole`, or logs written before stacks were written once), each of those
 * samples written again through the profiler's own writer
 * (pp_stacks_write_sigsafe), as the signal handler writes it by default;
 * every other record and file is copied as it is. So one run is had in both
 * formats, with the very same samples. Aborts the test on any failure.
 */
#ifndef TST_RESTACK_H
#define TST_RESTACK_H

#include <stddef.h>

/*
 * Copies run directory from (its process directories and their files) to
 * to, which must not exist. Returns the number of samples written again.
 */
size_t tst_restack_run(const char *from, const char *to);

#endif /* TST_RESTACK_H */
