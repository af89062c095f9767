/*
 * Integration: the symbol side of pprof-analyze on real runs — top --inlines
 * and --lines on a workload whose hot code is inlined two levels deep,
 * annotate on its function, C++ names with and without --no-demangle, and
 * binaries found on the binary path after they moved.
 */
#include <criterion/criterion.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_sym;

static void it_sym_init(void)
{
	tst_init(&it_sym);
}

static void it_sym_fini(void)
{
	tst_release(&it_sym);
}

TestSuite(it_symbols, .init = it_sym_init, .fini = it_sym_fini, .timeout = 120);

/* A run of argv, alone in it_sym.data (a test's earlier run removed). */
static void it_sym_record(const char *const *argv)
{
	struct tst_result r;

	tst_log_rmdir(strdup(it_sym.data));
	tst_run_profiled(&it_sym, "run", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", argv[0], r.err);
	tst_result_release(&r);
}

/* The self samples on top's line for name (in module), -1 if none. */
static long it_sym_self_in(const char *top, const char *name, const char *module)
{
	char want[256];
	const char *line = top;

	snprintf(want, sizeof(want), "  %s (%s)\n", name, module);
	while ((line = strstr(line, want))) {
		const char *bol = line;

		while (bol > top && bol[-1] != '\n')
			bol--;
		return strtol(bol, NULL, 10);
	}
	return -1;
}

/*
 * The workload built by gcc and by clang, whose DWARF has no
 * .debug_aranges (libdw finds no unit by address without it).
 */
static const char *const it_sym_inlines[] = { "inlines", "inlines-clang" };

Test(it_symbols, top_inlines_and_lines_show_inlined_code)
{
	for (size_t i = 0; i < 2; i++) {
		const char *mod = it_sym_inlines[i];
		char prog[64], want[128];
		const char *argv[] = { prog, "0.3", NULL };
		const char *plain[] = { "top", it_sym.data, NULL };
		const char *inl[] = { "top", it_sym.data, "--inlines", NULL };
		const char *lines[] = { "top", it_sym.data, "--lines", NULL };
		char *a, *b, *c;

		snprintf(prog, sizeof(prog), "workloads/%s", mod);
		it_sym_record(argv);
		a = tst_analyze(&it_sym, "analyze", plain, NULL);
		b = tst_analyze(&it_sym, "analyze", inl, NULL);
		c = tst_analyze(&it_sym, "analyze", lines, NULL);
		/* without --inlines the inlined functions are part of inl_outer */
		cr_expect_gt(it_sym_self_in(a, "inl_outer", mod), 0, "%s: %s", mod, a);
		cr_expect_eq(it_sym_self_in(a, "inl_square", mod), -1, "%s: %s", mod, a);
		/* with it, the hot inlined code is inl_square's and inl_mid's */
		cr_expect_gt(it_sym_self_in(b, "inl_square", mod), 0, "%s: %s", mod, b);
		cr_expect_neq(it_sym_self_in(b, "inl_mid", mod), -1, "%s: %s", mod, b);
		cr_expect_lt(it_sym_self_in(b, "inl_outer", mod), it_sym_self_in(a, "inl_outer", mod),
			     "%s: %s", mod, b);
		/* lines: "inlines.c:LINE FUNCTION" */
		snprintf(want, sizeof(want), " inl_square (%s)\n", mod);
		cr_expect(strstr(c, " inlines.c:") && strstr(c, want), "%s: %s", mod, c);
		free(a);
		free(b);
		free(c);
	}
}

Test(it_symbols, annotate_prints_source_with_counts)
{
	for (size_t i = 0; i < 2; i++) {
		char prog[64];
		const char *argv[] = { prog, "0.3", NULL };
		const char *ann[] = { "annotate", "inl_outer", it_sym.data, NULL };
		char *out;

		snprintf(prog, sizeof(prog), "workloads/%s", it_sym_inlines[i]);
		it_sym_record(argv);
		out = tst_analyze(&it_sym, "analyze", ann, NULL);
		cr_expect(strstr(out, "# annotate inl_outer: "), "%s: %s", prog, out);
		cr_expect(strstr(out, "/tests/workloads/inlines.c\n"), "%s: %s", prog, out);
		/* the call of the inlined code, with its samples, and the source text */
		cr_expect(strstr(out, "s += inl_mid(i ^ s); /* line:outer_call */"), "%s: %s",
			  prog, out);
		cr_expect_null(strstr(out, "not found"), "%s: %s", prog, out);
		free(out);
	}
}

Test(it_symbols, demangles_cxx_unless_asked_not_to)
{
	const char *argv[] = { "workloads/cxxthrow", "20000", "1", NULL };
	const char *top[] = { "top", it_sym.data, NULL };
	const char *raw[] = { "top", it_sym.data, "--no-demangle", NULL };
	char *a, *b;

	it_sym_record(argv);
	a = tst_analyze(&it_sym, "analyze", top, NULL);
	b = tst_analyze(&it_sym, "analyze", raw, NULL);
	cr_expect(strstr(a, "cxx_throw_deep(unsigned long, int)"), "%s", a);
	cr_expect_null(strstr(a, "_ZL14cxx_throw_deep"), "%s", a);
	cr_expect(strstr(b, "_ZL14cxx_throw_deepmi"), "%s", b);
	free(a);
	free(b);
}

/* Copies file (of the build directory, rel) to dir/name, executable. */
static void it_sym_copy(const char *rel, const char *dir, const char *name)
{
	char from[TST_PATH_MAX], to[2 * TST_PATH_MAX];
	size_t len;
	char *data;
	FILE *f;

	tst_build_path(from, rel);
	data = tst_slurp(from, &len);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	f = fopen(to, "w");
	cr_assert_not_null(f, "%s", to);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(to, 0755), 0);
	free(data);
}

