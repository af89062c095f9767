/* symbols: offline symbolisation with libdwfl; see symbols.h. */
#include "before.h"
#include "grow.h"
#include "intern.h"
#include "plt.h"
#include "perfmap.h"
#include "regfile.h"
#include "symbols.h"
#include "wall.h"

/* xxhash's XXH3, compiled in from its header: the name of a vDSO image without a build-id. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One function symbol of a module, at runtime addresses [start, end). */
struct pa_sym_entry {
	uint64_t start;
	uint64_t end;
	const char *name; /* owned by libdwfl's Elf */
	char *demangled;  /* owned, NULL until asked for or when not mangled */
	uint64_t section_end; /* runtime end of its section, for sizeless symbols; 0 if unknown */
	int rank;         /* pa_symbols_rank: lower wins at one address */
	bool plt;         /* a PLT stub: named "name@plt" */
	bool demangle_tried;
};

/*
 * One distinct file, shared by every process that maps it (symbols.h): its
 * libdwfl session, reported at the bias of the first process that asked
 * (a process's address converts by its own bias: pa_symbols_file_addr),
 * its function table and its source frames per address, in that session's
 * addresses.
 */
struct pa_sym_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;  /* NULL: frames stay unresolved */
	char *reason;      /* why mod is NULL, warned once per process; NULL: no file to read */
	uint64_t bias;     /* the bias mod was reported at */
	bool no_demangle;
	bool searched;     /* a binary path was given: its lack of a copy is said too */
	char *debuginfo_path;     /* libdwfl's, or NULL for its default */
	Dwfl_Callbacks callbacks; /* dwfl points at it */
	struct pa_sym_entry *syms;
	size_t nsyms;
	bool syms_built;
	struct pa_intern *cu_keys; /* Dwarf_Off of a unit; index into cus */
	struct pa_sym_cu **cus;
	size_t cus_cap;
	char **owned;             /* demangled inline names */
	size_t nowned, owned_cap;
	struct pa_intern *paths;  /* source paths joined to their unit's directory */
	char *join;               /* the path being joined */
	size_t join_cap;
	struct pa_intern *src_keys; /* uint64_t session address; index into src */
	struct pa_sym_src *src;
	size_t src_cap;
	struct pa_sym_curange *curanges; /* without .debug_aranges: pa_symbols_addrcu */
	size_t ncuranges, curanges_cap;
	bool curanges_built;
};

/* A compilation unit's address range [start, end), in session addresses. */
struct pa_sym_curange {
	uint64_t start, end;
	Dwarf_Die *cu;
	Dwarf_Addr bias;
};

/* One recorded module of the process: its mapping, and the file it maps. */
struct pa_sym_module {
	const struct pa_module *rec;
	const char *path; /* rec->path, the process exe when that is empty, or "[vdso]" */
	const char *base;
	struct pa_sym_file *file; /* NULL: no file to read ("[vdso]" of an old run, ...) */
};

/* The cache's key: an address and how it was looked up. */
struct pa_sym_cache_key {
	uint64_t ip;
	uint64_t tag; /* (module index + 1) << 1 | is_caller */
};

/* What the cache holds for a key. */
struct pa_sym_cached {
	size_t mod;       /* the module's index */
	struct pa_frame frame;
	char *owned_name; /* "base+0xoff" when unresolved */
	const struct pa_srcframe *src; /* source frames, innermost first */
	struct pa_srcframe *src_owned;  /* src, when this process's own copy */
	uint32_t nsrc;
	bool src_done;    /* src looked up (it may still be empty) */
};

/*
 * The source frames of one address of a file. by_name: the function frame
 * (the last) has no name of its own, and each process names it by its
 * frame's display name ("base+0x...").
 */
struct pa_sym_src {
	struct pa_srcframe *v;
	uint32_t n;
	bool by_name;
};

/*
 * The scopes with code of one compilation unit, indexed once: its
 * subprograms and inlined subroutines (lexical blocks are looked through),
 * each with its parent, and their address ranges sorted by start. It
 * replaces dwarf_getscopes + dwarf_getscopes_die, which walk the unit's DIE
 * tree on every lookup (2.3 s for 20,000 libc addresses).
 */
struct pa_sym_scope {
	Dwarf_Die die;
	int32_t parent;      /* index of the enclosing scope, -1 at the top */
	uint32_t first, n;   /* its ranges in cu->own */
};

struct pa_sym_range {
	uint64_t lo, hi;     /* [lo, hi), module addresses as in the DWARF */
	uint32_t scope;
	uint32_t depth;      /* nesting depth: deeper scopes sort after at one lo */
};

struct pa_sym_cu {
	struct pa_sym_scope *scopes;
	size_t nscopes, scopes_cap;
	struct pa_sym_range *own;      /* per scope, in scope order */
	struct pa_sym_range *sorted;   /* the same, by lo then depth */
	size_t nranges, ranges_cap;
};

struct pa_symbols {
	const struct pa_process *proc;
	struct pa_symbols_opts opts; /* debuginfo_path: the caller's, which outlives us */
	struct pa_sym_module *mods;
	size_t nmods;
	struct pa_intern *cache_keys; /* struct pa_sym_cache_key; index into cache */
	struct pa_sym_cached *cache;
	size_t cache_cap;
	struct pa_perfmap *jit;       /* the JIT's names (perfmap.h), NULL when none */
};

/*
 * dwfl_standard_find_debuginfo looks for separate debug info by build-id
 * (DIR/.build-id/xx/rest.debug for each absolute DIR of the path), then by
 * .gnu_debuglink (next to the file, in its .debug/, and under each absolute
 * DIR); with a NULL path it uses ":.debug:/usr/lib/debug".
 */
static const Dwfl_Callbacks pa_symbols_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const char pa_symbols_unknown[] = "[unknown]";

/*
 * A mangled name made readable, malloc'd; NULL when it is none (C, Fortran)
 * or not one the demangler knows. libiberty's demangler, as binutils' and
 * perf's: C++ (_Z), and Rust's legacy (_ZN...17h<hash>E, shown without the
 * hash, as rustc's own demangler does) and v0 (_R) manglings.
 */
static char *pa_symbols_demangle(const char *name)
{
	if (strncmp(name, "_Z", 2) != 0 && strncmp(name, "_R", 2) != 0)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}

/* "name@@VERSION" and "name@VERSION" (versioned .symtab names): length of name. */
static size_t pa_symbols_unversioned_len(const char *name)
{
	const char *at = strchr(name, '@');

	return at && at != name ? (size_t)(at - name) : strlen(name);
}

static const char *pa_symbols_entry_name(struct pa_sym_entry *e, bool demangle)
{
	if (!e->demangle_tried) {
		size_t len = pa_symbols_unversioned_len(e->name);
		bool mangled = demangle && (strncmp(e->name, "_Z", 2) == 0 ||
					    strncmp(e->name, "_R", 2) == 0);
		char *plain, *dem = NULL;

		e->demangle_tried = true;
		if (!mangled && !e->name[len] && !e->plt)
			return e->name;
		plain = strndup(e->name, len);
		if (plain && mangled)
			dem = pa_symbols_demangle(plain);
		if (dem) {
			free(plain);
			plain = dem;
		}
		if (plain && e->plt) {
			char *stub = NULL;

			if (asprintf(&stub, "%s@plt", plain) < 0)
				stub = NULL;
			free(plain);
			plain = stub;
		}
		e->demangled = plain;
	}
	return e->demangled ? e->demangled : e->name;
}

/*
 * Which of the aliases at one address names it; lower wins, field by field:
 * a symbol before a PLT stub; exported (global or weak) before local; fewer
 * leading underscores (malloc, not its global alias __libc_malloc; read,
 * which glibc exports weak, not its global __read); global before weak; the
 * default version before an old one (free, not cfree@GLIBC_2.2.5); glibc's
 * internal __GI_ aliases last. Then pa_symbols_cmp_entry: the sized one,
 * the longer name (as perf: __memmove_avx_unaligned_erms, not its alias
 * __memcpy_avx_unaligned_erms), then by name, for the same choice every time.
 */
