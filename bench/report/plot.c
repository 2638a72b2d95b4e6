#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/srzip_read.h"
#include "core/units.h"
#include "report/html_base.h"

#define MAX_COLUMNS 4096
#define READ_FRAMES 65536L
/* Event marks drawn per plot at most; see pick_events. */
#define MAX_MARKS 60

struct win {
	double t0_s, t1_s;
	double col_per_s;       /* columns / (t1 - t0) */
	int columns;
	float *min, *max;       /* [ch * columns + col] */
	int64_t *count;
	int64_t n[BN_PLOT_MAX_CH];
};

struct bn_plot_reduce {
	int n_ch, n_win;
	struct win *w;
	/* A channel that never had a sample (absent from the file, or all
	 * NaN) is "not captured"; one that has samples elsewhere but none
	 * in a window has "no samples in this window". */
	bool seen[BN_PLOT_MAX_CH];
	bool absent[BN_PLOT_MAX_CH]; /* known absent: feed does not look */
};

/* ---- reduction ---------------------------------------------------------- */

int bn_plot_reduce_new(int n_ch, int n_win, const struct bn_plot_window *win,
		       struct bn_plot_reduce **out, struct bn_err *err)
{
	struct bn_plot_reduce *r;

	*out = NULL;
	if (n_ch < 1 || n_ch > BN_PLOT_MAX_CH)
		return bn_err_set(err, BN_ERR_ARG, "plot: %d channels, expected 1..%d", n_ch,
				  BN_PLOT_MAX_CH);
	if (n_win < 1 || !win)
		return bn_err_set(err, BN_ERR_ARG, "plot: %d windows, expected at least one", n_win);
	for (int i = 0; i < n_win; i++) {
		const struct bn_plot_window *w = &win[i];

		if (!isfinite(w->t0_s) || !isfinite(w->t1_s) || !(w->t1_s > w->t0_s))
			return bn_err_set(err, BN_ERR_ARG,
					  "plot window %d: %g s .. %g s, expected finite times with "
					  "the end after the start", i, w->t0_s, w->t1_s);
		if (w->columns < 1 || w->columns > MAX_COLUMNS)
			return bn_err_set(err, BN_ERR_ARG, "plot window %d: %d columns, expected 1..%d",
					  i, w->columns, MAX_COLUMNS);
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->w = calloc((size_t)n_win, sizeof(*r->w));
	if (!r || !r->w) {
		free(r);
		return bn_err_set(err, BN_ERR_NOMEM, "plot: out of memory for %d windows", n_win);
	}
	r->n_ch = n_ch;
	r->n_win = n_win;
	for (int i = 0; i < n_win; i++) {
		struct win *w = &r->w[i];
		size_t cells = (size_t)n_ch * (size_t)win[i].columns;

		w->t0_s = win[i].t0_s;
		w->t1_s = win[i].t1_s;
		w->columns = win[i].columns;
		w->col_per_s = (double)w->columns / (w->t1_s - w->t0_s);
		w->min = malloc(cells * sizeof(float));
		w->max = malloc(cells * sizeof(float));
		w->count = calloc(cells, sizeof(int64_t));
		if (!w->min || !w->max || !w->count) {
			bn_plot_reduce_free(r);
			return bn_err_set(err, BN_ERR_NOMEM, "plot: out of memory for window %d", i);
		}
	}
	*out = r;
	return BN_OK;
}

/* floor/ceil of t * rate as a frame index, clamped far from int64's ends. */
static int64_t frame_at(double t_s, double rate_hz, bool up)
{
	double k = up ? ceil(t_s * rate_hz) : floor(t_s * rate_hz);

	if (!(k > -4e18))
		return (int64_t)-4e18;
	if (k > 4e18)
		return (int64_t)4e18;
	return (int64_t)k;
}

/* A frame is in a window when t0 <= t <= t1 with t = k / rate; its column
 * is floor((t - t0) * columns / (t1 - t0)), the last one for t1. The
 * frame range from the window's times is widened by one each side and
 * every frame in it is tested with that exact rule, so the rounding of
 * t0 * rate cannot move a frame across the window's edge. */
/* The column frame k falls in, by the rule in plot.h; -1 outside. */
static int col_of(const struct win *w, int64_t k, double rate_hz)
{
	double t = (double)k / rate_hz;
	int col;

	if (t < w->t0_s || t > w->t1_s)
		return -1;
	col = (int)((t - w->t0_s) * w->col_per_s);
	return col >= w->columns ? w->columns - 1 : col < 0 ? 0 : col;
}

/* Frames [k0, k1) of one column, channel by channel: a tight loop over a
 * run of frames instead of a column computed for every frame. */
static void feed_column(struct win *w, int n_ch, int col, const float *f, long k0, long k1)
{
	for (int c = 0; c < n_ch; c++) {
		size_t i = (size_t)c * (size_t)w->columns + (size_t)col;
		float mn = w->min[i], mx = w->max[i];
		int64_t cnt = w->count[i], add = 0;

		for (long k = k0; k < k1; k++) {
			float v = f[(size_t)k * (size_t)n_ch + (size_t)c];

			if (!isfinite(v))
				continue;
			if (cnt + add == 0) {
				mn = mx = v;
			} else {
				mn = v < mn ? v : mn;
				mx = v > mx ? v : mx;
			}
			add++;
		}
		if (add) {
			w->min[i] = mn;
			w->max[i] = mx;
			w->count[i] = cnt + add;
			w->n[c] += add;
		}
	}
}

static void feed_window(struct win *w, int n_ch, int64_t first, double rate_hz, const float *f,
			long n)
{
	int64_t lo = frame_at(w->t0_s, rate_hz, true) - 1;
	int64_t hi = frame_at(w->t1_s, rate_hz, false) + 1;
	int64_t k;

	if (lo < first)
		lo = first;
	if (hi > first + n - 1)
		hi = first + n - 1;
	k = lo;
	while (k <= hi) {
		int col = col_of(w, k, rate_hz);
		int64_t end;

		if (col < 0) {
			k++;
			continue;
		}
		/* the column's last frame: from where its right edge falls, then
		 * checked against the frame-by-frame rule (rounding) */
		end = (int64_t)ceil((w->t0_s + (double)(col + 1) / w->col_per_s) * rate_hz);
		if (col == w->columns - 1 || end > hi + 1)
			end = hi + 1;
		if (end <= k)
			end = k + 1;
		while (end > k + 1 && col_of(w, end - 1, rate_hz) != col)
			end--;
		while (end <= hi && col_of(w, end, rate_hz) == col)
			end++;
		feed_column(w, n_ch, col, f, (long)(k - first), (long)(end - first));
		k = end;
	}
}

void bn_plot_reduce_feed(struct bn_plot_reduce *r, int64_t first_frame, double rate_hz,
			 const float *frames, long n)
{
	if (!r || !frames || n <= 0 || !(rate_hz > 0) || !isfinite(rate_hz))
		return;
	/* Whether a channel was captured at all: stops at its first sample,
	 * so only a channel that is all NaN costs a look at every frame. */
	for (int c = 0; c < r->n_ch; c++)
		for (long k = 0; !r->seen[c] && !r->absent[c] && k < n; k++)
			if (isfinite(frames[(size_t)k * (size_t)r->n_ch + (size_t)c]))
				r->seen[c] = true;
	for (int i = 0; i < r->n_win; i++)
		feed_window(&r->w[i], r->n_ch, first_frame, rate_hz, frames, n);
}

bool bn_plot_reduce_has_data(const struct bn_plot_reduce *r, int w, int ch)
{
	if (!r || w < 0 || w >= r->n_win || ch < 0 || ch >= r->n_ch)
		return false;
	return r->w[w].n[ch] > 0;
}

bool bn_plot_reduce_column(const struct bn_plot_reduce *r, int w, int ch, int col, float *min,
			   float *max, int64_t *count)
{
	size_t i;

	if (count)
		*count = 0;
	if (!r || w < 0 || w >= r->n_win || ch < 0 || ch >= r->n_ch || col < 0 ||
	    col >= r->w[w].columns)
		return false;
	i = (size_t)ch * (size_t)r->w[w].columns + (size_t)col;
	if (count)
		*count = r->w[w].count[i];
	if (r->w[w].count[i] == 0)
		return false;
	if (min)
		*min = r->w[w].min[i];
	if (max)
		*max = r->w[w].max[i];
	return true;
}

void bn_plot_reduce_free(struct bn_plot_reduce *r)
{
	if (!r)
		return;
	for (int i = 0; r->w && i < r->n_win; i++) {
		free(r->w[i].min);
		free(r->w[i].max);
		free(r->w[i].count);
	}
	free(r->w);
	free(r);
}

int bn_plot_reduce_capture(const char *sr_path, int n_ch, const char *const names[],
			   int n_win, const struct bn_plot_window *win,
			   struct bn_plot_reduce **out, double *rate_hz, int64_t *n_frames,
			   struct bn_err *err)
{
	return bn_plot_reduce_capture_gain(sr_path, n_ch, names, NULL, n_win, win, out, rate_hz,
					   n_frames, err);
}

int bn_plot_reduce_capture_gain(const char *sr_path, int n_ch, const char *const names[],
				const double *gains, int n_win, const struct bn_plot_window *win,
				struct bn_plot_reduce **out, double *rate_hz, int64_t *n_frames,
				struct bn_err *err)
{
	float gain[BN_PLOT_MAX_CH];

