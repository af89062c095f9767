/* Tests of analyze/symbols.c on real objects: the test binary, libc, libstdc++. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tst_log.h"
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
	struct tst_log_self self;
	struct pa_module *m;

	tst_log_self_module(addr, &self);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, ip, false, UINT64_MAX, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	cr_assert_str_eq(f.function, "pa_symtest_target");
	cr_assert_eq(f.func_offset, 4);
	cr_assert_str_eq(f.module, m->path);
	cr_assert_str_eq(f.module_base, "run-tests");
	cr_assert_eq(f.offset, ip - m->bias);
	/* a second lookup comes from the cache and says the same */
	cr_assert_eq(pa_symbols_lookup_at(sym, ip, false, UINT64_MAX, &f), 0);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, start + 1, true, UINT64_MAX, &f), 0);
	cr_assert_str_eq(f.name, "pa_symtest_target");
	/* a return address equal to its start belongs to what precedes it */
	cr_assert_eq(pa_symbols_lookup_at(sym, start, true, UINT64_MAX, &f), 0);
	cr_assert_str_neq(f.name, "pa_symtest_target");
	/* the interrupted IP is looked up as is */
	cr_assert_eq(pa_symbols_lookup_at(sym, start, false, UINT64_MAX, &f), 0);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(fn) + 2, false, UINT64_MAX, &f), 0);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(fn), false, UINT64_MAX, &f), 0);
	cr_assert_str_eq(f.name, "std::exception::~exception()");
	pa_symbols_free(sym);
}

/* Functions under Rust's manglings, v0 and legacy (a hash, $-escapes). */
int sy_rust_v0(int x) __asm__("_RNvCsbFYJioi4cCO_2rs4spin");
int sy_rust_legacy(int x) __asm__("_ZN2rs4spin17h6bd3476d1e91a058E");
int sy_rust_closure(int x) __asm__("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hb6e5b3a1c2d4e6f8E");

__attribute__((noinline, used)) int sy_rust_v0(int x)
{
	return x + 1;
}

__attribute__((noinline, used)) int sy_rust_legacy(int x)
{
	return x + 2;
}

__attribute__((noinline, used)) int sy_rust_closure(int x)
{
	return x + 3;
}

/* Rust's names as rustc's demangler (and perf) shows them: no hash, no escapes. */
Test(symbols, demangles_rust_names)
{
	static const struct {
		int (*fn)(int);
		const char *name;
	} want[] = {
		{ sy_rust_v0, "rs::spin" },
		{ sy_rust_legacy, "rs::spin" },
		{ sy_rust_closure, "std::rt::lang_start::{{closure}}" },
	};
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	sy_proc_init(&p);
	sy_proc_add_real(&p, sy_rust_v0);
	sym = sy_new(&p, NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(want[i].fn), false, UINT64_MAX,
						  &f), 0);
		cr_expect_str_eq(f.name, want[i].name);
	}
	pa_symbols_free(sym);
}

/*
 * A module without a build-id whose file changed since the run (its log's
 * PPF_REC_MODULE_FILE says the size and modification time it had as
 * mapped): of another size, not read, its frames left unresolved, said; of
 * the same size but modified since, read and said; the file as mapped is
 * read. A rebuilt binary without a build-id named other functions
 * silently.
 */
