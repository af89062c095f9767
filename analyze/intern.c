/* intern: distinct byte strings with dense indexes; see intern.h. */
#include "grow.h"
#include "hash.h"
#include "intern.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#define PA_INTERN_BLOCK_MIN 4096      /* bytes: small tables stay small */
#define PA_INTERN_BLOCK_MAX (1u << 20)

struct pa_intern_entry {
	const void *key; /* in one of the blocks */
	size_t len;
};

/* An entry's place in the open-addressing table. */
struct pa_intern_slot {
	uint32_t hash;  /* the key's hash, low half: most probes stop here */
	uint32_t index; /* + 1 into v; 0: free */
};

/* Keys are copied into blocks that never move: their addresses stay valid. */
struct pa_intern_block {
	struct pa_intern_block *next;
	size_t used, cap;
	alignas(8) unsigned char v[];
};

struct pa_intern {
	struct pa_intern_entry *v;
	size_t n, cap;
	struct pa_intern_slot *slots;
	size_t nslots; /* a power of two, at least twice n */
	struct pa_intern_block *blocks; /* the newest first */
};

struct pa_intern *pa_intern_new(void)
{
	return calloc(1, sizeof(struct pa_intern));
}

void pa_intern_free(struct pa_intern *t)
{
	if (!t)
		return;
	while (t->blocks) {
		struct pa_intern_block *b = t->blocks;

		t->blocks = b->next;
		free(b);
	}
	free(t->v);
	free(t->slots);
	free(t);
}

/* A copy of the len bytes at key, 8-aligned, in t's blocks; NULL: no memory. */
static const void *pa_intern_copy(struct pa_intern *t, const void *key, size_t len)
{
	struct pa_intern_block *b = t->blocks;
	size_t need = (len + 7) & ~(size_t)7;
	unsigned char *at;

	if (need < len)
		return NULL;
	if (!b || b->cap - b->used < need) {
		size_t cap = b ? b->cap * 2 : PA_INTERN_BLOCK_MIN;

		if (cap > PA_INTERN_BLOCK_MAX)
			cap = PA_INTERN_BLOCK_MAX;
		if (cap < need)
			cap = need;
		if (cap > SIZE_MAX - sizeof(*b))
			return NULL;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = t->blocks;
		b->used = 0;
		b->cap = cap;
		t->blocks = b;
	}
	at = b->v + b->used;
	b->used += need;
	if (len)
		memcpy(at, key, len);
	return at;
}

static int pa_intern_grow_slots(struct pa_intern *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 256;
	struct pa_intern_slot *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nslots; i++) {
		size_t j;

		if (!t->slots[i].index)
			continue;
		for (j = t->slots[i].hash & (ns - 1); s[j].index; j = (j + 1) & (ns - 1))
			;
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/* The slot holding key, or the free one where it would go (t has slots). */
static inline size_t pa_intern_slot(const struct pa_intern *t, const void *key, size_t len,
				    uint32_t h)
{
	size_t j = h & (t->nslots - 1);

	for (; t->slots[j].index; j = (j + 1) & (t->nslots - 1)) {
		const struct pa_intern_entry *e;

		if (t->slots[j].hash != h)
			continue;
		e = &t->v[t->slots[j].index - 1];
		if (e->len == len && memcmp(e->key, key, len) == 0)
			break;
	}
	return j;
}

int64_t pa_intern_add(struct pa_intern *t, const void *key, size_t len)
{
	uint32_t h = (uint32_t)pa_hash(key, len, 0);
	struct pa_intern_entry *e;
	size_t j;

	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->n + 1) * 2 > t->nslots && pa_intern_grow_slots(t) < 0)
		return -ENOMEM;
	j = pa_intern_slot(t, key, len, h);
	if (t->slots[j].index)
		return t->slots[j].index - 1;
	if (pa_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)) < 0)
		return -ENOMEM;
	e = &t->v[t->n];
	e->key = pa_intern_copy(t, key, len);
	if (!e->key)
		return -ENOMEM;
	e->len = len;
	t->slots[j] = (struct pa_intern_slot){ .hash = h, .index = (uint32_t)++t->n };
	return (int64_t)t->n - 1;
}

int64_t pa_intern_str(struct pa_intern *t, const char *s)
{
	return pa_intern_add(t, s, strlen(s) + 1);
}

int64_t pa_intern_find(const struct pa_intern *t, const void *key, size_t len)
{
	size_t j;

	if (!t->n)
		return -ENOENT;
	j = pa_intern_slot(t, key, len, (uint32_t)pa_hash(key, len, 0));
	return t->slots[j].index ? (int64_t)t->slots[j].index - 1 : -ENOENT;
}

size_t pa_intern_count(const struct pa_intern *t)
{
	return t->n;
}

const void *pa_intern_key(const struct pa_intern *t, size_t i, size_t *len)
{
	if (len)
		*len = t->v[i].len;
	return t->v[i].key;
}
