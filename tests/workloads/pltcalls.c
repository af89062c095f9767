/*
 * pltcalls: calls through the PLT, for the names a profile gives PLT stubs
 * and glibc's aliases (analyze/plt.c, analyze/symbols.c).
 *
 *   pltcalls [SECONDS]
 *
 * Until the main thread has used SECONDS of CPU (default 0.3), it
 * allocates blocks with malloc, copies into them with memcpy, frees them,
 * and calls pltcallee_next of libpltcallee.so 8 times a block: that
 * function is so small that its PLT stub gets a good share of the time.
 * free's address is also taken (pltcalls_free), so that its stub is in
 * .plt.got rather than .plt. Prints the sum of what it computed.
 *
 * The Makefile builds it three ways, for the three layouts of x86-64 PLTs:
 * pltcalls (lazy binding: .plt and .plt.got), pltcalls-now (-z now) and
 * pltcalls-ibt (-fcf-protection -z ibtplt: the stubs in .plt.sec).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

int pltcallee_next(int x);

void (*volatile pltcalls_free)(void *);
/* Sizes read through a volatile: memcpy stays a call, not inlined moves. */
static volatile size_t pltcalls_len[4] = { 64, 200, 512, 1000 };

int main(int argc, char **argv)
{
	double limit = wl_seconds(argc > 1 ? argv[1] : NULL, 0.3), start = wl_thread_cpu();
	static char src[1024];
	uint64_t sum = 0;
	int x = 1;

	pltcalls_free = free; /* taken in code, through the GOT */
	memset(src, 7, sizeof(src));
	do {
		for (unsigned i = 0; i < 4096; i++) {
			size_t len = pltcalls_len[i & 3];
			char *p = malloc(len);

			if (!p)
				return 1;
			memcpy(p, src, len);
			sum += (unsigned char)p[len - 1];
			free(p);
			for (int k = 0; k < 8; k++)
				x = pltcallee_next(x);
		}
	} while (wl_thread_cpu() - start < limit);
	printf("%llu %d %d\n", (unsigned long long)sum, x, pltcalls_free != NULL);
	return 0;
}