Test(symbols, a_file_without_build_id_changed_since_the_run_is_not_read)
{
	const char *from = PP_TEST_BUILD_DIR "/workloads/libnoida.so";
	char dir[] = "/tmp/pa-sym-XXXXXX", path[sizeof(dir) + 32], cmd[4200];
	struct stat st;
	uint64_t mtime;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libnoid.so", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, path);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(stat(path, &st), 0);
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	for (int k = 0; k < 3; k++) {
		struct pa_warnings warn = { 0 };
		struct pa_frame f;
		struct sy_proc p;
		struct pa_module *m;
		struct pa_symbols *sym;

		sy_proc_init(&p);
		m = sy_proc_add(&p, path, 0x10000, 0x10000, 0x20000);
		m->has_file = true;
		m->file_size = (uint64_t)st.st_size + (k == 1);
		m->file_mtime_ns = mtime + (k == 2 ? 1000000000u : 0);
		sym = sy_new(&p, &warn);
		cr_assert_eq(pa_symbols_lookup_at(sym, 0x11102, false, UINT64_MAX, &f), 0);
		if (k == 0) {
			cr_expect_str_eq(f.name, "pa_noid_alpha");
			cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
		} else if (k == 1) {
			/* Another size: another file, not read. */
			cr_expect_str_eq(f.name, "libnoid.so+0x1102");
			cr_expect(warn.n == 1 && strstr(warn.v[0].reason, "changed since the run"),
				  "%s", warn.n ? warn.v[0].reason : "no warning");
		} else {
			/* The same size, modified since: read, and said. */
			cr_expect_str_eq(f.name, "pa_noid_alpha");
			cr_expect(warn.n == 1 && strstr(warn.v[0].reason, "modified since the run"),
				  "%s", warn.n ? warn.v[0].reason : "no warning");
		}
		pa_symbols_free(sym);
		pa_warnings_release(&warn);
	}
	unlink(path);
	rmdir(dir);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, 0x11234, true, UINT64_MAX, &f), 0);
	cr_assert_str_eq(f.name, "libgone.so+0x1234");
	cr_assert_null(f.function);
	cr_assert_eq(f.offset, 0x1234);
	pa_symbols_free(sym);
	pa_warnings_release(&warn);
}

/* A module path that names no regular file: kind for tst_log_odd_file, what is said. */
struct sy_odd_case {
	char kind[16];
	char what[48];
};

ParameterizedTestParameters(symbols, leaves_module_that_is_not_a_regular_file_unresolved)
{
	static struct sy_odd_case cases[] = {
		{ "fifo", "is a FIFO, not a regular file" },
		{ "directory", "is a directory, not a regular file" },
		{ "socket", "is a socket, not a regular file" },
		{ "symlink", "is a character device, not a regular file" }, /* to /dev/zero */
		{ "device", "is a character device, not a regular file" },
	};

	return cr_make_param_array(struct sy_odd_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * A log may name any path as a module: a FIFO there used to block libdwfl's
 * open() for good. The module is left unresolved with a warning saying what
 * it is, and the other modules are read.
 */
ParameterizedTest(struct sy_odd_case *c, symbols,
		  leaves_module_that_is_not_a_regular_file_unresolved)
{
	char *dir = tst_log_tmpdir(), path[4096];
	struct pa_warnings warn = { 0 };
	struct pa_symbols *sym;
	struct pa_frame f;
	struct sy_proc p;

	snprintf(path, sizeof(path), "%s/libodd.so", dir);
	if (!tst_log_odd_file(path, c->kind)) {
		tst_log_rmdir(dir);
		cr_skip_test("cannot make a %s here (mknod needs CAP_MKNOD)", c->kind);
	}
	sy_proc_init(&p);
	sy_proc_add(&p, path, 0x10000, 0x10000, 0x20000);
	sy_proc_add_real(&p, pa_symtest_target);
	sym = sy_new(&p, &warn);
	cr_assert_eq(warn.n, 1, "%s: %zu warnings", c->kind, warn.n);
	cr_expect_str_eq(warn.v[0].path, path);
	cr_expect(strstr(warn.v[0].reason, c->what) &&
		  strstr(warn.v[0].reason, "its frames stay unresolved"), "%s: %s", c->kind,
		  warn.v[0].reason);
	cr_assert_eq(pa_symbols_lookup_at(sym, 0x11234, true, UINT64_MAX, &f), 0);
	cr_expect_str_eq(f.name, "libodd.so+0x1234");
	cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(pa_symtest_target), false, UINT64_MAX,
					  &f), 0);
	cr_expect_str_eq(f.function, "pa_symtest_target");
	pa_symbols_free(sym);
	pa_warnings_release(&warn);
	tst_log_rmdir(dir);
}

