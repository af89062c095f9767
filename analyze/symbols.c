/* symbols: offline symbolisation with libdwfl; see symbols.h. */
#include "symbols.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One function symbol of a module, at runtime addresses [start, end). */
struct pa_sym_entry {
	uint64_t start;
	uint64_t end;
	const char *name; /* owned by libdwfl's Elf */
	char *demangled;  /* owned, NULL until asked for or when not C++ */
	uint64_t section_end; /* runtime end of its section, for sizeless symbols; 0 if unknown */
	int rank;         /* global < weak < local: lower wins at one address */
	bool demangle_tried;
};

struct pa_sym_module {
	const struct pa_module *rec;
	const char *path; /* rec->path, or the process exe when that is empty */
	const char *base;
	size_t layer;     /* which Dwfl it was reported to */
	Dwfl_Module *mod; /* NULL: frames stay unresolved */
	struct pa_sym_entry *syms;
	size_t nsyms;
	bool syms_built;
};

struct pa_sym_cache_slot {
	uint64_t ip;
	uint64_t tag; /* (module index + 1) << 1 | is_caller; 0: empty slot */
	struct pa_frame frame;
	char *owned_name; /* "base+0xoff" when unresolved */
};

struct pa_symbols {
	const struct pa_process *proc;
	Dwfl **layers; /* modules that overlap go to separate Dwfl sessions */
	size_t nlayers;
	struct pa_sym_module *mods;
	size_t nmods;
	struct pa_sym_cache_slot *cache; /* open addressing, power-of-two size */
	size_t cache_cap;
	size_t cache_used;
};

static char *pa_symbols_debuginfo_path;
static const Dwfl_Callbacks pa_symbols_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &pa_symbols_debuginfo_path,
};

static const char pa_symbols_unknown[] = "[unknown]";

/*
 * __cxa_demangle lives in libstdc++; load it when first needed so that the
 * analyzer does not link libstdc++. NULL when unavailable.
 */
typedef char *(*pa_symbols_demangle_fn)(const char *, char *, size_t *, int *);

static pa_symbols_demangle_fn pa_symbols_demangler(void)
{
	static bool tried;
	static pa_symbols_demangle_fn fn;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
}

/* "name@@VERSION" and "name@VERSION" (versioned .symtab names): length of name. */
static size_t pa_symbols_unversioned_len(const char *name)
{
	const char *at = strchr(name, '@');

	return at && at != name ? (size_t)(at - name) : strlen(name);
}

static const char *pa_symbols_entry_name(struct pa_sym_entry *e)
{
	if (!e->demangle_tried) {
		size_t len = pa_symbols_unversioned_len(e->name);
		pa_symbols_demangle_fn fn = NULL;
		char *plain;
		int status = -1;

		e->demangle_tried = true;
		if (strncmp(e->name, "_Z", 2) == 0)
			fn = pa_symbols_demangler();
		if (!fn && !e->name[len])
			return e->name;
		plain = strndup(e->name, len);
		if (!plain)
			return e->name;
		if (fn)
			e->demangled = fn(plain, NULL, NULL, &status);
		if (status == 0) {
			free(plain);
		} else {
			free(e->demangled);
			e->demangled = plain;
		}
	}
	return e->demangled ? e->demangled : e->name;
}

