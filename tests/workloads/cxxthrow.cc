/*
 * cxxthrow: threads that throw and catch C++ exceptions in a loop. The C++
 * unwinder looks frames up with dl_iterate_phdr, under the loader's lock,
 * while samples arrive (DESIGN.md: the dl_iterate_phdr lock).
 *
 *   cxxthrow [ITERATIONS [THREADS]]   default 200000 iterations, 3 threads
 *
 * stdout: "cxxthrow done THREADS x ITERATIONS caught N": N is the number
 * of exceptions caught, THREADS x ITERATIONS when all went well. With
 * PPROF_TRUTH set, each thread appends its user CPU time there
 * (wl_truth_thread_user).
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "wl.h"

static unsigned long cxx_iters = 200000;

__attribute__((noinline)) static void cxx_throw_deep(unsigned long i, int depth)
{
	if (depth == 0)
		throw std::runtime_error("cxxthrow");
	cxx_throw_deep(i, depth - 1);
	__asm__ volatile("" ::: "memory");
}

static void cxx_thread(unsigned long *caught)
{
	for (unsigned long i = 0; i < cxx_iters; i++) {
		try {
			cxx_throw_deep(i, 4);
		} catch (const std::runtime_error &) {
			++*caught;
		}
	}
	wl_truth_thread_user();
}

int main(int argc, char **argv)
{
	unsigned long nthreads = 3, total = 0;

	if (argc > 1)
		cxx_iters = std::strtoul(argv[1], nullptr, 10);
	if (argc > 2)
		nthreads = std::strtoul(argv[2], nullptr, 10);
	if (nthreads < 1 || nthreads > 64) {
		std::fprintf(stderr, "cxxthrow: 1 to 64 threads\n");
		return 2;
	}
	std::vector<unsigned long> caught(nthreads, 0);
	std::vector<std::thread> threads;
	for (unsigned long i = 0; i < nthreads; i++)
		threads.emplace_back(cxx_thread, &caught[i]);
	for (auto &t : threads)
		t.join();
	for (unsigned long c : caught)
		total += c;
	std::printf("cxxthrow done %lu x %lu caught %lu\n", nthreads, cxx_iters, total);
	return 0;
}
