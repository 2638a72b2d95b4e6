/* Waveform plots (report/plot.h): the min/max reduction per pixel column
 * against a brute-force pass over every frame and window, the reduction
 * of a capture file against feeding its frames directly, and the SVG's
 * DOM contract (bands, highlight, events, lanes without data), its
 * determinism and its size, which the capture's length must not change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "capture/srzip_write.h"
#include "core/err.h"
#include "report/plot.h"

/* ---- a synthetic signal and the brute-force reduction ------------------ */

static uint32_t rng_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Channel c of frame k: a step every 700 frames, a slow sine and
 * +-0.05 of noise; channel 1 has a NaN every 97th frame. */
static float sig(int c, int64_t k)
{
	uint32_t s = (uint32_t)(k * 2654435761u + (uint32_t)c * 40503u + 1u);
	double noise = ((double)(rng_next(&s) % 1000) / 1000.0 - 0.5) * 0.1;

	if (c == 1 && k % 97 == 0)
		return NAN;
	return (float)((c + 1) * (double)((k / 700) % 3) + sin((double)k * 1e-3 * (c + 1)) +
		       noise);
}

static float *make_frames(int n_ch, int64_t n)
{
	float *f = malloc((size_t)n * (size_t)n_ch * sizeof(float));

	assert_non_null(f);
	for (int64_t k = 0; k < n; k++)
		for (int c = 0; c < n_ch; c++)
			f[k * n_ch + c] = sig(c, k);
	return f;
}

struct cell {
	float min, max;
	int64_t count;
};

/* Every frame against every window, by the rule plot.h states. */
static struct cell *brute(int n_ch, const float *f, int64_t n, double rate, const struct bn_plot_window *w)
{
	struct cell *cells = calloc((size_t)n_ch * (size_t)w->columns, sizeof(*cells));
	double per_s = (double)w->columns / (w->t1_s - w->t0_s);

	assert_non_null(cells);
	for (int64_t k = 0; k < n; k++) {
		double t = (double)k / rate;
		int col;

		if (t < w->t0_s || t > w->t1_s)
			continue;
		col = (int)((t - w->t0_s) * per_s);
		if (col >= w->columns)
			col = w->columns - 1;
		for (int c = 0; c < n_ch; c++) {
			struct cell *x = &cells[c * w->columns + col];
			float v = f[k * n_ch + c];

			if (isnan(v))
				continue;
			if (!x->count || v < x->min)
				x->min = v;
			if (!x->count || v > x->max)
				x->max = v;
			x->count++;
		}
	}
	return cells;
}

/* Reduction r's window wi equals the brute force; returns the samples. */
static int64_t assert_window_is(const struct bn_plot_reduce *r, int wi, int n_ch, const float *f,
				int64_t n, double rate, const struct bn_plot_window *w)
{
	struct cell *want = brute(n_ch, f, n, rate, w);
	int64_t total = 0;

	for (int c = 0; c < n_ch; c++) {
		int64_t ch_total = 0;

		for (int col = 0; col < w->columns; col++) {
			const struct cell *x = &want[c * w->columns + col];
			float mn = NAN, mx = NAN;
			int64_t cnt = -1;
			bool got = bn_plot_reduce_column(r, wi, c, col, &mn, &mx, &cnt);

			if (cnt != x->count || got != (x->count > 0))
				fail_msg("window %d ch %d col %d: count %lld, expected %lld", wi, c, col,
					 (long long)cnt, (long long)x->count);
			if (got && (mn != x->min || mx != x->max))
				fail_msg("window %d ch %d col %d: %g..%g, expected %g..%g", wi, c, col,
					 (double)mn, (double)mx, (double)x->min, (double)x->max);
			ch_total += x->count;
		}
		assert_int_equal(bn_plot_reduce_has_data(r, wi, c), ch_total > 0);
		total += ch_total;
	}
	free(want);
	return total;
}

static struct bn_plot_reduce *reduce(int n_ch, int n_win, const struct bn_plot_window *w)
{
	struct bn_plot_reduce *r = NULL;
	struct bn_err err = {0};

