/* calltree: the top-down call tree and a frame-to-function index; see calltree.h. */
#include "calltree.h"
#include "grow.h"
#include "intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pa_calltree_index {
	const struct pa_profile *prof;
	struct pa_intern *names; /* the functions' distinct names, NUL included */
	size_t *first;           /* per name: the first function that has it */
	size_t *next;            /* per function: the next with its name, or PA_CALLTREE_NONE */
};

int pa_calltree_index_new(const struct pa_profile *prof, struct pa_calltree_index **out)
{
	struct pa_calltree_index *ix = calloc(1, sizeof(*ix));
	size_t n = prof->nfuncs ? prof->nfuncs : 1;
	size_t *last = malloc(n * sizeof(*last)); /* per name: the latest function */
	int ret = 0;

	*out = NULL;
	if (ix) {
		ix->prof = prof;
		ix->names = pa_intern_new();
		ix->first = malloc(n * sizeof(*ix->first));
		ix->next = malloc(n * sizeof(*ix->next));
	}
	if (!ix || !ix->names || !ix->first || !ix->next || !last)
		ret = -ENOMEM;
	for (size_t i = 0; i < prof->nfuncs && ret == 0; i++) {
		size_t nnames = pa_intern_count(ix->names);
		int64_t id = pa_intern_str(ix->names, prof->funcs[i].name);

		if (id < 0) {
			ret = -ENOMEM;
			break;
		}
		if ((size_t)id == nnames)
			ix->first[id] = i;
		else
			ix->next[last[id]] = i;
		last[id] = i;
		ix->next[i] = PA_CALLTREE_NONE;
	}
	free(last);
	if (ret < 0) {
		pa_calltree_index_free(ix);
		return ret;
	}
	*out = ix;
	return 0;
}

void pa_calltree_index_free(struct pa_calltree_index *ix)
{
	if (!ix)
		return;
	pa_intern_free(ix->names);
	free(ix->first);
	free(ix->next);
	free(ix);
}

const struct pa_func *pa_calltree_index_get(const struct pa_calltree_index *ix,
					    const char *frame)
{
	int64_t id = pa_intern_find(ix->names, frame, strlen(frame) + 1);

	if (id < 0)
		return NULL;
	/* profile.c's stacks share their functions' name strings */
	for (size_t i = ix->first[id]; i != PA_CALLTREE_NONE; i = ix->next[i])
		if (ix->prof->funcs[i].name == frame)
			return &ix->prof->funcs[i];
	return &ix->prof->funcs[ix->first[id]];
}

/* Building state: the tree and its (parent, function) -> child table. */
struct pa_calltree_builder {
	struct pa_calltree *tree;
	size_t cap;
	struct pa_intern *children; /* struct pa_calltree_edge; index + 1: the child's node */
};

/* A node's key in the builder: its parent and its function. */
struct pa_calltree_edge {
	size_t parent;
	const struct pa_func *func;
};

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
	const struct pa_calltree_edge key = { .parent = parent, .func = func };
	struct pa_calltree *t = b->tree;
	int64_t id;

	/* Room first: once the key is in, its node is added without fail. */
	if (pa_grow((void **)&t->nodes, &b->cap, t->nnodes, sizeof(*t->nodes)) < 0)
		return PA_CALLTREE_NONE;
	id = pa_intern_add(b->children, &key, sizeof(key));
	if (id < 0)
		return PA_CALLTREE_NONE;
	if ((size_t)id + 1 == t->nnodes)
		return pa_calltree_add_node(b, parent, func);
	return (size_t)id + 1;
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
	b.children = pa_intern_new();
	if (!b.tree || !b.children) {
		free(b.tree);
		pa_intern_free(b.children);
		return -ENOMEM;
	}
	ret = pa_calltree_index_new(prof, &ix);
	if (ret == 0 && pa_calltree_add_node(&b, PA_CALLTREE_NONE, NULL) == PA_CALLTREE_NONE)
		ret = -ENOMEM;
	for (size_t i = 0; i < prof->nstacks && ret == 0; i++)
		ret = pa_calltree_add_stack(&b, ix, &prof->stacks[i]);
	if (ret == 0)
		ret = pa_calltree_sort(b.tree);
	pa_intern_free(b.children);
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