static int pa_symbols_rank(bool plt, int bind, const char *name, bool compat)
{
	size_t us = strspn(name, "_");

	return plt << 9 | (bind == STB_LOCAL) << 8 | (int)(us < 7 ? us : 7) << 4 |
	       (bind == STB_WEAK) << 2 | compat << 1 | (strncmp(name, "__GI_", 5) == 0);
}

static int pa_symbols_cmp_entry(const void *a, const void *b)
{
	const struct pa_sym_entry *x = a, *y = b;
	size_t xl, yl;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the sized one first */
	xl = pa_symbols_unversioned_len(x->name);
	yl = pa_symbols_unversioned_len(y->name);
	if (xl != yl)
		return xl > yl ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Runtime end address of section shndx of elf; 0 if unknown. */
static uint64_t pa_symbols_section_end(Elf *elf, GElf_Word shndx, GElf_Addr bias)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return 0;
	return shdr.sh_addr + shdr.sh_size + bias;
}

/* binutils' VERSYM_HIDDEN: a .gnu.version entry that is not the default version */
#define PA_VERSYM_HIDDEN 0x8000

/* A .dynsym symbol of an old version (name@VER, not name@@VER): what .dynsym's name lacks. */
struct pa_sym_old {
	uint64_t value;   /* st_value */
	const char *name; /* owned by the Elf */
};

static int pa_symbols_cmp_old(const void *a, const void *b)
{
	const struct pa_sym_old *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The old-version symbols of elf's .dynsym, sorted: *out (malloc'd) and *n; -ENOMEM. */
static int pa_symbols_old_versions(Elf *elf, struct pa_sym_old **out, size_t *n)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *versym = NULL;
	Elf_Data *syms, *vers;
	GElf_Shdr sh;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		else if (sh.sh_type == SHT_GNU_versym)
			versym = scn;
	}
	if (!dynsym || !versym || !gelf_getshdr(dynsym, &sh) ||
	    !(syms = elf_getdata(dynsym, NULL)) || !(vers = elf_getdata(versym, NULL)))
		return 0;
	for (int i = 1;; i++) {
		GElf_Versym v;
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(syms, i, &sym) || !gelf_getversym(vers, i, &v))
			break;
		if (!(v & PA_VERSYM_HIDDEN) || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
			continue;
		if (pa_grow((void **)out, &cap, *n, sizeof(**out)) < 0) {
			free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		(*out)[(*n)++] = (struct pa_sym_old){ sym.st_value, name };
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), pa_symbols_cmp_old);
	return 0;
}

/* Whether name at ELF address value is an old version: name@VER, or so in .dynsym's versions. */
static bool pa_symbols_is_old(const char *name, uint64_t value, const struct pa_sym_old *old,
			      size_t nold)
{
	const char *at = strchr(name, '@');
	struct pa_sym_old key = { value, name };

	if (at && at != name)
		return at[1] != '@';
	return nold && bsearch(&key, old, nold, sizeof(key), pa_symbols_cmp_old);
}

/* Keep one entry per address of the sorted m->syms[0..k), the best alias, reaching the farthest end. */
static void pa_symbols_unique(struct pa_sym_file *m, size_t k)
{
	m->nsyms = 0;
	for (size_t i = 0; i < k; i++) {
		if (m->nsyms && m->syms[m->nsyms - 1].start == m->syms[i].start) {
			struct pa_sym_entry *keep = &m->syms[m->nsyms - 1];

			if (keep->end < m->syms[i].end)
				keep->end = m->syms[i].end;
			continue;
		}
		m->syms[m->nsyms++] = m->syms[i];
	}
}

/* Merge the sorted runs m->syms[0..a) and [a..k) (into tmp, k entries), then keep them unique. */
static void pa_symbols_merge(struct pa_sym_file *m, size_t a, size_t k, struct pa_sym_entry *tmp)
{
	size_t i = 0, j = a, o = 0;

	while (i < a || j < k)
		tmp[o++] = j == k || (i < a && pa_symbols_cmp_entry(&m->syms[i], &m->syms[j]) <= 0) ?
				   m->syms[i++] : m->syms[j++];
	memcpy(m->syms, tmp, k * sizeof(*tmp));
	pa_symbols_unique(m, k);
}

/*
 * The function symbols of m's symbol table (n entries) into m->syms: *k of
 * them. A symbol of main's .dynsym has no version in its name: the old
 * ones are read from .gnu.version when one is first met (a separate debug
 * info's .symtab, libc6-dbg's, has them in its names). Returns 0 or -ENOMEM.
 */
static int pa_symbols_add_symtab(struct pa_sym_file *m, int n, Elf *main, size_t *k)
{
	struct pa_sym_old *old = NULL;
	size_t nold = 0;
	bool old_read = false;

	*k = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr, bias;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx,
							   &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		struct pa_sym_entry *e = &m->syms[*k];

		if (!name || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (elf == main && !old_read) {
			old_read = true;
			if (pa_symbols_old_versions(main, &old, &nold) < 0)
				return -ENOMEM;
		}
		e->start = addr;
		e->end = addr + sym.st_size;
		if (sym.st_size == 0)
			e->section_end = pa_symbols_section_end(elf, shndx, bias);
		e->name = name;
		e->rank = pa_symbols_rank(false, bind, name,
					  pa_symbols_is_old(name, addr - bias, old,
							    elf == main ? nold : 0));
		(*k)++;
	}
	free(old);
	return 0;
}

/* The symbol at exactly addr in m's (unique, sorted) table, or NULL. */
static const struct pa_sym_entry *pa_symbols_at(const struct pa_sym_file *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nsyms && m->syms[lo].start == addr ? &m->syms[lo] : NULL;
}

/*
 * Add the PLT stubs of m's file (main, loaded at bias) to its unique table
 * and make it unique again: `name@plt`; a local IFUNC's stub is named
 * after the symbol at its resolver.
 */
static int pa_symbols_add_plt(struct pa_sym_file *m, Elf *main, GElf_Addr bias)
{
	struct pa_plt_stub *stubs;
	struct pa_sym_entry *v, *tmp;
	size_t nstubs, k = m->nsyms;

	if (pa_plt_stubs(main, &stubs, &nstubs) < 0)
		return -ENOMEM;
	if (!nstubs)
		return 0;
	v = realloc(m->syms, (m->nsyms + nstubs) * sizeof(*v));
	if (!v) {
		free(stubs);
		return -ENOMEM;
	}
	m->syms = v;
	for (size_t i = 0; i < nstubs; i++) {
		const struct pa_sym_entry *ifunc = stubs[i].name ? NULL :
						   pa_symbols_at(m, stubs[i].resolver + bias);
		const char *name = ifunc ? ifunc->name : stubs[i].name;

		if (!name)
			continue;
		v[k++] = (struct pa_sym_entry){ .start = stubs[i].start + bias,
						.end = stubs[i].start + bias + stubs[i].size,
						.name = name, .plt = true,
						.rank = pa_symbols_rank(true, STB_GLOBAL, name, false) };
	}
	free(stubs);
	if (k == m->nsyms)
		return 0;
	/* the few stubs sorted, then merged: the table is sorted already */
	qsort(v + m->nsyms, k - m->nsyms, sizeof(*v), pa_symbols_cmp_entry);
	tmp = malloc(k * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	pa_symbols_merge(m, m->nsyms, k, tmp);
	free(tmp);
	return 0;
}

/* The sorted function table of m, built on first use. */
static int pa_symbols_build_table(struct pa_sym_file *m)
{
	int n = dwfl_module_getsymtab(m->mod);
	GElf_Addr bias = 0;
	Elf *main = dwfl_module_getelf(m->mod, &bias);
	size_t k = 0;

	m->syms_built = true;
	if (n > 0 && (!(m->syms = calloc((size_t)n, sizeof(*m->syms))) ||
		      pa_symbols_add_symtab(m, n, main, &k) < 0))
		return -ENOMEM;
	if (k)
		qsort(m->syms, k, sizeof(*m->syms), pa_symbols_cmp_entry);
	pa_symbols_unique(m, k);
	if (pa_symbols_add_plt(m, main, bias) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->nsyms; i++) {
		struct pa_sym_entry *e = &m->syms[i];

		/*
		 * A sizeless symbol (_init, asm) reaches the next one, within its
		 * section; the last one the end of the module, which differs from
		 * process to process: every lookup is inside it already.
		 */
		if (e->end == e->start) {
			e->end = i + 1 < m->nsyms ? m->syms[i + 1].start : UINT64_MAX;
			if (e->section_end > e->start && e->section_end < e->end)
				e->end = e->section_end;
		}
	}
	return 0;
}

static struct pa_sym_entry *pa_symbols_find(struct pa_sym_file *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo entries start at or below addr; nested symbols: look a few back. */
	for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++)
		if (addr < m->syms[i - 1].end)
			return &m->syms[i - 1];
	return NULL;
}

