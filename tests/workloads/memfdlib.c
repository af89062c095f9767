/*
 * memfdlib LIB SECONDS: copies the shared object LIB into a memfd, dlopens
 * it by /proc/self/fd/N (as programs that unpack a plugin in memory do) and
 * calls its burn_gamma until the thread has used SECONDS of CPU. The
 * object has no path a reader could open. Prints "memfdlib: done".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

int main(int argc, char **argv)
{
	char buf[65536], name[64];
	uint64_t (*burn)(uint64_t);
	int in, fd;
	ssize_t n;
	double end;
	void *h;

	if (argc < 3)
		return 2;
	in = open(argv[1], O_RDONLY);
	fd = memfd_create("burnlib", 0);
	if (in < 0 || fd < 0)
		return 3;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return 4;
	close(in);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	h = dlopen(name, RTLD_NOW);
	burn = h ? (uint64_t (*)(uint64_t))dlsym(h, "burn_gamma") : NULL;
	if (!burn)
		return 5;
	end = wl_thread_cpu() + atof(argv[2]);
	while (wl_thread_cpu() < end)
		burn(WL_CHUNK / 4);
	puts("memfdlib: done");
	return 0;
}
