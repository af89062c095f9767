/* plt: the PLT stubs of an ELF object and what they call; see plt.h. */
#include "grow.h"
#include "plt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A relocation that fills a GOT slot, and what with. */
struct pa_plt_rel {
	uint64_t slot;     /* r_offset */
	const char *name;  /* its symbol's name; NULL when it has none */
	uint64_t resolver; /* no symbol, RELA: the addend (an IRELATIVE's resolver) */
};

/* The relocations of one kind: a growable array. */
struct pa_plt_rels {
	struct pa_plt_rel *v;
	size_t n, cap;
};

/*
 * The machines whose PLT layout plt.h describes: .plt's header and stub
 * sizes (its sh_entsize does not say: aarch64's ld leaves it 0, i386's
 * puts 4); the size of a .plt.got stub when sh_entsize is 0 (older x86-64
 * ld), where those stubs are x86-64's `jmp *disp32(%rip)` (0: not read);
 * and the relocation type of a TLS descriptor, which .rela.plt holds
 * without a stub of its own (its trampoline comes after the stubs). Other
 * machines (PowerPC's .plt is data, ARM's stubs are 12 bytes after a
 * 20-byte header, ...) get no stubs.
 */
static const struct pa_plt_machine {
	GElf_Half machine;
	uint64_t header, stub_size, got_stub_size;
	uint32_t tlsdesc;
} pa_plt_machines[] = {
	{ EM_X86_64, 16, 16, 8, R_X86_64_TLSDESC },
	{ EM_386, 16, 16, 0, R_386_TLS_DESC },
	{ EM_AARCH64, 32, 16, 0, R_AARCH64_TLSDESC },
};

static const struct pa_plt_machine *pa_plt_machine(Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return NULL;
	for (size_t i = 0; i < sizeof(pa_plt_machines) / sizeof(pa_plt_machines[0]); i++)
		if (pa_plt_machines[i].machine == eh.e_machine)
			return &pa_plt_machines[i];
	return NULL;
}

/* The sections the stubs need; a NULL scn is absent. */
struct pa_plt_sections {
	Elf_Scn *plt, *plt_sec, *plt_got;
	Elf_Scn *rel_plt;  /* .rela.plt or .rel.plt */
};

static void pa_plt_find_sections(Elf *elf, struct pa_plt_sections *s)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	memset(s, 0, sizeof(*s));
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR)) {
			if (strcmp(name, ".plt") == 0)
				s->plt = scn;
			else if (strcmp(name, ".plt.sec") == 0)
				s->plt_sec = scn;
			else if (strcmp(name, ".plt.got") == 0)
				s->plt_got = scn;
		} else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
			   (strcmp(name, ".rela.plt") == 0 || strcmp(name, ".rel.plt") == 0)) {
			s->rel_plt = scn;
		}
	}
}

