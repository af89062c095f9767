/*
 * Tests of analyze/symbols.c's store of files: a file is read once for
 * every process that maps it, at whatever address, and the vDSO is one
 * module, "[vdso]", in every process.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "symbols.h"
#include "tst_log.h"

TestSuite(symbols_store, .init = pa_symbols_files_release, .fini = pa_symbols_files_release,
	  .timeout = 60);

#define ST_INLINES_SRC PP_TEST_SOURCE_DIR "/tests/workloads/inlines.c"

/* A process of one module, path at bias over [start, end), with a build-id. */
struct st_proc {
	struct pa_process proc;
	struct pa_module mod;
	char path[4096];
};

static void st_proc_init(struct st_proc *p, uint32_t pid, const char *dir, const char *path,
			 uint64_t bias, uint64_t start, uint64_t end, const uint8_t *id,
			 uint32_t id_len)
{
	memset(p, 0, sizeof(*p));
	p->proc.pid = pid;
	p->proc.exe = (char *)"/proc/self/exe";
	p->proc.path = (char *)"process.log";
	p->proc.dir = (char *)dir;
	p->proc.modules = &p->mod;
	p->proc.nmodules = 1;
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->mod = (struct pa_module){ .id = 1, .bias = bias, .start = start, .end = end,
				     .unload_ns = UINT64_MAX, .path = p->path };
	cr_assert_leq(id_len, sizeof(p->mod.build_id));
	memcpy(p->mod.build_id, id, id_len);
	p->mod.build_id_len = id_len;
}

static struct pa_symbols *st_symbols(struct st_proc *p, struct pa_warnings *warn)
{
	struct pa_error err = { 0 };
	struct pa_symbols *sym = NULL;

	cr_assert_eq(pa_symbols_new(&p->proc, &sym, warn, &err), 0, "%s", err.reason);
	return sym;
}

/* The output of a shell command's first line, trimmed, into buf. */
static void st_sh_line(char *buf, size_t size, const char *cmd)
{
	FILE *f = popen(cmd, "r");

	cr_assert(f, "%s", cmd);
	cr_assert(fgets(buf, (int)size, f), "no output from %s", cmd);
	buf[strcspn(buf, "\n")] = '\0';
	pclose(f);
}

/* The build-id of the ELF file at path, as bytes into id; its length. */
static uint32_t st_build_id(const char *path, uint8_t *id)
{
	char cmd[4200], hex[256];
	uint32_t n = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", path);
	st_sh_line(hex, sizeof(hex), cmd);
	for (const char *h = hex; h[0] && h[1] && n < PPF_BUILD_ID_MAX; h += 2)
		cr_assert_eq(sscanf(h, "%2hhx", &id[n++]), 1);
	cr_assert_gt(n, 0, "%s has no build-id", path);
	return n;
}

/*
 * Two processes map one program at different addresses: the second is
 * named as the first, from what the first read. The program is gone by
 * then, so the second could not have read it again.
 */
Test(symbols_store, processes_mapping_one_file_share_its_names)
{
	char *dir = tst_log_tmpdir(), *prog, cmd[8400];
	const uint64_t bias[2] = { 0x7f1200000000ull, 0x7f3400000000ull };
	const struct pa_srcframe *src[2];
	struct pa_warnings warn = { 0 };
	struct pa_symbols *sym[2];
	struct pa_frame fr[2];
	struct st_proc p[2];
	uint8_t id[PPF_BUILD_ID_MAX];
	uint32_t id_len;
	uint64_t outer;
	size_t nsrc[2];

	cr_assert(asprintf(&prog, "%s/prog", dir) > 0);
	snprintf(cmd, sizeof(cmd), "gcc -std=gnu11 -O2 -g -Wl,--build-id=sha1 -o '%s' '%s'", prog,
		 ST_INLINES_SRC);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	id_len = st_build_id(prog, id);
	outer = tst_log_nm(prog, "inl_outer", NULL);
	for (int i = 0; i < 2; i++) {
		st_proc_init(&p[i], 100 + (uint32_t)i, "", prog, bias[i], bias[i],
			     bias[i] + 0x100000, id, id_len);
		if (i == 1) {
			snprintf(cmd, sizeof(cmd), "rm '%s'", prog);
			cr_assert_eq(system(cmd), 0);
		}
		sym[i] = st_symbols(&p[i], &warn);
		cr_assert_eq(pa_symbols_lookup_at(sym[i], outer + bias[i], false, UINT64_MAX,
						  &fr[i]), 0);
		cr_assert_eq(pa_symbols_lookup_src(sym[i], outer + bias[i], false, UINT64_MAX,
						   &src[i], &nsrc[i]), 0);
	}
	cr_assert_eq(warn.n, 0, "%s: %s", warn.n ? warn.v[0].path : "",
		     warn.n ? warn.v[0].reason : "");
	for (int i = 0; i < 2; i++) {
		cr_assert_str_eq(fr[i].name, "inl_outer", "process %d", i);
		cr_assert_eq(fr[i].offset, outer, "process %d", i);
		cr_assert_str_eq(fr[i].module, prog);
		cr_assert_geq(nsrc[i], 1);
		cr_assert_not_null(src[i][nsrc[i] - 1].file, "process %d has no line", i);
	}
	cr_assert_eq(nsrc[0], nsrc[1]);
	cr_assert_str_eq(src[0][nsrc[0] - 1].file, src[1][nsrc[1] - 1].file);
	cr_assert_eq(src[0][nsrc[0] - 1].line, src[1][nsrc[1] - 1].line);
	for (int i = 0; i < 2; i++)
		pa_symbols_free(sym[i]);
	pa_warnings_release(&warn);
	free(prog);
	tst_log_rmdir(dir);
}

