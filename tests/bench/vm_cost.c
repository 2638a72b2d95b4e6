/* vm_cost: what this machine charges for the kernel work a suite entry
 * does besides computing, so make bench can say why -j 2 gives what it
 * gives here (docs/design.md, "Start-up cost").
 *
 *   vm_cost
 *     fault_us P      first touch of a fresh 4 KiB page, one trap each
 *     populate_us P   the same pages backed by one MADV_POPULATE_WRITE
 *                     (Linux 5.14; "n/a" before)
 *     fork_exit_ms F  fork, _exit and waitpid of a small child
 *     side_by_side faults X forks Y
 *                     two processes doing that work at once, against one
 *                     after the other (2.00 = they do not slow each
 *                     other; 1.00 = they run one at a time)
 * Each figure is the minimum of a few rounds: the machine's own cost,
 * not its neighbours'. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/time.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define REGION ((size_t)8 << 20)
#define PAGE 4096
#define ROUNDS 5

/* seconds to fault in REGION page by page (populate: in one call) */
static double touch_region(int populate)
{
	char *m = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0 = bn_mono_s(), t;

	if (m == MAP_FAILED)
		return -1;
	/* 4 KiB pages, as a heap's first ones are, also where huge pages
	 * are "always" */
	madvise(m, REGION, MADV_NOHUGEPAGE);
	if (populate && madvise(m, REGION, MADV_POPULATE_WRITE) != 0) {
		munmap(m, REGION);
		return -1;
	}
	for (size_t i = 0; i < REGION; i += PAGE)
		m[i] = 1;
	t = bn_mono_s() - t0;
	munmap(m, REGION);
	return t;
}

static double forks(int n)
{
	double t0 = bn_mono_s();

	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return -1;
	}
	return bn_mono_s() - t0;
}

static void faults(int n)
{
	for (int i = 0; i < n; i++)
		touch_region(0);
}

/* one after the other against side by side, of work() in two children */
static double side_by_side(void (*work)(int), int n)
{
	double best = 0;

	for (int r = 0; r < 3; r++) {
		double t0 = bn_mono_s(), t1, t2;
		pid_t a, b;

		for (int k = 0; k < 2; k++) {
			a = fork();
			if (a == 0) {
				work(n);
				_exit(0);
			}
			waitpid(a, NULL, 0);
		}
		t1 = bn_mono_s();
		a = fork();
		if (a == 0) {
			work(n);
			_exit(0);
		}
		b = fork();
		if (b == 0) {
			work(n);
			_exit(0);
		}
		waitpid(a, NULL, 0);
		waitpid(b, NULL, 0);
		t2 = bn_mono_s();
		if ((t1 - t0) / (t2 - t1) > best)
			best = (t1 - t0) / (t2 - t1);
	}
	return best;
}

static void forks_work(int n)
{
	(void)forks(n);
}

int main(void)
{
	double fault = 1e9, pop = 1e9, fe = 1e9;

	for (int r = 0; r < ROUNDS; r++) {
		double t = touch_region(0), p = touch_region(1), f = forks(100);

		if (t > 0 && t < fault)
			fault = t;
		if (p > 0 && p < pop)
			pop = p;
		if (f > 0 && f < fe)
			fe = f;
	}
	printf("fault_us %.2f\n", fault / (double)(REGION / PAGE) * 1e6);
	if (pop < 1e9)
		printf("populate_us %.2f\n", pop / (double)(REGION / PAGE) * 1e6);
	else
		printf("populate_us n/a\n");
	printf("fork_exit_ms %.3f\n", fe / 100 * 1e3);
	printf("side_by_side faults %.2f forks %.2f\n", side_by_side(faults, 5),
	       side_by_side(forks_work, 100));
	return 0;
}
