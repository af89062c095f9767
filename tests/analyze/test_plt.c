/*
 * Tests of analyze/plt.c, through the symboliser: every PLT stub that
 * objdump names (binutils reads the stubs its own way, decoding each), we
 * name alike, `func@plt`, at its first byte and inside it. On the x86-64
 * layouts (lazy .plt and .plt.got, -z now, IBT's .plt.sec), on libc's
 * stubs of its own IFUNCs, and on aarch64's .plt (Debian's arm64 cross libc).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "tst_it.h"
#include "tst_log.h"

TestSuite(plt, .timeout = 60);

#define PLT_MAX 4096

/* The stubs objdump names in a file, and in which section. */
struct plt_labels {
	uint64_t addr[PLT_MAX];
	char name[PLT_MAX][256];
	char section[PLT_MAX][16];
	size_t n;
};

/* Reads `objdump -d` of the PLT sections of path: "ADDR <NAME@plt>:" lines. */
static void plt_objdump(const char *objdump, const char *path, struct plt_labels *l)
{
	char cmd[4400], line[1024], section[16] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s -d --no-show-raw-insn -j .plt -j .plt.sec -j .plt.got '%s'",
		 objdump, path);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	l->n = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr;
		char name[256];
		size_t len;

		if (sscanf(line, "Disassembly of section %15[^:]:", section) == 1)
			continue;
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2)
			continue;
		len = strlen(name);
		/* the header (realloc@plt-0x20) is no stub */
		if (len < 4 || strcmp(name + len - 4, "@plt") != 0)
			continue;
		cr_assert_lt(l->n, PLT_MAX);
		l->addr[l->n] = addr;
		snprintf(l->name[l->n], sizeof(l->name[0]), "%s", name);
		snprintf(l->section[l->n], sizeof(l->section[0]), "%s", section);
		l->n++;
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
}

/* A symboliser for the file path alone, loaded at its ELF addresses. */
static struct pa_symbols *plt_symbols(const char *path, struct pa_process *proc,
				      struct pa_module *mod)
{
	struct pa_error err = { 0 };
	struct pa_symbols *sym = NULL;

	*mod = (struct pa_module){ .id = 1, .path = (char *)path, .start = 0,
				   .end = UINT64_C(1) << 40, .unload_ns = UINT64_MAX };
	*proc = (struct pa_process){ .pid = 1, .exe = (char *)path, .path = (char *)"process.log",
				     .dir = (char *)"", .modules = mod, .nmodules = 1 };
	cr_assert_eq(pa_symbols_new(proc, &sym, NULL, &err), 0, "%s", err.reason);
	return sym;
}

/* What we name addr of sym. */
static const char *plt_name(struct pa_symbols *sym, uint64_t addr)
{
	struct pa_frame f;

	cr_assert_eq(pa_symbols_lookup_at(sym, addr, false, UINT64_MAX, &f), 0);
	return f.name;
}

/*
 * Every stub objdump names in path is named alike, at its start and 2 bytes
 * in (every stub is 8 bytes or more); objdump's "*ABS*+0xADDR@plt" (a local
 * IFUNC's stub) is named after the function at ADDR. Returns how many stubs
 * were in section (may be NULL: in any).
 */
static size_t plt_expect_as_objdump(const char *objdump, const char *path, const char *section)
{
	static struct plt_labels l;
	struct pa_process proc;
	struct pa_module mod;
	struct pa_symbols *sym;
	size_t in_section = 0;

	plt_objdump(objdump, path, &l);
	cr_assert_gt(l.n, 0, "objdump names no PLT stub in %s", path);
	sym = plt_symbols(path, &proc, &mod);
	for (size_t i = 0; i < l.n; i++) {
		char want[300];
		unsigned long long ifunc;

		if (sscanf(l.name[i], "*ABS*+0x%llx@plt", &ifunc) == 1) {
			snprintf(want, sizeof(want), "%s@plt", plt_name(sym, ifunc));
			cr_expect_null(strstr(want, "+0x"), "%s: no function at 0x%llx", path, ifunc);
		} else
			snprintf(want, sizeof(want), "%s", l.name[i]);
		cr_expect_str_eq(plt_name(sym, l.addr[i]), want, "%s: stub at 0x%llx in %s", path,
				 (unsigned long long)l.addr[i], l.section[i]);
		cr_expect_str_eq(plt_name(sym, l.addr[i] + 2), want, "%s: 2 bytes into 0x%llx",
				 path, (unsigned long long)l.addr[i]);
		in_section += !section || strcmp(l.section[i], section) == 0;
	}
	pa_symbols_free(sym);
	return in_section;
}

/* The path of workload name of the build. */
static void plt_workload(char *buf, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "workloads/%s", name);
	tst_build_path(buf, rel);
	cr_assert(access(buf, R_OK) == 0, "%s missing: run make tests-build", buf);
}

Test(plt, names_lazy_plt_and_plt_got_stubs_as_objdump)
{
	char path[TST_PATH_MAX];
	struct pa_process proc;
	struct pa_module mod;
	struct pa_symbols *sym;

	plt_workload(path, "pltcalls");
	cr_expect_gt(plt_expect_as_objdump("objdump", path, ".plt"), 5);
	/* free's address is taken too: its stub is in .plt.got */
	cr_expect_gt(plt_expect_as_objdump("objdump", path, ".plt.got"), 0);
	sym = plt_symbols(path, &proc, &mod);
	cr_expect_str_eq(plt_name(sym, tst_log_nm(path, "main", NULL)), "main");
	pa_symbols_free(sym);
}

Test(plt, names_bind_now_stubs_as_objdump)
{
	char path[TST_PATH_MAX];

	plt_workload(path, "pltcalls-now");
	cr_expect_gt(plt_expect_as_objdump("objdump", path, NULL), 5);
}

Test(plt, names_ibt_plt_sec_stubs_as_objdump)
{
	char path[TST_PATH_MAX];

	plt_workload(path, "pltcalls-ibt");
	cr_expect_gt(plt_expect_as_objdump("objdump", path, ".plt.sec"), 5);
	cr_expect_gt(plt_expect_as_objdump("objdump", path, ".plt.got"), 0);
}

Test(plt, names_libc_stubs_of_its_own_ifuncs)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = h ? dlsym(h, "qsort") : NULL;
	struct tst_log_self libc;

	cr_assert(fn, "%s", dlerror());
	tst_log_self_module(fn, &libc);
	cr_expect_gt(plt_expect_as_objdump("objdump", libc.path, ".plt"), 5);
}

Test(plt, names_aarch64_stubs_as_objdump)
{
	static const char libc[] = "/usr/aarch64-linux-gnu/lib/libc.so.6";
	static const char objdump[] = "/usr/bin/aarch64-linux-gnu-objdump";

	if (access(libc, R_OK) != 0 || access(objdump, X_OK) != 0)
		cr_skip_test("%s or %s missing (Debian's libc6-arm64-cross and "
			     "binutils-aarch64-linux-gnu: make deps installs them)", libc, objdump);
	cr_expect_gt(plt_expect_as_objdump(objdump, libc, ".plt"), 5);
}
