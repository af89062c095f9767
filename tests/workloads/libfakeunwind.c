/*
 * libfakeunwind: a library that it_process installs as libunwind.so.8 in a
 * directory of LD_LIBRARY_PATH: it loads, but has none of libunwind's
 * functions, as a broken or foreign libunwind would.
 */
int fakeunwind_nothing(void);

int fakeunwind_nothing(void)
{
	return 0;
}