Test(symbols, names_address_outside_modules_unknown)
{
	struct pa_frame f;
	struct sy_proc p;
	struct pa_symbols *sym;

	sy_proc_init(&p);
	sy_proc_add_real(&p, pa_symtest_target);
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup_at(sym, 0x10, false, UINT64_MAX, &f), 0);
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
	cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(pa_symtest_target), false, UINT64_MAX,
					  &f), 0);
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

/*
 * Source lines, inline frames and separate debug info, on programs built
 * here from tests/workloads/inlines.c (whose "line:NAME" comments mark the
 * lines to expect).
 */
#define SY_INLINES_SRC PP_TEST_SOURCE_DIR "/tests/workloads/inlines.c"
#define SY_PIE_BIAS 0x7f1200000000ull

/* The line of the workload source holding "line:marker". */
static unsigned sy_marker_line(const char *marker)
{
	char want[64], buf[512];
	FILE *f = fopen(SY_INLINES_SRC, "r");
	unsigned line = 0;

	cr_assert(f);
	snprintf(want, sizeof(want), "line:%s */", marker);
	for (unsigned n = 1; fgets(buf, sizeof(buf), f); n++)
		if (strstr(buf, want))
			line = n;
	fclose(f);
	cr_assert_gt(line, 0, "no marker %s", marker);
	return line;
}

/* Run a shell command; the test fails when it does. */
static void sy_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sy_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "failed: %s", cmd);
}

/* Build the inlines workload into dir/name with extra gcc flags; its path. */
static char *sy_build(const char *dir, const char *name, const char *flags)
{
	char *path;

	cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	sy_sh("gcc -std=gnu11 -O2 -g %s -o '%s' '%s'", flags, path, SY_INLINES_SRC);
	return path;
}

/* A process running the program at path, loaded at bias. */
static void sy_proc_program(struct sy_proc *p, const char *path, uint64_t bias)
{
	sy_proc_init(p);
	p->proc.exe = (char *)path;
	sy_proc_add(p, path, bias, bias ? bias : 0x400000, (bias ? bias : 0x400000) + 0x100000);
}

/* The source frames of ip (a leaf frame). */
static size_t sy_src(struct pa_symbols *sym, uint64_t ip, const struct pa_srcframe **src)
{
	size_t n;

	cr_assert_eq(pa_symbols_lookup_src(sym, ip, false, UINT64_MAX, src, &n), 0);
	return n;
}

static bool sy_file_is_inlines(const char *file)
{
	size_t n = file ? strlen(file) : 0;

	return n >= 9 && strcmp(file + n - 9, "inlines.c") == 0;
}

/* Expects inl_outer of the program at path (loaded at bias) to have lines. */
static void sy_expect_lines(const char *path, uint64_t bias, const struct pa_symbols_opts *opts,
			    bool want_lines)
{
	struct pa_error err = { 0 };
	const struct pa_srcframe *src;
	struct pa_symbols *sym;
	struct sy_proc p;
	uint64_t ip = tst_log_nm(path, "inl_outer", NULL) + bias;
	size_t n;

	sy_proc_program(&p, path, bias);
	cr_assert_eq(pa_symbols_new_opts(&p.proc, opts, &sym, NULL, &err), 0);
	n = sy_src(sym, ip, &src);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(src[n - 1].function, "inl_outer");
	cr_expect_not(src[n - 1].inlined);
	if (want_lines) {
		cr_expect(sy_file_is_inlines(src[n - 1].file), "%s: file %s", path,
			  src[n - 1].file ? src[n - 1].file : "(none)");
		cr_expect_gt(src[n - 1].line, 0);
	} else {
		cr_expect_null(src[n - 1].file, "%s: file %s", path, src[n - 1].file);
	}
	pa_symbols_free(sym);
}

