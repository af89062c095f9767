/*
 * vendini: a program whose library (libiniuser.so) depends on another
 * (libvendini.so) that defines ini_parse, a name libinih defines too.
 * Prints what the call returned: 4242 from libvendini's, -1 from a real
 * inih that cannot open the file. Then burns 0.1 s of CPU, to be sampled.
 */
#include <stdio.h>

#include "wl.h"

int iniuser_parse(void);

static volatile uint64_t vendini_sink;

int main(void)
{
	double end;

	printf("vendini: ini_parse returned %d\n", iniuser_parse());
	end = wl_thread_cpu() + 0.1;
	while (wl_thread_cpu() < end)
		vendini_sink += wl_burn(WL_CHUNK / 10, 0x76656e64);
	return 0;
}
