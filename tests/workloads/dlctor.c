/*
 * dlctor: loads a library whose constructor does the work, as plugins
 * with heavy static initializers do (and MPI_Init's components): the test
 * of samples taken in a constructor that dlopen runs.
 *
 *   dlctor LIBRARY
 *
 * dlopen(LIBRARY) from dlctor_load; with libslowinit.so and
 * SLOWINIT_SECONDS set, its constructor burns that much CPU in burn_ctor
 * inside the dlopen. stdout: "dlctor: loaded"; exit status 1 when the
 * library cannot be loaded (dlerror on stderr), 2 on bad arguments.
 */
#include <dlfcn.h>
#include <stdio.h>

void *dlctor_load(const char *path);

__attribute__((noinline)) void *dlctor_load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	/* Not a tail call: this frame stays on the stack under dlopen. */
	__asm__ volatile("" ::: "memory");
	return h;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dlctor LIBRARY\n");
		return 2;
	}
	if (!dlctor_load(argv[1])) {
		fprintf(stderr, "dlctor: %s\n", dlerror());
		return 1;
	}
	printf("dlctor: loaded\n");
	return 0;
}