Test(symbols, gives_source_line_of_function)
{
	const char *path = PP_TEST_BUILD_DIR "/workloads/inlines";
	const struct pa_srcframe *src;
	struct pa_symbols *sym;
	struct sy_proc p;
	uint64_t ip = tst_log_nm(path, "inl_outer", NULL) + SY_PIE_BIAS;
	size_t n;

	sy_proc_program(&p, path, SY_PIE_BIAS);
	sym = sy_new(&p, NULL);
	n = sy_src(sym, ip, &src);
	cr_assert_eq(n, 1, "%zu frames", n);
	cr_assert_str_eq(src[0].function, "inl_outer");
	cr_assert(sy_file_is_inlines(src[0].file), "%s", src[0].file);
	/* the function's first instruction belongs to its opening lines */
	cr_assert(src[0].line > sy_marker_line("mid_call") &&
		  src[0].line <= sy_marker_line("outer_call"), "line %u", src[0].line);
	/* cached: the same frames again */
	cr_assert_eq(sy_src(sym, ip, &src), 1);
	cr_assert_str_eq(src[0].function, "inl_outer");
	pa_symbols_free(sym);
}

Test(symbols, gives_each_inline_level_a_frame)
{
	const char *path = PP_TEST_BUILD_DIR "/workloads/inlines";
	unsigned square = sy_marker_line("square"), mid = sy_marker_line("mid_call");
	unsigned outer = sy_marker_line("outer_call");
	struct pa_symbols *sym;
	struct sy_proc p;
	uint64_t size, start = tst_log_nm(path, "inl_outer", &size) + SY_PIE_BIAS;
	size_t found = 0;

	sy_proc_program(&p, path, SY_PIE_BIAS);
	sym = sy_new(&p, NULL);
	for (uint64_t ip = start; ip < start + size; ip++) {
		const struct pa_srcframe *src;
		size_t n = sy_src(sym, ip, &src);

		cr_assert_geq(n, 1);
		cr_assert_str_eq(src[n - 1].function, "inl_outer");
		cr_assert_not(src[n - 1].inlined);
		if (n != 3)
			continue;
		found++;
		cr_assert_str_eq(src[0].function, "inl_square");
		cr_assert(src[0].inlined);
		cr_assert(src[0].line >= square - 2 && src[0].line <= square + 2,
			  "inl_square at line %u", src[0].line);
		cr_assert_str_eq(src[1].function, "inl_mid");
		cr_assert(src[1].inlined);
		cr_assert_eq(src[1].line, mid, "inl_mid calls from line %u", src[1].line);
		cr_assert(sy_file_is_inlines(src[1].file));
		cr_assert_eq(src[2].line, outer, "inl_outer calls from line %u", src[2].line);
		cr_assert(sy_file_is_inlines(src[2].file));
	}
	cr_assert_gt(found, 0, "no address of inl_outer is in inl_square inlined via inl_mid");
	pa_symbols_free(sym);
}

Test(symbols, reads_lines_of_pie_and_non_pie_programs)
{
	char *dir = tst_log_tmpdir();
	char *pie = sy_build(dir, "pie", "-fPIE -pie");
	char *nopie = sy_build(dir, "nopie", "-fno-PIE -no-pie");

	sy_expect_lines(pie, SY_PIE_BIAS, NULL, true);
	sy_expect_lines(nopie, 0, NULL, true);
	free(pie);
	free(nopie);
	tst_log_rmdir(dir);
}

Test(symbols, finds_debug_info_by_gnu_debuglink)
{
	char *dir = tst_log_tmpdir();
	char *prog = sy_build(dir, "prog", "");

	sy_sh("cd '%s' && objcopy --only-keep-debug prog prog.debug && "
	      "objcopy --strip-debug --add-gnu-debuglink=prog.debug prog", dir);
	sy_expect_lines(prog, SY_PIE_BIAS, NULL, true);
	/* the lines did come from prog.debug (read again: the store keeps what it read) */
	sy_sh("mv '%s/prog.debug' '%s/moved.debug'", dir, dir);
	pa_symbols_files_release();
	sy_expect_lines(prog, SY_PIE_BIAS, NULL, false);
	free(prog);
	tst_log_rmdir(dir);
}