	struct bn_srr *srr = NULL;
	struct bn_plot_reduce *r = NULL;
	const struct bn_srr_info *info;
	int sel[BN_PLOT_MAX_CH], slot[BN_PLOT_MAX_CH], n_sel = 0;
	float *in = NULL, *fr = NULL;
	int64_t at = 0;
	long got;
	int rc;

	*out = NULL;
	for (int c = 0; c < BN_PLOT_MAX_CH; c++)
		gain[c] = gains && c < n_ch && isfinite(gains[c]) && gains[c] != 0 ? (float)gains[c] : 1.0f;
	rc = bn_plot_reduce_new(n_ch, n_win, win, &r, err);
	if (rc != BN_OK)
		return rc;
	rc = bn_srr_open(sr_path, &srr, err);
	if (rc != BN_OK)
		goto fail;
	info = bn_srr_info(srr);
	/* A name asked twice is read once; a logic channel is not a trace. */
	for (int c = 0; c < n_ch; c++) {
		int idx = names && names[c] ? bn_srr_find(srr, names[c]) : -1;

		slot[c] = -1;
		if (idx >= 0 && !info->ch[idx].analog)
			idx = -1;
		for (int s = 0; idx >= 0 && s < n_sel; s++)
			if (sel[s] == idx)
				slot[c] = s;
		if (idx >= 0 && slot[c] < 0) {
			sel[n_sel] = idx;
			slot[c] = n_sel++;
		}
		r->absent[c] = slot[c] < 0;
	}
	if (rate_hz)
		*rate_hz = info->rate_hz;
	if (n_frames)
		*n_frames = info->n_frames;
	if (n_sel > 0) {
		rc = bn_srr_select(srr, n_sel, sel, err);
		if (rc != BN_OK)
			goto fail;
		in = malloc((size_t)READ_FRAMES * (size_t)n_sel * sizeof(float));
		fr = malloc((size_t)READ_FRAMES * (size_t)n_ch * sizeof(float));
		if (!in || !fr) {
			rc = bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory for the plot's read buffer",
					sr_path);
			goto fail;
		}
		while ((got = bn_srr_read(srr, in, READ_FRAMES, err)) > 0) {
			for (long k = 0; k < got; k++)
				for (int c = 0; c < n_ch; c++)
					fr[k * n_ch + c] = slot[c] < 0 ? NAN : in[k * n_sel + slot[c]] * gain[c];
			bn_plot_reduce_feed(r, at, info->rate_hz, fr, got);
			at += got;
		}
		if (got < 0) {
			rc = (int)got;
			goto fail;
		}
	}
	free(in);
	free(fr);
	bn_srr_close(srr);
	*out = r;
	return BN_OK;
fail:
	free(in);
	free(fr);
	bn_srr_close(srr);
	bn_plot_reduce_free(r);
	return rc;
}

