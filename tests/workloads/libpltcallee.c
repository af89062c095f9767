/*
 * libpltcallee.so: a function so small that most of the time of a call to
 * it from another object is the caller's PLT stub (pltcalls.c).
 */
int pltcallee_next(int x);

int pltcallee_next(int x)
{
	return x * 3 + 1;
}
