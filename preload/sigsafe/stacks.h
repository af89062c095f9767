/*
 * stacks: writes a thread's samples with each distinct stack once. A
 * thread's table maps a stack (a 64-bit hash of its frames) to the id of
 * the PPF_REC_STACK record that holds it in the thread's log; a sample is
 * then an 8-byte entry in the log's last PPF_REC_SAMPLE_BLOCK (records.h).
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

/* The table: 4,096 entries of 16 bytes; and the last stack written after it. */
#define PP_STACKS_TABLE_BYTES (64u << 10)
#define PP_STACKS_MAP_BYTES (PP_STACKS_TABLE_BYTES + PPF_MAX_FRAMES * 8u)
/* Stacks a table holds before it starts again (3/4 of its entries). */
#define PP_STACKS_FULL 3072u

struct pp_stacks_entry;

/* A thread's table and the ids of its log; all zero: no table yet. */
struct pp_stacks {
	struct pp_stacks_entry *e; /* PP_STACKS_MAP_BYTES mapped, or NULL */
	uint64_t *last;   /* the stack written last (after the table) */
	uint32_t last_n;  /* its frames; 0: none written yet */
	uint32_t last_id;
	uint32_t gen;     /* entries of other generations are free */
	uint32_t used;    /* entries of this generation */
	uint32_t next_id; /* the id of the log's next PPF_REC_STACK */
	int failed;       /* the mapping could not be made: whole stacks */
};

/* Runs in signal context. An empty state, for a new thread and log (no mapping is made). */
void pp_stacks_init_sigsafe(struct pp_stacks *st);

/* Runs in signal context. Unmaps st's table; st is then as after init. */
void pp_stacks_release_sigsafe(struct pp_stacks *st);

/*
 * Runs in signal context. Writes one sample to log: stack ips (n frames,
 * 1..PPF_MAX_FRAMES, innermost first) taken at now for event, with flags
 * (enum ppf_sample_flags). With whole (the configuration's `stacks =
 * whole`), or when st has no table, a PPF_REC_SAMPLE with its whole
 * stack; else a PPF_REC_STACK when the stack is new to the table, and an
 * entry in a sample block. Returns 0, or a negative errno when the sample
 * could not be written (-ENOSPC: the log is full).
 */
int pp_stacks_write_sigsafe(struct pp_stacks *st, struct pp_logfile *log,
			    const uint64_t *ips, unsigned n, uint64_t now,
			    unsigned event, uint16_t flags, int whole);

#endif
