/* calltree: the top-down call tree and a frame-to-function index; see calltree.h. */
#include "grow.h"
#include "calltree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pa_calltree_index {
	const struct pa_profile *prof;
	size_t *slots; /* function index + 1, 0 when free */
	size_t cap;    /* a power of two */
};

static uint64_t pa_calltree_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t pa_calltree_hash_pair(size_t parent, const void *func)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)func * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

int pa_calltree_index_new(const struct pa_profile *prof, struct pa_calltree_index **out)
{
	struct pa_calltree_index *ix = calloc(1, sizeof(*ix));

	*out = NULL;
	if (!ix)
		return -ENOMEM;
	ix->prof = prof;
	ix->cap = 16;
	while (ix->cap < prof->nfuncs * 2)
		ix->cap *= 2;
	ix->slots = calloc(ix->cap, sizeof(*ix->slots));
	if (!ix->slots) {
		free(ix);
		return -ENOMEM;
	}
	for (size_t i = 0; i < prof->nfuncs; i++) {
		size_t j = pa_calltree_hash_str(prof->funcs[i].name) & (ix->cap - 1);

		while (ix->slots[j])
			j = (j + 1) & (ix->cap - 1);
		ix->slots[j] = i + 1;
	}
	*out = ix;
	return 0;
}

void pa_calltree_index_free(struct pa_calltree_index *ix)
{
	if (!ix)
		return;
	free(ix->slots);
	free(ix);
}

const struct pa_func *pa_calltree_index_get(const struct pa_calltree_index *ix,
					    const char *frame)
{
	const struct pa_func *first = NULL;
	size_t j = pa_calltree_hash_str(frame) & (ix->cap - 1);

	for (; ix->slots[j]; j = (j + 1) & (ix->cap - 1)) {
		const struct pa_func *f = &ix->prof->funcs[ix->slots[j] - 1];

		/* profile.c's stacks share their functions' name strings */
		if (f->name == frame)
			return f;
		if (!first && strcmp(f->name, frame) == 0)
			first = f;
	}
	return first;
}

/* Building state: the tree and a (parent, function) -> child table. */
struct pa_calltree_builder {
	struct pa_calltree *tree;
	size_t cap;
	size_t *slots; /* node index + 1 */
	size_t slots_cap;
};

static int pa_calltree_rehash(struct pa_calltree_builder *b)
{
	size_t ncap = b->slots_cap ? b->slots_cap * 2 : 1024;
	size_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 1; i < b->tree->nnodes; i++) {
		const struct pa_calltree_node *n = &b->tree->nodes[i];
		size_t j = pa_calltree_hash_pair(n->parent, n->func) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = i + 1;
	}
	free(b->slots);
	b->slots = ns;
	b->slots_cap = ncap;
	return 0;
}

/* Append a node; returns its index, or PA_CALLTREE_NONE when out of memory. */
static size_t pa_calltree_add_node(struct pa_calltree_builder *b, size_t parent,
				   const struct pa_func *func)
{
	struct pa_calltree *t = b->tree;
	struct pa_calltree_node *n;

	if (pa_grow((void **)&t->nodes, &b->cap, t->nnodes, sizeof(*t->nodes)) < 0)
		return PA_CALLTREE_NONE;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->parent = parent;
	n->first_child = PA_CALLTREE_NONE;
	n->next = PA_CALLTREE_NONE;
	if (parent != PA_CALLTREE_NONE) {
		n->depth = t->nodes[parent].depth + 1;
		n->next = t->nodes[parent].first_child;
		t->nodes[parent].first_child = t->nnodes;
		if (n->depth > t->max_depth)
			t->max_depth = n->depth;
	}
	return t->nnodes++;
}