/* dir/ + the file's build-id in hex, into buf. */
static void it_sym_id_dir(const char *file, const char *dir, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY);
	const unsigned char *bits;
	Elf *elf;
	ssize_t len;
	int n;

	cr_assert_geq(fd, 0, "%s", file);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&bits) : -1;
	cr_assert_gt(len, 0, "%s has no build-id", file);
	n = snprintf(buf, size, "%s/", dir);
	for (ssize_t i = 0; i < len; i++)
		n += snprintf(buf + n, size - (size_t)n, "%02x", bits[i]);
	elf_end(elf);
	close(fd);
}

/* top on it_sym.data with args before it and env; stdout then stderr, malloc'd. */
static char *it_sym_top(const char *a1, const char *a2, const char *env)
{
	const char *argv[] = { "pprof-analyze", "top", it_sym.data, a1, a2, NULL };
	const char *envv[] = { env, NULL };
	struct tst_result r;
	char *text;

	tst_run(&it_sym, "top", argv, env ? envv : NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0x%x: %s", r.status,
		  r.err);
	cr_assert(asprintf(&text, "%s%s", r.out, r.err) > 0);
	tst_result_release(&r);
	return text;
}

/* Whether top's text names demo's three functions from their two files. */
static bool it_sym_named(const char *text)
{
	return strstr(text, " burn_alpha (demo)\n") && strstr(text, " burn_beta (demo)\n") &&
	       strstr(text, " burn_gamma (libburn.so)\n");
}

/*
 * The demo run from a directory that is renamed after the run, as when a
 * build tree is cleaned or a profile is read on another machine: its
 * frames are unresolved with a warning naming the file, and named again
 * when --binary-path (or PPROF_BINARY_PATH) gives a directory holding the
 * binaries, under their names, their build-ids (DIR/BUILDID/NAME) or their
 * whole paths (DIR/PATH, as perf's --symfs); a file of the same name with
 * another build-id is passed over.
 */
