/* core/heap.h: after bn_heap_warm, a process's next megabyte of small
 * allocations costs (almost) no page faults; without it, one a page.
 * Each case runs in a child of its own, as a run does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/heap.h"

#define PIECES 256
#define PIECE_BYTES 4000 /* 1 MB in all: about 250 pages */

/* The minor faults of PIECES allocations, each written all through,
 * after warming (warm_bytes > 0) or not; -2 when warming is not
 * possible here (a sanitizer's allocator, a kernel before 5.14). Also
 * checks that every piece holds what was written. */
static long faults_of_pieces(size_t warm_bytes)
{
	int fds[2];
	long got = -1;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct rusage a, b;
		char *piece[PIECES];
		long n = -1;

		close(fds[0]);
		if (warm_bytes && bn_heap_warm(warm_bytes) != 0) {
			n = -2;
		} else {
			getrusage(RUSAGE_SELF, &a);
			for (int i = 0; i < PIECES; i++) {
				piece[i] = malloc(PIECE_BYTES);
				if (!piece[i])
					_exit(1);
				memset(piece[i], i & 0xff, PIECE_BYTES);
			}
			getrusage(RUSAGE_SELF, &b);
			n = b.ru_minflt - a.ru_minflt;
			for (int i = 0; i < PIECES; i++)
				for (int k = 0; k < PIECE_BYTES; k += 997)
					if ((unsigned char)piece[i][k] != (i & 0xff))
						n = -3;
		}
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		if (read(fds[0], &got, sizeof(got)) != sizeof(got))
			got = -1;
		waitpid(pid, NULL, 0);
	}
	close(fds[0]);
	return got;
}

static void warm_heap_takes_the_faults_up_front(void **state)
{
	long cold, warm;

	(void)state;
	/* the bounds below count 4 KiB pages (arm64 and ppc64 may have
	 * 16 or 64 KiB ones: a megabyte is then too few faults to tell) */
	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	warm = faults_of_pieces(BN_HEAP_WARM_RUN_BYTES);
	if (warm == -2)
		skip(); /* nothing to measure where it cannot populate */
	cold = faults_of_pieces(0);
	assert_true(cold != -3 && warm != -3); /* the memory holds its bytes */
	assert_true(cold >= 0 && warm >= 0);
	/* the measurement sees a fault a page when cold */
	assert_in_range(cold, PIECES * PIECE_BYTES / 4096 / 2, PIECES * 4);
	/* warmed, the same allocations fault at most an eighth as often */
	assert_true(warm * 8 <= cold);
}

static void warm_then_large_blocks_still_work(void **state)
{
	pid_t pid;
	int status = -1;

	(void)state;
	pid = fork();
	if (pid == 0) {
		int rc = bn_heap_warm(BN_HEAP_WARM_RUN_BYTES);
		/* blocks past the default mapping threshold, and past the
		 * warmed size, allocate, hold their bytes and free */
		for (size_t sz = 64 << 10; sz <= (16u << 20); sz *= 2) {
			unsigned char *p = malloc(sz);

			if (!p)
				_exit(2);
			memset(p, 0xa5, sz);
			if (p[0] != 0xa5 || p[sz - 1] != 0xa5)
				_exit(3);
			free(p);
		}
		_exit(rc == 0 || rc == -1 ? 0 : 4);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void too_small_is_refused(void **state)
{
	(void)state;
	assert_int_equal(bn_heap_warm(0), -1);
	assert_int_equal(bn_heap_warm(4096), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(warm_heap_takes_the_faults_up_front),
		cmocka_unit_test(warm_then_large_blocks_still_work),
		cmocka_unit_test(too_small_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
