/* The handler's lock-free copy of the loaded-object list; see dlsnap.h. */
#include "dlsnap.h"

#include "maps.h"

static struct pp_dlsnap *pp_dlsnap_cur;
static int pp_dlsnap_readers;
static int pp_dlsnap_unwinding;
static __thread int pp_dlsnap_handler __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
void pp_dlsnap_enter_handler_sigsafe(void)
{
	pp_dlsnap_handler++;
	__atomic_add_fetch(&pp_dlsnap_unwinding, 1, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
void pp_dlsnap_leave_handler_sigsafe(void)
{
	__atomic_sub_fetch(&pp_dlsnap_unwinding, 1, __ATOMIC_SEQ_CST);
	pp_dlsnap_handler--;
}

/* Runs in signal context. */
void pp_dlsnap_fork_child_sigsafe(void)
{
	__atomic_store_n(&pp_dlsnap_unwinding, pp_dlsnap_handler, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pp_dlsnap_readers, 0, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
int pp_dlsnap_unwinding_sigsafe(void)
{
	return __atomic_load_n(&pp_dlsnap_unwinding, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
int pp_dlsnap_in_handler_sigsafe(void)
{
	return pp_dlsnap_handler > 0;
}

/* Runs in signal context. */
int pp_dlsnap_iterate_sigsafe(int (*cb)(struct dl_phdr_info *, size_t, void *),
			      void *data)
{
	struct pp_dlsnap *s;
	int ret = 0;

	/*
	 * Sequentially consistent, as pp_dlsnap_swap_sigsafe and
	 * pp_dlsnap_readers_sigsafe: a reader counted after the publisher
	 * looked loads the new snapshot, on any CPU.
	 */
	__atomic_add_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	s = __atomic_load_n(&pp_dlsnap_cur, __ATOMIC_SEQ_CST);
	for (size_t i = 0; s && i < s->n && ret == 0; i++)
		if (!s->obj[i].unreadable)
			ret = cb(&s->obj[i].info, sizeof(s->obj[i].info), data);
	__atomic_sub_fetch(&pp_dlsnap_readers, 1, __ATOMIC_ACQ_REL);
	return ret;
}

/* Async-signal-safe. */
struct pp_dlsnap *pp_dlsnap_swap_sigsafe(struct pp_dlsnap *snap)
{
	return __atomic_exchange_n(&pp_dlsnap_cur, snap, __ATOMIC_SEQ_CST);
}

/* Runs in signal context. */
int pp_dlsnap_holds_sigsafe(uint64_t ip)
{
	struct pp_dlsnap *s;
	int held = 0;

	__atomic_add_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	s = __atomic_load_n(&pp_dlsnap_cur, __ATOMIC_SEQ_CST);
	for (size_t i = 0; s && i < s->n && !held; i++) {
		const struct dl_phdr_info *info = &s->obj[i].info;

		for (size_t k = 0; k < info->dlpi_phnum && !held; k++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
			uint64_t lo = info->dlpi_addr + ph->p_vaddr;

			held = ph->p_type == PT_LOAD && ip >= lo && ip - lo < ph->p_memsz;
		}
	}
	__atomic_sub_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	return held;
}

/* Runs in signal context. */
int pp_dlsnap_meets_sigsafe(uint64_t lo, uint64_t hi)
{
	struct pp_dlsnap *s;
	int meets = 0;

	__atomic_add_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	s = __atomic_load_n(&pp_dlsnap_cur, __ATOMIC_SEQ_CST);
	for (size_t i = 0; s && i < s->n && meets != 3; i++) {
		const struct dl_phdr_info *info = &s->obj[i].info;

		if (hi <= s->obj[i].lo || s->obj[i].hi <= lo)
			continue;
		for (size_t k = 0; k < info->dlpi_phnum; k++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
			uint64_t a = (info->dlpi_addr + ph->p_vaddr) & ~(s->page - 1);
			uint64_t b = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;

			if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) && lo < b && a < hi) {
				meets |= s->obj[i].unreadable ? 2 : 1;
				break;
			}
		}
	}
	__atomic_sub_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	return meets;
}

/* Runs in signal context. */
int pp_dlsnap_partial_sigsafe(void)
{
	struct pp_dlsnap *s;
	int partial;

	__atomic_add_fetch(&pp_dlsnap_readers, 1, __ATOMIC_SEQ_CST);
	s = __atomic_load_n(&pp_dlsnap_cur, __ATOMIC_SEQ_CST);
	partial = s && s->partial;
	__atomic_sub_fetch(&pp_dlsnap_readers, 1, __ATOMIC_ACQ_REL);
	return partial;
}

/* Runs in signal context. */
int pp_dlsnap_readers_sigsafe(void)
{
	return __atomic_load_n(&pp_dlsnap_readers, __ATOMIC_SEQ_CST);
}

/*
 * Interposed for libunwind, which calls it on every cache miss: inside our
 * handler (the one path that runs in signal context) it walks the snapshot;
 * everywhere else it is glibc's, through pp_maps_glibc_iterate, the one
 * function outside this folder that code here calls (sigsafe.allow).
 */
__attribute__((visibility("default")))
int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	if (pp_dlsnap_in_handler_sigsafe())
		return pp_dlsnap_iterate_sigsafe(cb, data);
	return pp_maps_glibc_iterate(cb, data);
}
