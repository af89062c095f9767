/* Tests of analyze/symbols.c on real objects: the test binary, libc, libstdc++. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pa_testlog.h"
#include "symbols.h"

TestSuite(symbols, .timeout = 30);

/* Non-static so that it is in the symbol table under this name. */
__attribute__((noinline)) int pa_symtest_target(int x);
__attribute__((noinline)) int pa_symtest_target(int x)
{
	volatile int acc = x;

	for (int i = 0; i < x; i++)
		acc = acc * 31 + i;
	return acc;
}

#define SY_MAX_MODULES 4

/* An in-memory process whose modules the tests add. */
struct sy_proc {
	struct pa_process proc;
	struct pa_module mods[SY_MAX_MODULES];
	char paths[SY_MAX_MODULES][4096];
};

static void sy_proc_init(struct sy_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->proc.pid = 1;
	p->proc.exe = (char *)"/proc/self/exe";
	p->proc.path = (char *)"process.log";
	p->proc.dir = (char *)"";
	p->proc.modules = p->mods;
}

static struct pa_module *sy_proc_add(struct sy_proc *p, const char *path, uint64_t bias,
				     uint64_t start, uint64_t end)
{
	struct pa_module *m = &p->mods[p->proc.nmodules];

	cr_assert_lt(p->proc.nmodules, SY_MAX_MODULES);
	snprintf(p->paths[p->proc.nmodules], sizeof(p->paths[0]), "%s", path);
	memset(m, 0, sizeof(*m));
	m->id = p->proc.nmodules + 1;
	m->path = p->paths[p->proc.nmodules];
	m->bias = bias;
	m->start = start;
	m->end = end;
	m->unload_ns = UINT64_MAX;
	p->proc.nmodules++;
	return m;
}

/* Add the loaded object holding addr, as the preload would record it. */
static struct pa_module *sy_proc_add_real(struct sy_proc *p, const void *addr)
{
	struct pa_testlog_self self;
	struct pa_module *m;

	pa_testlog_self_module(addr, &self);
	m = sy_proc_add(p, self.path, self.bias, self.start, self.end);
	m->build_id_len = self.build_id_len;
	memcpy(m->build_id, self.build_id, self.build_id_len);
	return m;
}

static struct pa_symbols *sy_new(struct sy_proc *p, struct pa_warnings *warn)
{
	struct pa_error err = { 0 };
	struct pa_symbols *sym = NULL;

	cr_assert_eq(pa_symbols_new(&p->proc, &sym, warn, &err), 0, "%s", err.reason);
	return sym;
}

static uint64_t sy_addr(const void *fn)
{
	return (uint64_t)(uintptr_t)fn;
}

