/* unwlib: libunwind, loaded privately; see unwlib.h. */
#include "unwlib.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sigsafe/unwpipe.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define PP_UNWLIB_SONAME "libunwind.so.8"
/* Thread keys whose values glibc keeps in the thread itself. */
#define PP_UNWLIB_FIRST_KEYS 32u

/* The argument of __tls_get_addr on x86-64 (the ABI's tls_index). */
struct pp_unwlib_tls_index {
	unsigned long module;
	unsigned long offset;
};

/* The dynamic loader's: the calling thread's address of a module's TLS. */
extern void *__tls_get_addr(struct pp_unwlib_tls_index *ti);

/* libunwind's TLS module id, 0 when it has none (or dlinfo could not say). */
static size_t pp_unwlib_modid;
/* The exported name of a libunwind function, as libunwind.h spells it. */
#define PP_UNWLIB_STR(x) #x
#define PP_UNWLIB_NAME(x) PP_UNWLIB_STR(x)

/* The module pp_unwlib_own_pipes looks for, as the loader names it. */
struct pp_unwlib_module {
	uintptr_t base;
	const char *name;
};

/* dl_iterate_phdr's callback: registers the module's code with unwpipe. */
static int pp_unwlib_code_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const struct pp_unwlib_module *m = data;

	(void)size;
	if (info->dlpi_addr != m->base || !info->dlpi_name ||
	    strcmp(info->dlpi_name, m->name) != 0)
		return 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			pp_unwpipe_add_code_sigsafe(m->base + ph->p_vaddr,
						    m->base + ph->p_vaddr + ph->p_memsz);
	}
	return 1;
}

void pp_unwlib_own_pipes(void *handle)
{
	struct link_map *lm = NULL;
	struct pp_unwlib_module m;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name)
		return;
	m = (struct pp_unwlib_module){ .base = lm->l_addr, .name = lm->l_name };
	dl_iterate_phdr(pp_unwlib_code_cb, &m);
}

pp_unwlib_backtrace_fn pp_unwlib_load(size_t cache_size, char *why, size_t why_size)
{
	pp_unwlib_backtrace_fn backtrace_fn;
	int (*set_cache_size)(unw_addr_space_t, size_t, int);
	unw_addr_space_t *local;
	void *h;

	h = dlopen(PP_UNWLIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_size, "cannot load %s (Debian package libunwind8): %s",
			 PP_UNWLIB_SONAME, dlerror());
		return NULL;
	}
	pp_unwlib_own_pipes(h);
	*(void **)&set_cache_size = dlsym(h, PP_UNWLIB_NAME(unw_set_cache_size));
	local = dlsym(h, PP_UNWLIB_NAME(unw_local_addr_space));
	*(void **)&backtrace_fn = dlsym(h, PP_UNWLIB_NAME(unw_backtrace));
	if (!set_cache_size || !local || !backtrace_fn) {
		snprintf(why, why_size, "%s lacks the functions libpprof needs "
			 "(unw_backtrace, unw_set_cache_size, unw_local_addr_space)",
			 PP_UNWLIB_SONAME);
		dlclose(h);
		return NULL;
	}
	set_cache_size(*local, cache_size, 0);
	if (dlinfo(h, RTLD_DI_TLS_MODID, &pp_unwlib_modid) != 0)
		pp_unwlib_modid = 0;
	return backtrace_fn;
}

void pp_unwlib_thread_tls(void)
{
	struct pp_unwlib_tls_index ti = { .module = pp_unwlib_modid, .offset = 0 };

	if (pp_unwlib_modid)
		(void)__tls_get_addr(&ti);
}

int pp_unwlib_early_key(unsigned key)
{
	return key < PP_UNWLIB_FIRST_KEYS;
}