/* The child of parent for func, added on first sight; PA_CALLTREE_NONE: no memory. */
static size_t pa_calltree_child(struct pa_calltree_builder *b, size_t parent,
				const struct pa_func *func)
{
	size_t j, id;

	if ((b->tree->nnodes + 1) * 2 > b->slots_cap && pa_calltree_rehash(b) < 0)
		return PA_CALLTREE_NONE;
	j = pa_calltree_hash_pair(parent, func) & (b->slots_cap - 1);
	for (; b->slots[j]; j = (j + 1) & (b->slots_cap - 1)) {
		const struct pa_calltree_node *n = &b->tree->nodes[b->slots[j] - 1];

		if (n->parent == parent && n->func == func)
			return b->slots[j] - 1;
	}
	id = pa_calltree_add_node(b, parent, func);
	if (id != PA_CALLTREE_NONE)
		b->slots[j] = id + 1;
	return id;
}

static int pa_calltree_add_stack(struct pa_calltree_builder *b,
				 const struct pa_calltree_index *ix,
				 const struct pa_stack *s)
{
	size_t cur = 0;

	b->tree->nodes[0].total += s->count;
	for (size_t i = 0; i < s->nframes; i++) {
		const struct pa_func *f = pa_calltree_index_get(ix, s->frames[i]);

		if (!f)
			return -EINVAL;
		cur = pa_calltree_child(b, cur, f);
		if (cur == PA_CALLTREE_NONE)
			return -ENOMEM;
		b->tree->nodes[cur].total += s->count;
	}
	b->tree->nodes[cur].self += s->count;
	return 0;
}

static int pa_calltree_cmp_child(const void *a, const void *b, void *nodes)
{
	const struct pa_calltree_node *x = (struct pa_calltree_node *)nodes + *(const size_t *)a;
	const struct pa_calltree_node *y = (struct pa_calltree_node *)nodes + *(const size_t *)b;
	int c;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->func->name, y->func->name);
	if (c)
		return c;
	return strcmp(x->func->module ? x->func->module : "",
		      y->func->module ? y->func->module : "");
}

/* Relink every node's children in report order. */
static int pa_calltree_sort(struct pa_calltree *t)
{
	size_t *v = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->nnodes; i++) {
		size_t n = 0;

		for (size_t c = t->nodes[i].first_child; c != PA_CALLTREE_NONE; c = t->nodes[c].next)
			v[n++] = c;
		if (n < 2)
			continue;
		qsort_r(v, n, sizeof(*v), pa_calltree_cmp_child, t->nodes);
		t->nodes[i].first_child = v[0];
		for (size_t k = 0; k < n; k++)
			t->nodes[v[k]].next = k + 1 < n ? v[k + 1] : PA_CALLTREE_NONE;
	}
	free(v);
	return 0;
}

int pa_calltree_build(const struct pa_profile *prof, struct pa_calltree **out)
{
	struct pa_calltree_builder b = { 0 };
	struct pa_calltree_index *ix = NULL;
	int ret;

	*out = NULL;
	b.tree = calloc(1, sizeof(*b.tree));
	if (!b.tree)
		return -ENOMEM;
	ret = pa_calltree_index_new(prof, &ix);
	if (ret == 0 && pa_calltree_add_node(&b, PA_CALLTREE_NONE, NULL) == PA_CALLTREE_NONE)
		ret = -ENOMEM;
	for (size_t i = 0; i < prof->nstacks && ret == 0; i++)
		ret = pa_calltree_add_stack(&b, ix, &prof->stacks[i]);
	if (ret == 0)
		ret = pa_calltree_sort(b.tree);
	free(b.slots);
	pa_calltree_index_free(ix);
	if (ret < 0) {
		pa_calltree_free(b.tree);
		return ret;
	}
	*out = b.tree;
	return 0;
}

void pa_calltree_free(struct pa_calltree *tree)
{
	if (!tree)
		return;
	free(tree->nodes);
	free(tree);
}

void pa_calltree_print_func(FILE *out, const struct pa_func *f)
{
	const char *base = f->module ? strrchr(f->module, '/') : NULL;

	base = base ? base + 1 : f->module;
	fputs(f->name, out);
	/* Unresolved names already read "<module basename>+0x...". */
	if (!base || pa_profile_names_module(f->name, base))
		return;
	fprintf(out, " (%s)", base);
}