static int pa_symbols_cmp_entry(const void *a, const void *b)
{
	const struct pa_sym_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the sized one first */
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

/* The sorted function table of m, built on first use. */
static int pa_symbols_build_table(struct pa_sym_module *m)
{
	int n = dwfl_module_getsymtab(m->mod);
	size_t k = 0;

	m->syms_built = true;
	if (n <= 0)
		return 0;
	m->syms = calloc((size_t)n, sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr, bias;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx,
							   &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		m->syms[k].start = addr;
		m->syms[k].end = addr + sym.st_size;
		if (sym.st_size == 0)
			m->syms[k].section_end = pa_symbols_section_end(elf, shndx, bias);
		m->syms[k].name = name;
		/* glibc's internal __GI_ aliases lose to the public name */
		m->syms[k].rank = (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 4) +
				  (strncmp(name, "__GI_", 5) == 0);
		k++;
	}
	qsort(m->syms, k, sizeof(*m->syms), pa_symbols_cmp_entry);
	/* One entry per address (the best-ranked alias); sizeless ones reach the next. */
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
	for (size_t i = 0; i < m->nsyms; i++) {
		struct pa_sym_entry *e = &m->syms[i];

		/* A sizeless symbol (_init, asm) reaches the next one, within its section. */
		if (e->end == e->start) {
			e->end = i + 1 < m->nsyms ? m->syms[i + 1].start : m->rec->end;
			if (e->section_end > e->start && e->section_end < e->end)
				e->end = e->section_end;
		}
	}
	return 0;
}

static struct pa_sym_entry *pa_symbols_find(struct pa_sym_module *m, uint64_t addr)
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

static bool pa_symbols_overlap(const struct pa_module *a, const struct pa_module *b)
{
	return a->start < b->end && b->start < a->end;
}

static Dwfl *pa_symbols_layer_for(struct pa_symbols *sym, size_t idx)
{
	size_t layer = 0;

	for (size_t j = 0; j < idx; j++)
		if (sym->mods[j].mod && sym->mods[j].layer == layer &&
		    pa_symbols_overlap(sym->mods[j].rec, sym->mods[idx].rec)) {
			layer++;
			j = (size_t)-1; /* rescan this next layer from the start */
		}
	if (layer == sym->nlayers) {
		Dwfl **v = realloc(sym->layers, (layer + 1) * sizeof(*v));

		if (!v)
			return NULL;
		sym->layers = v;
		v[layer] = dwfl_begin(&pa_symbols_callbacks);
		if (!v[layer])
			return NULL;
		dwfl_report_begin(v[layer]);
		sym->nlayers++;
	}
	sym->mods[idx].layer = layer;
	return sym->layers[layer];
}

static void pa_symbols_report(struct pa_symbols *sym, size_t idx, struct pa_warnings *warn)
{
	struct pa_sym_module *m = &sym->mods[idx];
	const unsigned char *bits;
	GElf_Addr vaddr;
	Dwfl *dwfl;
	int len;

	if (m->path[0] != '/')
		return; /* [vdso] and friends: no file to read */
	dwfl = pa_symbols_layer_for(sym, idx);
	if (!dwfl) {
		pa_warnings_add(warn, m->path, false, 0, "cannot start libdwfl: %s",
				dwfl_errmsg(-1));
		return;
	}
	m->mod = dwfl_report_elf(dwfl, m->path, m->path, -1, m->rec->bias, true);
	if (!m->mod) {
		pa_warnings_add(warn, m->path, false, 0,
				"cannot read module (%s): its frames stay unresolved",
				dwfl_errmsg(-1));
		return;
	}
	len = dwfl_module_build_id(m->mod, &bits, &vaddr);
	if (m->rec->build_id_len &&
	    (len != (int)m->rec->build_id_len || memcmp(bits, m->rec->build_id, (size_t)len))) {
		pa_warnings_add(warn, m->path, false, 0,
				"build-id differs from the one recorded (the file changed "
				"since the run?): its frames stay unresolved");
		m->mod = NULL;
	}
}

int pa_symbols_new(const struct pa_process *proc, struct pa_symbols **out,
		   struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_symbols *sym = calloc(1, sizeof(*sym));

	*out = NULL;
	if (!sym || (proc->nmodules && !(sym->mods = calloc(proc->nmodules, sizeof(*sym->mods))))) {
		free(sym);
		return pa_error_set(err, -ENOMEM, proc->path, false, 0, "out of memory");
	}
	sym->proc = proc;
	sym->nmods = proc->nmodules;
	for (size_t i = 0; i < sym->nmods; i++) {
		struct pa_sym_module *m = &sym->mods[i];
		const char *slash;

		m->rec = &proc->modules[i];
		m->path = m->rec->path[0] ? m->rec->path : proc->exe ? proc->exe : "";
		slash = strrchr(m->path, '/');
		m->base = slash ? slash + 1 : m->path;
		pa_symbols_report(sym, i, warn);
	}
	for (size_t l = 0; l < sym->nlayers; l++)
		dwfl_report_end(sym->layers[l], NULL, NULL);
	*out = sym;
	return 0;
}

void pa_symbols_free(struct pa_symbols *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->nmods; i++) {
		for (size_t j = 0; j < sym->mods[i].nsyms; j++)
			free(sym->mods[i].syms[j].demangled);
		free(sym->mods[i].syms);
	}
	free(sym->mods);
	for (size_t i = 0; i < sym->cache_cap; i++)
		free(sym->cache[i].owned_name);
	free(sym->cache);
	for (size_t l = 0; l < sym->nlayers; l++)
		dwfl_end(sym->layers[l]);
	free(sym->layers);
	free(sym);
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

static uint64_t pa_symbols_hash(uint64_t ip, uint64_t tag)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ tag * 0xc2b2ae3d27d4eb4full;

	return h ^ (h >> 29);
}