/* The store of files, shared by every symboliser of the analyzer (symbols.h). */
static struct {
	struct pa_intern *keys; /* pa_symbols_file_key's; index into files */
	struct pa_sym_file **files;
	size_t cap;
	uint64_t loads;         /* files read so far */
} pa_symbols_store;

static const char pa_symbols_vdso[] = PA_SYMBOLS_VDSO_NAME;

/*
 * Whether rec is the vDSO: an image at the run's root (PPF_REC_VDSO says
 * so), or the process's own copy, when the image's name at the root was
 * taken: <P>.vdso.so beside its log <P>.log, or, in older runs, "vdso.so"
 * in a directory named as the process's (README "Output").
 */
static bool pa_symbols_is_vdso(const struct pa_process *proc, const struct pa_module *rec)
{
	const char *slash = strrchr(rec->path, '/'), *dir, *dbase, *base;
	size_t dlen;

	if (rec->vdso_image)
		return true;
	if (!slash || slash == rec->path || !proc->dir || !proc->dir[0])
		return false;
	base = slash + 1;
	dbase = strrchr(proc->dir, '/');
	dbase = dbase ? dbase + 1 : proc->dir;
	dlen = strlen(dbase);
	if (strncmp(base, dbase, dlen) == 0 && base[dlen] == '.' &&
	    strcmp(base + dlen + 1, PPF_VDSO_COPY) == 0)
		return true;
	if (strcmp(base, PPF_VDSO_COPY) != 0)
		return false;
	for (dir = slash; dir > rec->path && dir[-1] != '/'; dir--)
		;
	return (size_t)(slash - dir) == dlen && memcmp(dbase, dir, dlen) == 0;
}

const char *pa_symbols_module_name(const struct pa_process *proc, const struct pa_module *rec)
{
	if (pa_symbols_is_vdso(proc, rec))
		return pa_symbols_vdso;
	return rec->path[0] ? rec->path : proc->exe ? proc->exe : "";
}

/*
 * The store's key of a file: what the lookup is told by (no_demangle, the
 * debuginfo path), the path it is named by, and its identity: the
 * recorded build-id, else the open file's device, inode, size and
 * modification time. Into *key (malloc'd), its length; 0 when out of memory.
 */
static size_t pa_symbols_file_key(const struct pa_symbols_opts *opts, const char *name,
				  const struct pa_module *rec, const struct stat *st, char **key)
{
	const char *dip = opts->debuginfo_path ? opts->debuginfo_path : "";
	size_t nl = strlen(name) + 1, dl = strlen(dip) + 1, len;
	uint64_t id[7] = { 0 };
	const void *ident = id;
	size_t il = sizeof(id);
	char *k;

	if (rec->build_id_len) {
		ident = rec->build_id;
		il = rec->build_id_len;
	} else if (st) {
		id[0] = st->st_dev;
		id[1] = st->st_ino;
		id[2] = (uint64_t)st->st_size;
		id[3] = (uint64_t)st->st_mtim.tv_sec;
		id[4] = (uint64_t)st->st_mtim.tv_nsec;
		/* What the log says was mapped: the same file may be another's answer. */
		id[5] = rec->has_file ? rec->file_size : UINT64_MAX;
		id[6] = rec->has_file ? rec->file_mtime_ns : UINT64_MAX;
	}
	len = 2 + nl + dl + il;
	k = malloc(len);
	if (!k)
		return 0;
	k[0] = opts->no_demangle;
	k[1] = rec->build_id_len ? 'b' : 's';
	memcpy(k + 2, name, nl);
	memcpy(k + 2 + nl, dip, dl);
	memcpy(k + 2 + nl + dl, ident, il);
	*key = k;
	return len;
}

static void pa_symbols_cu_free(struct pa_sym_cu *cu)
{
	if (!cu)
		return;
	free(cu->scopes);
	free(cu->own);
	free(cu->sorted);
	free(cu);
}

static void pa_symbols_file_free(struct pa_sym_file *f)
{
	if (!f)
		return;
	for (size_t j = 0; j < f->nsyms; j++)
		free(f->syms[j].demangled);
	free(f->syms);
	for (size_t i = 0; f->cu_keys && i < pa_intern_count(f->cu_keys); i++)
		pa_symbols_cu_free(f->cus[i]);
	free(f->cus);
	pa_intern_free(f->cu_keys);
	for (size_t i = 0; f->src_keys && i < pa_intern_count(f->src_keys); i++)
		free(f->src[i].v);
	free(f->src);
	free(f->curanges);
	pa_intern_free(f->src_keys);
	pa_intern_free(f->paths);
	free(f->join);
	for (size_t i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->debuginfo_path);
	free(f->reason);
	free(f);
}

/* The end of the reason rec's frames are unresolved, when the binary path was looked in too. */
#define PA_SYMBOLS_NOT_SEARCHED(rec)                                                    \
	((rec)->build_id_len ? "; no file with its build-id under the binary path either: " \
			       "its frames stay unresolved"                                   \
			     : "; no file of its name under the binary path either: its "    \
			       "frames stay unresolved")

/* Why f's frames stay unresolved: what, then then; -ENOMEM. */
static int pa_symbols_file_fail(struct pa_sym_file *f, const char *what, const char *then)
{
	if (asprintf(&f->reason, "%s%s", what, then) < 0) {
		f->reason = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The path of the file open as fd into buf (size bytes), for libdwfl to
 * look for its .gnu_debuglink file beside: where it was found (under
 * --binary-path, with its debug file beside it), which need not be where
 * it was recorded; path when that cannot be told (no /proc, a file
 * deleted since).
 */
static const char *pa_symbols_opened_path(int fd, const char *path, char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1 || buf[0] != '/')
		return path;
	buf[n] = '\0';
	if ((size_t)n > sizeof(deleted) - 1 &&
	    strcmp(buf + n - (sizeof(deleted) - 1), deleted) == 0)
		return path;
	return buf;
}

/*
 * Read the file at path (open as fd, or fd < 0 with why saying why not),
 * recorded as rec, into f: its libdwfl session. A file that cannot be read
 * is not an error: f->reason says why. Returns 0 or -ENOMEM.
 */
static int pa_symbols_file_read(struct pa_sym_file *f, const char *path, int fd,
				const struct pa_error *why, const struct pa_module *rec)
{
	const unsigned char *bits;
	char opened[PATH_MAX];
	GElf_Addr vaddr;
	int len;

	if (fd < 0)
		return pa_symbols_file_fail(f, why->reason, f->searched ? PA_SYMBOLS_NOT_SEARCHED(rec) :
						 "; its frames stay unresolved");
	f->callbacks = pa_symbols_callbacks;
	f->callbacks.debuginfo_path = &f->debuginfo_path;
	f->dwfl = dwfl_begin(&f->callbacks);
	if (!f->dwfl) {
		close(fd);
		return pa_symbols_file_fail(f, "cannot start libdwfl: ", dwfl_errmsg(-1));
	}
	dwfl_report_begin(f->dwfl);
	f->bias = rec->bias;
	/* libdwfl keeps a copy of the file's name. */
	f->mod = dwfl_report_elf(f->dwfl, path, pa_symbols_opened_path(fd, path, opened,
									sizeof(opened)),
				 fd, rec->bias, true);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		close(fd); /* libdwfl keeps it only on success */
		char what[512];

		snprintf(what, sizeof(what), "cannot read module (%s)", dwfl_errmsg(-1));
		return pa_symbols_file_fail(f, what, ": its frames stay unresolved");
	}
	len = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (rec->build_id_len &&
	    (len != (int)rec->build_id_len || memcmp(bits, rec->build_id, (size_t)len))) {
		f->mod = NULL;
		return pa_symbols_file_fail(f, "build-id differs from the one recorded (the file "
					    "changed since the run?)",
					    f->searched ? PA_SYMBOLS_NOT_SEARCHED(rec) :
					    ": its frames stay unresolved");
	}
	return 0;
}