	if (bn_plot_reduce_new(n_ch, n_win, w, &r, &err) != BN_OK)
		fail_msg("reduce_new: %s", err.msg);
	return r;
}

/* 20 s at 1 kHz: the whole run, a zoom, a window shorter than a sample
 * period (between two frames), a sparse one (50 frames, 400 columns),
 * one reaching past the end and one wholly past it. */
#define RATE 1000.0
#define NFR 20000
static const struct bn_plot_window wins[] = {
	{0.0, 20.0, 900},     {2.0005, 2.7, 300},   {3.0001, 3.0004, 50},
	{5.0, 5.05, 400},     {19.5, 25.0, 200},    {30.0, 31.0, 100},
};
#define NWIN ((int)(sizeof(wins) / sizeof(wins[0])))

static void test_plot__reduce_matches_brute_force(void **state)
{
	float *f = make_frames(3, NFR);
	struct bn_plot_reduce *r = reduce(3, NWIN, wins);
	int64_t n[NWIN];

	bn_plot_reduce_feed(r, 0, RATE, f, NFR);
	for (int i = 0; i < NWIN; i++)
		n[i] = assert_window_is(r, i, 3, f, NFR, RATE, &wins[i]);
	/* the brute force saw what it should: not a vacuous comparison */
	assert_true(n[0] > 3 * 19000);
	assert_true(n[1] > 3 * 600);
	assert_int_equal(n[2], 0);
	assert_true(n[3] > 100 && n[3] < 3 * 52);
	assert_true(n[4] > 3 * 400);
	assert_int_equal(n[5], 0);
	/* whole run: every column has samples, spread by the noise */
	for (int col = 0; col < 900; col++) {
		float mn, mx;

		assert_true(bn_plot_reduce_column(r, 0, 0, col, &mn, &mx, NULL));
		assert_true(mx > mn);
	}
	bn_plot_reduce_free(r);
	free(f);
}

/* A sparse window keeps each frame at its own time: 51 frames (5.000 ..
 * 5.050 s) in 400 columns, one sample in each of 51 columns, the rest
 * empty. */
static void test_plot__sparse_window_one_frame_per_column(void **state)
{
	float *f = make_frames(1, NFR);
	struct bn_plot_reduce *r = reduce(1, 1, &wins[3]);
	int with = 0;

	bn_plot_reduce_feed(r, 0, RATE, f, NFR);
	for (int col = 0; col < 400; col++) {
		int64_t cnt;

		bn_plot_reduce_column(r, 0, 0, col, NULL, NULL, &cnt);
		assert_true(cnt <= 1);
		with += cnt == 1;
	}
	assert_int_equal(with, 51);
	bn_plot_reduce_free(r);
	free(f);
}

/* Two reductions over the same windows hold the same columns. */
static void assert_same(const struct bn_plot_reduce *a, const struct bn_plot_reduce *b, int n_win,
			const struct bn_plot_window *w, int n_ch)
{
	for (int i = 0; i < n_win; i++)
		for (int c = 0; c < n_ch; c++) {
			assert_int_equal(bn_plot_reduce_has_data(a, i, c), bn_plot_reduce_has_data(b, i, c));
			for (int col = 0; col < w[i].columns; col++) {
				float a0 = 0, a1 = 0, b0 = 0, b1 = 0;
				int64_t na, nb;
				bool ha = bn_plot_reduce_column(a, i, c, col, &a0, &a1, &na);
				bool hb = bn_plot_reduce_column(b, i, c, col, &b0, &b1, &nb);

				if (ha != hb || na != nb || a0 != b0 || a1 != b1)
					fail_msg("window %d ch %d col %d: %lld samples %g..%g, expected "
						 "%lld %g..%g", i, c, col, (long long)na, (double)a0,
						 (double)a1, (long long)nb, (double)b0, (double)b1);
			}
		}
}

