/* Edit distance for suggestions; small inputs, so the plain O(n*m) table. */
#include "strdist.h"

#include <ctype.h>
#include <string.h>

#define PP_STRDIST_MAX 64

unsigned pp_strdist(const char *a, const char *b)
{
	unsigned row[PP_STRDIST_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la >= PP_STRDIST_MAX || lb >= PP_STRDIST_MAX)
		return ~0u;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			unsigned best = diag + (same ? 0 : 1);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

int pp_strdist_close(const char *word, unsigned d)
{
	size_t len = strlen(word);

	return d > 0 && d <= (len < 6 ? 1u : len < 12 ? 2u : 3u);
}

const char *pp_strdist_closest(const char *word, const char *const *cands,
			       unsigned n)
{
	const char *best = NULL;
	unsigned best_d = ~0u;

	for (unsigned i = 0; i < n; i++) {
		unsigned d = pp_strdist(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best && pp_strdist_close(word, best_d) ? best : NULL;
}