/* Ten processes mapping this test binary, each elsewhere: it is read once. */
Test(symbols_store, a_file_is_read_once_for_every_process)
{
	struct tst_log_self self;
	uint64_t before = pa_symbols_files_read();
	uint64_t ip = (uint64_t)(uintptr_t)tst_log_self_module + 4;

	tst_log_self_module((const void *)tst_log_self_module, &self);
	for (uint32_t i = 0; i < 10; i++) {
		uint64_t shift = (uint64_t)i << 32;
		struct st_proc p;
		struct pa_symbols *sym;
		struct pa_frame fr;

		st_proc_init(&p, 100 + i, "", self.path, self.bias + shift, self.start + shift,
			     self.end + shift, self.build_id, self.build_id_len);
		sym = st_symbols(&p, NULL);
		cr_assert_eq(pa_symbols_lookup_at(sym, ip + shift, false, UINT64_MAX, &fr), 0);
		cr_assert_str_eq(fr.name, "tst_log_self_module", "process %u", i);
		pa_symbols_free(sym);
	}
	cr_assert_eq(pa_symbols_files_read() - before, 1);
}

/* Write this process's vDSO image at path. */
static void st_write_image(const char *path)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	FILE *f;

	cr_assert(eh, "no vDSO here");
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	cr_assert_eq(fwrite(eh, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

/* A function of the vDSO copy at path: its ELF address (the first sized one nm -D lists). */
static uint64_t st_vdso_function(const char *path)
{
	char cmd[4400], line[512];
	unsigned long long addr = 0, size = 0;

	snprintf(cmd, sizeof(cmd), "nm -D -S --defined-only '%.4200s' | awk '$3 == \"T\" { print; exit }'",
		 path);
	st_sh_line(line, sizeof(line), cmd);
	cr_assert_eq(sscanf(line, "%llx %llx", &addr, &size), 2, "%s", line);
	return addr;
}

/*
 * The frame of addr in p's vDSO: a function of "[vdso]", which names the
 * module too; its function is strdup'd (the caller frees it).
 */
static void st_vdso_frame(struct st_proc *p, uint64_t addr, struct pa_warnings *warn,
			  struct pa_frame *fr)
{
	struct pa_symbols *sym = st_symbols(p, warn);

	cr_assert_eq(pa_symbols_lookup_at(sym, addr, false, UINT64_MAX, fr), 0);
	cr_assert_not_null(fr->function, "process %u: %s", p->proc.pid, fr->name);
	cr_assert_str_eq(fr->module, "[vdso]", "process %u", p->proc.pid);
	cr_assert_str_eq(fr->module_base, "[vdso]");
	/* what names the module where frames do not (pprof's mappings) */
	cr_assert_str_eq(pa_symbols_module_name(&p->proc, &p->mod), "[vdso]");
	fr->function = strdup(fr->function);
	pa_symbols_free(sym);
}

/*
 * Two processes of a run, with the vDSO's image where the preload put it:
 * at_root, once at the run's root, which has moved since (the recorded
 * path names where it was); else, as before, a copy in each process
 * directory. The code in it is one function of one module, "[vdso]", in
 * both, read from the image where it is now, once.
 */
static void st_two_processes_one_vdso(bool at_root)
{
	char *dir = tst_log_tmpdir(), pdir[2][4096], image[4200];
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	static const char name[] = "vdso.0123abcd.so";
	struct pa_warnings warn = { 0 };
	struct tst_log_self self;
	struct pa_frame fr[2];
	uint64_t before, fn = 0;

	cr_assert(vdso, "no vDSO here");
	tst_log_self_module(vdso, &self);
	for (int i = 0; i < 2; i++) {
		cr_assert_lt(snprintf(pdir[i], sizeof(pdir[i]), "%.4000s/prog.%d", dir, 100 + i),
			     (int)sizeof(pdir[i]));
		cr_assert_eq(mkdir(pdir[i], 0700), 0);
		snprintf(image, sizeof(image), "%s/%s", at_root ? dir : pdir[i],
			 at_root ? name : "vdso.so");
		if (!at_root || i == 0) {
			st_write_image(image);
			fn = st_vdso_function(image);
		}
	}
	before = pa_symbols_files_read();
	for (int i = 0; i < 2; i++) {
		struct st_proc p;

		snprintf(image, sizeof(image), "%.4000s/vdso.so", pdir[i]);
		st_proc_init(&p, 100 + (uint32_t)i, pdir[i],
			     at_root ? "/the/run/before/it/moved/vdso.0123abcd.so" : image,
			     self.bias, self.start, self.end, self.build_id, self.build_id_len);
		p.mod.vdso_image = at_root ? (char *)name : NULL;
		st_vdso_frame(&p, fn + self.bias, &warn, &fr[i]);
	}
	cr_assert_eq(warn.n, 0, "%s: %s", warn.n ? warn.v[0].path : "",
		     warn.n ? warn.v[0].reason : "");
	cr_assert_str_eq(fr[0].function, fr[1].function);
	cr_assert_eq(pa_symbols_files_read() - before, 1, "the image is read once");
	for (int i = 0; i < 2; i++)
		free((char *)fr[i].function);
	pa_warnings_release(&warn);
	tst_log_rmdir(dir);
}

/* The image once at the run's root (PPF_REC_VDSO). */
Test(symbols_store, the_vdso_image_at_the_root_is_one_module_in_every_process)
{
	st_two_processes_one_vdso(true);
}

/* A copy of the image in each process directory, as logs were written before. */
Test(symbols_store, the_vdso_is_one_module_in_every_process)
{
	st_two_processes_one_vdso(false);
}

/*
 * A run written before the image went to the root (tests/golden/oldlogs:
 * a copy, vdso.so, in the process directory): its vDSO is "[vdso]" and
 * its functions are named from that copy.
 */
Test(symbols_store, an_old_run_names_the_vdso_from_its_own_copy)
{
	const char *fixture = PP_TEST_SOURCE_DIR "/tests/golden/oldlogs";
	struct pa_error err = { 0 };
	const struct pa_module *m = NULL;
	const struct pa_process *proc;
	struct pa_symbols *sym = NULL;
	struct pa_run *run;
	struct pa_frame fr;
	char copy[4200];
	uint64_t fn;

	cr_assert_eq(pa_run_load(fixture, &run, &err), 0, "%s: %s", err.path, err.reason);
	proc = run->processes[0];
	for (size_t i = 0; i < proc->nmodules; i++)
		if (strstr(proc->modules[i].path, "/vdso.so"))
			m = &proc->modules[i];
	cr_assert_not_null(m, "the fixture records no vDSO copy");
	cr_assert_null(m->vdso_image);
	snprintf(copy, sizeof(copy), "%s/vdso.so", proc->dir);
	fn = st_vdso_function(copy);
	cr_assert_eq(pa_symbols_new(proc, &sym, &run->warnings, &err), 0, "%s", err.reason);
	cr_assert_str_eq(pa_symbols_module_name(proc, m), "[vdso]");
	cr_assert_eq(pa_symbols_lookup_at(sym, fn + m->bias, false, UINT64_MAX, &fr), 0);
	cr_assert_not_null(fr.function, "%s", fr.name);
	cr_assert_str_eq(fr.module, "[vdso]");
	for (size_t i = 0; i < run->warnings.n; i++)
		cr_assert_not(strstr(run->warnings.v[i].path, "vdso"), "%s: %s",
			      run->warnings.v[i].path, run->warnings.v[i].reason);
	pa_symbols_free(sym);
	pa_run_free(run);
}