/* A new file of the store for key, read from path; NULL when out of memory. */
static struct pa_sym_file *pa_symbols_file_new(const struct pa_symbols_opts *opts,
					       const char *path, int fd, const struct pa_error *why,
					       const struct pa_module *rec)
{
	struct pa_sym_file *f = calloc(1, sizeof(*f));

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	f->no_demangle = opts->no_demangle;
	f->searched = opts->binary_path && opts->binary_path[0];
	if ((opts->debuginfo_path && !(f->debuginfo_path = strdup(opts->debuginfo_path))) ||
	    !(f->cu_keys = pa_intern_new()) || !(f->paths = pa_intern_new()) ||
	    !(f->src_keys = pa_intern_new()) ||
	    pa_symbols_file_read(f, path, fd, why, rec) < 0) {
		if (fd >= 0 && !f->dwfl)
			close(fd);
		pa_symbols_file_free(f);
		return NULL;
	}
	return f;
}

/* Whether the ELF file open as fd has the build-id rec recorded. */
static bool pa_symbols_build_id_is(int fd, const struct pa_module *rec)
{
	Elf *elf;
	const void *bits;
	ssize_t len;
	bool same;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	len = dwelf_elf_gnu_build_id(elf, &bits);
	same = len == (ssize_t)rec->build_id_len && !memcmp(bits, rec->build_id, (size_t)len);
	elf_end(elf);
	return same;
}

/*
 * Whether the file st describes may be the one rec (without a build-id)
 * says the process mapped (PPF_REC_MODULE_FILE): of its size (its time is
 * a copy's own, or said: pa_symbols_note_modified). True when the log says
 * nothing of the file.
 */
static bool pa_symbols_file_is(const struct stat *st, const struct pa_module *rec)
{
	return rec->build_id_len || !rec->has_file || (uint64_t)st->st_size == rec->file_size;
}

/* "YYYY-MM-DD HH:MM:SS UTC" of ns since the epoch into buf (size bytes). */
static const char *pa_symbols_when(uint64_t ns, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, size, "%llu s", (unsigned long long)t);
	return buf;
}

/* Why a file without a build-id that changed since the run is not read. */
static int pa_symbols_changed(struct pa_error *why, const char *path, const struct stat *st,
			      const struct pa_module *rec)
{
	char now[64], then[64];

	return pa_error_set(why, -ESTALE, path, false, 0,
			    "changed since the run (%lld bytes, modified %s; the process "
			    "mapped %llu bytes, modified %s), and without a build-id its "
			    "addresses may name other functions (--binary-path finds a copy "
			    "of the file as it was)",
			    (long long)st->st_size, pa_symbols_when(pa_regfile_mtime_ns(st), now,
								     sizeof(now)),
			    (unsigned long long)rec->file_size,
			    pa_symbols_when(rec->file_mtime_ns, then, sizeof(then)));
}

/*
 * Open dir's first dlen bytes, '/', a (no '/' when a is absolute), then
 * '/' and b when b is not "", when it is a regular file and, if rec has a
 * build-id, has that one (without: of the size the process mapped, when the
 * log says). Returns the descriptor and fills *st (may be
 * NULL), or -1.
 */