Test(it_symbols, a_moved_binary_is_found_on_the_binary_path)
{
	char ran[TST_PATH_MAX], moved[TST_PATH_MAX], decoy[TST_PATH_MAX], ids[TST_PATH_MAX];
	char symfs[2 * TST_PATH_MAX], path[4 * TST_PATH_MAX], env[TST_PATH_MAX + 32];
	char both[2 * TST_PATH_MAX + 2], d1[2 * TST_PATH_MAX], d2[2 * TST_PATH_MAX];
	const char *argv[] = { ran, "0.2", NULL };
	char *text;

	snprintf(ran, sizeof(ran), "%s/ran", it_sym.tmp);
	snprintf(moved, sizeof(moved), "%s/moved", it_sym.tmp);
	snprintf(decoy, sizeof(decoy), "%s/decoy", it_sym.tmp);
	snprintf(ids, sizeof(ids), "%s/ids", it_sym.tmp);
	cr_assert_eq(mkdir(ran, 0755), 0);
	cr_assert_eq(mkdir(decoy, 0755), 0);
	cr_assert_eq(mkdir(ids, 0755), 0);
	it_sym_copy("workloads/demo", ran, "demo");
	it_sym_copy("workloads/libburn.so", ran, "libburn.so");
	it_sym_copy("workloads/inlines", decoy, "demo");
	it_sym_copy("workloads/libreload.so", decoy, "libburn.so");
	strcat(ran, "/demo");
	it_sym_record(argv);
	*strrchr(ran, '/') = '\0';
	cr_assert_eq(rename(ran, moved), 0);

	text = it_sym_top(NULL, NULL, NULL);
	snprintf(path, sizeof(path), "%s/demo: cannot open: No such file", ran);
	cr_expect(strstr(text, path) && !it_sym_named(text), "%s", text);
	free(text);

	text = it_sym_top("--binary-path", decoy, NULL);
	cr_expect(strstr(text, "under the binary path either") && !it_sym_named(text), "%s", text);
	free(text);

	snprintf(both, sizeof(both), "%s:%s", decoy, moved);
	text = it_sym_top("--binary-path", both, NULL);
	cr_expect(it_sym_named(text) && !strstr(text, "warning"), "%s", text);
	free(text);

	/* DIR/BUILDID/NAME, from the environment. */
	snprintf(path, sizeof(path), "%s/demo", moved);
	it_sym_id_dir(path, ids, d1, sizeof(d1));
	snprintf(path, sizeof(path), "%s/libburn.so", moved);
	it_sym_id_dir(path, ids, d2, sizeof(d2));
	cr_assert_eq(mkdir(d1, 0755), 0);
	cr_assert_eq(mkdir(d2, 0755), 0);
	snprintf(path, sizeof(path), "%s/demo", moved);
	cr_assert_eq(link(path, strcat(strcpy(symfs, d1), "/demo")), 0);
	snprintf(path, sizeof(path), "%s/libburn.so", moved);
	cr_assert_eq(link(path, strcat(strcpy(symfs, d2), "/libburn.so")), 0);
	snprintf(env, sizeof(env), "PPROF_BINARY_PATH=%s", ids);
	text = it_sym_top(NULL, NULL, env);
	cr_expect(it_sym_named(text) && !strstr(text, "warning"), "%s", text);
	free(text);

	/* DIR/PATH; the option wins over the environment. */
	snprintf(symfs, sizeof(symfs), "%s/symfs", it_sym.tmp);
	cr_assert(asprintf(&text, "mkdir -p '%s%s' && cp '%s'/* '%s%s'", symfs, ran, moved, symfs,
			   ran) > 0);
	cr_assert_eq(system(text), 0, "%s", text);
	free(text);
	snprintf(env, sizeof(env), "PPROF_BINARY_PATH=%s", decoy);
	text = it_sym_top("--binary-path", symfs, env);
	cr_expect(it_sym_named(text) && !strstr(text, "warning"), "%s", text);
	free(text);
}

