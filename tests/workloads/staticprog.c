/*
 * staticprog: a statically linked program (see the Makefile), which no
 * dynamic loader starts, so LD_PRELOAD cannot enter it. Prints its
 * argument and exits with status 5.
 *
 *   staticprog [WORD]
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("staticprog %s\n", argc > 1 ? argv[1] : "-");
	return 5;
}
