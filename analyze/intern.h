/*
 * intern: a table of distinct byte strings, each given a dense index in
 * order of first sight. The output formats use it for their string tables,
 * frame, function and location tables, and to count distinct stacks.
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
 * The index of the len bytes at key (copied on first sight; the index then
 * equals the number of keys before it). Returns the index, or -ENOMEM.
 */
int64_t pa_intern_add(struct pa_intern *t, const void *key, size_t len);

/* The same for a NUL-terminated string (its NUL is part of the key). */
int64_t pa_intern_str(struct pa_intern *t, const char *s);

/* How many distinct keys the table holds. */
size_t pa_intern_count(const struct pa_intern *t);

/* Key i (< pa_intern_count) and its length; owned by t, valid until it is freed. */
const void *pa_intern_key(const struct pa_intern *t, size_t i, size_t *len);

#endif /* PA_INTERN_H */
