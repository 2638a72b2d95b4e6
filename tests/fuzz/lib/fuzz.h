/* Shared by the fuzz harnesses (tests/fuzz/NAME.c): a quiet log, an
 * input handed to a path-taking parser as a file, and the source tree
 * the harnesses read fixed data from (the limits, profiles). */
#ifndef BN_FUZZ_FUZZ_H
#define BN_FUZZ_FUZZ_H
#include <stddef.h>
#include <stdint.h>

#include "core/limits.h"

/* libFuzzer's entry point, which every harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Silence the bench log (errors too): a harness must not print per input.
 * Cheap; call it at the top of every input. */
void bn_fuzz_quiet(void);

/* The input as a file: one memfd per process, rewritten on each call,
 * named by its /proc/self/fd path. NULL if the memfd cannot be made. */
const char *bn_fuzz_file(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'ed; NULL on no memory).
 * An embedded NUL ends the text early, as it would when read from a file. */
char *bn_fuzz_text(const uint8_t *data, size_t size);

/* The source tree: $BN_FUZZ_ROOT, else "." (make runs from the top). */
const char *bn_fuzz_root(void);

/* profiles/limits/bc12.json of the tree, loaded on first use and kept for
 * the life of the process (the loaders of ports, hosts and duts take their
 * defaults from it). Exits if it cannot be loaded: no input could run. */
const struct bn_limits *bn_fuzz_limits(void);

#endif
