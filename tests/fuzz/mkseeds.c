/*
 * mkseeds: fuzz_reader's seeds from real runs (tests/fuzz/seeds.sh).
 *
 *   mkseeds PREFIX PROCLOG...
 *
 * For every process log <root>/P.log, writes PREFIX<P>: that log, then
 * its first MKSEEDS_THREADS thread logs beside it (P.thread-<tid>.log, by
 * name), then its P.wall.log if it has one, laid end to end as
 * fuzz_reader reads an input. Each log
 * is cut after its last record (thread logs are preallocated: the rest is
 * zeros) and keeps its first MKSEEDS_SAMPLES sample records (whole samples
 * or sample blocks; in wall.log, intervals) and every other record (its
 * stack records too), so that a seed stays a few KiB and holds every kind
 * of record its run wrote. Exits 1 when a log cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprof/format.h"

#define MKSEEDS_THREADS 8
#define MKSEEDS_SAMPLES 16

/* The whole file at path, malloc'd, into *size; NULL (said on stderr) if unreadable. */
static char *mkseeds_slurp(const char *path, size_t *size)
{
	char *buf = NULL;
	long len;
	FILE *f;

	errno = 0;
	f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0 || !(buf = malloc((size_t)len + 1)) ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "mkseeds: %s: %s\n", path, errno ? strerror(errno) : "short read");
		free(buf);
		buf = NULL;
	}
	*size = buf ? (size_t)len : 0;
	if (f)
		fclose(f);
	return buf;
}

/* Appends the log at path to out, trimmed as the header comment says. */
static int mkseeds_log(FILE *out, const char *path)
{
	struct ppf_file_header h;
	size_t size, off, samples = 0;
	char *buf = mkseeds_slurp(path, &size);

	if (!buf)
		return -1;
	if (size < sizeof(h)) {
		fprintf(stderr, "mkseeds: %s: too short for a header\n", path);
		free(buf);
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	off = h.header_size <= size ? h.header_size : size;
	fwrite(buf, 1, off, out);
	while (size - off >= sizeof(struct ppf_record)) {
		struct ppf_record r;

		memcpy(&r, buf + off, sizeof(r));
		if (r.size < sizeof(r) || r.size > size - off)
			break; /* the zero tail, or a record cut short */
		if ((r.type != PPF_REC_SAMPLE && r.type != PPF_REC_SAMPLE_BLOCK &&
		     r.type != PPF_REC_WALL_INTERVAL) || samples++ < MKSEEDS_SAMPLES)
			fwrite(buf + off, 1, r.size, out);
		off += r.size;
	}
	free(buf);
	return 0;
}

/* P + ".thread-" of the process whose thread logs mkseeds_is_thread_log picks. */
static char mkseeds_want[4096];

static int mkseeds_is_thread_log(const struct dirent *d)
{
	size_t n = strlen(d->d_name), w = strlen(mkseeds_want);

	return strncmp(d->d_name, mkseeds_want, w) == 0 && n > w + strlen(PPF_LOG_SUFFIX) &&
	       strspn(d->d_name + w, "0123456789") == n - w - strlen(PPF_LOG_SUFFIX) &&
	       strcmp(d->d_name + n - strlen(PPF_LOG_SUFFIX), PPF_LOG_SUFFIX) == 0;
}

/* Writes prefix<P>, the seed of the process whose log is log, <root>/P.log. */
static int mkseeds_process(const char *prefix, const char *log)
{
	size_t len = strlen(log), sl = strlen(PPF_LOG_SUFFIX);
	const char *base;
	char path[8192], root[4096];
	struct dirent **names;
	int n, ret;
	FILE *out;

	if (len <= sl || strcmp(log + len - sl, PPF_LOG_SUFFIX) != 0) {
		fprintf(stderr, "mkseeds: %s: not a process log (<P>.log)\n", log);
		return -1;
	}
	len -= sl;
	for (base = log + len; base > log && base[-1] != '/'; base--)
		;
	snprintf(root, sizeof(root), "%.*s", base > log ? (int)(base - log) : 1,
		 base > log ? log : ".");
	snprintf(mkseeds_want, sizeof(mkseeds_want), "%.*s.%s", (int)(log + len - base), base,
		 PPF_THREAD_LOG_PREFIX);
	snprintf(path, sizeof(path), "%s%.*s", prefix, (int)(log + len - base), base);
	out = fopen(path, "wb");
	if (!out) {
		fprintf(stderr, "mkseeds: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = mkseeds_log(out, log);
	n = scandir(root, &names, mkseeds_is_thread_log, alphasort);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, names[i]->d_name);
		if (ret == 0 && i < MKSEEDS_THREADS)
			ret = mkseeds_log(out, path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	snprintf(path, sizeof(path), "%.*s.%s", (int)len, log, PPF_WALL_LOG);
	if (ret == 0 && access(path, F_OK) == 0)
		ret = mkseeds_log(out, path);
	if (fclose(out) != 0)
		ret = -1;
	return ret;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mkseeds PREFIX PROCLOG...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (mkseeds_process(argv[1], argv[i]) < 0)
			status = 1;
	return status;
}
