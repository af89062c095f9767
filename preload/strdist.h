/* strdist: edit distance, for "did you mean ...?" suggestions. */
#ifndef PP_STRDIST_H
#define PP_STRDIST_H

/*
 * Levenshtein distance between a and b, ignoring case; strings longer than
 * 63 bytes count as far from everything.
 */
unsigned pp_strdist(const char *a, const char *b);

/* Whether a distance d from word is close enough to suggest. */
int pp_strdist_close(const char *word, unsigned d);

/*
 * The candidate closest to word, or NULL when none is close enough.
 * cands holds n strings.
 */
const char *pp_strdist_closest(const char *word, const char *const *cands,
			       unsigned n);

#endif