Test(symbols, finds_debug_info_by_build_id)
{
	char *dir = tst_log_tmpdir();
	char *prog = sy_build(dir, "prog", "-Wl,--build-id=sha1");
	struct pa_symbols_opts opts = { .debuginfo_path = dir };

	/* DIR/.build-id/xx/rest.debug, as Debian's -dbg packages install them */
	sy_sh("cd '%s' && id=$(readelf -n prog | sed -n 's/.*Build ID: //p') && "
	      "mkdir -p .build-id/$(echo $id | cut -c1-2) && "
	      "objcopy --only-keep-debug prog .build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug && "
	      "objcopy --strip-debug prog", dir);
	sy_expect_lines(prog, SY_PIE_BIAS, &opts, true);
	sy_expect_lines(prog, SY_PIE_BIAS, NULL, false);
	free(prog);
	tst_log_rmdir(dir);
}

Test(symbols, names_stripped_program_module_plus_offset)
{
	char *dir = tst_log_tmpdir();
	char *prog = sy_build(dir, "prog", "");
	const struct pa_srcframe *src;
	struct pa_symbols *sym;
	struct pa_frame f;
	struct sy_proc p;
	uint64_t vaddr = tst_log_nm(prog, "inl_outer", NULL);
	char want[64];

	sy_sh("strip --strip-all '%s'", prog);
	sy_proc_program(&p, prog, SY_PIE_BIAS);
	sym = sy_new(&p, NULL);
	cr_assert_eq(pa_symbols_lookup_at(sym, vaddr + SY_PIE_BIAS + 4, false, UINT64_MAX,
					  &f), 0);
	snprintf(want, sizeof(want), "prog+0x%llx", (unsigned long long)vaddr + 4);
	cr_assert_str_eq(f.name, want);
	cr_assert_null(f.function);
	cr_assert_eq(sy_src(sym, vaddr + SY_PIE_BIAS + 4, &src), 0);
	pa_symbols_free(sym);
	free(prog);
	tst_log_rmdir(dir);
}

Test(symbols, keeps_cxx_names_mangled_when_asked)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW);
	void *fn = h ? dlsym(h, "_ZNSt9exceptionD1Ev") : NULL;
	struct pa_symbols_opts opts = { .no_demangle = true };
	struct pa_error err = { 0 };
	struct pa_symbols *sym;
	struct pa_frame f;
	struct sy_proc p;

	cr_assert(fn);
	sy_proc_init(&p);
	sy_proc_add_real(&p, fn);
	cr_assert_eq(pa_symbols_new_opts(&p.proc, &opts, &sym, NULL, &err), 0);
	cr_assert_eq(pa_symbols_lookup_at(sym, sy_addr(fn), false, UINT64_MAX, &f), 0);
	cr_assert_str_eq(f.name, "_ZNSt9exceptionD1Ev");
	pa_symbols_free(sym);
}

Test(symbols, gives_lines_in_libc_from_its_debug_package)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = h ? dlsym(h, "qsort") : NULL;
	const struct pa_srcframe *src;
	struct pa_symbols *sym;
	struct sy_proc p;
	size_t n;

	cr_assert(fn);
	sy_proc_init(&p);
	sy_proc_add_real(&p, fn);
	sym = sy_new(&p, NULL);
	n = sy_src(sym, sy_addr(fn) + 2, &src);
	cr_assert_geq(n, 1);
	cr_assert_str_eq(src[n - 1].function, "qsort");
	if (access("/usr/lib/debug/.build-id", F_OK) == 0)
		cr_assert(src[n - 1].file && src[n - 1].line > 0,
			  "no line for qsort although libc6-dbg is installed");
	pa_symbols_free(sym);
}
