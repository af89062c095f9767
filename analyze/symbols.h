/*
 * symbols: turns a process's sampled addresses into function names, offline,
 * with elfutils' libdwfl.
 *
 * One symboliser per process. What a file holds is read once for the whole
 * analyzer, whichever processes map it and at whichever addresses: the
 * symbolisers share one store of files (a file is told by its path and its
 * recorded build-id, else its device, inode, size and modification time;
 * and by the options that change names), each reported once to libdwfl.
 * Its function symbols (.symtab, or .dynsym when the
 * object is stripped, plus separate debuginfo found by build-id) are sorted
 * once into a table searched by bisection, and every result is cached per
 * unique address. C++ names are demangled (through libstdc++'s
 * __cxa_demangle, loaded at run time when present; names stay mangled
 * otherwise, or when asked).
 *
 * Source lines and inline frames come from the DWARF of the module or of its
 * separate debug info, found by build-id (DIR/.build-id/xx/rest.debug) or by
 * .gnu_debuglink (next to the file, in its .debug/, or under DIR) for each
 * DIR of the debuginfo path (default /usr/lib/debug); they are looked up
 * only when asked for, then cached per address like the names.
 *
 * Modules whose address ranges overlap (one unloaded, another loaded at the
 * same place): a lookup with a time picks the module whose
 * [load_ns, unload_ns) holds that time, else the first recorded.
 *
 * Symbolisers and the store are used from one thread at a time: elfutils'
 * libelf and libdw (0.188, as Debian builds them) keep global state that
 * two threads race on, even over different files (valgrind's helgrind
 * shows it: elf_version, the debuginfo search).
 *
 * The vDSO, which has no file, is read from the image the preload wrote
 * once for the run at its root (PPF_REC_VDSO, beside the process
 * directory), or in logs written before from the process's own copy
 * ("vdso.so" in its directory), and named "[vdso]" in every process, its
 * images shared by build-id as other files are.
 *
 * A module's file is read where the run recorded it; when it is not
 * there (or has another build-id), under each directory of the binary path
 * (--binary-path, PPROF_BINARY_PATH), as Go's pprof looks:
 * DIR/BUILDID/BASENAME, DIR/BUILDID, DIR/PATH, DIR/BASENAME, a file with the
 * recorded build-id only. A module whose file cannot be found or is not a
 * regular file (opened here with pa_regfile_open, never by libdwfl), or
 * whose build-id differs from the recorded one, leaves its frames
 * unresolved (one warning per module).
 */
#ifndef PA_SYMBOLS_H
#define PA_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"

struct pa_symbols;

/*
 * What an address is. Strings are owned by the symboliser or by the store
 * of files: valid until pa_symbols_free at least.
 */
struct pa_frame {
	uint64_t ip;              /* the address as recorded */
	const char *function;     /* demangled function name, or NULL if unresolved */
	const char *module;       /* module path, or NULL when no module holds ip */
	const char *module_base;  /* basename of module, or NULL */
	uint64_t offset;          /* ip - bias (ELF vaddr, what addr2line takes); ip if no module */
	uint64_t func_offset;     /* looked-up address - function start; 0 if unresolved */
	uint64_t func_start;      /* the function's start, an address of its file (the
				     same in every process mapping it): told apart
				     from another of the same name; 0 if unresolved */
	/*
	 * What reports print: function, else "basename+0xOFFSET" (hex offset,
	 * lowercase), else "[unknown]". Never NULL.
	 */
	const char *name;
};

/*
 * The address of the frame a stack cut at max_frames (PPF_SAMPLE_TRUNCATED)
 * gets outermost, where its callers would be: named PA_TRUNCATED_NAME, a
 * function of no module, so that a report's totals of the frames above it
 * read as what they are (the callers of a truncated stack are not known).
 * Below the wall states' addresses (wall.h).
 */
#define PA_TRUNCATED_IP (UINT64_MAX - 64)
#define PA_TRUNCATED_NAME "[truncated]"