static int pa_symbols_try(const char *dir, size_t dlen, const char *a, const char *b,
			  const struct pa_module *rec, struct stat *st)
{
	struct stat own;
	char *cand;
	int fd;

	if (asprintf(&cand, "%.*s%s%s%s%s", (int)dlen, dir, a[0] == '/' ? "" : "/", a,
		     b[0] ? "/" : "", b) < 0)
		return -1;
	if (!st)
		st = &own;
	fd = pa_regfile_open(cand, 0, st, NULL);
	free(cand);
	if (fd >= 0 && ((rec->build_id_len && !pa_symbols_build_id_is(fd, rec)) ||
			!pa_symbols_file_is(st, rec))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The file of rec, recorded as path, under each directory of the binary
 * path (':'-separated), in the order Go's pprof looks for a binary:
 * DIR/BUILDID/BASENAME, DIR/BUILDID, DIR/PATH (a copy of the machine's
 * tree, as perf's --symfs), DIR/BASENAME; with a build-id recorded only a
 * file that has it. Returns the descriptor (and *st), or -1.
 */
static int pa_symbols_search(const char *bpath, const char *path, const struct pa_module *rec,
			     struct stat *st)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char hex[2 * sizeof(rec->build_id) + 1] = "";
	/* DIR/BUILDID/NAME, DIR/BUILDID, DIR/PATH, DIR/NAME: the first two with a build-id only. */
	const char *const cand[][2] = { { hex, base }, { hex, "" }, { path, "" }, { base, "" } };
	size_t dlen;
	int fd = -1;

	for (size_t i = 0; i < rec->build_id_len && i < sizeof(rec->build_id); i++)
		snprintf(hex + 2 * i, 3, "%02x", rec->build_id[i]);
	for (const char *d = bpath; fd < 0 && *d; d += dlen + (d[dlen] == ':')) {
		dlen = strcspn(d, ":");
		for (size_t k = hex[0] ? 0 : 2; dlen && fd < 0 && k < 4; k++)
			fd = pa_symbols_try(d, dlen, cand[k][0], cand[k][1], rec, st);
	}
	return fd;
}

/* The largest vDSO image read (a few pages in every kernel). */
#define PA_SYMBOLS_VDSO_MAX (1u << 20)

/*
 * Whether the vDSO image open as fd (st its stat) is what its name says
 * when the name is its hash (an image without a build-id, PPF_REC_VDSO:
 * vdso.xxh128-HEX.so, as the preload names it): true for a name that
 * says no hash.
 */
static bool pa_symbols_vdso_hash_is(int fd, const struct stat *st, const char *image)
{
	static const char prefix[] = PPF_VDSO_FILE_PREFIX "xxh128-";
	char want[64], *data;
	XXH128_hash_t h;

	if (!image || strncmp(image, prefix, sizeof(prefix) - 1) != 0)
		return true;
	if (st->st_size <= 0 || st->st_size > PA_SYMBOLS_VDSO_MAX)
		return false;
	data = malloc((size_t)st->st_size);
	if (!data || pread(fd, data, (size_t)st->st_size, 0) != st->st_size) {
		free(data);
		return false;
	}
	h = XXH3_128bits(data, (size_t)st->st_size);
	free(data);
	snprintf(want, sizeof(want), PPF_VDSO_FILE_PREFIX PPF_VDSO_HASH_FMT PPF_VDSO_FILE_SUFFIX,
		 (unsigned long long)h.high64, (unsigned long long)h.low64);
	return strcmp(want, image) == 0;
}

/*
 * The vDSO's image, which the run wrote at its root as a regular file,
 * never a link: open when it is one and, named by its hash, holds what
 * its name says; else a negative value with why saying why.
 */
static int pa_symbols_vdso_open(const char *path, const struct pa_module *rec,
				struct stat *st, struct pa_error *why)
{
	struct stat own;
	int fd;

	if (!st)
		st = &own;
	fd = pa_regfile_open(path, O_NOFOLLOW, st, why);
	if (fd >= 0 && !rec->build_id_len && !pa_symbols_vdso_hash_is(fd, st, rec->vdso_image)) {
		close(fd);
		return pa_error_set(why, -EINVAL, path, false, 0, "its content is not what its name "
				    "says (not the image libpprof wrote)");
	}
	return fd;
}

/*
 * Open the file of rec, recorded as path: there, when it is (with rec's
 * build-id, if any); else the one the binary path has (opts->binary_path);
 * else path as it is (its failure, or its other build-id, said as the
 * frames' reason). Returns the descriptor (and *st, may be NULL), or a
 * negative value with why saying why.
 */
static int pa_symbols_locate(const struct pa_symbols_opts *opts, const char *name,
			     const char *path, const struct pa_module *rec, struct stat *st,
			     struct pa_error *why)
{
	bool changed;
	int fd, found;

	if (name == pa_symbols_vdso)
		return pa_symbols_vdso_open(path, rec, st, why);
	fd = pa_regfile_open(path, 0, st, why);
	/* Without a build-id, st says whether the file is the one mapped (rec). */
	/* Another size: another file. The same size modified since is read, said (file_get). */
	changed = fd >= 0 && st && !pa_symbols_file_is(st, rec);
	if (fd >= 0 && !changed &&
	    (!opts->binary_path || !opts->binary_path[0] ||
	     !rec->build_id_len || pa_symbols_build_id_is(fd, rec)))
		return fd;
	if (opts->binary_path && opts->binary_path[0]) {
		struct stat found_st;

		found = pa_symbols_search(opts->binary_path, path, rec, &found_st);
		if (found >= 0) {
			if (fd >= 0)
				close(fd);
			if (st)
				*st = found_st;
			return found;
		}
	}
	if (changed) {
		pa_symbols_changed(why, path, st, rec);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A file without a build-id read at its recorded path (st its stat) of the
 * size the process mapped but modified since: its names are taken (a copy
 * put back, a rebuild of the same code), said in f->reason, the warning
 * for each process that maps it. Out of memory: not said.
 */
static void pa_symbols_note_modified(struct pa_sym_file *f, const char *path,
				     const struct stat *st, const struct pa_module *rec)
{
	struct stat at;
	char now[64], then[64];

	if (!rec->has_file || f->reason || pa_regfile_mtime_ns(st) == rec->file_mtime_ns ||
	    stat(path, &at) != 0 || at.st_dev != st->st_dev || at.st_ino != st->st_ino)
		return;
	if (asprintf(&f->reason, "modified since the run (%s; the process mapped it as "
		     "modified %s), of the same size: its names are read from it as it is now, "
		     "which without a build-id cannot be told from the file mapped",
		     pa_symbols_when(pa_regfile_mtime_ns(st), now, sizeof(now)),
		     pa_symbols_when(rec->file_mtime_ns, then, sizeof(then))) < 0)
		f->reason = NULL;
}

/*
 * The store's file named name (the path frames show) for rec, read from
 * path on first use. Returns it, or NULL when out of memory.
 */
static struct pa_sym_file *pa_symbols_file_get(const struct pa_symbols_opts *opts,
					       const char *name, const char *path,
					       const struct pa_module *rec)
{
	struct pa_sym_file *f = NULL;
	struct pa_error why = { .reason = "" };
	struct stat st;
	char *key = NULL;
	size_t len;
	int64_t i;
	int fd = -1;

	/*
	 * Opened here, not by libdwfl (whose open would wait forever for a
	 * FIFO's writer): the path comes from a log. Without a build-id the
	 * open file says which it is.
	 */
	if (!rec->build_id_len)
		fd = pa_symbols_locate(opts, name, path, rec, &st, &why);
	len = pa_symbols_file_key(opts, name, rec, fd >= 0 ? &st : NULL, &key);
	if (!len || (!pa_symbols_store.keys && !(pa_symbols_store.keys = pa_intern_new())))
		goto out;
	i = pa_intern_find(pa_symbols_store.keys, key, len);
	if (i >= 0) {
		f = pa_symbols_store.files[i];
		goto out;
	}
	if (rec->build_id_len)
		fd = pa_symbols_locate(opts, name, path, rec, NULL, &why);
	i = (int64_t)pa_intern_count(pa_symbols_store.keys);
	f = pa_symbols_file_new(opts, path, fd, &why, rec);
	if (f && f->mod && fd >= 0 && !rec->build_id_len)
		pa_symbols_note_modified(f, path, &st, rec);
	fd = -1; /* the file's now */
	if (f && (pa_grow((void **)&pa_symbols_store.files, &pa_symbols_store.cap, (size_t)i,
			  sizeof(*pa_symbols_store.files)) < 0 ||
		  pa_intern_add(pa_symbols_store.keys, key, len) < 0)) {
		pa_symbols_file_free(f);
		f = NULL;
	}
	if (f) {
		pa_symbols_store.files[i] = f;
		pa_symbols_store.loads++;
	}
out:
	if (fd >= 0)
		close(fd);
	free(key);
	return f;
}

uint64_t pa_symbols_files_read(void)
{
	return pa_symbols_store.loads;
}

void pa_symbols_files_release(void)
{
	for (size_t i = 0; pa_symbols_store.keys && i < pa_intern_count(pa_symbols_store.keys); i++)
		pa_symbols_file_free(pa_symbols_store.files[i]);
	free(pa_symbols_store.files);
	pa_intern_free(pa_symbols_store.keys);
	pa_symbols_store.files = NULL;
	pa_symbols_store.keys = NULL;
	pa_symbols_store.cap = 0;
}

/*
 * Where the vDSO's image of rec is now, into *file (malloc'd): beside the
 * process directory at the run's root, or beside the process's log when
 * that is alone at the root (a process that took no sample; rec's path,
 * where it was written, when the process log is read alone), or the
 * process's own copy in logs written before. Returns 0 or -ENOMEM.
 */
static int pa_symbols_vdso_file(const struct pa_process *proc, const struct pa_module *rec,
				char **file)
{
	const char *slash = proc->path ? strrchr(proc->path, '/') : NULL;

	if (!proc->dir || !proc->dir[0])
		return (*file = strdup(rec->path)) ? 0 : -ENOMEM;
	/*
	 * A process log at the root (<P>.log, P: <exe>@<host>.<pid>): the image is
	 * beside it, or its own copy is <P>.vdso.so; in a process directory of an
	 * older run, the image is in the directory's parent, or the copy in it.
	 */
	bool at_root = slash && strcmp(slash + 1, PPF_PROCESS_LOG) != 0;

	if (rec->vdso_image && at_root)
		return asprintf(file, "%.*s/%s", (int)(slash - proc->path), proc->path,
				rec->vdso_image) < 0 ? -ENOMEM : 0;
	if (rec->vdso_image)
		return (*file = pa_parent_file(proc->dir, strlen(proc->dir), rec->vdso_image)) ?
			       0 : -ENOMEM;
	return (*file = pa_process_file(proc, PPF_VDSO_COPY)) ? 0 : -ENOMEM;
}

/* Name module idx of sym and find its file; -ENOMEM. */
static int pa_symbols_module_init(struct pa_symbols *sym, size_t idx, struct pa_warnings *warn)
{
	const struct pa_process *proc = sym->proc;
	struct pa_sym_module *m = &sym->mods[idx];
	const char *slash;
	char *copy = NULL;
	int ret = 0;

	m->rec = &proc->modules[idx];
	m->path = pa_symbols_module_name(proc, m->rec);
	slash = strrchr(m->path, '/');
	m->base = slash ? slash + 1 : m->path;
	/* The vDSO's image is read where the run is now: it may have moved. */
	if (m->path == pa_symbols_vdso && pa_symbols_vdso_file(proc, m->rec, &copy) < 0)
		return -ENOMEM;
	if (m->path[0] != '/' && !copy)
		return 0; /* a module without a path of a file (hand-made logs) */
	m->file = pa_symbols_file_get(&sym->opts, m->path, copy ? copy : m->path, m->rec);
	if (!m->file)
		ret = -ENOMEM;
	else if (m->file->reason)
		pa_warnings_add(warn, copy ? copy : m->path, false, 0, "%s", m->file->reason);
	free(copy);
	return ret;
}

int pa_symbols_new_opts(const struct pa_process *proc, const struct pa_symbols_opts *opts,
			struct pa_symbols **out, struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_symbols *sym = calloc(1, sizeof(*sym));

	*out = NULL;
	if (!sym || (proc->nmodules && !(sym->mods = calloc(proc->nmodules, sizeof(*sym->mods)))) ||
	    !(sym->cache_keys = pa_intern_new())) {
		pa_symbols_free(sym);
		return pa_error_set(err, -ENOMEM, proc->path, false, 0, "out of memory");
	}
	if (opts)
		sym->opts = *opts;
	sym->proc = proc;
	sym->nmods = proc->nmodules;
	for (size_t i = 0; i < sym->nmods; i++) {
		if (pa_symbols_module_init(sym, i, warn) < 0) {
			pa_symbols_free(sym);
			return pa_error_set(err, -ENOMEM, proc->path, false, 0, "out of memory");
		}
	}
	if (pa_perfmap_load(proc, &sym->jit, warn) < 0) {
		pa_symbols_free(sym);
		return pa_error_set(err, -ENOMEM, proc->path, false, 0, "out of memory");
	}
	*out = sym;
	return 0;
}

/* What pa_symbols_new uses: set once by the command line, before any symboliser. */
static struct pa_symbols_opts pa_symbols_defaults;

void pa_symbols_set_defaults(const struct pa_symbols_opts *opts)
{
	pa_symbols_defaults = opts ? *opts : (struct pa_symbols_opts){ .no_demangle = false };
}

int pa_symbols_new(const struct pa_process *proc, struct pa_symbols **out,
		   struct pa_warnings *warn, struct pa_error *err)
{
	return pa_symbols_new_opts(proc, &pa_symbols_defaults, out, warn, err);
}

void pa_symbols_free(struct pa_symbols *sym)
{
	if (!sym)
		return;
	free(sym->mods);
	pa_perfmap_free(sym->jit);
	for (size_t i = 0; sym->cache_keys && i < pa_intern_count(sym->cache_keys); i++) {
		free(sym->cache[i].owned_name);
		free(sym->cache[i].src_owned);
	}
	free(sym->cache);
	pa_intern_free(sym->cache_keys);
	free(sym);
}

/* addr of m's mapping in its file's session: the file is shared, its bias is not. */
static uint64_t pa_symbols_file_addr(const struct pa_sym_module *m, uint64_t addr)
{
	return addr - m->rec->bias + m->file->bias;
}

/* The module holding addr, preferring one loaded at time_ns; -1 if none. */
static ssize_t pa_symbols_module_at(const struct pa_symbols *sym, uint64_t addr, uint64_t time_ns)
{
	ssize_t first = -1;

	for (size_t i = 0; i < sym->nmods; i++) {
		const struct pa_module *r = sym->mods[i].rec;

		if (addr < r->start || addr >= r->end)
			continue;
		if (r->load_ns <= time_ns && time_ns < r->unload_ns)
			return (ssize_t)i;
		if (first < 0)
			first = (ssize_t)i;
	}
	return first;
}

static void pa_symbols_unknown_frame(uint64_t ip, struct pa_frame *out)
{
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->offset = ip;
	out->name = pa_symbols_unknown;
	/* The time before profiling (before.h): a function of no module. */
	if (ip == PA_BEFORE_IP)
		out->name = out->function = PA_BEFORE_NAME;
	else if (ip == PA_TRUNCATED_IP)
		out->name = out->function = PA_TRUNCATED_NAME;
	/* A wall sample's state off the CPU (wall.h). */
	else if (pa_wall_frame_name(ip))
		out->name = out->function = pa_wall_frame_name(ip);
}

/* Adds c to the cache under key. Returns its slot, or NULL (c's name freed) on ENOMEM. */
static struct pa_sym_cached *pa_symbols_cache_add(struct pa_symbols *sym,
						  const struct pa_sym_cache_key *key,
						  struct pa_sym_cached *c)
{
	size_t n = pa_intern_count(sym->cache_keys);

	if (pa_grow((void **)&sym->cache, &sym->cache_cap, n, sizeof(*sym->cache)) < 0 ||
	    pa_intern_add(sym->cache_keys, key, sizeof(*key)) < 0) {
		free(c->owned_name);
		return NULL;
	}
	sym->cache[n] = *c;
	return &sym->cache[n];
}

/*
 * The slot of an address in no module (key's), named by the JIT's perf
 * map; NULL when the map does not hold it either (*err 0) or on ENOMEM.
 * Its source frames are none: reports name it by its function.
 */
static struct pa_sym_cached *pa_symbols_resolve_jit(struct pa_symbols *sym,
						    const struct pa_sym_cache_key *key,
						    uint64_t addr, int *err)
{
	const struct pa_perfmap_entry *e = pa_perfmap_find(sym->jit, addr);
	struct pa_sym_cached c = { .mod = SIZE_MAX, .src_done = true };
	struct pa_sym_cached *slot;

	if (!e)
		return NULL;
	c.frame = (struct pa_frame){
		.ip = key->ip, .function = e->name, .name = e->name,
		.module = PA_PERFMAP_MODULE, .module_base = PA_PERFMAP_MODULE,
		.offset = key->ip, .func_offset = addr - e->start, .func_start = e->start,
	};
	slot = pa_symbols_cache_add(sym, key, &c);
	if (!slot)
		*err = -ENOMEM;
	return slot;
}

/*
 * What the cache holds for (ip, is_caller) at time_ns, filled on first
 * use; NULL when no module holds ip (*err 0) or on ENOMEM (*err -ENOMEM).
 * The pointer is valid until the next lookup.
 */
static struct pa_sym_cached *pa_symbols_resolve(struct pa_symbols *sym, uint64_t ip,
						bool is_caller, uint64_t time_ns, int *err)
{
	uint64_t addr = is_caller && ip ? ip - 1 : ip;
	ssize_t mi = pa_symbols_module_at(sym, addr, time_ns);
	const struct pa_sym_cache_key key = { .ip = ip, .tag = ((uint64_t)mi + 1) << 1 | is_caller };
	struct pa_sym_cached c = { .mod = (size_t)mi }, *slot;
	struct pa_sym_module *m;
	struct pa_sym_entry *e = NULL;
	int64_t i;

	*err = 0;
	/* The reports' own frames (before profiling, truncated, wall states) are no code. */
	if (mi < 0 && (!sym->jit || ip >= PA_TRUNCATED_IP))
		return NULL;
	i = pa_intern_find(sym->cache_keys, &key, sizeof(key));
	if (i >= 0)
		return &sym->cache[i];
	if (mi < 0)
		return pa_symbols_resolve_jit(sym, &key, addr, err);
	m = &sym->mods[mi];
	if (m->file && m->file->mod) {
		struct pa_sym_file *f = m->file;

		if (!f->syms_built && pa_symbols_build_table(f) < 0)
			goto out_nomem;
		e = pa_symbols_find(f, pa_symbols_file_addr(m, addr));
		if (e) {
			c.frame.function = pa_symbols_entry_name(e, !f->no_demangle);
			c.frame.func_offset = pa_symbols_file_addr(m, addr) - e->start;
			c.frame.func_start = e->start;
		}
	}
	c.frame.ip = ip;
	c.frame.module = m->path;
	c.frame.module_base = m->base;
	c.frame.offset = ip - m->rec->bias;
	if (e) {
		c.frame.name = c.frame.function;
	} else {
		if (asprintf(&c.owned_name, "%s+0x%llx", m->base,
			     (unsigned long long)c.frame.offset) < 0)
			goto out_nomem;
		c.frame.name = c.owned_name;
	}
	slot = pa_symbols_cache_add(sym, &key, &c);
	if (slot)
		return slot;
out_nomem:
	*err = -ENOMEM;
	return NULL;
}

int pa_symbols_lookup_at(struct pa_symbols *sym, uint64_t ip, bool is_caller,
			 uint64_t time_ns, struct pa_frame *out)
{
	int err;
	struct pa_sym_cached *slot = pa_symbols_resolve(sym, ip, is_caller, time_ns, &err);

	if (!slot) {
		pa_symbols_unknown_frame(ip, out);
		return err;
	}
	*out = slot->frame;
	return 0;
}

/* Keep s (malloc'd) as long as f; returns s, or NULL (s freed) on ENOMEM. */
static char *pa_symbols_own(struct pa_sym_file *f, char *s)
{
	if (s && pa_grow((void **)&f->owned, &f->owned_cap, f->nowned, sizeof(*f->owned)) < 0) {
		free(s);
		return NULL;
	}
	if (s)
		f->owned[f->nowned++] = s;
	return s;
}

/* The name of a subprogram or inlined subroutine DIE (its origin's), demangled. */
static const char *pa_symbols_die_name(struct pa_sym_file *f, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
								    &attr));
	char *plain;

	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name,
								&attr));
	if (!linkage)
		return dwarf_diename(die);
	if (f->no_demangle || !(plain = pa_symbols_demangle(linkage)))
		return linkage;
	return pa_symbols_own(f, plain) ? plain : linkage;
}

