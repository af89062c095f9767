/*
 * intern: a table of distinct byte strings, each given a dense index in
 * order of first sight. It is the analyzer's hash table: a lookup by key
 * is a lookup of the key's index, and what a key maps to lives in an
 * array beside the table (pa_grow), at that index. The output formats
 * use it for their string, frame, function and location tables; the
 * profile for its functions and stacks, the call tree for its nodes, the
 * symboliser for its caches. Keys may be strings (with or without their
 * NUL) or any bytes: an address, a pair of pointers, a stack.
 */
#ifndef PA_INTERN_H
#define PA_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct pa_intern;

/* A new, empty table, or NULL when out of memory. Free with pa_intern_free. */
struct pa_intern *pa_intern_new(void);
void pa_intern_free(struct pa_intern *t);

/*
 * The index of the len bytes at key, copied on first sight: a new key's
 * index equals the number of keys before it (pa_intern_count before the
 * call), so that a caller tells a new key by it. Returns the index, or
 * -ENOMEM (the table is unchanged).
 */
int64_t pa_intern_add(struct pa_intern *t, const void *key, size_t len);

/* The same for a NUL-terminated string (its NUL is part of the key). */
int64_t pa_intern_str(struct pa_intern *t, const char *s);

/* The index of the len bytes at key, or -ENOENT when t does not hold them. */
int64_t pa_intern_find(const struct pa_intern *t, const void *key, size_t len);

/* How many distinct keys the table holds. */
size_t pa_intern_count(const struct pa_intern *t);

/*
 * Key i (< pa_intern_count) and its length; owned by t, 8-byte aligned,
 * and at the same address until t is freed (adding keys moves none).
 */
const void *pa_intern_key(const struct pa_intern *t, size_t i, size_t *len);

#endif /* PA_INTERN_H */