static int pa_plt_cmp_slot(const void *a, const void *b)
{
	const struct pa_plt_rel *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Whether slot is one of only's (sorted by slot), or only is NULL. */
static bool pa_plt_wanted(const struct pa_plt_rels *only, uint64_t slot)
{
	const struct pa_plt_rel key = { .slot = slot };

	return !only || (only->n && bsearch(&key, only->v, only->n, sizeof(key), pa_plt_cmp_slot));
}

/*
 * Append the relocations of section scn (REL or RELA) to *out, but those of
 * type skip; only (sorted; NULL: all): only those that fill one of its
 * slots, and have a symbol.
 */
static int pa_plt_read_rels(Elf *elf, Elf_Scn *scn, const struct pa_plt_rels *only,
			    uint32_t skip, struct pa_plt_rels *out)
{
	GElf_Shdr sh, symsh;
	Elf_Scn *symscn;
	Elf_Data *data, *syms;

	if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)) ||
	    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
	    !(syms = elf_getdata(symscn, NULL)))
		return 0;
	for (int i = 0;; i++) {
		struct pa_plt_rel r = { .name = NULL };
		GElf_Rela rela;
		GElf_Rel rel;
		GElf_Sym sym;
		size_t symi;

		if (sh.sh_type == SHT_RELA) {
			if (!gelf_getrela(data, i, &rela))
				break;
		} else {
			if (!gelf_getrel(data, i, &rel))
				break;
			rela = (GElf_Rela){ .r_offset = rel.r_offset, .r_info = rel.r_info };
		}
		if (GELF_R_TYPE(rela.r_info) == skip || !pa_plt_wanted(only, rela.r_offset))
			continue;
		symi = GELF_R_SYM(rela.r_info);
		r.slot = rela.r_offset;
		if (symi == 0 && sh.sh_type == SHT_RELA)
			r.resolver = (uint64_t)rela.r_addend;
		if (symi != 0 && gelf_getsym(syms, (int)symi, &sym))
			r.name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (r.name && !*r.name)
			r.name = NULL;
		if (only && !r.name)
			continue;
		if (pa_grow((void **)&out->v, &out->cap, out->n, sizeof(*out->v)) < 0)
			return -ENOMEM;
		out->v[out->n++] = r;
	}
	return 0;
}

