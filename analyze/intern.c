/* intern: distinct byte strings with dense indexes; see intern.h. */
#include "grow.h"
#include "intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pa_intern_entry {
	void *key;
	size_t len;
	uint64_t hash;
};

struct pa_intern {
	struct pa_intern_entry *v;
	size_t n, cap;
	uint32_t *slots; /* index + 1 into v, 0: free; open addressing */
	size_t nslots;   /* a power of two, at least twice n */
};

struct pa_intern *pa_intern_new(void)
{
	return calloc(1, sizeof(struct pa_intern));
}

void pa_intern_free(struct pa_intern *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].key);
	free(t->v);
	free(t->slots);
	free(t);
}

static uint64_t pa_intern_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int pa_intern_grow_slots(struct pa_intern *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 256;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = t->v[i].hash & (ns - 1);

		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/* Append key as entry t->n; its slot is j. */
static int64_t pa_intern_insert(struct pa_intern *t, size_t j, const void *key,
				size_t len, uint64_t h)
{
	struct pa_intern_entry *e;

	if (pa_grow((void **)&t->v, &t->cap, t->n,
		    sizeof(*t->v)) < 0)
		return -ENOMEM;
	e = &t->v[t->n];
	e->key = malloc(len ? len : 1);
	if (!e->key)
		return -ENOMEM;
	memcpy(e->key, key, len);
	e->len = len;
	e->hash = h;
	t->slots[j] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

int64_t pa_intern_add(struct pa_intern *t, const void *key, size_t len)
{
	uint64_t h = pa_intern_hash(key, len);
	size_t j;

	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((t->n + 1) * 2 > t->nslots && pa_intern_grow_slots(t) < 0)
		return -ENOMEM;
	for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const struct pa_intern_entry *e = &t->v[t->slots[j] - 1];

		if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0)
			return t->slots[j] - 1;
	}
	return pa_intern_insert(t, j, key, len, h);
}

int64_t pa_intern_str(struct pa_intern *t, const char *s)
{
	return pa_intern_add(t, s, strlen(s) + 1);
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