/* ---- drawing ------------------------------------------------------------ */

/* The frame around the lanes, in px. */
#define M_LEFT 62
#define M_RIGHT 10
#define M_TOP 24    /* two rows of event labels */
#define LABEL_CHAR_PX 5.2 /* an event label's width per character (9 px sans) */
#define M_BOTTOM 28 /* time tick labels */
#define LANE_GAP 8

struct geom {
	double x0, x1;       /* plot area, px */
	double t0_s, t1_s;   /* the window */
	double top[BN_PLOT_MAX_LANES];
	double lane_h;
	double bottom;       /* of the last lane */
	double height;       /* of the whole drawing */
	int width;
};

static double x_of(const struct geom *g, double t_s)
{
	return g->x0 + (t_s - g->t0_s) / (g->t1_s - g->t0_s) * (g->x1 - g->x0);
}

/* Coordinates are printed in tenths of a pixel from an integer, which is
 * what "%.1f" prints and lets equal points be found exactly. */
static long tenths(double px)
{
	if (!(px > -1e8))
		px = -1e8;
	if (px > 1e8)
		px = 1e8;
	return lround(px * 10.0);
}

static void put_tenths(GString *s, long v)
{
	if (v < 0) {
		g_string_append_c(s, '-');
		v = -v;
	}
	g_string_append_printf(s, "%ld.%ld", v / 10, v % 10);
}

