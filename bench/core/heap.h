/* A fresh process's heap, backed before it is needed.
 *
 * A suite entry (and a run's child) is a process that allocates 1-2 MiB
 * and exits. Every page it touches for the first time is a page fault:
 * on a virtual machine that is about 10 microseconds each, one trap per
 * 4 KiB page. Asking the kernel to back the heap in one call
 * (MADV_POPULATE_WRITE, Linux 5.14) costs half that per page or less,
 * and one trap in all. docs/design.md ("Start-up cost") has the figures. */
#ifndef BN_CORE_HEAP_H
#define BN_CORE_HEAP_H

#include <stddef.h>

/* Grows the malloc heap by bytes (rounded to pages), backs those pages
 * with memory now, and leaves them free at the top of the heap, where
 * the next allocations come from. Also keeps large blocks (up to 8 MiB)
 * on the heap instead of in mappings of their own, and the heap from
 * being trimmed back, so what was backed stays in use: for a process
 * that ends when its run does, not for a long-lived one.
 * Returns 0, or -1 where the kernel cannot populate (before 5.14) or the
 * allocator is not glibc's own (a sanitizer's), having changed nothing
 * that matters. */
int bn_heap_warm(size_t bytes);

/* The size a run's process warms: a simulated suite entry touches
 * about 1.5 MiB of heap. */
#define BN_HEAP_WARM_RUN_BYTES ((size_t)2 << 20)

#endif