static void test_plot__blocks_equal_one_block(void **state)
{
	static const long cuts[] = {1, 7, 999, 1, 4093, 2000, 65536};
	float *f = make_frames(3, NFR);
	struct bn_plot_reduce *one = reduce(3, NWIN, wins), *many = reduce(3, NWIN, wins);
	long at = 0;

	bn_plot_reduce_feed(one, 0, RATE, f, NFR);
	for (int i = 0; at < NFR; i = (i + 1) % 7) {
		long n = cuts[i] < NFR - at ? cuts[i] : NFR - at;

		bn_plot_reduce_feed(many, at, RATE, f + at * 3, n);
		at += n;
	}
	assert_same(many, one, NWIN, wins, 3);
	assert_true(bn_plot_reduce_has_data(many, 1, 2));
	bn_plot_reduce_free(one);
	bn_plot_reduce_free(many);
	free(f);
}

static void test_plot__has_data(void **state)
{
	float *f = make_frames(3, NFR);
	struct bn_plot_reduce *r = reduce(3, NWIN, wins);

	for (long k = 0; k < NFR; k++)
		f[k * 3 + 2] = NAN; /* channel 2 never captured */
	bn_plot_reduce_feed(r, 0, RATE, f, NFR);
	assert_true(bn_plot_reduce_has_data(r, 0, 0));
	assert_true(bn_plot_reduce_has_data(r, 0, 1));
	assert_false(bn_plot_reduce_has_data(r, 0, 2));
	assert_false(bn_plot_reduce_has_data(r, 2, 0)); /* shorter than a sample period */
	assert_true(bn_plot_reduce_has_data(r, 4, 0));  /* reaches past the end */
	assert_false(bn_plot_reduce_has_data(r, 5, 0)); /* wholly past the end */
	assert_false(bn_plot_reduce_has_data(r, 6, 0)); /* no such window */
	assert_false(bn_plot_reduce_has_data(r, 0, 3)); /* no such channel */
	bn_plot_reduce_free(r);
	free(f);
}

static void test_plot__bad_windows(void **state)
{
	static const struct bn_plot_window bad[] = {
		{1.0, 1.0, 10}, {2.0, 1.0, 10}, {0.0, NAN, 10}, {0.0, 1.0, 0}, {0.0, 1.0, 4097},
	};
	struct bn_plot_window ok = {0.0, 1.0, 4096};
	struct bn_plot_reduce *r = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_err err = {0};

		assert_int_equal(bn_plot_reduce_new(1, 1, &bad[i], &r, &err), BN_ERR_ARG);
		assert_null(r);
		assert_msg_has(&err, "plot window 0");
	}
	{
		struct bn_err err = {0};

		assert_int_equal(bn_plot_reduce_new(0, 1, &ok, &r, &err), BN_ERR_ARG);
		assert_int_equal(bn_plot_reduce_new(BN_PLOT_MAX_CH + 1, 1, &ok, &r, &err), BN_ERR_ARG);
		assert_int_equal(bn_plot_reduce_new(1, 0, &ok, &r, &err), BN_ERR_ARG);
	}
	r = reduce(BN_PLOT_MAX_CH, 1, &ok);
	bn_plot_reduce_free(r);
}

/* 1 M frames, 20 small windows and the whole run, every column checked. */
static void test_plot__million_frames_many_windows(void **state)
{
	const int64_t n = 1000000;
	const double rate = 10000.0;
	struct bn_plot_window w[21];
	float *f = make_frames(2, n);
	struct bn_plot_reduce *r;
	int64_t got;

	w[0] = (struct bn_plot_window){0.0, n / rate, 1000};
	for (int i = 1; i < 21; i++)
		w[i] = (struct bn_plot_window){i * 4.7 - 0.00003, i * 4.7 + 0.0123 * i, 300};
	r = reduce(2, 21, w);
	for (int64_t at = 0; at < n; at += 65536)
		bn_plot_reduce_feed(r, at, rate, f + at * 2, n - at < 65536 ? (long)(n - at) : 65536);
	got = assert_window_is(r, 0, 2, f, n, rate, &w[0]);
	assert_true(got > 2 * n - n / 97 - 2);
	for (int i = 1; i < 21; i++)
		assert_true(assert_window_is(r, i, 2, f, n, rate, &w[i]) > 0 || i * 4.7 > n / rate);
	bn_plot_reduce_free(r);
	free(f);
}

