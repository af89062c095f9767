/*
 * plt: the PLT stubs of an ELF object, named after the function each one
 * calls, as objdump and perf name them (`malloc@plt`).
 *
 * A call from one object to a function of another goes through a stub of
 * the caller's procedure linkage table, which jumps through the stub's GOT
 * slot; a sample there has no symbol of its own. Three layouts are read,
 * from the section headers and the relocations libelf returns:
 *
 * - `.plt` (x86-64, i386, aarch64): a header, then one stub per PLT
 *   relocation (`.rela.plt`/`.rel.plt`) but TLS descriptors; stub i jumps
 *   through the i-th GOT slot, so the relocations sorted by the slot they
 *   fill name the stubs in order. The header and stub sizes are the
 *   machine's (16 and 16 bytes; aarch64 32 and 16): .plt's sh_entsize
 *   does not tell them everywhere (aarch64's ld leaves it 0, i386's puts 4).
 * - `.plt.sec` (x86-64 with IBT, -z ibtplt or -fcf-protection objects): the
 *   stubs that calls reach, one per PLT relocation (sh_entsize bytes), no
 *   header; `.plt` then holds only the lazy-binding entries and is not
 *   named.
 * - `.plt.got` (x86-64): stubs for functions whose address is also taken,
 *   jumping through a GOT slot filled by a dynamic relocation
 *   (`R_X86_64_GLOB_DAT`). Their order follows no relocation table, so the
 *   slot is read from the stub's one instruction, `jmp *disp32(%rip)`
 *   (after an optional endbr64 and bnd prefix), and matched to the
 *   relocation that fills it.
 *
 * A stub whose relocation has no symbol (R_*_IRELATIVE: a local IFUNC) gives
 * the resolver's address instead of a name; the caller names it after the
 * symbol there. Sections that are missing or too small for their
 * relocations, and other machines' objects, give no stubs: those addresses
 * stay unnamed.
 */
#ifndef PA_PLT_H
#define PA_PLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* One stub, at ELF addresses [start, start + size). */
struct pa_plt_stub {
	uint64_t start;
	uint64_t size;
	const char *name; /* the called symbol, as in .dynsym (no version); owned by
			     the Elf; NULL for an IRELATIVE stub */
	uint64_t resolver; /* IRELATIVE: the ELF address of the IFUNC resolver; else 0 */
};

/*
 * The stubs of elf, in no particular order: *out (malloc'd, the caller
 * frees it; NULL when *n is 0) and *n. Returns 0, or -ENOMEM.
 */
int pa_plt_stubs(Elf *elf, struct pa_plt_stub **out, size_t *n);

#endif /* PA_PLT_H */
