/*
 * libcxxcall: a C++ library behind a C interface, for a C program (cthrow)
 * that never links the C++ runtime itself. Its exceptions are thrown by
 * whichever _Unwind_RaiseException the dynamic linker binds for it, as it
 * binds libstdc++'s: without a profiler, libgcc_s.so.1's.
 */
#include <dlfcn.h>
#include <stdexcept>
#include <string.h>
#include <unwind.h>

extern "C" {
unsigned long cxxcall_throw(unsigned long n);
const char *cxxcall_unwinder(void);
}

__attribute__((noinline)) static void cxxcall_fail(unsigned long i)
{
	throw std::runtime_error(i & 1 ? "odd" : "even");
}

/* Throws and catches n exceptions; returns how many were caught. */
unsigned long cxxcall_throw(unsigned long n)
{
	unsigned long caught = 0;

	for (unsigned long i = 0; i < n; i++) {
		try {
			cxxcall_fail(i);
		} catch (const std::exception &e) {
			caught += e.what()[0] == (i & 1 ? 'o' : 'e');
		}
	}
	return caught;
}

/* The file name of the object whose _Unwind_RaiseException this library calls. */
const char *cxxcall_unwinder(void)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)&_Unwind_RaiseException, &info) || !info.dli_fname)
		return "(unknown)";
	slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}