/* ---- the capture file -------------------------------------------------- */

static void write_sr(const char *path, int64_t n, double rate)
{
	static const char *const names[] = {"VBUS", "IBUS", "DP"};
	static const char *const units[] = {"V", "A", "V"};
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};

	memset(&o, 0, sizeof(o));
	o.rate_hz = rate;
	o.n_ch = 3;
	for (int c = 0; c < 3; c++) {
		o.names[c] = names[c];
		o.units[c] = units[c];
	}
	o.chunk_samples = 50000;
	if (bn_srw_open(path, &o, &w, &err) != BN_OK)
		fail_msg("srw_open: %s", err.msg);
	for (int64_t k = 0; k < n; k++) {
		double v[3] = {sig(0, k), sig(1, k), sig(2, k)};

		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	if (bn_srw_close(w, &err) != BN_OK)
		fail_msg("srw_close: %s", err.msg);
}

static void scratch(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/bn_test_plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static void test_plot__capture_equals_direct_feed(void **state)
{
	const int64_t n = 150000; /* three 64 Ki reads */
	const char *const ask[] = {"vbus", "DM", "DP", "VBUS"};
	char dir[256], path[320];
	struct bn_plot_window w[3] = {{0.0, 15.0, 700}, {6.55, 6.56, 40}, {14.9, 16.0, 100}};
	struct bn_plot_reduce *rc = NULL, *rd;
	struct bn_err err = {0};
	double rate = 0;
	int64_t frames = 0;
	float *f = malloc((size_t)n * 4 * sizeof(float));

	assert_non_null(f);
	scratch(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/capture.sr", dir);
	write_sr(path, n, 10000.0);
	if (bn_plot_reduce_capture(path, 4, ask, 3, w, &rc, &rate, &frames, &err) != BN_OK)
		fail_msg("reduce_capture: %s", err.msg);
	assert_near(rate, 10000.0, 0);
	assert_int_equal(frames, n);

	/* the same frames fed directly: DM absent, VBUS asked twice */
	for (int64_t k = 0; k < n; k++) {
		f[k * 4 + 0] = sig(0, k);
		f[k * 4 + 1] = NAN;
		f[k * 4 + 2] = sig(2, k);
		f[k * 4 + 3] = sig(0, k);
	}
	rd = reduce(4, 3, w);
	bn_plot_reduce_feed(rd, 0, 10000.0, f, (long)n);
	assert_same(rc, rd, 3, w, 4);
	for (int i = 0; i < 3; i++)
		assert_window_is(rc, i, 4, f, n, 10000.0, &w[i]);
	assert_false(bn_plot_reduce_has_data(rc, 0, 1));
	assert_true(bn_plot_reduce_has_data(rc, 0, 2));
	bn_plot_reduce_free(rc);
	bn_plot_reduce_free(rd);

	/* a missing file: BN_ERR_IO naming it */
	snprintf(path, sizeof(path), "%s/none.sr", dir);
	bn_err_clear(&err);
	assert_int_equal(bn_plot_reduce_capture(path, 1, ask, 1, w, &rc, NULL, NULL, &err), BN_ERR_IO);
	assert_null(rc);
	assert_msg_has(&err, "none.sr");

	snprintf(path, sizeof(path), "%s/capture.sr", dir);
	unlink(path);
	rmdir(dir);
	free(f);
}

/* ---- the SVG ----------------------------------------------------------- */

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The value of attribute name in the first element that has marker. */
static double attr_after(const char *s, const char *marker, const char *name)
{
	const char *p = strstr(s, marker);
	char key[64];

	assert_non_null(p);
	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(p, key);
	assert_non_null(p);
	return strtod(p + strlen(key), NULL);
}

static const struct bn_plot_band bands[] = {
	{0, "VBUS_VALID", 4.75, 5.25},
	{1, "IUNIT", NAN, 0.1},
	{2, "VDAT_REF", 0.25, 0.4},
};
static const struct bn_plot_event events[] = {
	{0.5, "VBUS_ON", "VBUS on"},
	{3.25, "CONNECT", "attach <DCP>"},
	{12.0, "DISCONNECT", "detach"},
	{25.0, "LATE", "after the window"},
};

static void spec_init(struct bn_plot_spec *sp, int win)
{
	memset(sp, 0, sizeof(*sp));
	sp->id = "plot-1";
	sp->win = win;
	sp->n_lanes = 4;
	sp->lanes[0].ch = 0, sp->lanes[0].label = "VBUS", sp->lanes[0].unit = "V";
	sp->lanes[1].ch = 1, sp->lanes[1].label = "IBUS", sp->lanes[1].unit = "A";
	sp->lanes[2].ch = 2, sp->lanes[2].label = "DP", sp->lanes[2].unit = "V";
	sp->lanes[3].ch = 3, sp->lanes[3].label = "ID", sp->lanes[3].unit = "V";
	sp->n_bands = 3;
	sp->bands = bands;
	sp->n_events = 4;
	sp->events = events;
	sp->has_hl = true;
	sp->hl_t0_s = 3.0;
	sp->hl_t1_s = 3.5;
	sp->width_px = 1000;
	sp->lane_height_px = 80;
}

/* n frames at rate of 4 channels, the 4th never captured. */
static struct bn_plot_reduce *svg_data(int64_t n, double rate, int n_win,
				       const struct bn_plot_window *w)
{
	struct bn_plot_reduce *r = reduce(4, n_win, w);
	float *f = malloc(65536 * 4 * sizeof(float));

	assert_non_null(f);
	for (int64_t at = 0; at < n; at += 65536) {
		long m = n - at < 65536 ? (long)(n - at) : 65536;

		for (long k = 0; k < m; k++) {
			f[k * 4 + 0] = 5.0f + 0.1f * sig(0, at + k);
			f[k * 4 + 1] = 0.05f * sig(1, at + k);
			f[k * 4 + 2] = 0.3f + 0.01f * sig(2, at + k);
			f[k * 4 + 3] = NAN;
		}
		bn_plot_reduce_feed(r, at, rate, f, m);
	}
	free(f);
	return r;
}

static void test_plot__svg_contract(void **state)
{
	struct bn_plot_window w[2] = {{0.0, 20.0, 800}, {3.2, 3.4, 200}};
	struct bn_plot_reduce *r = svg_data(20000, 1000.0, 2, w);
	struct bn_plot_spec sp;
	GString *a = g_string_new(NULL), *b = g_string_new(NULL);

	spec_init(&sp, 0);
	bn_plot_svg(a, r, &sp);
	bn_plot_svg(b, r, &sp);
	assert_string_equal(a->str, b->str);

	assert_non_null(strstr(a->str, "<svg "));
	assert_non_null(strstr(a->str, " class=\"plot-svg\" id=\"plot-1\""));
	assert_non_null(strstr(a->str, " data-t0=\"0.000000\" data-t1=\"20.000000\""));
	assert_non_null(strstr(a->str, " viewBox=\"0 0 1000 "));
	assert_int_equal(count_of(a->str, "<g class=\"lane\""), 4);
	assert_non_null(strstr(a->str, "<g class=\"lane\" data-channel=\"IBUS\" data-unit=\"A\">"));

	assert_int_equal(count_of(a->str, "<g class=\"band\""), 3);
	assert_non_null(strstr(a->str, "<g class=\"band\" data-band=\"VBUS_VALID\" data-channel=\"VBUS\" "
				       "data-lo=\"4.75\" data-hi=\"5.25\">"));
	assert_non_null(strstr(a->str, "<g class=\"band\" data-band=\"IUNIT\" data-channel=\"IBUS\" "
				       "data-lo=\"\" data-hi=\"0.1\">"));
	assert_non_null(strstr(a->str, "data-band=\"VDAT_REF\" data-channel=\"DP\""));

	assert_int_equal(count_of(a->str, "class=\"hl\""), 1);
	assert_non_null(strstr(a->str, "<rect class=\"hl\" data-t0=\"3.000000\" data-t1=\"3.500000\""));

	assert_int_equal(count_of(a->str, "<g class=\"ev\""), 3);
	assert_non_null(strstr(a->str, "data-t=\"0.500000\" data-kind=\"VBUS_ON\""));
	assert_non_null(strstr(a->str, "data-t=\"3.250000\" data-kind=\"CONNECT\""));
	assert_non_null(strstr(a->str, "attach &lt;DCP&gt;"));
	assert_null(strstr(a->str, "LATE"));

	/* 3 traces with envelopes, the ID lane says it was not captured */
	assert_int_equal(count_of(a->str, "class=\"trace\""), 3);
	assert_int_equal(count_of(a->str, "class=\"env\""), 3);
	assert_int_equal(count_of(a->str, "not captured"), 1);
	/* value ticks in the lane's unit, time ticks in s */
	assert_non_null(strstr(a->str, "5 V<"));
	assert_non_null(strstr(a->str, " s</text>"));

	/* the zoom: one event inside, the hl clipped to the window */
	spec_init(&sp, 1);
	g_string_truncate(a, 0);
	bn_plot_svg(a, r, &sp);
	assert_int_equal(count_of(a->str, "<g class=\"ev\""), 1);
	assert_non_null(strstr(a->str, "data-kind=\"CONNECT\""));
	assert_non_null(strstr(a->str, "<rect class=\"hl\" data-t0=\"3.000000\" data-t1=\"3.500000\""));
	{
		double x = attr_after(a->str, "class=\"hl\"", "x");
		double wd = attr_after(a->str, "class=\"hl\"", "width");
		double fx = attr_after(a->str, "class=\"lane\"", "x");
		double fw = attr_after(a->str, "class=\"lane\"", "width");

		assert_near(x, fx, 0.05);
		assert_near(wd, fw, 0.1);
	}

	/* a highlight outside the window is not drawn */
	sp.hl_t0_s = 10;
	sp.hl_t1_s = 11;
	g_string_truncate(a, 0);
	bn_plot_svg(a, r, &sp);
	assert_null(strstr(a->str, "class=\"hl\""));

	g_string_free(a, TRUE);
	g_string_free(b, TRUE);
	bn_plot_reduce_free(r);
}

/* A window with no samples of a channel that has some elsewhere says so,
 * and is not "not captured". */
static void test_plot__svg_window_without_samples(void **state)
{
	struct bn_plot_window w[2] = {{0.0, 20.0, 100}, {30.0, 31.0, 100}};
	struct bn_plot_reduce *r = svg_data(20000, 1000.0, 2, w);
	struct bn_plot_spec sp;
	GString *a = g_string_new(NULL);

	spec_init(&sp, 1);
	bn_plot_svg(a, r, &sp);
	assert_int_equal(count_of(a->str, "no samples in this window"), 3);
	assert_int_equal(count_of(a->str, "not captured"), 1);
	assert_int_equal(count_of(a->str, "class=\"trace\""), 0);
	/* bands still drawn, on a range that holds their closed sides */
	assert_int_equal(count_of(a->str, "<g class=\"band\""), 3);
	assert_int_equal(count_of(a->str, "<g class=\"ev\""), 0);
	g_string_free(a, TRUE);
	bn_plot_reduce_free(r);
}

/* The drawing's size depends on its columns, not on the samples behind
 * them: 10x the capture, same columns, within 5 % (the envelope's
 * shape and the axis labels differ a little, not the point count). */
static void test_plot__svg_size_independent_of_length(void **state)
{
	struct bn_plot_window w1 = {0.0, 20.0, 1000}, w10 = {0.0, 200.0, 1000};
	struct bn_plot_reduce *r1 = svg_data(20000, 1000.0, 1, &w1);
	struct bn_plot_reduce *r10 = svg_data(200000, 1000.0, 1, &w10);
	struct bn_plot_spec sp;
	GString *a = g_string_new(NULL), *b = g_string_new(NULL);
	double ratio;

	spec_init(&sp, 0);
	sp.n_events = 0;
	bn_plot_svg(a, r1, &sp);
	bn_plot_svg(b, r10, &sp);
	ratio = (double)b->len / (double)a->len;
	if (ratio < 0.95 || ratio > 1.05)
		fail_msg("20 s: %zu bytes, 200 s: %zu bytes", a->len, b->len);
	/* noisy data fills every column: not a trivially small drawing */
	assert_true(a->len > 3 * 1000 * 20);
	g_string_free(a, TRUE);
	g_string_free(b, TRUE);
	bn_plot_reduce_free(r1);
	bn_plot_reduce_free(r10);
}

/* Many events: at most 60 marks, the same ones on every render, and the
 * rest counted in the drawing. */
static void test_plot__svg_event_marks_bounded(void **state)
{
	struct bn_plot_window w = {0.0, 20.0, 200};
	struct bn_plot_reduce *r = svg_data(20000, 1000.0, 1, &w);
	struct bn_plot_event *ev = calloc(500, sizeof(*ev));
	struct bn_plot_spec sp;
	GString *a = g_string_new(NULL), *b = g_string_new(NULL);

	assert_non_null(ev);
	for (int i = 0; i < 500; i++) {
		ev[i].t_s = 1.0 + i * 0.03;
		snprintf(ev[i].kind, sizeof(ev[i].kind), "K%d", i);
		snprintf(ev[i].label, sizeof(ev[i].label), "event %d", i);
	}
	spec_init(&sp, 0);
	sp.events = ev;
	sp.n_events = 500;
	bn_plot_svg(a, r, &sp);
	bn_plot_svg(b, r, &sp);
	assert_string_equal(a->str, b->str);
	assert_int_equal(count_of(a->str, "<g class=\"ev\""), 60);
	assert_non_null(strstr(a->str, "data-kind=\"K0\""));   /* the first is kept */
	assert_non_null(strstr(a->str, "440 more events not marked"));
	g_string_free(a, TRUE);
	g_string_free(b, TRUE);
	free(ev);
	bn_plot_reduce_free(r);
}

/* A lane drawn from a missing capture channel, through the file reader. */
static void test_plot__svg_not_captured_from_file(void **state)
{
	const char *const ask[] = {"VBUS", "IBUS", "DP", "ID"};
	char dir[256], path[320];
	struct bn_plot_window w = {0.0, 1.0, 100};
	struct bn_plot_reduce *r = NULL;
	struct bn_err err = {0};
	struct bn_plot_spec sp;
	GString *a = g_string_new(NULL);

	scratch(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/capture.sr", dir);
	write_sr(path, 2000, 1000.0);
	if (bn_plot_reduce_capture(path, 4, ask, 1, &w, &r, NULL, NULL, &err) != BN_OK)
		fail_msg("reduce_capture: %s", err.msg);
	spec_init(&sp, 0);
	bn_plot_svg(a, r, &sp);
	assert_int_equal(count_of(a->str, "not captured"), 1);
	assert_int_equal(count_of(a->str, "class=\"trace\""), 3);
	g_string_free(a, TRUE);
	bn_plot_reduce_free(r);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot__reduce_matches_brute_force),
		cmocka_unit_test(test_plot__sparse_window_one_frame_per_column),
		cmocka_unit_test(test_plot__blocks_equal_one_block),
		cmocka_unit_test(test_plot__has_data),
		cmocka_unit_test(test_plot__bad_windows),
		cmocka_unit_test(test_plot__million_frames_many_windows),
		cmocka_unit_test(test_plot__capture_equals_direct_feed),
		cmocka_unit_test(test_plot__svg_contract),
		cmocka_unit_test(test_plot__svg_window_without_samples),
		cmocka_unit_test(test_plot__svg_size_independent_of_length),
		cmocka_unit_test(test_plot__svg_event_marks_bounded),
		cmocka_unit_test(test_plot__svg_not_captured_from_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
