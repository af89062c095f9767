/*
 * dlmany: loads many distinct libraries, as MPI_Init loads its components
 * or a plugin host its plugins, and keeps them loaded: the test of samples
 * taken inside dlopen (their stacks go on through the loader to the
 * caller).
 *
 *   dlmany COUNT DIR
 *
 * For each of COUNT copies of libreload.so (beside this program), written
 * to DIR (an existing directory; the copies stay there for the analyzer),
 * in dlmany_load: dlopen it (RTLD_NOW), call its burn_delta briefly.
 * Nothing is dlclose'd. stdout: "dlmany loaded COUNT" and one checksum
 * line, the same in every run. Exit status 1 if a copy could not be made
 * or loaded, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl.h"

typedef uint64_t (*dlmany_fn)(uint64_t);

/* Reads the whole file at path into a malloc'd buffer; NULL on failure. */
static char *dlmany_slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		*len = 0;
		while (*len < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + *len, (size_t)st.st_size - *len);

			if (r <= 0)
				break;
			*len += (size_t)r;
		}
		if (*len != (size_t)st.st_size) {
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

static int dlmany_write(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	return close(fd) == 0 && done == len ? 0 : -1;
}

/* Loads the copy at path and calls into it; 0 when it could not. */
__attribute__((noinline)) static uint64_t dlmany_load(const char *path, unsigned long i)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	dlmany_fn fn;

	if (!h) {
		fprintf(stderr, "dlmany: %s\n", dlerror());
		return 0;
	}
	fn = (dlmany_fn)dlsym(h, "burn_delta");
	return fn ? fn(i % 1000) | 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long count;
	char lib[4200], path[4300];
	char *slash, *image;
	uint64_t sum = 0;
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: dlmany COUNT DIR\n");
		return 2;
	}
	count = strtoul(argv[1], NULL, 10);
	snprintf(lib, sizeof(lib), "%s", argv[0]);
	slash = strrchr(lib, '/');
	snprintf(slash ? slash + 1 : lib,
		 sizeof(lib) - (size_t)(slash ? slash + 1 - lib : 0), "libreload.so");
	image = dlmany_slurp(lib, &len);
	if (!image) {
		fprintf(stderr, "dlmany: cannot read %s\n", lib);
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		uint64_t r;

		snprintf(path, sizeof(path), "%s/libcopy%lu.so", argv[2], i);
		if (dlmany_write(path, image, len) != 0) {
			fprintf(stderr, "dlmany: cannot write %s\n", path);
			return 1;
		}
		r = dlmany_load(path, i);
		if (!r)
			return 1;
		sum += r;
	}
	free(image);
	printf("dlmany loaded %lu\nchecksum %llx\n", count, (unsigned long long)sum);
	return 0;
}