static int pa_plt_push(struct pa_plt_stub **v, size_t *n, size_t *cap, uint64_t start,
		       uint64_t size, const struct pa_plt_rel *r)
{
	if (!r->name && !r->resolver)
		return 0;
	if (pa_grow((void **)v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (struct pa_plt_stub){ .start = start, .size = size, .name = r->name,
					     .resolver = r->name ? 0 : r->resolver };
	return 0;
}

/*
 * Stubs of section scn, one per relocation of rels (sorted by slot), each
 * size bytes after a header. A section too small for them gives none.
 */
static int pa_plt_add_table(Elf_Scn *scn, const struct pa_plt_rels *rels, uint64_t header,
			    uint64_t size, struct pa_plt_stub **v, size_t *n, size_t *cap)
{
	GElf_Shdr sh;

	if (!scn || !rels->n || !size || !gelf_getshdr(scn, &sh) || sh.sh_size < header ||
	    (sh.sh_size - header) / size < rels->n)
		return 0;
	for (size_t i = 0; i < rels->n; i++)
		if (pa_plt_push(v, n, cap, sh.sh_addr + header + i * size, size, &rels->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* The GOT slot an x86-64 .plt.got stub at addr jumps through; 0 if it is not `jmp *disp32(%rip)`. */
static uint64_t pa_plt_rip_slot(const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;
	uint32_t disp;

	if (len >= sizeof(endbr64) && memcmp(p, endbr64, sizeof(endbr64)) == 0)
		i = sizeof(endbr64);
	if (i < len && p[i] == 0xf2) /* bnd */
		i++;
	if (i + 6 > len || p[i] != 0xff || p[i + 1] != 0x25)
		return 0;
	disp = (uint32_t)p[i + 2] | (uint32_t)p[i + 3] << 8 | (uint32_t)p[i + 4] << 16 |
	       (uint32_t)p[i + 5] << 24;
	return addr + i + 6 + (uint64_t)(int64_t)(int32_t)disp;
}

/* The relocations of every allocated REL/RELA section that fill a slot of only and have a symbol, sorted by slot. */
static int pa_plt_dyn_rels(Elf *elf, const struct pa_plt_rels *only, struct pa_plt_rels *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
		    (sh.sh_flags & SHF_ALLOC) && pa_plt_read_rels(elf, scn, only, 0, out) < 0)
			return -ENOMEM;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), pa_plt_cmp_slot);
	return 0;
}

/* The GOT slot of .plt.got's stub at off (data, sh), 0 if not a `jmp *disp32(%rip)`. */
static uint64_t pa_plt_got_slot(const Elf_Data *data, const GElf_Shdr *sh, uint64_t off)
{
	return pa_plt_rip_slot((const unsigned char *)data->d_buf + off, sh->sh_entsize,
			       sh->sh_addr + off);
}

/* The stubs of x86-64's .plt.got (def_size each when sh_entsize is 0), named by their slots' relocations. */
static int pa_plt_add_got(Elf *elf, Elf_Scn *scn, uint64_t def_size, struct pa_plt_stub **v,
			  size_t *n, size_t *cap)
{
	struct pa_plt_rels slots = { .v = NULL }, rels = { .v = NULL };
	Elf_Data *data;
	GElf_Shdr sh;
	int ret = 0;

	if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
	    data->d_size < sh.sh_size)
		return 0;
	if (!sh.sh_entsize)
		sh.sh_entsize = def_size;
	/* the slots first: then only their relocations are looked at closely */
	for (uint64_t off = 0; ret == 0 && off + sh.sh_entsize <= sh.sh_size; off += sh.sh_entsize) {
		ret = pa_grow((void **)&slots.v, &slots.cap, slots.n, sizeof(*slots.v));
		if (ret == 0)
			slots.v[slots.n++] = (struct pa_plt_rel){ .slot = pa_plt_got_slot(data, &sh,
											    off) };
	}
	if (ret == 0 && slots.n)
		qsort(slots.v, slots.n, sizeof(*slots.v), pa_plt_cmp_slot);
	if (ret == 0)
		ret = pa_plt_dyn_rels(elf, &slots, &rels);
	for (uint64_t off = 0; ret == 0 && off + sh.sh_entsize <= sh.sh_size; off += sh.sh_entsize) {
		struct pa_plt_rel key = { .slot = pa_plt_got_slot(data, &sh, off) };
		const struct pa_plt_rel *r = key.slot && rels.n ?
					     bsearch(&key, rels.v, rels.n, sizeof(key),
						     pa_plt_cmp_slot) : NULL;

		if (r)
			ret = pa_plt_push(v, n, cap, sh.sh_addr + off, sh.sh_entsize, r);
	}
	free(slots.v);
	free(rels.v);
	return ret;
}

/* The PLT relocations with a symbol, when only those have stubs in .plt.sec. */
static void pa_plt_keep_named(struct pa_plt_rels *rels)
{
	size_t k = 0;

	for (size_t i = 0; i < rels->n; i++)
		if (rels->v[i].name)
			rels->v[k++] = rels->v[i];
	rels->n = k;
}

int pa_plt_stubs(Elf *elf, struct pa_plt_stub **out, size_t *n)
{
	const struct pa_plt_machine *mach = elf ? pa_plt_machine(elf) : NULL;
	struct pa_plt_rels rels = { .v = NULL };
	struct pa_plt_sections s;
	size_t cap = 0;
	GElf_Shdr sh;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!mach)
		return 0;
	pa_plt_find_sections(elf, &s);
	if (s.rel_plt && pa_plt_read_rels(elf, s.rel_plt, NULL, mach->tlsdesc, &rels) < 0)
		ret = -ENOMEM;
	if (rels.n)
		qsort(rels.v, rels.n, sizeof(*rels.v), pa_plt_cmp_slot);
	if (ret == 0 && s.plt_sec && gelf_getshdr(s.plt_sec, &sh)) {
		uint64_t size = sh.sh_entsize ? sh.sh_entsize : mach->stub_size;

		/* a non-PIE program's IFUNC stubs stay in .plt: .plt.sec has the others */
		if (sh.sh_size != rels.n * size)
			pa_plt_keep_named(&rels);
		ret = pa_plt_add_table(s.plt_sec, &rels, 0, size, out, n, &cap);
	} else if (ret == 0) {
		ret = pa_plt_add_table(s.plt, &rels, mach->header, mach->stub_size, out, n, &cap);
	}
	if (ret == 0 && s.plt_got && mach->got_stub_size)
		ret = pa_plt_add_got(elf, s.plt_got, mach->got_stub_size, out, n, &cap);
	free(rels.v);
	if (ret < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return ret;
}
