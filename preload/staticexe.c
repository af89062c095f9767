/* Programs the preload cannot enter: statically linked ones; see staticexe.h. */
#include "staticexe.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof/format.h"
#include "process.h"
#include "warn.h"

/* The kernel follows #! this deep (binfmt_script, BINPRM_MAX_RECURSION). */
#define PP_STATICEXE_DEPTH 4
/* Program headers and dynamic entries looked at, at the most. */
#define PP_STATICEXE_MAX_PHDRS 256
#define PP_STATICEXE_MAX_DYN 4096
#define PP_STATICEXE_MARKER ".libpprof-static-"
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PP_STATICEXE_DATA ELFDATA2MSB
#else
#define PP_STATICEXE_DATA ELFDATA2LSB
#endif

/* An ELF file's program header (either class), the fields needed. */
struct pp_staticexe_ph {
	uint32_t type;
	uint64_t offset;
	uint64_t filesz;
};

static int pp_staticexe_read(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* Program header i of the ELF file fd (class cls), or -1. */
static int pp_staticexe_phdr(int fd, int cls, uint64_t phoff, unsigned phentsize, unsigned i,
			     struct pp_staticexe_ph *ph)
{
	uint64_t off = phoff + (uint64_t)i * phentsize;

	if (cls == ELFCLASS64) {
		Elf64_Phdr p;

		if (phentsize < sizeof(p) || pp_staticexe_read(fd, &p, sizeof(p), off))
			return -1;
		*ph = (struct pp_staticexe_ph){ p.p_type, p.p_offset, p.p_filesz };
	} else {
		Elf32_Phdr p;

		if (phentsize < sizeof(p) || pp_staticexe_read(fd, &p, sizeof(p), off))
			return -1;
		*ph = (struct pp_staticexe_ph){ p.p_type, p.p_offset, p.p_filesz };
	}
	return 0;
}

/* Whether the dynamic section at dyn (class cls) has a DT_SONAME. */
static int pp_staticexe_has_soname(int fd, int cls, const struct pp_staticexe_ph *dyn)
{
	size_t entsize = cls == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t n = dyn->filesz / entsize;

	for (uint64_t i = 0; i < n && i < PP_STATICEXE_MAX_DYN; i++) {
		int64_t tag;

		if (cls == ELFCLASS64) {
			Elf64_Dyn d;

			if (pp_staticexe_read(fd, &d, sizeof(d), dyn->offset + i * entsize))
				return 0;
			tag = d.d_tag;
		} else {
			Elf32_Dyn d;

			if (pp_staticexe_read(fd, &d, sizeof(d), dyn->offset + i * entsize))
				return 0;
			tag = d.d_tag;
		}
		if (tag == DT_NULL)
			return 0;
		if (tag == DT_SONAME)
			return 1;
	}
	return 0;
}

/* Whether the ELF file fd (its first bytes in head) runs without a loader. */
static int pp_staticexe_elf(int fd, const unsigned char *head, size_t n)
{
	struct pp_staticexe_ph ph, dyn = { 0 };
	uint64_t phoff;
	unsigned phnum, phentsize, type;
	int cls = head[EI_CLASS];

	if (cls == ELFCLASS64 && n >= sizeof(Elf64_Ehdr)) {
		const Elf64_Ehdr *e = (const Elf64_Ehdr *)head;

		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
		type = e->e_type;
	} else if (cls == ELFCLASS32 && n >= sizeof(Elf32_Ehdr)) {
		const Elf32_Ehdr *e = (const Elf32_Ehdr *)head;

		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
		type = e->e_type;
	} else {
		return 0;
	}
	/* Only what the kernel would start (a foreign byte order is not). */
	if ((type != ET_EXEC && type != ET_DYN) || phnum == 0 ||
	    phnum > PP_STATICEXE_MAX_PHDRS || head[EI_DATA] != PP_STATICEXE_DATA)
		return 0;
	for (unsigned i = 0; i < phnum; i++) {
		if (pp_staticexe_phdr(fd, cls, phoff, phentsize, i, &ph))
			return 0;
		if (ph.type == PT_INTERP)
			return 0;
		if (ph.type == PT_DYNAMIC)
			dyn = ph;
	}
	/* ld.so run as a program has no PT_INTERP either, and it reads LD_PRELOAD. */
	return !(dyn.type == PT_DYNAMIC && pp_staticexe_has_soname(fd, cls, &dyn));
}

/*
 * The interpreter of the script whose first n bytes are head ("#!" seen),
 * as the kernel reads it: blanks, then up to the next blank or newline.
 * Written into buf; NULL when the line names none.
 */
static const char *pp_staticexe_interp(const unsigned char *head, size_t n, char *buf,
				       size_t size)
{
	size_t i = 2, k = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < n && k + 1 < size && head[i] != ' ' && head[i] != '\t' &&
	       head[i] != '\n' && head[i] != '\0')
		buf[k++] = (char)head[i++];
	buf[k] = '\0';
	return k ? buf : NULL;
}