/* How to symbolise. All zero: the defaults. */
struct pa_symbols_opts {
	bool no_demangle;           /* keep C++ names as in the symbol table */
	const char *debuginfo_path; /* libdwfl's search path for separate debug info
				       (':'-separated); NULL: ":.debug:/usr/lib/debug";
				       copied */
	const char *binary_path;    /* where else to look for a module's file
				       (':'-separated, --binary-path); NULL: only where
				       it was; kept, not copied */
};

/*
 * One source-level frame of an address. Strings are owned by the
 * symboliser; file is the path the debug info names, joined to the
 * directory it was compiled in when relative.
 */
struct pa_srcframe {
	const char *function; /* the (inlined) function's name; never NULL */
	const char *file;     /* source file, NULL when there is no line info */
	unsigned line;        /* line in file, 0 when unknown */
	unsigned start_line;  /* the function's first line (DW_AT_decl_line), 0 when unknown */
	bool inlined;         /* this frame was inlined into the next one */
};

/*
 * Build a symboliser for proc (which must outlive it). Modules that cannot be
 * opened or whose build-id does not match are not an error: they add one
 * warning each to warn (may be NULL). Returns 0 and *out, or a negative errno
 * with err filled.
 */
int pa_symbols_new(const struct pa_process *proc, struct pa_symbols **out,
		   struct pa_warnings *warn, struct pa_error *err);
/*
 * The options pa_symbols_new uses from now on (NULL: all zero), for every
 * report of this process; the strings must outlive every symboliser. Not
 * thread-safe: the command line sets them once, at the start.
 */
void pa_symbols_set_defaults(const struct pa_symbols_opts *opts);

/* Same as pa_symbols_new, with opts (NULL: all zero, not the defaults). */
int pa_symbols_new_opts(const struct pa_process *proc, const struct pa_symbols_opts *opts,
			struct pa_symbols **out, struct pa_warnings *warn, struct pa_error *err);
void pa_symbols_free(struct pa_symbols *sym);

/* The module name of the vDSO's image in every process (pa_symbols_module_name). */
#define PA_SYMBOLS_VDSO_NAME "[vdso]"

/*
 * The module path frames in rec show (pa_frame.module): "[vdso]" for the
 * vDSO's image, else rec's path, or proc's executable when
 * that is empty. Points into rec, proc or static storage.
 */
const char *pa_symbols_module_name(const struct pa_process *proc, const struct pa_module *rec);

/*
 * How many files the store has read since the analyzer started (each
 * distinct file once, whatever the number of processes mapping it).
 */
uint64_t pa_symbols_files_read(void);

/*
 * Free the store of files: what every symboliser shared, and every string
 * a frame or source frame pointed to. No symboliser may be in use.
 */
void pa_symbols_files_release(void);

/*
 * Look up ip, picking among overlapping modules the one loaded at time_ns
 * (UINT64_MAX: the first recorded). is_caller: ip is a return address
 * (sample frames 1..n-1), so the lookup is done at ip - 1. Fills *out, whose
 * strings stay valid until pa_symbols_free. Returns 0, or -ENOMEM (then
 * *out names "[unknown]").
 */
int pa_symbols_lookup_at(struct pa_symbols *sym, uint64_t ip, bool is_caller,
			 uint64_t time_ns, struct pa_frame *out);

/*
 * The source frames of ip (looked up as pa_symbols_lookup_at does),
 * innermost first: one per inline level (inlined true: its file and line are
 * where the code is, the next frame's are the call site), then the function
 * that holds ip (inlined false, named as pa_frame.function names it). A
 * function without debug info is one frame with file NULL. *n is 0 when ip
 * is in no function (then pa_frame.name names it). *frames stays valid until
 * pa_symbols_free. Returns 0, or -ENOMEM (then *n is 0).
 */
int pa_symbols_lookup_src(struct pa_symbols *sym, uint64_t ip, bool is_caller,
			  uint64_t time_ns, const struct pa_srcframe **frames, size_t *n);

#endif /* PA_SYMBOLS_H */
