/* The numerics of curve import: a monotone fit and a line simplification. */
#include "curve/import.h"

#include <math.h>
#include <stdlib.h>

void bn_import_pava(double *v, const double *w, int n)
{
	/* Blocks on a stack: each keeps its weighted mean, weight and first
	 * index; a block above the one before it (rising) merges into it. */
	double *mean = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	double *wt = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	int *start = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	int top = 0;

	if (!mean || !wt || !start || n <= 1) {
		free(mean);
		free(wt);
		free(start);
		return;
	}
	for (int i = 0; i < n; i++) {
		mean[top] = v[i];
		wt[top] = w[i] > 0 ? w[i] : 1e-12;
		start[top] = i;
		top++;
		while (top > 1 && mean[top - 1] > mean[top - 2]) {
			double ws = wt[top - 2] + wt[top - 1];

			mean[top - 2] = (mean[top - 2] * wt[top - 2] + mean[top - 1] * wt[top - 1]) / ws;
			wt[top - 2] = ws;
			top--;
		}
	}
	for (int b = 0; b < top; b++) {
		int end = b + 1 < top ? start[b + 1] : n;

		for (int i = start[b]; i < end; i++)
			v[i] = mean[b];
	}
	free(mean);
	free(wt);
	free(start);
}

/* The largest normalised distance of points lo+1..hi-1 from the chord
 * lo-hi (on each value array, vertically), and where. */
static double worst(const double *x, const double *const *y, const double *tol, int nk, long lo,
		    long hi, long *at)
{
	double best = -1.0;

	*at = -1;
	for (long i = lo + 1; i < hi; i++) {
		double f = x[hi] > x[lo] ? (x[i] - x[lo]) / (x[hi] - x[lo]) : 0.0;
		double d = 0.0;

		for (int k = 0; k < nk; k++) {
			double chord = y[k][lo] + f * (y[k][hi] - y[k][lo]);
			double e = fabs(y[k][i] - chord) / tol[k];

			if (e > d)
				d = e;
		}
		if (d > best) {
			best = d;
			*at = i;
		}
	}
	return best;
}

long bn_import_rdp(const double *x, const double *const *y, const double *tol, int nk, long n,
		   unsigned char *keep)
{
	/* An explicit stack of spans: a series of millions of points would
	 * recurse too deep. */
	long *stack, top = 0, kept = 0;

	if (n <= 0)
		return 0;
	for (long i = 0; i < n; i++)
		keep[i] = 0;
	keep[0] = keep[n - 1] = 1;
	if (n <= 2)
		return n;
	stack = malloc(sizeof(long) * 2 * (size_t)n);
	if (!stack)
		return -1;
	stack[top++] = 0;
	stack[top++] = n - 1;
	while (top > 0) {
		long hi = stack[--top], lo = stack[--top], at;

		if (hi - lo < 2)
			continue;
		if (worst(x, y, tol, nk, lo, hi, &at) > 1.0) {
			keep[at] = 1;
			stack[top++] = lo;
			stack[top++] = at;
			stack[top++] = at;
			stack[top++] = hi;
		}
	}
	free(stack);
	for (long i = 0; i < n; i++)
		kept += keep[i];
	return kept;
}
