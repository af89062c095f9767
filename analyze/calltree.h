/*
 * calltree: the top-down call tree of a profile (every distinct call path
 * from the roots, with its inclusive and self samples), and an index from a
 * stack's frame names back to the profile's functions (for their modules).
 * The tree, flame graph and callers/callees reports read them.
 */
#ifndef PA_CALLTREE_H
#define PA_CALLTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Index of no node: a leaf's first_child, a last child's next. */
#define PA_CALLTREE_NONE ((size_t)-1)

struct pa_calltree_node {
	const struct pa_func *func; /* NULL for the root; points into the profile */
	uint64_t total;  /* samples whose stack starts with this path */
	uint64_t self;   /* samples whose stack is exactly this path */
	size_t parent;   /* PA_CALLTREE_NONE for the root */
	size_t first_child; /* children sorted by total desc, then name */
	size_t next;     /* next sibling */
	size_t depth;    /* 0 for the root, 1 for a stack's outermost frame */
};

struct pa_calltree {
	struct pa_calltree_node *nodes; /* nodes[0] is the root: every sample */
	size_t nnodes;
	size_t max_depth; /* deepest node's depth */
};

/*
 * Build the call tree of prof's stacks. The nodes' func pointers point into
 * prof, which must outlive the tree. Returns 0 and *out, to be freed with
 * pa_calltree_free, or -ENOMEM.
 */
int pa_calltree_build(const struct pa_profile *prof, struct pa_calltree **out);
void pa_calltree_free(struct pa_calltree *tree);

/* Looks up the function of a stack frame (struct pa_stack.frames[i]). */
struct pa_calltree_index;

/* Index prof's functions. Returns 0 and *out (free with _index_free), or -ENOMEM. */
int pa_calltree_index_new(const struct pa_profile *prof, struct pa_calltree_index **out);
void pa_calltree_index_free(struct pa_calltree_index *ix);

/*
 * The function of frame, a name from one of the profile's stacks: the one
 * whose name is that very string when there is one (names of functions of
 * different modules may be equal), else the first with an equal name, else
 * NULL. Points into the profile.
 */
const struct pa_func *pa_calltree_index_get(const struct pa_calltree_index *ix,
					    const char *frame);

/*
 * Print f as the text reports show it: "name (module basename)", or just the
 * name when it already reads "module+0x..." or has no module.
 */
void pa_calltree_print_func(FILE *out, const struct pa_func *f);

#endif /* PA_CALLTREE_H */