/* Append a frame to *v (n used, *cap allocated); -ENOMEM. */
static int pa_symbols_push_src(struct pa_srcframe **v, uint32_t *n, uint32_t *cap,
			       const struct pa_srcframe *f)
{
	if (*n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 4;
		struct pa_srcframe *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *f;
	return 0;
}

/* Add scope die (with its ranges) under parent to cu; its index, -1 if no code, -2 ENOMEM. */
static int pa_symbols_cu_add(struct pa_sym_cu *cu, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int idx = -1;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (idx < 0) {
			if (pa_grow((void **)&cu->scopes, &cu->scopes_cap, cu->nscopes,
				    sizeof(*cu->scopes)) < 0)
				return -2;
			idx = (int)cu->nscopes++;
			cu->scopes[idx] = (struct pa_sym_scope){ .die = *die, .parent = parent,
								 .first = (uint32_t)cu->nranges };
		}
		if (pa_grow((void **)&cu->own, &cu->ranges_cap, cu->nranges,
			    sizeof(*cu->own)) < 0)
			return -2;
		cu->own[cu->nranges++] = (struct pa_sym_range){ lo, hi, (uint32_t)idx, depth };
		cu->scopes[idx].n++;
	}
	return idx;
}

/* Index the scopes under die (enclosed by scope parent); -ENOMEM. */
static int pa_symbols_cu_walk(struct pa_sym_cu *cu, Dwarf_Die *die, int32_t parent,
			      uint32_t depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int idx;

		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			idx = pa_symbols_cu_add(cu, &child, parent, depth);
			if (idx == -2)
				return -ENOMEM;
			if (idx >= 0 && pa_symbols_cu_walk(cu, &child, idx, depth + 1) < 0)
				return -ENOMEM;
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			if (pa_symbols_cu_walk(cu, &child, parent, depth + 1) < 0)
				return -ENOMEM;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int pa_symbols_cmp_range(const void *a, const void *b)
{
	const struct pa_sym_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The index of unit cudie of module mod, built on first use; NULL on ENOMEM. */
static struct pa_sym_cu *pa_symbols_cu(struct pa_sym_file *f, Dwarf_Die *cudie)
{
	const Dwarf_Off key = dwarf_dieoffset(cudie);
	size_t n = pa_intern_count(f->cu_keys);
	int64_t i = pa_intern_find(f->cu_keys, &key, sizeof(key));
	struct pa_sym_cu *cu;

	if (i >= 0)
		return f->cus[i];
	cu = calloc(1, sizeof(*cu));
	if (!cu || pa_symbols_cu_walk(cu, cudie, -1, 0) < 0 ||
	    (cu->nranges && !(cu->sorted = malloc(cu->nranges * sizeof(*cu->sorted)))) ||
	    pa_grow((void **)&f->cus, &f->cus_cap, n, sizeof(*f->cus)) < 0 ||
	    pa_intern_add(f->cu_keys, &key, sizeof(key)) < 0) {
		pa_symbols_cu_free(cu);
		return NULL;
	}
	if (cu->nranges) {
		memcpy(cu->sorted, cu->own, cu->nranges * sizeof(*cu->sorted));
		qsort(cu->sorted, cu->nranges, sizeof(*cu->sorted), pa_symbols_cmp_range);
	}
	f->cus[n] = cu;
	return cu;
}

static bool pa_symbols_scope_has(const struct pa_sym_cu *cu, int32_t s, uint64_t a)
{
	const struct pa_sym_scope *sc = &cu->scopes[s];

	for (uint32_t k = 0; k < sc->n; k++)
		if (cu->own[sc->first + k].lo <= a && a < cu->own[sc->first + k].hi)
			return true;
	return false;
}

/*
 * The innermost indexed scope of cu holding a, or -1: the deepest range
 * starting last at or below a, then its enclosing scopes until one holds a
 * (scopes nest, so a range starting between a holder's start and a belongs
 * to one of its descendants).
 */
static int32_t pa_symbols_cu_find(const struct pa_sym_cu *cu, uint64_t a)
{
	size_t lo = 0, hi = cu->nranges;
	int32_t s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->sorted[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	for (s = (int32_t)cu->sorted[lo - 1].scope; s >= 0 && !pa_symbols_scope_has(cu, s, a);
	     s = cu->scopes[s].parent)
		;
	return s;
}

/*
 * file as a path to open: as is when absolute or when dir is unknown, else
 * "dir/file" (DWARF names files relative to the unit's DW_AT_comp_dir),
 * interned. file itself when out of memory.
 */
static const char *pa_symbols_src_path(struct pa_sym_file *f, const char *dir, const char *file)
{
	size_t dl, fl;
	int64_t i;

	if (!file || file[0] == '/' || !dir || !dir[0])
		return file;
	dl = strlen(dir);
	fl = strlen(file) + 1;
	if (pa_grow((void **)&f->join, &f->join_cap, dl + fl, 1) < 0)
		return file;
	memcpy(f->join, dir, dl);
	f->join[dl] = '/';
	memcpy(f->join + dl + 1, file, fl);
	i = pa_intern_add(f->paths, f->join, dl + 1 + fl);
	return i < 0 ? file : pa_intern_key(f->paths, (size_t)i, NULL);
}

/* The compilation directory of the unit holding die, NULL if unknown. */
static const char *pa_symbols_comp_dir(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return NULL;
	return dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
}

/* The line where die's function is declared (through its abstract origin), 0 if none. */
static unsigned pa_symbols_decl_line(Dwarf_Die *die)
{
	int line = 0;

	return dwarf_decl_line(die, &line) == 0 && line > 0 ? (unsigned)line : 0;
}

/* Where inlined scope die was called from: its DW_AT_call_file and _line. */
static void pa_symbols_call_site(Dwarf_Die *die, const char **file, unsigned *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Files *files;
	Dwarf_Die cu;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) == 0)
		*line = (unsigned)v;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) == 0 &&
	    dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, NULL) == 0)
		*file = dwarf_filesrc(files, v, NULL, NULL);
}