Test(symbols, resolves_function_of_the_test_binary)
{
	struct pa_warnings warn = { 0 };
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;
	struct pa_module *m;
	uint64_t ip = sy_addr(pa_symtest_target) + 4;

	sy_proc_init(&p);
	m = sy_proc_add_real(&p, pa_symtest_target);
	sym = sy_new(&p, &warn);
	cr_assert_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(pa_symbols_lookup(sym, ip, false, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	cr_assert_str_eq(f.function, "pa_symtest_target");
	cr_assert_eq(f.func_offset, 4);
	cr_assert_str_eq(f.module, m->path);
	cr_assert_str_eq(f.module_base, "run-tests");
	cr_assert_eq(f.offset, ip - m->bias);
	/* a second lookup comes from the cache and says the same */
	cr_assert_eq(pa_symbols_lookup(sym, ip, false, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	pa_symbols_free(sym);
	pa_warnings_release(&warn);
}

Test(symbols, looks_up_caller_frames_at_ip_minus_one)
{
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;
	uint64_t start = sy_addr(pa_symtest_target);

	sy_proc_init(&p);
	sy_proc_add_real(&p, pa_symtest_target);
	sym = sy_new(&p, NULL);
	/* a return address just past the function's first byte is still in it */
	cr_assert_eq(pa_symbols_lookup(sym, start + 1, true, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	/* a return address equal to its start belongs to what precedes it */
	cr_assert_eq(pa_symbols_lookup(sym, start, true, &f), 0);
	cr_assert_str_neq(f.name, "pa_symtest_target");
	/* the interrupted IP is looked up as is */
	cr_assert_eq(pa_symbols_lookup(sym, start, false, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	pa_symbols_free(sym);
}

Test(symbols, resolves_libc_function)
{
	/* libc's own qsort, not a sanitizer's interceptor of it */
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = h ? dlsym(h, "qsort") : NULL;
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	cr_assert(fn, "%s", dlerror());
	sy_proc_init(&p);
	sy_proc_add_real(&p, pa_symtest_target);
	sy_proc_add_real(&p, fn);
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup(sym, sy_addr(fn) + 2, false, &f), 0);
	cr_assert_str_eq(f.name, "qsort");
	cr_assert(strncmp(f.module_base, "libc.so", 7) == 0, "%s", f.module_base);
	pa_symbols_free(sym);
}

Test(symbols, demangles_cxx_names)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW);
	void *fn;
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	cr_assert(h, "%s", dlerror());
	fn = dlsym(h, "_ZNSt9exceptionD1Ev"); /* std::exception::~exception() */
	cr_assert(fn);
	sy_proc_init(&p);
	sy_proc_add_real(&p, fn);
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup(sym, sy_addr(fn), false, &f), 0);
	cr_assert_str_eq(f.name, "std::exception::~exception()");
	pa_symbols_free(sym);
}

Test(symbols, names_unreadable_module_plus_offset)
{
	struct pa_warnings warn = { 0 };
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	sy_proc_init(&p);
	sy_proc_add(&p, "/nonexistent/libgone.so", 0x10000, 0x10000, 0x20000);
	sym = sy_new(&p, &warn);
	cr_assert_eq(warn.n, 1);
	cr_assert_str_eq(warn.v[0].path, "/nonexistent/libgone.so");
	cr_assert_eq(pa_symbols_lookup(sym, 0x11234, true, &f), 0);
	cr_assert_str_eq(f.name, "libgone.so+0x1234");
	cr_assert_null(f.function);
	cr_assert_eq(f.offset, 0x1234);
	pa_symbols_free(sym);
	pa_warnings_release(&warn);
}

Test(symbols, names_address_outside_modules_unknown)
{
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	sy_proc_init(&p);
	sy_proc_add_real(&p, pa_symtest_target);
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup(sym, 0x10, false, &f), 0);
	cr_assert_str_eq(f.name, "[unknown]");
	cr_assert_null(f.module);
	pa_symbols_free(sym);
}

Test(symbols, leaves_frames_unresolved_on_build_id_mismatch)
{
	struct pa_warnings warn = { 0 };
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;
	struct pa_module *m;
	char want[64];

	sy_proc_init(&p);
	m = sy_proc_add_real(&p, pa_symtest_target);
	cr_assert_gt(m->build_id_len, 0, "the test binary has no build-id");
	m->build_id[0] ^= 0xff;
	sym = sy_new(&p, &warn);
	cr_assert_eq(warn.n, 1);
	cr_assert(strstr(warn.v[0].reason, "build-id"), "%s", warn.v[0].reason);
	cr_assert_eq(pa_symbols_lookup(sym, sy_addr(pa_symtest_target), false, &f), 0);
	snprintf(want, sizeof(want), "run-tests+0x%llx",
		 (unsigned long long)(sy_addr(pa_symtest_target) - m->bias));
	cr_assert_str_eq(f.name, want);
	pa_symbols_free(sym);
	pa_warnings_release(&warn);
}

Test(symbols, picks_module_loaded_at_sample_time)
{
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;
	struct pa_module *real, *later;
	uint64_t ip = sy_addr(pa_symtest_target);

	sy_proc_init(&p);
	real = sy_proc_add_real(&p, pa_symtest_target);
	real->unload_ns = 100;
	later = sy_proc_add(&p, "/nonexistent/later.so", real->bias, real->start, real->end);
	later->load_ns = 100;
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup_at(sym, ip, false, 50, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	cr_assert_eq(pa_symbols_lookup_at(sym, ip, false, 150, &f), 0);
	cr_assert(strncmp(f.name, "later.so+0x", 11) == 0, "%s", f.name);
	pa_symbols_free(sym);
}
