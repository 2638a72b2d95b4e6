/* plot_bench: what a report's plots cost.
 *
 *   plot_bench size             bytes of one plot for L lanes x C columns
 *                               of noisy data (every column spread)
 *   plot_bench feed SECONDS     reduce SECONDS of 5 channels at 10 kHz over
 *                               the whole run and 20 zooms; prints frames,
 *                               seconds and frames per second
 *
 * The data is a step every 50 ms, a sine of 17 s and +-1 % of xorshift
 * noise: every column's minimum, maximum and middle differ from its
 * neighbours', so no point of the drawing can be left out (its worst
 * case for size). */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/plot.h"
#include "core/time.h"

static uint32_t rng = 2463534242u;

static float noisy(int c, int64_t k)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return (float)((c + 1) * (1.0 + (double)((k / 500) % 2) + 0.3 * sin((double)k * 3.7e-4)) *
		       (1.0 + 0.01 * ((double)(rng % 2001) / 1000.0 - 1.0)));
}

static void feed_all(struct bn_plot_reduce *r, int64_t n, double rate)
{
	static float f[65536 * 5];

	for (int64_t at = 0; at < n; at += 65536) {
		long m = n - at < 65536 ? (long)(n - at) : 65536;

		for (long k = 0; k < m; k++)
			for (int c = 0; c < 5; c++)
				f[k * 5 + c] = noisy(c, at + k);
		bn_plot_reduce_feed(r, at, rate, f, m);
	}
}

static int size_table(void)
{
	static const int cols[] = {250, 500, 1000, 2000, 4000};
	static const char *const lab[] = {"VBUS", "IBUS", "DP", "DM", "ID"};
	static const char *const unit[] = {"V", "A", "V", "V", "V"};

	printf("%6s %8s %10s %14s\n", "lanes", "columns", "bytes", "bytes/lane/col");
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		for (int lanes = 1; lanes <= 5; lanes += 4) {
			struct bn_plot_window w = {0.0, 60.0, cols[i]};
			struct bn_plot_reduce *r = NULL;
			struct bn_plot_spec sp;
			GString *s = g_string_new(NULL);

			if (bn_plot_reduce_new(5, 1, &w, &r, NULL) != 0)
				return 3;
			feed_all(r, 600000, 10000.0);
			memset(&sp, 0, sizeof(sp));
			sp.id = "p";
			sp.n_lanes = lanes;
			for (int l = 0; l < lanes; l++) {
				sp.lanes[l].ch = l;
				sp.lanes[l].label = lab[l];
				sp.lanes[l].unit = unit[l];
			}
			sp.width_px = cols[i] + 72;
			sp.lane_height_px = 90;
			bn_plot_svg(s, r, &sp);
			printf("%6d %8d %10zu %14.1f\n", lanes, cols[i], s->len,
			       (double)s->len / lanes / cols[i]);
			g_string_free(s, TRUE);
			bn_plot_reduce_free(r);
		}
	return 0;
}

static int feed_speed(double dur_s)
{
	const double rate = 10000.0;
	int64_t n = (int64_t)(dur_s * rate);
	struct bn_plot_window w[21];
	struct bn_plot_reduce *r = NULL;
	double t0, t1;

	w[0] = (struct bn_plot_window){0.0, dur_s, 1000};
	for (int i = 1; i < 21; i++)
		w[i] = (struct bn_plot_window){dur_s * i / 22.0, dur_s * i / 22.0 + 0.5, 600};
	if (bn_plot_reduce_new(5, 21, w, &r, NULL) != 0)
		return 3;
	t0 = bn_mono_s();
	feed_all(r, n, rate);
	t1 = bn_mono_s();
	printf("frames %" PRId64 " seconds %.3f rate %.0f frames/s (data generation included)\n",
	       n, t1 - t0, (double)n / (t1 - t0));
	bn_plot_reduce_free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "size"))
		return size_table();
	if (argc == 3 && !strcmp(argv[1], "feed"))
		return feed_speed(atof(argv[2]));
	fprintf(stderr, "usage: plot_bench size | plot_bench feed SECONDS\n");
	return 2;
}