static int pa_symbols_curange_cmp(const void *a, const void *b)
{
	const struct pa_sym_curange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Every compilation unit's address ranges in f (DW_AT_ranges, or low and
 * high pc), sorted; made once, for pa_symbols_addrcu. Out of memory: the
 * units found so far.
 */
static void pa_symbols_curanges(struct pa_sym_file *f)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;

	f->curanges_built = true;
	while ((cu = dwfl_module_nextcu(f->mod, cu, &bias)) != NULL) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
			if (end <= start)
				continue;
			if (pa_grow((void **)&f->curanges, &f->curanges_cap, f->ncuranges + 1,
				    sizeof(*f->curanges)) < 0)
				goto sort;
			f->curanges[f->ncuranges++] = (struct pa_sym_curange){
				.start = start + bias, .end = end + bias, .cu = cu, .bias = bias
			};
		}
	}
sort:
	qsort(f->curanges, f->ncuranges, sizeof(*f->curanges), pa_symbols_curange_cmp);
}

/*
 * The compilation unit of f holding session address addr, and its bias;
 * NULL if none. libdw (0.188) finds a unit by .debug_aranges only, which
 * clang does not write: without it, by the units' own ranges.
 */
static Dwarf_Die *pa_symbols_addrcu(struct pa_sym_file *f, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, bias);
	size_t lo = 0, hi;

	if (cu)
		return cu;
	if (!f->curanges_built)
		pa_symbols_curanges(f);
	/* The last range starting at or below addr, then back over any that hold it. */
	hi = f->ncuranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->curanges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > 0; i--) {
		const struct pa_sym_curange *r = &f->curanges[i - 1];

		if (addr < r->end) {
			*bias = r->bias;
			return r->cu;
		}
		/* Units do not nest: one ending below addr ends the search, but a
		 * few small ones may sit inside a large one's gap. */
		if (lo - i >= 8)
			break;
	}
	return NULL;
}

