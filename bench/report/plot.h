/* Waveform plots for report.html, drawn by bcbench itself as inline SVG.
 *
 * A capture is read once (capture.sr, streamed: memory does not grow with
 * its length) and reduced, per window asked for, to the minimum and
 * maximum of each channel in each pixel column. A 45-minute 10 kHz
 * capture and a 2-second one give plots of the same size: a plot's bytes
 * depend on its columns and lanes, never on the samples behind them.
 *
 * The SVG follows a contract the HTML test reads from the DOM:
 *   <svg class="plot-svg" data-t0="S" data-t1="S" ...>
 *     <g class="lane" data-channel="VBUS" data-unit="V"> ... </g>
 *     <g class="band" data-band="VDAT_REF" data-channel="DP" data-lo="V" data-hi="V">
 *         <rect/><text>VDAT_REF</text></g>
 *     <g class="ev" data-t="S" data-kind="KIND"><line/><text/></g>
 *     <rect class="hl" data-t0="S" data-t1="S" .../>   (the window a rule judged)
 *   </svg>
 * Times are seconds from the capture's first frame (a report's t_s),
 * printed "%.6f"; data-lo/-hi are SI values ("%.6g") or "" for an open
 * side. Coordinates have one decimal. Output is deterministic: the same
 * inputs give the same bytes (gcc, clang and sanitizer builds agree).
 *
 * In drawing order: a <path class="grid"> of time grid lines; per lane its
 * g.lane (a rect.axis frame, a path.grid and <text> value ticks labelled
 * with bn_qty_format, a polygon.env over each column's min..max when any
 * column has a spread, a polyline.trace through the columns' middles,
 * columns without samples skipped, or instead a text.nodata "not
 * captured" (the channel never had a sample: absent from the file, or
 * all NaN) or "no samples in this window"; a text.lane-label); the bands
 * (a rect across the window over [lo, hi], clipped to the lane's height,
 * and the band's name); the hl rect, drawn only where the judged window
 * meets the plot's (data-t0/-t1 keep the judged window's own times; an
 * instant is 1 px wide); the g.ev marks (a line across all lanes, a
 * small label, at most 60: see plot.c); a g.taxis of time labels (1/2/5
 * steps, in s, or ms for a window inside the first second); and when
 * events were left out, a text.ev-more "N more events not marked".
 * Styles come from the page (html_base.c's style sheet).
 *
 * Size: at most about 38 bytes per lane and column (a point of the trace
 * and two of the envelope, each "x.x,y.y"), plus about 1.5 KB per plot,
 * about 200 bytes per band and 150 per event mark (60 at most). Measured
 * with tests/bench/plot_bench (every column's min, max and middle unlike
 * its neighbours', the worst case): 5 lanes x 1000 columns = 181 KB,
 * 5 x 500 = 91 KB, 1 x 1000 = 35 KB. A flat stretch costs two points
 * however long. It never depends on the capture's length. */
#ifndef BN_REPORT_PLOT_H
#define BN_REPORT_PLOT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

#define BN_PLOT_MAX_CH 5
#define BN_PLOT_MAX_LANES 5

/* A time window to reduce, and into how many pixel columns. */
struct bn_plot_window {
	double t0_s, t1_s;  /* t1_s > t0_s; may reach past the capture's end */
	int columns;        /* 1 .. 4096 */
};

struct bn_plot_reduce;

/* n_ch channels (1..BN_PLOT_MAX_CH), n_win windows (>= 1). BN_ERR_ARG on
 * a bad window, BN_ERR_NOMEM. */
int bn_plot_reduce_new(int n_ch, int n_win, const struct bn_plot_window *win,
		       struct bn_plot_reduce **out, struct bn_err *err);
/* n frames of n_ch floats, interleaved, frame k at (first_frame + k) /
 * rate_hz seconds. Frames must come in time order; each only costs the
 * windows it falls in. A NaN (or infinite) sample is ignored.
 * A frame at t belongs to a window when t0_s <= t <= t1_s, to column
 * floor((t - t0_s) * columns / (t1_s - t0_s)) (the last for t1_s). A
 * window holding fewer frames than columns keeps each frame in its own
 * column; the others stay empty (the trace skips them). */
