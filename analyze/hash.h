/*
 * hash: the analyzer's one hash function, for its hash tables (intern.c,
 * and the reader's table of a thread's distinct samples). Not for
 * anything kept on disk: its values differ between byte orders and may
 * change between versions.
 */
#ifndef PA_HASH_H
#define PA_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * A 64-bit hash of the len bytes at data, from seed (which tells apart
 * keys whose bytes alone are equal). Every bit of the result depends on
 * every byte, so that a table may take the low bits as its slot. Reads
 * 8 bytes at a time, in four independent lanes, so that long keys (stacks
 * of addresses) cost little more than a pass over their bytes.
 */
uint64_t pa_hash(const void *data, size_t len, uint64_t seed);

#endif /* PA_HASH_H */
