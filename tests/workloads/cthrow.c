/*
 * cthrow: a C program that uses a C++ library (libcxxcall.so): the C++
 * runtime and its unwinder are its libraries' dependencies, not its own.
 * Throws N exceptions in the library (default 20000), then prints how many
 * were caught and which object's _Unwind_RaiseException threw them.
 *
 *   cthrow [N]
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long cxxcall_throw(unsigned long n);
const char *cxxcall_unwinder(void);

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;

	printf("cthrow: caught %lu of %lu; _Unwind_RaiseException from %s\n",
	       cxxcall_throw(n), n, cxxcall_unwinder());
	return 0;
}
