/*
 * stacks: writes a thread's samples with each distinct stack once. A
 * thread's table maps a stack (a 64-bit hash of its frames) to the id of
 * the record that holds it in the thread's log: a new stack is written
 * with its first sample in one PPF_REC_STACK_SAMPLE, and a sample of a
 * stack written before is an 8-byte entry in the log's last
 * PPF_REC_SAMPLE_BLOCK (records.h).
 * A new stack's record leaves out the outermost frames it shares with the
 * stack written last (the thread's callers, mostly), which the mapping
 * keeps beside the table.
 * The table is one fixed mapping of PP_STACKS_MAP_BYTES, made on the
 * thread's first sample and unmapped when its slot is freed: memory never
 * grows with the run. When it holds PP_STACKS_FULL stacks (or a stack finds
 * no place near its own) it starts again, empty: stacks are then written
 * again, with new ids.
 *
 * Stacks are told apart by their hash alone: two different stacks of one
 * table with the same 64-bit hash would be counted as one. With at most
 * PP_STACKS_FULL (3,072) stacks in a table, the chance that any two of them
 * share a hash is under 3,072^2 / 2^65, about 2.6e-13, per table filling.
 *
 * Every function here runs in signal context.
 */
#ifndef PP_STACKS_H
#define PP_STACKS_H

#include <stdint.h>

#include "pprof/format.h"

struct pp_logfile;

/* The table: 4,096 entries of 16 bytes. */
#define PP_STACKS_TABLE_BYTES (64u << 10)
/* Its mapping: the table, the stack written last, the ids (stacks.c). */
#define PP_STACKS_MAP_BYTES (72u << 10)
/* Stacks a table holds before it starts again (3/4 of its entries). */
#define PP_STACKS_FULL 3072u

/*
 * A thread's table and the ids of its log, in a mapping of its own: a
 * thread's slot holds a pointer, NULL until its first sample.
 */
struct pp_stacks;

/* Runs in signal context. No table yet, for a new thread and log (no mapping is made). */
void pp_stacks_init_sigsafe(struct pp_stacks **st);

/* Runs in signal context. Unmaps *st's table; *st is then as after init. */
void pp_stacks_release_sigsafe(struct pp_stacks **st);

/*
 * Runs in signal context. Writes one sample to log: stack ips (n frames,
 * 1..PPF_MAX_FRAMES, innermost first) taken at now for event, with flags
 * (enum ppf_sample_flags). With whole (the configuration's `stacks =
 * whole`), or when no table could be mapped for *st, a PPF_REC_SAMPLE with
 * its whole stack; else a PPF_REC_STACK_SAMPLE when the stack is new to
 * the table, or an entry in a sample block. The table is mapped into *st at
 * the first sample of a log that is open. Returns 0, or a negative errno
 * when the sample could not be written (-ENOSPC: the log is full or
 * closed).
 */
int pp_stacks_write_sigsafe(struct pp_stacks **st, struct pp_logfile *log,
			    const uint64_t *ips, unsigned n, uint64_t now,
			    unsigned event, uint16_t flags, int whole);

#endif
