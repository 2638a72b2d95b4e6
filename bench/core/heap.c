#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/asan.h"
#include "core/heap.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

int bn_heap_warm(size_t bytes)
{
#if BN_ASAN || !defined(__GLIBC__)
	(void)bytes;
	return -1; /* a sanitizer's allocator or another libc: no such mallopt */
#else
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	char *p;
	int rc;

	if (bytes < 2 * page)
		return -1;
	/* Without these a block this size is mapped on its own and unmapped
	 * by free (the default threshold is 128 KiB), and a free top of
	 * the heap above 128 KiB is given back at once. */
	if (mallopt(M_MMAP_THRESHOLD, 8 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, 64 << 20) != 1)
		return -1;
	p = malloc(bytes);
	if (!p)
		return -1;
	lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	hi = ((uintptr_t)p + bytes) & ~(page - 1);
	rc = madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	/* freed next to the top chunk, it merges into it: the next
	 * allocations take these pages, already backed */
	free(p);
	return rc == 0 ? 0 : -1;
#endif
}
