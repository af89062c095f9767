/* fuzz: what the libFuzzer targets in tests/fuzz/ share. */
#ifndef PP_FUZZ_H
#define PP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry point: one input, 0 always (a finding aborts). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the code under test: says which, and aborts (a crash to libFuzzer). */
#define FZ_CHECK(cond, ...)                                                  \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__,   \
				#cond);                                      \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			abort();                                             \
		}                                                            \
	} while (0)

#endif