void bn_plot_reduce_feed(struct bn_plot_reduce *r, int64_t first_frame, double rate_hz,
			 const float *frames, long n);
/* Whether channel ch had any sample in window w. */
bool bn_plot_reduce_has_data(const struct bn_plot_reduce *r, int w, int ch);
/* Column col of channel ch in window w: its smallest and largest sample
 * and how many there were (count may be NULL). False, with *count 0,
 * for a column without samples (min and max then untouched). */
bool bn_plot_reduce_column(const struct bn_plot_reduce *r, int w, int ch, int col, float *min,
			   float *max, int64_t *count);
void bn_plot_reduce_free(struct bn_plot_reduce *r);

/* Read the capture at sr_path (srzip) once and reduce the channels named
 * (case-insensitive; e.g. "VBUS", "IBUS", "DP", "DM", "ID"; NULL or a
 * name the file lacks: that channel stays without data) over the
 * windows. *rate_hz and *n_frames, when not NULL, get the capture's.
 * Frame k is at k / rate_hz. A logic channel counts as absent; a name
 * asked twice is read once. Reads 64 Ki frames at a time: memory is the
 * windows' columns plus about 2.6 MB, whatever the capture's length.
 * Errors name the file: BN_ERR_IO, BN_ERR_DATA. */
int bn_plot_reduce_capture(const char *sr_path, int n_ch, const char *const names[],
			   int n_win, const struct bn_plot_window *win,
			   struct bn_plot_reduce **out, double *rate_hz, int64_t *n_frames,
			   struct bn_err *err);

/* The same, each channel's samples multiplied by gains[c] as they are
 * read (NULL, or a gain of 0 or not finite: 1): a file whose numbers a
 * channel map makes SI, such as a shunt's volts into amperes. */
int bn_plot_reduce_capture_gain(const char *sr_path, int n_ch, const char *const names[],
				const double *gains, int n_win, const struct bn_plot_window *win,
				struct bn_plot_reduce **out, double *rate_hz, int64_t *n_frames,
				struct bn_err *err);

/* A BC-1.2 band shaded on a lane: [lo, hi] in the lane's unit, NAN for an
 * open side (a limit ">= 4.75 V" is lo 4.75, hi NAN: shaded to the
 * lane's edge). */
struct bn_plot_band {
	int lane;          /* index into bn_plot_spec's lanes */
	char name[32];     /* the limit's name: "VDAT_REF", "IUNIT", ... */
	double lo, hi;
};

/* An event marked on the time axis. */
struct bn_plot_event {
	double t_s;
	char kind[24];     /* report's event kind: "VBUS_ON", "CONNECT", ... */
	char label[40];    /* short text drawn beside the mark */
};

struct bn_plot_spec {
	const char *id;          /* the svg element's id (unique in the page) */
	int win;                 /* which reduced window */
	int n_lanes;             /* 1..BN_PLOT_MAX_LANES, stacked, one time axis */
	struct {
		int ch;              /* the reduced channel drawn */
		const char *label;   /* "VBUS" (data-channel) */
		const char *unit;    /* "V", "A" */
	} lanes[BN_PLOT_MAX_LANES];
	int n_bands;
	const struct bn_plot_band *bands;
	int n_events;            /* those outside the window are not drawn */
	const struct bn_plot_event *events;
	bool has_hl;             /* the judged window, highlighted */
	double hl_t0_s, hl_t1_s;
	int width_px;            /* the drawing's width, axis labels included */
	int lane_height_px;
};

/* Append the <svg> element (r and spec->win must be valid, else nothing
 * is appended; width_px below 172 and lane_height_px below 30 are raised
 * to those). A lane whose channel has no data in the
 * window says so in the drawing ("not captured") instead of a trace. The
 * y range of a lane covers its data and the bands' closed sides, padded;
 * an open band side reaches the lane's edge. */
void bn_plot_svg(GString *out, const struct bn_plot_reduce *r, const struct bn_plot_spec *spec);

#endif
