/*
 * dlreuse: loads libburn.so, burns in its burn_gamma, unloads it; then
 * loads libreload.so (usually at the same address) and burns in its
 * burn_delta; ROUNDS times. Prints whether the two were loaded at the same
 * address at least once.
 *
 *   dlreuse [SECONDS [ROUNDS]]   CPU seconds per burn (default 0.1), rounds (3)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

typedef uint64_t (*dlreuse_fn)(uint64_t);

static volatile uint64_t dlreuse_sink;

/* Loads lib (beside this program), burns in func for seconds, unloads it. */
static uintptr_t dlreuse_once(const char *self_dir, const char *lib, const char *func,
			      double seconds)
{
	char path[4200];
	struct link_map *map = NULL;
	dlreuse_fn fn;
	uintptr_t base;
	void *h;
	double until;

	snprintf(path, sizeof(path), "%s/%s", self_dir, lib);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h || !(fn = (dlreuse_fn)dlsym(h, func)) || dlinfo(h, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "dlreuse: %s\n", dlerror());
		exit(1);
	}
	base = map->l_addr;
	until = wl_thread_cpu() + seconds;
	while (wl_thread_cpu() < until)
		dlreuse_sink += fn(WL_CHUNK / 4);
	dlclose(h);
	return base;
}

int main(int argc, char **argv)
{
	double seconds = wl_seconds(argc > 1 ? argv[1] : NULL, 0.1);
	int rounds = argc > 2 ? atoi(argv[2]) : 3, same = 0;
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	if (n <= 0)
		return 1;
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	for (int i = 0; i < rounds; i++) {
		uintptr_t a = dlreuse_once(dir, "libburn.so", "burn_gamma", seconds);
		uintptr_t b = dlreuse_once(dir, "libreload.so", "burn_delta", seconds);

		same += a == b;
	}
	printf("dlreuse: same address %s\n", same ? "yes" : "no");
	return 0;
}