/*
 * The source line of session address addr of f in unit cudie (bias): its
 * file (joined to the unit's directory) and line. Through libdwfl where it
 * finds the unit itself, else from cudie's line table.
 */
static void pa_symbols_src_line(struct pa_sym_file *f, uint64_t addr, Dwarf_Die *cudie,
				Dwarf_Addr bias, const char **file, unsigned *line)
{
	Dwfl_Line *ln = dwfl_module_getsrc(f->mod, addr);
	Dwarf_Line *dl;
	int n = 0;

	*file = NULL;
	if (ln) {
		*file = pa_symbols_src_path(f, dwfl_line_comp_dir(ln),
					    dwfl_lineinfo(ln, NULL, &n, NULL, NULL, NULL));
	} else if (cudie && (dl = dwarf_getsrc_die(cudie, addr - bias)) != NULL) {
		*file = pa_symbols_src_path(f, pa_symbols_comp_dir(cudie),
					    dwarf_linesrc(dl, NULL, NULL));
		if (dwarf_lineno(dl, &n) != 0)
			n = 0;
	}
	*line = n > 0 ? (unsigned)n : 0;
}

/*
 * Fill *out with the source frames of session address addr of file f: one
 * per inline level, then the function. A flat switch over the scopes,
 * innermost first.
 */
static int pa_symbols_fill_src(struct pa_sym_file *f, uint64_t addr, struct pa_sym_src *out)
{
	struct pa_srcframe fr = { .function = NULL };
	const struct pa_sym_entry *e;
	struct pa_sym_cu *cu = NULL;
	Dwarf_Die *cudie;
	Dwarf_Addr bias = 0;
	uint32_t cap = 0;
	int ret = 0;
	int32_t s = -1;

	cudie = pa_symbols_addrcu(f, addr, &bias);
	pa_symbols_src_line(f, addr, cudie, bias, &fr.file, &fr.line);
	if (cudie) {
		cu = pa_symbols_cu(f, cudie);
		if (!cu)
			return -ENOMEM;
		s = pa_symbols_cu_find(cu, addr - bias);
	}
	for (; s >= 0 && ret == 0; s = cu->scopes[s].parent) {
		Dwarf_Die *die = &cu->scopes[s].die;

		fr.function = pa_symbols_die_name(f, die);
		fr.start_line = pa_symbols_decl_line(die);
		if (dwarf_tag(die) != DW_TAG_inlined_subroutine)
			break;
		fr.inlined = true;
		ret = pa_symbols_push_src(&out->v, &out->n, &cap, &fr);
		fr.start_line = 0;
		pa_symbols_call_site(die, &fr.file, &fr.line);
		fr.file = pa_symbols_src_path(f, pa_symbols_comp_dir(die), fr.file);
	}
	/* The function itself: named as pa_frame names it, for one name per function. */
	fr.inlined = false;
	e = f->syms_built ? pa_symbols_find(f, addr) : NULL;
	if (e)
		fr.function = pa_symbols_entry_name((struct pa_sym_entry *)e, !f->no_demangle);
	else if (!fr.function && out->n)
		out->by_name = true; /* each process names it: pa_symbols_lookup_src */
	if (ret == 0 && (fr.function || out->n))
		ret = pa_symbols_push_src(&out->v, &out->n, &cap, &fr);
	return ret;
}

/* The source frames of session address addr of f, found on first use; NULL on ENOMEM. */
static const struct pa_sym_src *pa_symbols_file_src(struct pa_sym_file *f, uint64_t addr)
{
	struct pa_sym_src v = { .v = NULL };
	int64_t i;
	size_t n;

	i = pa_intern_find(f->src_keys, &addr, sizeof(addr));
	if (i >= 0)
		return &f->src[i];
	n = pa_intern_count(f->src_keys);
	if (pa_symbols_fill_src(f, addr, &v) < 0 ||
	    pa_grow((void **)&f->src, &f->src_cap, n, sizeof(*f->src)) < 0 ||
	    pa_intern_add(f->src_keys, &addr, sizeof(addr)) < 0) {
		free(v.v);
		return NULL;
	}
	f->src[n] = v;
	return &f->src[n];
}

/* slot's source frames, from its module's file: shared, or a copy named by its frame. */
static int pa_symbols_slot_src(struct pa_symbols *sym, struct pa_sym_cached *slot,
			       uint64_t addr)
{
	const struct pa_sym_module *m = &sym->mods[slot->mod];
	const struct pa_sym_src *src;

	slot->src_done = true;
	if (!m->file || !m->file->mod)
		return 0;
	src = pa_symbols_file_src(m->file, pa_symbols_file_addr(m, addr));
	if (!src)
		return -ENOMEM;
	slot->src = src->v;
	slot->nsrc = src->n;
	if (src->by_name && src->n) {
		slot->src_owned = malloc(src->n * sizeof(*slot->src_owned));
		if (!slot->src_owned) {
			slot->src = NULL;
			slot->nsrc = 0;
			return -ENOMEM;
		}
		memcpy(slot->src_owned, src->v, src->n * sizeof(*slot->src_owned));
		slot->src_owned[src->n - 1].function = slot->frame.name;
		slot->src = slot->src_owned;
	}
	return 0;
}

int pa_symbols_lookup_src(struct pa_symbols *sym, uint64_t ip, bool is_caller,
			  uint64_t time_ns, const struct pa_srcframe **frames, size_t *n)
{
	uint64_t addr = is_caller && ip ? ip - 1 : ip;
	int err;
	struct pa_sym_cached *slot = pa_symbols_resolve(sym, ip, is_caller, time_ns, &err);

	*frames = NULL;
	*n = 0;
	if (!slot)
		return err;
	if (!slot->src_done && pa_symbols_slot_src(sym, slot, addr) < 0)
		return -ENOMEM;
	*frames = slot->src;
	*n = slot->nsrc;
	return 0;
}
