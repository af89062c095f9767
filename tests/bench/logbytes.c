/*
 * logbytes: what a run's output directory holds, for bytes per sample.
 *
 *   logbytes DIR
 *
 * Prints one line "DISK RECORDS": the size of every file under DIR (the
 * logs as allocated, the vDSO's image at the root), and the bytes of their records (a
 * log counted up to its last record, as the reader reads it; other files
 * whole).
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/format.h"

static unsigned long long logbytes_disk, logbytes_records;

/* The bytes of path's records: its header and records up to a zero one or its end. */
static unsigned long long logbytes_log(const char *path)
{
	struct ppf_file_header h;
	unsigned long long off;
	struct ppf_record r;
	FILE *f = fopen(path, "rb");

	if (!f || fread(&h, sizeof(h), 1, f) != 1) {
		if (f)
			fclose(f);
		return 0;
	}
	for (off = h.header_size; fseek(f, (long)off, SEEK_SET) == 0 &&
	     fread(&r, sizeof(r), 1, f) == 1 && r.size >= sizeof(r); off += r.size)
		;
	fclose(f);
	return off;
}

static int logbytes_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)ftw;
	if (type != FTW_F)
		return 0;
	logbytes_disk += (unsigned long long)st->st_size;
	if (n > strlen(PPF_LOG_SUFFIX) && strcmp(path + n - strlen(PPF_LOG_SUFFIX),
						 PPF_LOG_SUFFIX) == 0)
		logbytes_records += logbytes_log(path);
	else
		logbytes_records += (unsigned long long)st->st_size;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: logbytes DIR\n");
		return 2;
	}
	if (nftw(argv[1], logbytes_file, 16, FTW_PHYS) != 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%llu %llu\n", logbytes_disk, logbytes_records);
	return 0;
}