/* The slot for (ip, tag): either holding it or empty. NULL on ENOMEM. */
static struct pa_sym_cache_slot *pa_symbols_slot(struct pa_symbols *sym, uint64_t ip, uint64_t tag)
{
	size_t mask, i;

	if ((sym->cache_used + 1) * 2 > sym->cache_cap) {
		size_t ncap = sym->cache_cap ? sym->cache_cap * 2 : 1024;
		struct pa_sym_cache_slot *nc = calloc(ncap, sizeof(*nc));

		if (!nc)
			return NULL;
		for (size_t j = 0; j < sym->cache_cap; j++) {
			struct pa_sym_cache_slot *s = &sym->cache[j];

			if (!s->tag)
				continue;
			for (i = pa_symbols_hash(s->ip, s->tag) & (ncap - 1); nc[i].tag;
			     i = (i + 1) & (ncap - 1))
				;
			nc[i] = *s;
		}
		free(sym->cache);
		sym->cache = nc;
		sym->cache_cap = ncap;
	}
	mask = sym->cache_cap - 1;
	for (i = pa_symbols_hash(ip, tag) & mask; sym->cache[i].tag; i = (i + 1) & mask)
		if (sym->cache[i].ip == ip && sym->cache[i].tag == tag)
			break;
	return &sym->cache[i];
}

static void pa_symbols_unknown_frame(uint64_t ip, struct pa_frame *out)
{
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->offset = ip;
	out->name = pa_symbols_unknown;
}

int pa_symbols_lookup_at(struct pa_symbols *sym, uint64_t ip, bool is_caller,
			 uint64_t time_ns, struct pa_frame *out)
{
	uint64_t addr = is_caller && ip ? ip - 1 : ip;
	ssize_t mi = pa_symbols_module_at(sym, addr, time_ns);
	struct pa_sym_cache_slot *slot;
	struct pa_sym_module *m;
	struct pa_sym_entry *e = NULL;

	if (mi < 0) {
		pa_symbols_unknown_frame(ip, out);
		return 0;
	}
	slot = pa_symbols_slot(sym, ip, ((uint64_t)mi + 1) << 1 | is_caller);
	if (!slot) {
		pa_symbols_unknown_frame(ip, out);
		return -ENOMEM;
	}
	if (slot->tag) {
		*out = slot->frame;
		return 0;
	}
	m = &sym->mods[mi];
	if (m->mod && !m->syms_built && pa_symbols_build_table(m) < 0) {
		pa_symbols_unknown_frame(ip, out);
		return -ENOMEM;
	}
	if (m->mod)
		e = pa_symbols_find(m, addr);
	memset(&slot->frame, 0, sizeof(slot->frame));
	slot->frame.ip = ip;
	slot->frame.module = m->path;
	slot->frame.module_base = m->base;
	slot->frame.offset = ip - m->rec->bias;
	if (e) {
		slot->frame.function = pa_symbols_entry_name(e);
		slot->frame.func_offset = addr - e->start;
		slot->frame.name = slot->frame.function;
	} else {
		if (asprintf(&slot->owned_name, "%s+0x%llx", m->base,
			     (unsigned long long)slot->frame.offset) < 0) {
			slot->owned_name = NULL;
			pa_symbols_unknown_frame(ip, out);
			return -ENOMEM;
		}
		slot->frame.name = slot->owned_name;
	}
	slot->ip = ip;
	slot->tag = ((uint64_t)mi + 1) << 1 | is_caller;
	sym->cache_used++;
	*out = slot->frame;
	return 0;
}

int pa_symbols_lookup(struct pa_symbols *sym, uint64_t ip, bool is_caller, struct pa_frame *out)
{
	return pa_symbols_lookup_at(sym, ip, is_caller, UINT64_MAX, out);
}
