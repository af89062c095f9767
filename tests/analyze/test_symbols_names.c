/*
 * Tests of the names analyze/symbols.c picks among aliases at one address:
 * the ones users know and perf shows, on glibc, whose functions have
 * several (malloc and __libc_malloc, free and cfree@GLIBC_2.2.5 and
 * __libc_free, read and __read and __libc_read, glibc's memmove and memcpy
 * variants), from libc6-dbg's .symtab and from libc's own .dynsym alone.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "symbols.h"
#include "tst_log.h"

TestSuite(symbols_names, .timeout = 30);

/* libc in memory, and a symboliser for it. */
struct sn_libc {
	struct tst_log_self self;
	struct pa_module mod;
	struct pa_process proc;
	struct pa_symbols *sym;
	void *handle;
};

/* debuginfo_path: NULL for the default (libc6-dbg's .symtab), else where to look. */
static void sn_libc_open(struct sn_libc *l, const char *debuginfo_path)
{
	struct pa_symbols_opts opts = { .debuginfo_path = debuginfo_path };
	struct pa_error err = { 0 };
	void *qsort_fn;

	memset(l, 0, sizeof(*l));
	l->handle = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	qsort_fn = l->handle ? dlsym(l->handle, "qsort") : NULL;
	cr_assert(qsort_fn, "%s", dlerror());
	tst_log_self_module(qsort_fn, &l->self);
	l->mod = (struct pa_module){ .id = 1, .path = l->self.path, .bias = l->self.bias,
				     .start = l->self.start, .end = l->self.end,
				     .unload_ns = UINT64_MAX };
	l->proc = (struct pa_process){ .pid = 1, .exe = l->self.path, .path = (char *)"process.log",
				       .dir = (char *)"", .modules = &l->mod, .nmodules = 1 };
	cr_assert_eq(pa_symbols_new_opts(&l->proc, &opts, &l->sym, NULL, &err), 0, "%s",
		     err.reason);
}

static void sn_libc_close(struct sn_libc *l)
{
	pa_symbols_free(l->sym);
	dlclose(l->handle);
}

/* The name of what libc's dlsym(name) points to, looked up 1 byte in. */
static const char *sn_name_of(struct sn_libc *l, const char *name)
{
	void *fn = dlsym(l->handle, name);
	struct pa_frame f;

	cr_assert(fn, "libc has no %s", name);
	cr_assert_eq(pa_symbols_lookup_at(l->sym, (uint64_t)(uintptr_t)fn + 1, false, UINT64_MAX,
					  &f), 0);
	return f.name;
}

/* malloc, free, ... as users call them, not __libc_malloc, cfree or __libc_free. */
static void sn_expect_public_names(struct sn_libc *l)
{
	static const char *const names[] = { "malloc", "free", "calloc", "realloc", "read",
					     "write" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_expect_str_eq(sn_name_of(l, names[i]), names[i], "%s (%s)", names[i],
				 l->self.path);
}

Test(symbols_names, names_libc_functions_as_users_call_them)
{
	struct sn_libc l;

	sn_libc_open(&l, NULL);
	sn_expect_public_names(&l);
	sn_libc_close(&l);
}

Test(symbols_names, names_them_alike_from_dynsym_alone)
{
	const struct pa_srcframe *src;
	struct sn_libc l;
	size_t n;

	/* no separate debug info: libc's own .dynsym, where versions are in .gnu.version */
	sn_libc_open(&l, "/nonexistent");
	sn_expect_public_names(&l);
	/* and it is that alone: no source lines */
	cr_assert_eq(pa_symbols_lookup_src(l.sym, (uint64_t)(uintptr_t)dlsym(l.handle, "malloc") + 1,
					   false, UINT64_MAX, &src, &n), 0);
	cr_expect(n == 0 || !src[0].file, "malloc has a line: %s:%u", src[0].file, src[0].line);
	sn_libc_close(&l);
}

Test(symbols_names, keeps_the_ifunc_variant_perf_names)
{
	struct sn_libc l;
	char memmove_name[256];

	sn_libc_open(&l, NULL);
	/* dlsym resolves the IFUNC: the variant that runs here, also memcpy's alias */
	snprintf(memmove_name, sizeof(memmove_name), "%s", sn_name_of(&l, "memmove"));
	cr_expect(strncmp(memmove_name, "__memmove_", 10) == 0, "memmove runs as %s",
		  memmove_name);
	if (dlsym(l.handle, "memcpy") == dlsym(l.handle, "memmove"))
		cr_expect_str_eq(sn_name_of(&l, "memcpy"), memmove_name);
	sn_libc_close(&l);
}