static void put_px(GString *s, double px)
{
	put_tenths(s, tenths(px));
}

/* Append "x,y x,y ..." (or its reverse), leaving out a point whose
 * neighbours on both sides have its y: on a horizontal run only the ends
 * matter, so a flat trace costs two points however long it is. */
static void put_points(GString *s, const long *x, const long *y, int n, bool reverse, bool lead)
{
	for (int j = 0; j < n; j++) {
		int i = reverse ? n - 1 - j : j;

		if (j > 0 && j < n - 1 && y[i] == y[i - 1] && y[i] == y[i + 1])
			continue;
		if (lead || j > 0)
			g_string_append_c(s, ' ');
		put_tenths(s, x[i]);
		g_string_append_c(s, ',');
		put_tenths(s, y[i]);
	}
}

static double nice_step(double span, double target)
{
	double raw = span / (target < 1 ? 1 : target);
	double mag = pow(10.0, floor(log10(raw)));
	double f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* One lane's value range: its data and its bands' closed sides, padded
 * 5 %, never of zero height. */
static void lane_range(const struct win *w, int ch, bool has, const struct bn_plot_spec *sp,
		       int lane, double *lo, double *hi)
{
	double a = INFINITY, b = -INFINITY, pad;

	for (int col = 0; has && col < w->columns; col++) {
		size_t i = (size_t)ch * (size_t)w->columns + (size_t)col;

		if (!w->count[i])
			continue;
		if (w->min[i] < a)
			a = w->min[i];
		if (w->max[i] > b)
			b = w->max[i];
	}
	for (int k = 0; k < sp->n_bands; k++) {
		const struct bn_plot_band *bd = &sp->bands[k];

		if (bd->lane != lane)
			continue;
		if (isfinite(bd->lo)) {
			a = fmin(a, bd->lo);
			b = fmax(b, bd->lo);
		}
		if (isfinite(bd->hi)) {
			a = fmin(a, bd->hi);
			b = fmax(b, bd->hi);
		}
	}
	if (!isfinite(a) || !isfinite(b)) {
		a = 0;
		b = 1;
	}
	pad = 0.05 * (b - a);
	if (!(pad > 0))
		pad = fabs(a) > 0 ? 0.05 * fabs(a) : 1e-3;
	*lo = a - pad;
	*hi = b + pad;
}

static double y_of(double v, double lo, double hi, double top, double h)
{
	return top + h - (v - lo) / (hi - lo) * h;
}

static void put_trace(GString *s, const struct win *w, int ch, double lo, double hi, double top,
		      double h, const struct geom *g)
{
	long *x = g_new(long, (size_t)w->columns);
	long *ymid = g_new(long, (size_t)w->columns);
	long *ymin = g_new(long, (size_t)w->columns);
	long *ymax = g_new(long, (size_t)w->columns);
	int n = 0;
	bool spread = false;

	for (int col = 0; col < w->columns; col++) {
		size_t i = (size_t)ch * (size_t)w->columns + (size_t)col;
		double mn, mx;

		if (!w->count[i])
			continue;
		mn = w->min[i];
		mx = w->max[i];
		spread |= mn != mx;
		x[n] = tenths(g->x0 + ((double)col + 0.5) / w->columns * (g->x1 - g->x0));
		ymid[n] = tenths(y_of(0.5 * (mn + mx), lo, hi, top, h));
		ymin[n] = tenths(y_of(mn, lo, hi, top, h));
		ymax[n] = tenths(y_of(mx, lo, hi, top, h));
		n++;
	}
	if (spread) {
		g_string_append(s, "<polygon class=\"env\" points=\"");
		put_points(s, x, ymax, n, false, false);
		put_points(s, x, ymin, n, true, true);
		g_string_append(s, "\"/>\n");
	}
	g_string_append(s, "<polyline class=\"trace\" points=\"");
	put_points(s, x, ymid, n, false, false);
	g_string_append(s, "\"/>\n");
	g_free(x);
	g_free(ymid);
	g_free(ymin);
	g_free(ymax);
}

static void put_lane(GString *s, const struct bn_plot_reduce *r, const struct win *w,
		     const struct bn_plot_spec *sp, int lane, const struct geom *g, double lo,
		     double hi)
{
	int ch = sp->lanes[lane].ch;
	bool valid = ch >= 0 && ch < r->n_ch;
	bool has = valid && w->n[ch] > 0;
	double top = g->top[lane], h = g->lane_h, step;
	const char *unit = sp->lanes[lane].unit ? sp->lanes[lane].unit : "";
	char buf[64];

	g_string_append(s, "<g class=\"lane\" data-channel=\"");
	bn_html_esc(s, sp->lanes[lane].label);
	g_string_append(s, "\" data-unit=\"");
	bn_html_esc(s, unit);
	g_string_append(s, "\">\n<rect class=\"axis\" x=\"");
	put_px(s, g->x0);
	g_string_append(s, "\" y=\"");
	put_px(s, top);
	g_string_append(s, "\" width=\"");
	put_px(s, g->x1 - g->x0);
	g_string_append(s, "\" height=\"");
	put_px(s, h);
	g_string_append(s, "\"/>\n");

	/* value ticks: 1/2/5 steps, about one per 25 px, at least two */
	step = nice_step(hi - lo, fmax(2.0, h / 25.0));
	{
		GString *grid = g_string_new(NULL), *lab = g_string_new(NULL);

		bool countable = step > 0 && isfinite(lo / step) && isfinite(hi / step) &&
				 floor(hi / step) - ceil(lo / step) <= 1000 && fabs(lo / step) <= 1e12;

		for (double k = ceil(lo / step); countable && k <= floor(hi / step); k++) {
			double v = k * step, y = y_of(v, lo, hi, top, h);

			if (fabs(v) < step * 1e-9)
				v = 0;
			g_string_append(grid, grid->len ? " M" : "M");
			put_px(grid, g->x0);
			g_string_append_c(grid, ',');
			put_px(grid, y);
			g_string_append(grid, "H");
			put_px(grid, g->x1);
			bn_qty_format(v, unit, buf, sizeof(buf));
			g_string_append(lab, "<text x=\"");
			put_px(lab, g->x0 - 4);
			g_string_append(lab, "\" y=\"");
			put_px(lab, y + 3);
			g_string_append(lab, "\" text-anchor=\"end\">");
			bn_html_esc(lab, buf);
			g_string_append(lab, "</text>\n");
		}
		if (grid->len)
			g_string_append_printf(s, "<path class=\"grid\" d=\"%s\"/>\n", grid->str);
		g_string_append(s, lab->str);
		g_string_free(grid, TRUE);
		g_string_free(lab, TRUE);
	}

	if (has) {
		put_trace(s, w, ch, lo, hi, top, h, g);
	} else {
		g_string_append(s, "<text class=\"nodata\" x=\"");
		put_px(s, 0.5 * (g->x0 + g->x1));
		g_string_append(s, "\" y=\"");
		put_px(s, top + 0.5 * h + 3);
		g_string_append(s, "\" text-anchor=\"middle\">");
		g_string_append(s, valid && r->seen[ch] ? "no samples in this window" : "not captured");
		g_string_append(s, "</text>\n");
	}
	g_string_append(s, "<text class=\"lane-label\" x=\"");
	put_px(s, g->x0 + 4);
	g_string_append(s, "\" y=\"");
	put_px(s, top + 11);
	g_string_append(s, "\" font-weight=\"bold\">");
	bn_html_esc(s, sp->lanes[lane].label);
	g_string_append(s, "</text>\n</g>\n");
}

static void put_num_attr(GString *s, const char *name, const char *fmt, double v)
{
	g_string_append_printf(s, " %s=\"", name);
	if (isfinite(v))
		g_string_append_printf(s, fmt, v);
	g_string_append_c(s, '"');
}

/* Where a lane's band labels went last, right and left, so that two
 * bands close together do not print their names over each other. */
struct band_labels {
	double y[BN_PLOT_MAX_LANES][2];
};

static void put_band(GString *s, const struct bn_plot_spec *sp, const struct bn_plot_band *bd,
		     const struct geom *g, const double *lo, const double *hi, struct band_labels *bl)
{
	int l = bd->lane;
	double top = g->top[l], bot = top + g->lane_h, ya, yb, ylab;
	int side;

	/* an open side reaches the lane's edge; a closed one is clipped to it */
	ya = isfinite(bd->hi) ? y_of(bd->hi, lo[l], hi[l], top, g->lane_h) : top;
	yb = isfinite(bd->lo) ? y_of(bd->lo, lo[l], hi[l], top, g->lane_h) : bot;
	if (ya > yb) {
		double t = ya;

		ya = yb;
		yb = t;
	}
	ya = fmax(top, fmin(bot, ya));
	yb = fmax(top, fmin(bot, yb));
	g_string_append(s, "<g class=\"band\" data-band=\"");
	bn_html_esc(s, bd->name);
	g_string_append(s, "\" data-channel=\"");
	bn_html_esc(s, sp->lanes[l].label);
	g_string_append_c(s, '"');
	put_num_attr(s, "data-lo", "%.6g", bd->lo);
	put_num_attr(s, "data-hi", "%.6g", bd->hi);
	g_string_append(s, "><rect x=\"");
	put_px(s, g->x0);
	g_string_append(s, "\" y=\"");
	put_px(s, ya);
	g_string_append(s, "\" width=\"");
	put_px(s, g->x1 - g->x0);
	g_string_append(s, "\" height=\"");
	put_px(s, yb - ya);
	/* the right edge, unless a label there is too near: then the left */
	ylab = fmin(bot - 2, ya + 10);
	side = fabs(ylab - bl->y[l][0]) >= 10 || fabs(ylab - bl->y[l][1]) < 10 ? 0 : 1;
	bl->y[l][side] = ylab;
	g_string_append(s, "\"/><text x=\"");
	put_px(s, side ? g->x0 + 3 : g->x1 - 3);
	g_string_append(s, "\" y=\"");
	put_px(s, ylab);
	g_string_append(s, side ? "\">" : "\" text-anchor=\"end\">");
	bn_html_esc(s, bd->name);
	g_string_append(s, "</text></g>\n");
}

static void put_hl(GString *s, const struct bn_plot_spec *sp, const struct geom *g)
{
	double a = fmin(sp->hl_t0_s, sp->hl_t1_s), b = fmax(sp->hl_t0_s, sp->hl_t1_s);
	double xa, xb;

	/* drawn only where it meets the window; an instant is 1 px wide */
	if (!sp->has_hl || !isfinite(a) || !isfinite(b) || b < g->t0_s || a > g->t1_s)
		return;
	xa = x_of(g, fmax(a, g->t0_s));
	xb = x_of(g, fmin(b, g->t1_s));
	if (xb - xa < 1) {
		double mid = 0.5 * (xa + xb);

		xa = fmax(g->x0, mid - 0.5);
		xb = fmin(g->x1, xa + 1);
		xa = xb - 1;
	}
	g_string_append(s, "<rect class=\"hl\"");
	put_num_attr(s, "data-t0", "%.6f", sp->hl_t0_s);
	put_num_attr(s, "data-t1", "%.6f", sp->hl_t1_s);
	g_string_append(s, " x=\"");
	put_px(s, xa);
	g_string_append(s, "\" y=\"");
	put_px(s, g->top[0]);
	g_string_append(s, "\" width=\"");
	put_px(s, xb - xa);
	g_string_append(s, "\" height=\"");
	put_px(s, g->bottom - g->top[0]);
	g_string_append(s, "\"/>\n");
}

/* At most MAX_MARKS events are drawn. When more fall inside the window,
 * the drawn ones are spread evenly by rank among those inside, in the
 * order given (the report's time order): the i-th inside is drawn when
 * floor(i * MAX_MARKS / n) differs from the previous one's, which keeps
 * the first and MAX_MARKS in all, the same ones every time. The number
 * left out is said in the drawing. */
static int put_events(GString *s, const struct bn_plot_spec *sp, const struct geom *g)
{
	int n_in = 0, i = 0, drawn = 0;
	long prev = -1;
	double row_end[2] = { -1e9, -1e9 };

	for (int k = 0; k < sp->n_events; k++) {
		double t = sp->events[k].t_s;

		n_in += t >= g->t0_s && t <= g->t1_s;
	}
	for (int k = 0; k < sp->n_events; k++) {
		const struct bn_plot_event *ev = &sp->events[k];
		double x, w_px, x_lo;
		long slot;
		bool right;
		const char *label;
		int row;

		if (!(ev->t_s >= g->t0_s && ev->t_s <= g->t1_s))
			continue;
		slot = n_in > MAX_MARKS ? (long)i * MAX_MARKS / n_in : i;
		i++;
		if (slot == prev)
			continue;
		prev = slot;
		x = x_of(g, ev->t_s);
		right = x > g->x0 + 0.8 * (g->x1 - g->x0);
		label = ev->label[0] ? ev->label : ev->kind;
		/* the label goes in the first of the two rows where it does not
		 * run into the one before; where neither has room, the mark keeps
		 * its label as a tooltip only (events at one instant are many) */
		w_px = LABEL_CHAR_PX * (double)g_utf8_strlen(label, -1);
		x_lo = right ? x - 2 - w_px : x + 2;
		row = x_lo > row_end[0] + 3 ? 0 : x_lo > row_end[1] + 3 ? 1 : -1;
		g_string_append(s, "<g class=\"ev\"");
		put_num_attr(s, "data-t", "%.6f", ev->t_s);
		g_string_append(s, " data-kind=\"");
		bn_html_esc(s, ev->kind);
		g_string_append(s, "\"><title>");
		bn_html_esc(s, label);
		g_string_append(s, "</title><line x1=\"");
		put_px(s, x);
		g_string_append(s, "\" y1=\"");
		put_px(s, g->top[0] - (row == 1 ? 12 : 2));
		g_string_append(s, "\" x2=\"");
		put_px(s, x);
		g_string_append(s, "\" y2=\"");
		put_px(s, g->bottom);
		g_string_append(s, "\"/>");
		if (row >= 0) {
			row_end[row] = x_lo + w_px;
			g_string_append(s, "<text x=\"");
			put_px(s, right ? x - 2 : x + 2);
			g_string_append(s, "\" y=\"");
			put_px(s, row == 1 ? 9 : 19);
			g_string_append_printf(s, "\"%s>", right ? " text-anchor=\"end\"" : "");
			bn_html_esc(s, label);
			g_string_append(s, "</text>");
		}
		g_string_append(s, "</g>\n");
		drawn++;
	}
	return n_in - drawn;
}

/* Times along the bottom, 1/2/5 steps about 90 px apart, in s (or in ms
 * when the window lies within the first second), with as many decimals
 * as the step needs. */
static void put_time_axis(GString *s, const struct geom *g, GString *grid)
{
	double span = g->t1_s - g->t0_s;
	double step = nice_step(span, fmax(2.0, (g->x1 - g->x0) / 90.0));
	bool ms = fmax(fabs(g->t0_s), fabs(g->t1_s)) < 1.0;
	double scale = ms ? 1e3 : 1.0;
	int dec = (int)ceil(-log10(step * scale) - 1e-9);

	if (dec < 0)
		dec = 0;
	if (dec > 6)
		dec = 6;
	/* a window far from 0 for its span (a hostile record) has ticks that
	 * doubles cannot count: none then, rather than a loop without end */
	if (!(step > 0) || !isfinite(g->t0_s / step) || !isfinite(g->t1_s / step) ||
	    floor(g->t1_s / step) - ceil(g->t0_s / step) > 1000 || fabs(g->t0_s / step) > 1e12)
		return;
	for (double k = ceil(g->t0_s / step); k <= floor(g->t1_s / step); k++) {
		double t = k * step, x = x_of(g, t);

		if (fabs(t) < step * 1e-9)
			t = 0;
		g_string_append(grid, grid->len ? " M" : "M");
		put_px(grid, x);
		g_string_append_c(grid, ',');
		put_px(grid, g->top[0]);
		g_string_append(grid, "V");
		put_px(grid, g->bottom + 4);
		g_string_append(s, "<text x=\"");
		put_px(s, x);
		g_string_append(s, "\" y=\"");
		put_px(s, g->bottom + 15);
		/* a label at the right edge ends there rather than past it */
		g_string_append_printf(s, "\" text-anchor=\"%s\">%.*f %s</text>\n",
				       x > g->x1 - 20 ? "end" : "middle", dec, t * scale,
				       ms ? "ms" : "s");
	}
}

void bn_plot_svg(GString *out, const struct bn_plot_reduce *r, const struct bn_plot_spec *spec)
{
	struct bn_plot_spec sp = *spec;
	const struct win *w;
	struct geom g;
	double lo[BN_PLOT_MAX_LANES], hi[BN_PLOT_MAX_LANES];
	struct band_labels bl;
	GString *tgrid, *tlab;
	int dropped;

	if (!out || !r || !spec || spec->win < 0 || spec->win >= r->n_win)
		return;
	w = &r->w[spec->win];
	if (sp.n_lanes < 1)
		sp.n_lanes = 1;
	if (sp.n_lanes > BN_PLOT_MAX_LANES)
		sp.n_lanes = BN_PLOT_MAX_LANES;
	if (sp.width_px < M_LEFT + M_RIGHT + 100)
		sp.width_px = M_LEFT + M_RIGHT + 100;
	if (sp.lane_height_px < 30)
		sp.lane_height_px = 30;
	if (!sp.bands)
		sp.n_bands = 0;
	if (!sp.events)
		sp.n_events = 0;

	memset(&g, 0, sizeof(g));
	g.width = sp.width_px;
	g.x0 = M_LEFT;
	g.x1 = sp.width_px - M_RIGHT;
	g.t0_s = w->t0_s;
	g.t1_s = w->t1_s;
	g.lane_h = sp.lane_height_px;
	for (int l = 0; l < sp.n_lanes; l++)
		g.top[l] = M_TOP + l * (g.lane_h + LANE_GAP);
	g.bottom = g.top[sp.n_lanes - 1] + g.lane_h;
	g.height = g.bottom + M_BOTTOM;

	for (int l = 0; l < sp.n_lanes; l++) {
		int ch = sp.lanes[l].ch;
		bool has = ch >= 0 && ch < r->n_ch && w->n[ch] > 0;

		lane_range(w, ch, has, &sp, l, &lo[l], &hi[l]);
	}

	g_string_append(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot-svg\" id=\"");
	bn_html_esc(out, sp.id);
	g_string_append_printf(out, "\" viewBox=\"0 0 %d ", g.width);
	put_px(out, g.height);
	g_string_append_printf(out, "\" width=\"%d\" height=\"", g.width);
	put_px(out, g.height);
	g_string_append_c(out, '"');
	put_num_attr(out, "data-t0", "%.6f", w->t0_s);
	put_num_attr(out, "data-t1", "%.6f", w->t1_s);
	g_string_append(out, " role=\"img\">\n");

	/* the time grid first, under everything */
	tgrid = g_string_new(NULL);
	tlab = g_string_new(NULL);
	put_time_axis(tlab, &g, tgrid);
	if (tgrid->len)
		g_string_append_printf(out, "<path class=\"grid\" d=\"%s\"/>\n", tgrid->str);

	for (int l = 0; l < sp.n_lanes; l++)
		put_lane(out, r, w, &sp, l, &g, lo[l], hi[l]);
	for (int l = 0; l < BN_PLOT_MAX_LANES; l++)
		bl.y[l][0] = bl.y[l][1] = -1e9;
	for (int k = 0; k < sp.n_bands; k++)
		if (sp.bands[k].lane >= 0 && sp.bands[k].lane < sp.n_lanes)
			put_band(out, &sp, &sp.bands[k], &g, lo, hi, &bl);
	put_hl(out, &sp, &g);
	dropped = put_events(out, &sp, &g);
	g_string_append(out, "<g class=\"taxis\">\n");
	g_string_append(out, tlab->str);
	g_string_append(out, "</g>\n");
	if (dropped > 0)
		g_string_append_printf(out,
				       "<text class=\"ev-more\" x=\"2\" y=\"%.1f\">%d more events "
				       "not marked</text>\n", g.height - 3, dropped);
	g_string_append(out, "</svg>\n");
	g_string_free(tgrid, TRUE);
	g_string_free(tlab, TRUE);
}