/*
 * A binary without a build-id changed after the run (rebuilt: another size):
 * its addresses would name other functions, and nothing in the file tells.
 * The log records its size and modification time as mapped: its frames are
 * left unresolved with a warning that says so, and --binary-path finds the
 * file as it was (a copy of its size). One of the same size modified since
 * (a copy put back) is read, with a warning. A rebuilt binary named other
 * functions silently.
 */
Test(it_symbols, a_binary_without_build_id_changed_after_the_run_is_said_not_used)
{
	char ran[TST_PATH_MAX], kept[TST_PATH_MAX], prog[2 * TST_PATH_MAX], cmd[6 * TST_PATH_MAX];
	const char *argv[] = { prog, "0.2", NULL };
	char *text;

	snprintf(ran, sizeof(ran), "%s/ran", it_sym.tmp);
	snprintf(kept, sizeof(kept), "%s/kept", it_sym.tmp);
	cr_assert_eq(mkdir(ran, 0755), 0);
	cr_assert_eq(mkdir(kept, 0755), 0);
	it_sym_copy("workloads/inlines-noid", ran, "prog");
	it_sym_copy("workloads/inlines-noid", kept, "prog");
	snprintf(prog, sizeof(prog), "%s/prog", ran);
	it_sym_record(argv);
	text = it_sym_top(NULL, NULL, NULL);
	cr_expect(strstr(text, " inl_outer (prog)\n") && !strstr(text, "warning"), "%s", text);
	free(text);

	/* Rebuilt: another size. */
	snprintf(cmd, sizeof(cmd), "printf 'x' >> '%s'", prog);
	cr_assert_eq(system(cmd), 0);
	text = it_sym_top(NULL, NULL, NULL);
	cr_expect(strstr(text, "changed since the run") && !strstr(text, " inl_outer (prog)\n"),
		  "%s", text);
	free(text);
	text = it_sym_top("--binary-path", kept, NULL);
	cr_expect(strstr(text, " inl_outer (prog)\n") && !strstr(text, "warning"), "%s", text);
	free(text);

	/* The same size, modified since (a copy put back): read, and said. */
	snprintf(cmd, sizeof(cmd), "cp '%s/prog' '%s' && touch -d '2001-02-03 04:05:06' '%s'",
		 kept, prog, prog);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	text = it_sym_top(NULL, NULL, NULL);
	cr_expect(strstr(text, "modified since the run") && strstr(text, " inl_outer (prog)\n"),
		  "%s", text);
	free(text);
}

/*
 * A stripped binary whose debug information is a separate file named by
 * its .gnu_debuglink, both moved after the run: found on the binary path,
 * its debug file is looked for beside it there (where it was found), not
 * beside where it ran: top --lines names the source lines.
 */
Test(it_symbols, a_moved_stripped_binary_finds_its_debuglink_file_beside_it)
{
	char ran[TST_PATH_MAX], moved[TST_PATH_MAX], cmd[4 * TST_PATH_MAX + 256];
	const char *argv[] = { ran, "0.2", NULL };
	const char *top[] = { "pprof-analyze", "top", "--lines", it_sym.data, "--binary-path",
			      moved, NULL };
	struct tst_result r;

	snprintf(ran, sizeof(ran), "%s/ran", it_sym.tmp);
	snprintf(moved, sizeof(moved), "%s/moved", it_sym.tmp);
	cr_assert_eq(mkdir(ran, 0755), 0);
	it_sym_copy("workloads/demo", ran, "demo");
	it_sym_copy("workloads/libburn.so", ran, "libburn.so");
	snprintf(cmd, sizeof(cmd), "cd '%s' && objcopy --only-keep-debug demo demo.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=demo.debug demo", ran);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	strcat(ran, "/demo");
	it_sym_record(argv);
	*strrchr(ran, '/') = '\0';
	cr_assert_eq(rename(ran, moved), 0);
	tst_run(&it_sym, "top", top, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect(strstr(r.out, " wl_burn (demo)\n") && strstr(r.out, "wl.h:"), "%s\n%s", r.out,
		  r.err);
	tst_result_release(&r);
}
