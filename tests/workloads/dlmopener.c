/*
 * dlmopener LIB SECONDS: loads the shared object LIB in a link-map
 * namespace of its own (dlmopen LM_ID_NEWLM, as plugin hosts and LD_AUDIT
 * tools do), calls its burn_gamma from dlmopener_call until the thread has
 * used SECONDS of CPU, then dlcloses it. Prints "dlmopener: done".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "wl.h"

/* Not a tail call: its frame stays on the stack under burn_gamma. */
__attribute__((noinline, noclone)) static uint64_t dlmopener_call(uint64_t (*burn)(uint64_t))
{
	return burn(WL_CHUNK / 4) + 1;
}

int main(int argc, char **argv)
{
	uint64_t (*burn)(uint64_t);
	double end;
	void *h;

	if (argc < 3)
		return 2;
	h = dlmopen(LM_ID_NEWLM, argv[1], RTLD_NOW);
	burn = h ? (uint64_t (*)(uint64_t))dlsym(h, "burn_gamma") : NULL;
	if (!burn) {
		fprintf(stderr, "dlmopener: %s\n", dlerror());
		return 3;
	}
	end = wl_thread_cpu() + atof(argv[2]);
	while (wl_thread_cpu() < end)
		dlmopener_call(burn);
	dlclose(h);
	puts("dlmopener: done");
	return 0;
}