static int pp_staticexe_check(int dirfd, const char *path, int depth)
{
	unsigned char head[256];
	char interp[256];
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	if (depth > PP_STATICEXE_DEPTH || faccessat(dirfd, path, X_OK, 0) != 0)
		return 0;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (n = pread(fd, head, sizeof(head), 0)) < 4)
		goto out_close;
	if (memcmp(head, ELFMAG, SELFMAG) == 0 && (size_t)n >= EI_NIDENT)
		ret = pp_staticexe_elf(fd, head, (size_t)n);
	else if (head[0] == '#' && head[1] == '!' &&
		 pp_staticexe_interp(head, (size_t)n, interp, sizeof(interp)))
		ret = pp_staticexe_check(AT_FDCWD, interp, depth + 1);
out_close:
	close(fd);
	return ret;
}

int pp_staticexe_is(int dirfd, const char *path)
{
	int saved = errno, ret = path && path[0] ? pp_staticexe_check(dirfd, path, 0) : 0;

	errno = saved;
	return ret;
}

const char *pp_staticexe_find(const char *file, char *buf, unsigned long size)
{
	const char *dirs = getenv("PATH"), *p, *end;
	size_t flen = strlen(file);
	int saved = errno;
	struct stat st;

	if (strchr(file, '/'))
		return file;
	/* glibc's default search path when PATH is unset. */
	for (p = dirs ? dirs : "/bin:/usr/bin"; flen; p = end + 1) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		/* An empty entry is the current directory. */
		if (dlen + flen + 2 <= size) {
			memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
			dlen = dlen ? dlen : 1;
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen + 1);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
				errno = saved;
				return buf;
			}
		}
		if (!*end)
			break;
	}
	errno = saved;
	return NULL;
}

/*
 * Whether this is the run's first word about a static program: the marker
 * file beside the process directories, named after the run (PPROF_RUN, set
 * by the run's first process: init.c), is ours to make. Said anyway where
 * there is no output directory or no run name to share.
 */
static int pp_staticexe_first(void)
{
	const char *run = getenv("PPROF_RUN");
	char name[sizeof(PP_STATICEXE_MARKER) + 64];
	int dirfd = pp_process_rootfd(), fd;

	if (dirfd < 0 || !run || !run[0] || strlen(run) > 63 || strchr(run, '/'))
		return 1;
	snprintf(name, sizeof(name), "%s%s", PP_STATICEXE_MARKER, run);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno != EEXIST;
}

void pp_staticexe_note(int pid, const char *path)
{
	int saved = errno;

	pp_process_unprofiled(pid, PPF_UNPROFILED_STATIC, path);
	if (pp_staticexe_first())
		pp_warn("%s is statically linked: no dynamic loader reads LD_PRELOAD there, so "
			"it runs unprofiled (said once per run; pprof-analyze names every such "
			"program the run started)", path);
	errno = saved;
}
