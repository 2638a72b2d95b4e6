#include "report/report_html.h"
#include "report/curve_html.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/json.h"
#include "core/text.h"
#include "core/units.h"
#include "report/html_base.h"
#include "report/plot.h"
#include "report/report.h"

/* Drawing sizes. The whole run and each zoom have a fixed number of
 * pixel columns: the page's size follows the results, not the samples. */
#define RUN_WIDTH_PX 1000
#define ZOOM_WIDTH_PX 760
#define LANE_HEIGHT_PX 90
#define PLOT_LEFT_PX 70      /* plot.c's axis margin, roughly: columns = width - this */
/* A zoom has a column every 1.5 px: a noisy trace costs a third less, and
 * a window of a few ms still has a column per sample. */
#define ZOOM_COLUMNS 460
/* Events listed in the page's table (the rest are in events.json). */
#define MAX_EVENT_ROWS 2000

static const char *const chan_names[BN_PLOT_MAX_CH] = { "VBUS", "IBUS", "DP", "DM", "ID" };
static const char *const chan_units[BN_PLOT_MAX_CH] = { "V", "A", "V", "V", "V" };

/* What a rule's zoom shows: its lanes, the BC-1.2 bands drawn on them
 * ("LANE:LIMIT", values from the record's "limits"), and the lane its own
 * limit is shaded on (by the result's unit when NULL). First match by id
 * prefix wins. */
struct rule_view {
	const char *prefix;
	const char *lanes;
	const char *bands;
	bool no_zoom;        /* nothing in the waveform decides it */
};

static const struct rule_view rule_views[] = {
	{ "bc12.dcd.", "DP,DM", "DP:VLGC,DP:VDAT_REF", false },
	{ "bc12.det.primary_start", "VBUS,DP,DM", "DP:VDP_SRC,DM:VDAT_REF", false },
	{ "bc12.det.vdp_src", "DP,DM", "DP:VDP_SRC,DM:VDAT_REF,DM:VLGC", false },
	{ "bc12.det.idm_sink", "DP,DM", "DP:VDP_SRC,DM:VDAT_REF", false },
	{ "bc12.det.vdm_src", "DP,DM", "DP:VDAT_REF,DM:VDM_SRC", false },
	{ "bc12.det.port_type", "DP,DM", "DP:VDP_SRC,DP:VDAT_REF,DM:VDM_SRC,DM:VDAT_REF", false },
	{ "bc12.host.connect_time", "VBUS,DP", "DP:VLGC", false },
	{ "bc12.host.suspend_entry", "VBUS,IBUS,DP", "IBUS:ISUSP", false },
	{ "bc12.host.", "VBUS,IBUS,DP", "", false },
	{ "bc12.cur.droop", "VBUS,IBUS", "VBUS:DROOP_THRESHOLD", false },
	{ "bc12.cur.vdcp_shtdwn", "VBUS,IBUS", "VBUS:VDCP_SHTDWN", false },
	{ "bc12.cur.dcp_dp_hold", "DP,DM", "DP:VDP_SRC,DP:VDAT_REF", false },
	{ "bc12.cur.", "VBUS,IBUS", "", false },
	{ "bc12.dbp.", "VBUS,IBUS,DP", "IBUS:IUNIT,IBUS:ISUSP,DP:VDP_SRC", false },
	{ "bc12.otg.", "VBUS,IBUS", "VBUS:VOTG_SESS_VLD", false },
	{ "bc12.aca.", "VBUS,DP,ID", "DP:VLGC", false },
	{ "bc12.adv.", "VBUS,IBUS", "", true },
	/* the charging port's rules: its answer on the data lines, its short
	 * and leakage there; its output on VBUS under the draw */
	{ "bc12.port.vdm_src", "DP,DM", "DP:VDP_SRC,DM:VDM_SRC", false },
	{ "bc12.port.tvdmsrc_", "DP,DM", "DP:VDP_SRC,DM:VDM_SRC", false },
	{ "bc12.port.rdcp_dat", "DP,DM", "DP:VDAT_REF", false },
	{ "bc12.port.leakage", "DP,DM", "", false },
	{ "bc12.port.shutdown", "VBUS,IBUS", "VBUS:VDCP_SHTDWN", false },
	{ "bc12.port.", "VBUS,IBUS", "", false },
	{ "", "VBUS,IBUS", "", false },
};

struct page {
	GString *s;
	const cJSON *rep;
	const cJSON *results;
	int n_results;
	const char *dir;
	char capture_path[1200];
	char capture_name[600];  /* as the record names it (the page never shows
				  * the path it was rendered from) */
	char capture_note[600];  /* why there are no plots, "" when there are */
	bool have_capture;
	bool capture_unchecked;  /* the record has no hash for it (an older format) */
	struct bn_plot_reduce *red;
	int n_win;
	int *win_of;             /* result index -> window (-1: no zoom); window 0 is the run */
	double *win_t0, *win_t1; /* per window */
	double run_end_s;
	unsigned chan_present;   /* bits of chan_names in the capture */
	int overall;             /* computed from the results (bn_report_json_verdict) */
	const char *judges;      /* the side the record judges: "device" or "port" */
	const char *other;       /* the other side */
	int totals[BN_VERDICT_COUNT];
	const cJSON **res;       /* the results, by index (an array walk is linear) */
};

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "–";
}

static int chan_index(const char *name)
{
	for (int i = 0; i < BN_PLOT_MAX_CH; i++)
		if (!strcmp(name, chan_names[i]))
			return i;
	return -1;
}

static const struct rule_view *view_of(const char *id)
{
	for (size_t i = 0; i < sizeof(rule_views) / sizeof(rule_views[0]); i++)
		if (!strncmp(id, rule_views[i].prefix, strlen(rule_views[i].prefix)))
			return &rule_views[i];
	return &rule_views[sizeof(rule_views) / sizeof(rule_views[0]) - 1];
}

/* The order results are listed in: what needs a reader's eye first. */
static int verdict_rank(const char *v)
{
	static const char *const order[] = { "fail", "error", "inconclusive", "pass", "skipped" };

	for (int i = 0; i < 5; i++)
		if (v && !strcmp(v, order[i]))
			return i;
	return 5;
}

struct order_item {
	int index, rank;
	const char *task;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order_item *x = a, *y = b;
	int tx = x->task && x->task[0], ty = y->task && y->task[0];
	int c;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	/* rules by task, then the scenario's expectations */
	if (tx != ty)
		return ty - tx;
	if (tx && (c = strcmp(x->task, y->task)))
		return c;
	return x->index - y->index;
}

/* results' indexes in listing order (malloc'ed) */
static int *listing_order(const struct page *p)
{
	struct order_item *it = calloc((size_t)p->n_results + 1, sizeof(*it));
	int *idx = calloc((size_t)p->n_results + 1, sizeof(int));

	if (!it || !idx) {
		free(it);
		free(idx);
		return NULL;
	}
	for (int i = 0; i < p->n_results; i++) {
		const cJSON *r = p->res[i];

		it[i] = (struct order_item){ i, verdict_rank(bn_jstr(r, "verdict")), bn_jstr(r, "task") };
	}
	qsort(it, (size_t)p->n_results, sizeof(*it), order_cmp);
	for (int i = 0; i < p->n_results; i++)
		idx[i] = it[i].index;
	free(it);
	return idx;
}

static bool result_window(const cJSON *r, double *t0, double *t1)
{
	const cJSON *w = bn_jget(r, "window");

	*t0 = bn_jnum(w, "t0_s");
	*t1 = bn_jnum(w, "t1_s");
	return cJSON_IsObject(w) && isfinite(*t0) && isfinite(*t1) && *t1 >= *t0;
}

/* Whether a result gets a zoom, and which. */
static bool wants_zoom(const cJSON *r)
{
	const char *id = bn_jstr(r, "id"), *v = bn_jstr(r, "verdict"), *unit = bn_jstr(r, "unit");
	double t0, t1;

	if (!id || !v || !strcmp(v, "skipped") || !result_window(r, &t0, &t1))
		return false;
	/* a failure is shown where it was decided, whatever decided it */
	if (!strcmp(v, "fail"))
		return true;
	if (view_of(id)->no_zoom)
		return false;
	/* an expectation on a word or a count is not in the waveform */
	if (!strcmp(bn_jstr(r, "kind") ? bn_jstr(r, "kind") : "", "expect"))
		return unit && (!strcmp(unit, "V") || !strcmp(unit, "A"));
	return true;
}

/* The zoom around a judged window: the window and a margin either side
 * so what led up to the decision shows too. */
static void zoom_range(const struct page *p, double t0, double t1, double *z0, double *z1)
{
	double rate = bn_jnum(bn_jget(p->rep, "capture"), "rate_hz");
	double pad = 0.25 * (t1 - t0);

	/* a decision at an instant (the port type, a count): what led to it,
	 * up to 200 ms before, matters as much as the instant */
	if (t1 - t0 < 1e-9)
		pad = fmin(0.2, 0.5 * t0);
	if (pad < 0.02)
		pad = 0.02;
	if (isfinite(rate) && rate > 0 && pad < 4.0 / rate)
		pad = 4.0 / rate;
	*z0 = t0 - pad < 0 ? 0 : t0 - pad;
	*z1 = t1 + pad;
	if (p->run_end_s > 0 && *z1 > p->run_end_s && p->run_end_s > *z0)
		*z1 = p->run_end_s;
	if (*z1 <= *z0)
		*z1 = *z0 + pad;
}

static const char *artifact_sha(const cJSON *rep, const char *role)
{
	return bn_jstr(bn_jget(rep, "artifacts_sha256"), role);
}

/* Where the capture is, checked against the record. A capture that is
 * not there: no plots, and the page says why. One with another hash: the
 * record no longer matches its files, an error. */
static int find_capture(struct page *p, struct bn_err *err)
{
	const char *name = bn_jstr(bn_jget(p->rep, "artifacts"), "capture");
	const char *want = NULL;
	const cJSON *f;
	char got[65];

	p->capture_path[0] = '\0';
	if (name) {
		snprintf(p->capture_path, sizeof(p->capture_path), "%s/%s", p->dir, name);
		bn_str_copy(p->capture_name, sizeof(p->capture_name), name);
		want = artifact_sha(p->rep, "capture");
	} else {
		cJSON_ArrayForEach(f, bn_jget(p->rep, "files")) {
			const char *role = bn_jstr(f, "role"), *path = bn_jstr(f, "path");

			if (!role || strcmp(role, "capture") || !path)
				continue;
			want = bn_jstr(f, "sha256");
			bn_str_copy(p->capture_name, sizeof(p->capture_name), path);
			/* never against the directory it is rendered from: an
			 * absolute path as it is, a relative one (a record before
			 * replays kept absolute paths) beside the record */
			if (path[0] == '/')
				snprintf(p->capture_path, sizeof(p->capture_path), "%s", path);
			else
				snprintf(p->capture_path, sizeof(p->capture_path), "%s/%s", p->dir, path);
		}
	}
	if (!p->capture_path[0] && bn_jstr(bn_jget(p->rep, "capture"), "not_written")) {
		snprintf(p->capture_note, sizeof(p->capture_note), "no capture was written (%.400s): the "
			 "rules judged every sample, but there is none to plot",
			 bn_jstr(bn_jget(p->rep, "capture"), "not_written"));
		return BN_OK;
	}
	if (!p->capture_path[0]) {
		snprintf(p->capture_note, sizeof(p->capture_note), "the record names no capture");
		return BN_OK;
	}
	if (access(p->capture_path, R_OK) != 0) {
		snprintf(p->capture_note, sizeof(p->capture_note), "the capture %.500s is not there", p->capture_name);
		return BN_OK;
	}
	p->capture_unchecked = !want || !want[0];
	if (!p->capture_unchecked) {
		int rc = bn_file_sha256(p->capture_path, got, err);

		if (rc < 0)
			return rc;
		if (strcmp(got, want))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: SHA-256 %s, the record says %s: the capture is not the "
					  "one this report judged", p->capture_path, got, want);
	}
	p->have_capture = true;
	return BN_OK;
}

/* Which of the capture's channels is each bench channel, and the gain
 * that makes its numbers SI: the record says so for a replay through a
 * channel map ("source_channel", "gain"); else the channel's own name. */
static void channel_sources(const struct page *p, const char *src[], double gains[])
{
	const cJSON *c;

	for (int ch = 0; ch < BN_PLOT_MAX_CH; ch++) {
		src[ch] = chan_names[ch];
		gains[ch] = 1.0;
	}
	cJSON_ArrayForEach(c, bn_jget(bn_jget(p->rep, "capture"), "channels")) {
		const char *name = bn_jstr(c, "name"), *s = bn_jstr(c, "source_channel");
		int ch = name ? chan_index(name) : -1;

		if (ch < 0 || !s)
			continue;
		src[ch] = s;
		gains[ch] = isfinite(bn_jnum(c, "gain")) ? bn_jnum(c, "gain") : 1.0;
	}
}

/* The whole run is window 0; each zoomed result one more. */
static int reduce(struct page *p, struct bn_err *err)
{
	struct bn_plot_window *win;
	double samples = bn_jnum(bn_jget(p->rep, "capture"), "samples");
	double rate = bn_jnum(bn_jget(p->rep, "capture"), "rate_hz");
	double sim_s = bn_jnum(bn_jget(p->rep, "timing"), "sim_s");
	int64_t n_frames = 0;
	double rate_read = 0, gains[BN_PLOT_MAX_CH];
	const char *src[BN_PLOT_MAX_CH];
	int n = 1, rc;

	p->run_end_s = isfinite(samples) && isfinite(rate) && rate > 0 && samples > 0 ? samples / rate
		       : isfinite(sim_s) && sim_s > 0 ? sim_s : 1.0;
	p->win_of = malloc(sizeof(int) * ((size_t)p->n_results + 1));
	p->win_t0 = malloc(sizeof(double) * ((size_t)p->n_results + 1));
	p->win_t1 = malloc(sizeof(double) * ((size_t)p->n_results + 1));
	win = calloc((size_t)p->n_results + 1, sizeof(*win));
	if (!p->win_of || !p->win_t0 || !p->win_t1 || !win) {
		free(win);
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	}
	p->win_t0[0] = 0;
	p->win_t1[0] = p->run_end_s;
	win[0] = (struct bn_plot_window){ 0, p->run_end_s, RUN_WIDTH_PX - PLOT_LEFT_PX };
	for (int i = 0; i < p->n_results; i++) {
		const cJSON *r = p->res[i];
		double t0, t1;

		p->win_of[i] = -1;
		if (!wants_zoom(r) || !result_window(r, &t0, &t1))
			continue;
		zoom_range(p, t0, t1, &p->win_t0[n], &p->win_t1[n]);
		win[n] = (struct bn_plot_window){ p->win_t0[n], p->win_t1[n], ZOOM_COLUMNS };
		p->win_of[i] = n++;
	}
	p->n_win = n;
	if (!p->have_capture) {
		free(win);
		return BN_OK;
	}
	channel_sources(p, src, gains);
	rc = bn_plot_reduce_capture_gain(p->capture_path, BN_PLOT_MAX_CH, src, gains, n, win, &p->red,
					 &rate_read, &n_frames, err);
	free(win);
	if (rc < 0)
		return rc;
	for (int ch = 0; ch < BN_PLOT_MAX_CH; ch++)
		if (bn_plot_reduce_has_data(p->red, 0, ch))
			p->chan_present |= 1u << ch;
	return BN_OK;
}

/* A band from the record's limits (or the device's declaration). */
static bool band_value(const struct page *p, const char *name, double *lo, double *hi)
{
	const cJSON *l;

	if (!strcmp(name, "DROOP_THRESHOLD")) {
		*lo = bn_jnum(bn_jget(p->rep, "dut"), "droop_threshold_v");
		*hi = NAN;
		return isfinite(*lo);
	}
	l = bn_jget(bn_jget(p->rep, "limits"), name);
	if (!cJSON_IsObject(l))
		return false;
	*lo = bn_jnum(l, "min");
	*hi = bn_jnum(l, "max");
	return isfinite(*lo) || isfinite(*hi);
}

static bool same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || (isfinite(a) && isfinite(b) && fabs(a - b) <= 1e-9 + 1e-6 * fabs(b));
}

/* Events drawn on plots: the run's own, not the device's chatter, on the
 * whole run; everything in a zoom. */
static int collect_events(const struct page *p, bool with_telemetry, struct bn_plot_event **out)
{
	const cJSON *list = bn_jget(bn_jget(p->rep, "events"), "list"), *e;
	int n = 0, cap = cJSON_GetArraySize(list);
	struct bn_plot_event *ev = calloc((size_t)cap + 1, sizeof(*ev));

	*out = ev;
	if (!ev)
		return 0;
	cJSON_ArrayForEach(e, list) {
		const char *kind = bn_jstr(e, "kind"), *detail = bn_jstr(e, "detail");
		double t = bn_jnum(e, "t_s");

		if (!kind || !isfinite(t))
			continue;
		if (!with_telemetry && !strcmp(kind, "telemetry"))
			continue;
		ev[n].t_s = t;
		bn_str_copy(ev[n].kind, sizeof(ev[n].kind), kind);
		bn_str_copy(ev[n].label, sizeof(ev[n].label),
			    !strcmp(kind, "telemetry") && detail ? detail : kind);
		n++;
	}
	return n;
}

static void plot_figure(struct page *p, const char *svg_id, int win,
			const char *lanes, const struct bn_plot_band *bands, int n_bands,
			bool with_telemetry, const cJSON *hl_result, int width_px)
{
	struct bn_plot_spec spec = { .id = svg_id, .win = win, .width_px = width_px,
				     .lane_height_px = LANE_HEIGHT_PX };
	struct bn_plot_event *ev = NULL;
	char buf[64], *save = NULL, *tok;

	bn_str_copy(buf, sizeof(buf), lanes);
	for (tok = strtok_r(buf, ",", &save); tok && spec.n_lanes < BN_PLOT_MAX_LANES;
	     tok = strtok_r(NULL, ",", &save)) {
		int ch = chan_index(tok);

		if (ch < 0)
			continue;
		spec.lanes[spec.n_lanes].ch = ch;
		spec.lanes[spec.n_lanes].label = chan_names[ch];
		spec.lanes[spec.n_lanes].unit = chan_units[ch];
		spec.n_lanes++;
	}
	spec.bands = bands;
	spec.n_bands = n_bands;
	spec.n_events = collect_events(p, with_telemetry, &ev);
	spec.events = ev;
	if (hl_result && result_window(hl_result, &spec.hl_t0_s, &spec.hl_t1_s))
		spec.has_hl = true;
	bn_plot_svg(p->s, p->red, &spec);
	free(ev);
}

static void meta_row(GString *s, const char *dt, const char *dd)
{
	g_string_append(s, "<dt>");
	bn_html_esc(s, dt);
	g_string_append(s, "</dt><dd>");
	bn_html_esc(s, or_dash(dd));
	g_string_append(s, "</dd>\n");
}

static const cJSON *file_of_role(const cJSON *rep, const char *role)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, bn_jget(rep, "files")) {
		const char *r = bn_jstr(f, "role");

		if (r && !strcmp(r, role))
			return f;
	}
	return NULL;
}

/* The side result i judges. */
static const char *side_of(const struct page *p, int i)
{
	return bn_result_side_in(bn_jstr(p->res[i], "kind"), bn_jstr(p->res[i], "side"), p->judges);
}

/* The other side's verdict, when it judged anything: "The port: not
 * compliant (bc12.port.vchg)", its failed rules named. */
static void other_verdict(struct page *p)
{
	GString *s = p->s;
	bool judged = false;
	int o = bn_report_json_overall_side(p->rep, p->other, &judged), n_fail = 0;
	const char *oid;

	if (o < 0 || !judged)
		return;
	oid = bn_overall_id(o);
	g_string_append_printf(s, "<div id=\"verdict-other\" class=\"banner verdict %s\" "
				  "data-verdict=\"%s\" data-side=\"%s\">", bn_html_verdict_class(oid),
			       oid, p->other);
	bn_html_escf(s, "The %s: %s", p->other, bn_overall_name(o));
	for (int i = 0; i < p->n_results; i++) {
		const char *v = bn_jstr(p->res[i], "verdict");

		if (strcmp(side_of(p, i), p->other) || !v || strcmp(v, "fail") ||
		    bn_jstr(p->res[i], "severity"))
			continue;
		if (n_fail < 4) {
			g_string_append(s, n_fail ? ", " : " (");
			bn_html_esc(s, bn_jstr(p->res[i], "id"));
		}
		n_fail++;
	}
	if (n_fail > 4)
		g_string_append_printf(s, " and %d more", n_fail - 4);
	if (n_fail)
		g_string_append(s, ")");
	g_string_append(s, "</div>\n<p id=\"verdict-other-note\">");
	bn_html_esc(s, !strcmp(p->other, "port")
			   ? "The port's results are reported beside the device's and never make the "
			     "device not compliant: a device rule that rests on a port rule that failed "
			     "is inconclusive, naming the port."
			   : "This record judges the port: the device's results are reported, not counted.");
	g_string_append(s, "</p>\n");
}

static void header(struct page *p)
{
	GString *s = p->s;
	const cJSON *rep = p->rep, *dut = bn_jget(rep, "dut"), *usb = bn_jget(dut, "usb");
	const cJSON *rec = bn_jget(rep, "record"), *bench = bn_jget(rep, "bench"), *tool = bn_jget(rep, "tool");
	const cJSON *f, *ins;
	int o = p->overall;
	const char *oid = o < 0 ? "not-demonstrated" : bn_overall_id(o);
	char buf[600];

	g_string_append(s, "<header>\n<h1>");
	bn_html_escf(s, "BC-1.2 compliance record: %s", or_dash(bn_jstr(bn_jget(rep, "scenario"), "name")));
	g_string_append(s, "</h1>\n");
	g_string_append_printf(s, "<div id=\"verdict\" class=\"banner verdict %s\" data-verdict=\"%s\" "
				  "data-side=\"%s\">", bn_html_verdict_class(oid), oid, p->judges);
	bn_html_escf(s, "Overall (the %s): %s", p->judges,
		     o < 0 ? "compliance not demonstrated" : bn_overall_name(o));
	g_string_append(s, "</div>\n");
	other_verdict(p);
	g_string_append(s, "<p id=\"totals\">");
	bn_html_escf(s, "%d passed, %d failed, %d inconclusive, %d errors, %d not applicable. ",
		     p->totals[BN_VERDICT_PASS], p->totals[BN_VERDICT_FAIL],
		     p->totals[BN_VERDICT_INCONCLUSIVE], p->totals[BN_VERDICT_ERROR],
		     p->totals[BN_VERDICT_SKIPPED]);
	bn_html_esc(s, o == BN_OVERALL_COMPLIANT ? "Every applicable rule passed."
		       : o == BN_OVERALL_NOT_COMPLIANT ? (!strcmp(p->judges, "port")
							  ? "At least one rule failed: the port does not comply."
							  : "At least one rule failed: the device does not comply.")
		       : "No rule failed, but not every applicable rule could be judged: this record does "
			 "not show compliance.");
	g_string_append(s, "</p>\n<dl class=\"meta\">\n");
	snprintf(buf, sizeof(buf), "%s %s", or_dash(bn_jstr(dut, "firmware")),
		 bn_jstr(dut, "firmware_version") ? bn_jstr(dut, "firmware_version") : "");
	meta_row(s, "Device firmware", buf);
	if (bn_jstr(dut, "firmware_sha256"))
		meta_row(s, "Firmware SHA-256", bn_jstr(dut, "firmware_sha256"));
	if ((f = file_of_role(rep, "dut")))
		meta_row(s, "Device declaration", bn_jstr(f, "name") ? bn_jstr(f, "name") : bn_jstr(f, "path"));
	if (cJSON_IsObject(usb)) {
		snprintf(buf, sizeof(buf), "%s:%s %s %s, serial %s, at %s", or_dash(bn_jstr(usb, "vid")),
			 or_dash(bn_jstr(usb, "pid")), or_dash(bn_jstr(usb, "manufacturer")),
			 or_dash(bn_jstr(usb, "product")), or_dash(bn_jstr(usb, "serial")),
			 or_dash(bn_jstr(usb, "path")));
		meta_row(s, "USB identity", buf);
	}
	snprintf(buf, sizeof(buf), "%s (a correct device classifies it as %s)",
		 or_dash(bn_jstr(bn_jget(rep, "port"), "profile")), or_dash(bn_jstr(bn_jget(rep, "port"), "expect")));
	meta_row(s, "Port", buf);
	if ((f = file_of_role(rep, "charger")))
		meta_row(s, "Charger", bn_jstr(f, "name") ? bn_jstr(f, "name") : bn_jstr(f, "path"));
	if ((f = file_of_role(rep, "scenario"))) {
		snprintf(buf, sizeof(buf), "%s (SHA-256 %s)", or_dash(bn_jstr(f, "path")), or_dash(bn_jstr(f, "sha256")));
		meta_row(s, "Scenario file", buf);
	}
	snprintf(buf, sizeof(buf), "%s, %s", or_dash(bn_jstr(bench, "name")), or_dash(bn_jstr(bench, "backend")));
	meta_row(s, "Bench", buf);
	cJSON_ArrayForEach(ins, bn_jget(bench, "instruments")) {
		snprintf(buf, sizeof(buf), "%s: %s", or_dash(bn_jstr(ins, "role")), or_dash(bn_jstr(ins, "identity")));
		if (bn_jstr(ins, "file_sha256"))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (file SHA-256 %s)",
				 bn_jstr(ins, "file_sha256"));
		meta_row(s, "Instrument", buf);
	}
	snprintf(buf, sizeof(buf), "%s", or_dash(bn_jstr(bn_jget(rep, "capture"), "source")));
	meta_row(s, "Capture", buf);
	snprintf(buf, sizeof(buf), "%s to %s", or_dash(bn_jstr(rec, "started_utc")), or_dash(bn_jstr(rec, "ended_utc")));
	meta_row(s, "Time (UTC)", buf);
	meta_row(s, "Host", bn_jstr(rec, "host"));
	meta_row(s, "Operator", bn_jstr(rec, "operator"));
	snprintf(buf, sizeof(buf), "bcbench %s (%s)", or_dash(bn_jstr(tool, "version")),
		 bn_jstr(tool, "commit") ? bn_jstr(tool, "commit") : "commit not recorded");
	meta_row(s, "Tool", buf);
	if ((f = file_of_role(rep, "limits"))) {
		snprintf(buf, sizeof(buf), "%s (SHA-256 %s)", or_dash(bn_jstr(f, "path")), or_dash(bn_jstr(f, "sha256")));
		meta_row(s, "Limits file", buf);
	}
	meta_row(s, "Decision rule", bn_jstr(bn_jget(rep, "measurement"), "decision_rule"));
	g_string_append(s, "</dl>\n</header>\n");
	/* a measured profile's curve, only if it is the one the run used */
	if ((f = file_of_role(rep, "charger")))
		bn_curve_html_record(s, p->dir, bn_jstr(f, "path"), bn_jstr(f, "sha256"));
}

static void qty_cell(GString *s, double v, const char *unit)
{
	char q[64];

	g_string_append(s, "<td class=\"num\">");
	if (isfinite(v)) {
		bn_qty_format(v, unit ? unit : "", q, sizeof(q));
		bn_html_esc(s, q);
	} else {
		g_string_append(s, "–");
	}
	g_string_append(s, "</td>");
}

static const char *verdict_word(const char *v)
{
	return !v ? "?" : !strcmp(v, "skipped") ? "not applicable" : v;
}

static void rule_row(struct page *p, int i)
{
	GString *s = p->s;
	const cJSON *r = p->res[i], *lim = bn_jget(r, "limit"), *m = bn_jget(r, "measured");
	const char *v = bn_jstr(r, "verdict"), *unit = bn_jstr(r, "unit"), *id = bn_jstr(r, "id");
	const char *title = bn_jstr(r, "title"), *text = bn_jstr(r, "text");
	char q[64], limbuf[200];
	double t0, t1;

	g_string_append_printf(s, "<tr class=\"rule %s\" id=\"r-%d\" data-index=\"%d\" data-id=\"",
			       bn_html_verdict_class(v), i, i);
	bn_html_esc(s, id);
	g_string_append(s, "\" data-verdict=\"");
	bn_html_esc(s, v);
	g_string_append_printf(s, "\" data-side=\"%s\">", side_of(p, i));
	g_string_append(s, "<td><code>");
	bn_html_esc(s, id);
	g_string_append(s, "</code>");
	if (title || text) {
		g_string_append(s, "<br>");
		bn_html_esc(s, title ? title : text);
	}
	g_string_append(s, "<br><small>");
	if (bn_jstr(r, "task"))
		bn_html_escf(s, "judges the %s, task %s", side_of(p, i), bn_jstr(r, "task"));
	else if (bn_jnum(r, "line") > 0)
		bn_html_escf(s, "the scenario's expectation, line %.0f", bn_jnum(r, "line"));
	else
		bn_html_esc(s, "the scenario's expectation");
	if (result_window(r, &t0, &t1)) {
		bn_qty_format(t0, "s", q, sizeof(q));
		g_string_append(s, "; window ");
		bn_html_esc(s, q);
		if (t1 > t0) {
			g_string_append(s, " – ");
			bn_qty_format(t1, "s", q, sizeof(q));
			bn_html_esc(s, q);
		}
	}
	g_string_append(s, "</small>");
	g_string_append_printf(s, "</td><td class=\"%s\"><span class=\"verdict\">", bn_html_verdict_class(v));
	bn_html_esc(s, verdict_word(v));
	if (bn_jstr(r, "severity"))
		bn_html_escf(s, " (%s)", bn_jstr(r, "severity"));
	g_string_append(s, "</span>");
	if (p->win_of && p->win_of[i] > 0 && p->red)
		g_string_append_printf(s, "<br><a class=\"plot-link\" href=\"#plot-%d\">plot</a>", i);
	g_string_append(s, "</td>");
	if (cJSON_IsString(m)) {
		g_string_append(s, "<td class=\"num\">");
		bn_html_esc(s, m->valuestring);
		g_string_append(s, "</td>");
	} else {
		qty_cell(s, cJSON_IsNumber(m) ? m->valuedouble : NAN, unit);
	}
	bn_limit_format(bn_jstr(lim, "name") ? bn_jstr(lim, "name") : "", bn_jnum(lim, "min"),
			bn_jnum(lim, "max"), unit ? unit : "", limbuf, sizeof(limbuf));
	g_string_append(s, "<td>");
	bn_html_esc(s, or_dash(limbuf));
	g_string_append(s, "</td>");
	qty_cell(s, bn_jnum(r, "margin"), unit);
	qty_cell(s, bn_jnum(r, "uncertainty"), unit);
	g_string_append(s, "<td>");
	bn_html_esc(s, or_dash(bn_jstr(r, "clause")));
	if (bn_jstr(lim, "source")) {
		g_string_append(s, "<br><small>limit: ");
		bn_html_esc(s, bn_jstr(lim, "source"));
		g_string_append(s, "</small>");
	}
	g_string_append(s, "</td><td>");
	bn_html_esc(s, bn_jstr(r, "reason"));
	g_string_append(s, "</td></tr>\n");
}

#define RULES_HEAD "<thead><tr><th>Rule</th><th>Verdict</th><th>Measured</th><th>Limit</th>" \
		   "<th>Margin</th><th>U</th><th>Clause</th><th>Reason</th></tr></thead>\n<tbody>\n"

static void rules_table(struct page *p, const int *order)
{
	int n_other = 0;

	g_string_append(p->s, "<h2 id=\"results\">Results</h2>\n<p>Failures first, then errors, "
			      "inconclusive results, passes and rules that do not apply; by BC-1.2 task "
			      "within each, the scenario's own expectations last. Margins are the distance "
			      "to the limit (positive inside), U the expanded measurement uncertainty "
			      "(k = 2).</p>\n");
	g_string_append_printf(p->s, "<table id=\"rules\" data-side=\"%s\">\n" RULES_HEAD, p->judges);
	/* (each rule's window and persistence are beside its plot) */
	for (int k = 0; k < p->n_results; k++) {
		if (strcmp(side_of(p, order[k]), p->judges))
			n_other++;
		else
			rule_row(p, order[k]);
	}
	g_string_append(p->s, "</tbody>\n</table>\n");
	if (!n_other)
		return;
	/* the other side's results under their own heading */
	g_string_append_printf(p->s, "<h2 id=\"results-other\">The %s's results</h2>\n<p>", p->other);
	bn_html_esc(p->s, !strcmp(p->other, "port")
			      ? "The charging port's own rules, judged from the same run: reported, never "
				"the device's verdict."
			      : "The device's rules, judged from the same run: reported, never the port's "
				"verdict.");
	g_string_append_printf(p->s, "</p>\n<table id=\"rules-other\" data-side=\"%s\">\n" RULES_HEAD,
			       p->other);
	for (int k = 0; k < p->n_results; k++)
		if (strcmp(side_of(p, order[k]), p->judges))
			rule_row(p, order[k]);
	g_string_append(p->s, "</tbody>\n</table>\n");
}

/* The lanes of the whole run: every channel the capture has. */
static void run_plot(struct page *p)
{
	char lanes[64] = "";

	for (int ch = 0; ch < BN_PLOT_MAX_CH; ch++)
		if (p->chan_present & (1u << ch))
			snprintf(lanes + strlen(lanes), sizeof(lanes) - strlen(lanes), "%s%s",
				 lanes[0] ? "," : "", chan_names[ch]);
	if (!lanes[0])
		bn_str_copy(lanes, sizeof(lanes), "VBUS,IBUS");
	g_string_append(p->s, "<figure class=\"plot\" id=\"plot-run\"><figcaption>The whole run");
	g_string_append(p->s, "</figcaption>\n");
	plot_figure(p, "svg-run", 0, lanes, NULL, 0, false, NULL, RUN_WIDTH_PX);
	g_string_append(p->s, "</figure>\n");
}

/* The channel an expectation measures ("max(dp, 1s) < 0.8V" -> DP): the
 * first word of its text that names one; -1 for none (telemetry). */
static int expect_channel(const char *text)
{
	static const char *const words[BN_PLOT_MAX_CH] = { "vbus", "ibus", "dp", "dm", "id" };
	const char *q = text ? text : "";

	while (*q) {
		size_t n = 0;

		while (q[n] && (g_ascii_isalnum(q[n]) || q[n] == '_'))
			n++;
		/* "dut.x": the device's word, not a channel */
		for (int ch = 0; n && ch < BN_PLOT_MAX_CH && !(q > text && q[-1] == '.'); ch++)
			if (strlen(words[ch]) == n && !g_ascii_strncasecmp(q, words[ch], n))
				return ch;
		q += n ? n : 1;
	}
	return -1;
}

static void zoom_plot(struct page *p, int i)
{
	const cJSON *r = p->res[i], *lim = bn_jget(r, "limit");
	const struct rule_view *view = view_of(bn_jstr(r, "id"));
	const char *unit = bn_jstr(r, "unit"), *v = bn_jstr(r, "verdict");
	struct bn_plot_band bands[8];
	char lanes[64], buf[128], *save = NULL, *tok, fig[32], svg[32];
	int n_bands = 0, n_lanes = 0, own_ch = -1;
	const char *lane_names[BN_PLOT_MAX_LANES];

	bn_str_copy(lanes, sizeof(lanes), view->lanes);
	/* an expectation's lanes: VBUS and the channel it measures */
	if (!strcmp(bn_jstr(r, "kind") ? bn_jstr(r, "kind") : "", "expect")) {
		own_ch = expect_channel(bn_jstr(r, "text"));
		snprintf(lanes, sizeof(lanes), "VBUS,%s",
			 own_ch > BN_CH_VBUS ? chan_names[own_ch] : chan_names[BN_CH_IBUS]);
	}
	bn_str_copy(buf, sizeof(buf), lanes);
	for (tok = strtok_r(buf, ",", &save); tok && n_lanes < BN_PLOT_MAX_LANES; tok = strtok_r(NULL, ",", &save))
		lane_names[n_lanes++] = chan_names[chan_index(tok) < 0 ? 0 : chan_index(tok)];
	bn_str_copy(buf, sizeof(buf), view->bands);
	save = NULL;
	for (tok = strtok_r(buf, ",", &save); tok && n_bands < 7; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		double lo, hi;

		if (!colon)
			continue;
		*colon = '\0';
		for (int l = 0; l < n_lanes; l++)
			if (!strcmp(lane_names[l], tok) && band_value(p, colon + 1, &lo, &hi)) {
				bands[n_bands] = (struct bn_plot_band){ .lane = l, .lo = lo, .hi = hi };
				bn_str_copy(bands[n_bands].name, sizeof(bands[0].name), colon + 1);
				n_bands++;
			}
	}
	/* the rule's own limit, on the lane of what it measures (of its unit
	 * for a rule), unless that band is there already */
	if (unit && (!strcmp(unit, "A") || !strcmp(unit, "V")) &&
	    (isfinite(bn_jnum(lim, "min")) || isfinite(bn_jnum(lim, "max")))) {
		const char *want = own_ch >= 0 ? chan_names[own_ch] : !strcmp(unit, "A") ? "IBUS" : "VBUS";
		const char *lname = bn_jstr(lim, "name");
		bool named = lname && lname[0] && !strchr(lname, ' ');
		double llo, lhi;

		/* named after a limit only when it is that limit's band (the
		 * no-backfeed rule's ">= -ISUSP" is not ISUSP's) */
		if (named && band_value(p, lname, &llo, &lhi) &&
		    !(same_value(llo, bn_jnum(lim, "min")) && same_value(lhi, bn_jnum(lim, "max"))))
			named = false;

		for (int k = 0; named && k < n_bands; k++)
			if (!strcmp(bands[k].name, lname) && !strcmp(lane_names[bands[k].lane], want))
				want = "";
		for (int l = 0; l < n_lanes && n_bands < 8; l++)
			if (!strcmp(lane_names[l], want)) {
				bands[n_bands] = (struct bn_plot_band){ .lane = l, .lo = bn_jnum(lim, "min"),
									.hi = bn_jnum(lim, "max") };
				bn_str_copy(bands[n_bands].name, sizeof(bands[0].name), named ? lname : "limit");
				n_bands++;
				break;
			}
	}
	snprintf(fig, sizeof(fig), "plot-%d", i);
	snprintf(svg, sizeof(svg), "svg-%d", i);
	g_string_append_printf(p->s, "<figure class=\"plot\" id=\"%s\" data-index=\"%d\"><figcaption "
				     "class=\"%s\">", fig, i, bn_html_verdict_class(v));
	bn_html_esc(p->s, bn_jstr(r, "id"));
	g_string_append(p->s, " — ");
	bn_html_esc(p->s, verdict_word(v));
	if (bn_jstr(r, "title") || bn_jstr(r, "text")) {
		g_string_append(p->s, ": ");
		bn_html_esc(p->s, bn_jstr(r, "title") ? bn_jstr(r, "title") : bn_jstr(r, "text"));
	}
	g_string_append_printf(p->s, " <a href=\"#r-%d\">(to the result)</a></figcaption>\n", i);
	plot_figure(p, svg, p->win_of[i], lanes, bands, n_bands, true, r, ZOOM_WIDTH_PX);
	/* how the rule judged the window: beside the window it judged */
	if (bn_jstr(r, "persistence") || bn_jstr(r, "reason")) {
		g_string_append(p->s, "<p class=\"how\">");
		if (bn_jstr(r, "reason")) {
			bn_html_esc(p->s, bn_jstr(r, "reason"));
			g_string_append(p->s, "<br>");
		}
		if (bn_jstr(r, "persistence")) {
			g_string_append(p->s, "<small>Window and persistence: ");
			bn_html_esc(p->s, bn_jstr(r, "persistence"));
			g_string_append(p->s, "</small>");
		}
		g_string_append(p->s, "</p>\n");
	}
	g_string_append(p->s, "</figure>\n");
}

static void plots(struct page *p, const int *order)
{
	g_string_append(p->s, "<h2 id=\"plots\">Waveforms</h2>\n");
	if (!p->red) {
		g_string_append(p->s, "<p class=\"note\">No plots: ");
		bn_html_esc(p->s, p->capture_note[0] ? p->capture_note : "not asked for");
		g_string_append(p->s, ".</p>\n");
		return;
	}
	g_string_append(p->s, "<p>Each plot shows the minimum and maximum of every pixel column (a "
			      "long capture keeps its spikes). Shaded: the BC-1.2 bands the rule uses; "
			      "red: the window the rule judged; dashed lines: events.</p>\n");
	if (p->capture_unchecked) {
		g_string_append(p->s, "<p class=\"note\">The record keeps no SHA-256 of ");
		bn_html_esc(p->s, p->capture_name);
		g_string_append(p->s, ": the capture could not be checked against it.</p>\n");
	}
	run_plot(p);
	for (int k = 0; k < p->n_results; k++)
		if (p->win_of[order[k]] > 0)
			zoom_plot(p, order[k]);
}

static void events_table(struct page *p)
{
	const cJSON *evs = bn_jget(p->rep, "events"), *e;
	int n = 0;

	g_string_append(p->s, "<h2 id=\"events-h\">Events</h2>\n");
	g_string_append_printf(p->s, "<p>%.0f events", bn_jnum(evs, "count"));
	if (bn_jnum(evs, "dropped") > 0)
		g_string_append_printf(p->s, " (%.0f not kept in report.json; all are in events.json)",
				       bn_jnum(evs, "dropped"));
	g_string_append(p->s, ".</p>\n<table id=\"events\">\n<thead><tr><th>t</th><th>Kind</th>"
			      "<th>Detail</th></tr></thead>\n<tbody>\n");
	cJSON_ArrayForEach(e, bn_jget(evs, "list")) {
		if (n++ >= MAX_EVENT_ROWS)
			break;
		g_string_append_printf(p->s, "<tr><td class=\"num\">%.6f s</td><td>", bn_jnum(e, "t_s"));
		bn_html_esc(p->s, bn_jstr(e, "kind"));
		g_string_append(p->s, "</td><td>");
		bn_html_esc(p->s, bn_jstr(e, "detail"));
		g_string_append(p->s, "</td></tr>\n");
	}
	g_string_append(p->s, "</tbody>\n</table>\n");
	if (n > MAX_EVENT_ROWS)
		g_string_append_printf(p->s, "<p>The first %d are listed; the rest are in events.json.</p>\n",
				       MAX_EVENT_ROWS);
}

static void files_table(struct page *p)
{
	const cJSON *f, *art = bn_jget(p->rep, "artifacts");

	g_string_append(p->s, "<h2 id=\"files-h\">Files</h2>\n<table id=\"files\">\n<thead><tr><th>Role</th>"
			      "<th>Path</th><th>Name</th><th>SHA-256</th></tr></thead>\n<tbody>\n");
	cJSON_ArrayForEach(f, bn_jget(p->rep, "files")) {
		g_string_append(p->s, "<tr><td>");
		bn_html_esc(p->s, bn_jstr(f, "role"));
		g_string_append(p->s, "</td><td><code>");
		bn_html_esc(p->s, bn_jstr(f, "path"));
		g_string_append(p->s, "</code></td><td>");
		bn_html_esc(p->s, bn_jstr(f, "name"));
		g_string_append(p->s, "</td><td class=\"mono\">");
		bn_html_esc(p->s, bn_jstr(f, "sha256"));
		g_string_append(p->s, "</td></tr>\n");
	}
	cJSON_ArrayForEach(f, art) {
		if (!cJSON_IsString(f) || !strcmp(f->string, "report") || !strcmp(f->string, "html"))
			continue;
		g_string_append(p->s, "<tr class=\"artifact\"><td>");
		bn_html_esc(p->s, f->string);
		g_string_append(p->s, " (written by the run)</td><td><code>");
		bn_html_esc(p->s, f->valuestring);
		g_string_append(p->s, "</code></td><td></td><td class=\"mono\">");
		bn_html_esc(p->s, or_dash(artifact_sha(p->rep, f->string)));
		g_string_append(p->s, "</td></tr>\n");
	}
	g_string_append(p->s, "</tbody>\n</table>\n");
}

static void run_status(struct page *p)
{
	const cJSON *st = bn_jget(p->rep, "status"), *tm = bn_jget(p->rep, "timing"), *cap = bn_jget(p->rep, "capture"), *c;
	char buf[400] = "";

	g_string_append(p->s, "<h2 id=\"status\">Run</h2>\n<dl class=\"meta\">\n");
	meta_row(p->s, "Status", bn_jstr(st, "state"));
	meta_row(p->s, "Reason", bn_jstr(st, "reason"));
	/* the cause beside the code, as a CI reads it (README.md, Exit codes) */
	if (bn_jstr(st, "cause"))
		snprintf(buf, sizeof(buf), "%.0f (%s)", bn_jnum(st, "exit_code"), bn_jstr(st, "cause"));
	else
		snprintf(buf, sizeof(buf), "%.0f", bn_jnum(st, "exit_code"));
	meta_row(p->s, "Exit code", buf);
	snprintf(buf, sizeof(buf), "%.3f s of bench time in %.3f s", bn_jnum(tm, "sim_s"), bn_jnum(tm, "wall_s"));
	meta_row(p->s, "Duration", buf);
	buf[0] = '\0';
	cJSON_ArrayForEach(c, bn_jget(cap, "channels"))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s (%s)", buf[0] ? ", " : "",
			 or_dash(bn_jstr(c, "name")), or_dash(bn_jstr(c, "unit")));
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "; %.0f samples at %g Hz",
		 bn_jnum(cap, "samples"), bn_jnum(cap, "rate_hz"));
	meta_row(p->s, "Channels", buf);
	if (bn_jstr(cap, "not_written")) {
		snprintf(buf, sizeof(buf), "none written (%.300s); the rules judged every sample",
			 bn_jstr(cap, "not_written"));
		meta_row(p->s, "Capture file", buf);
	}
	g_string_append(p->s, "</dl>\n");
}

static void page_free(struct page *p)
{
	bn_plot_reduce_free(p->red);
	free(p->win_of);
	free(p->win_t0);
	free(p->win_t1);
	free(p->res);
}

char *bn_report_html_render(const char *report_path, const struct bn_report_html_opts *o,
			    struct bn_err *err)
{
	struct page p = { 0 };
	cJSON *rep = NULL;
	char dirbuf[1200], title[300];
	int *order = NULL, rc;

	rc = bn_json_load(report_path, &rep, err);
	if (rc < 0)
		return NULL;
	if (!cJSON_IsObject(rep) || !bn_report_schema_known(bn_jstr(rep, "schema")) ||
	    !cJSON_IsArray(bn_jget(rep, "results"))) {
		bn_err_set(err, BN_ERR_DATA, "%s: not a bcbench report (schema \"%s\", \"%s\" or \"%s\" "
				"with \"results\")", report_path, BN_REPORT_SCHEMA, BN_REPORT_SCHEMA_V2,
			   BN_REPORT_SCHEMA_V1);
		cJSON_Delete(rep);
		return NULL;
	}
	bn_str_copy(dirbuf, sizeof(dirbuf), report_path);
	p.dir = dirname(dirbuf);
	p.rep = rep;
	p.results = bn_jget(rep, "results");
	p.n_results = cJSON_GetArraySize(p.results);
	p.judges = bn_report_json_judges(rep);
	p.other = strcmp(p.judges, "port") ? "port" : "device";
	p.overall = bn_report_json_verdict(rep, report_path, p.totals, err);
	if (p.overall < 0) {
		cJSON_Delete(rep);
		return NULL;
	}
	p.res = malloc(sizeof(*p.res) * ((size_t)p.n_results + 1));
	if (!p.res) {
		bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		cJSON_Delete(rep);
		return NULL;
	}
	{
		const cJSON *r;
		int k = 0;

		cJSON_ArrayForEach(r, p.results)
			p.res[k++] = r;
	}
	p.s = g_string_sized_new(1 << 16);
	if (!(o && o->no_plots)) {
		rc = find_capture(&p, err);
		if (rc == 0)
			rc = reduce(&p, err);
	} else {
		snprintf(p.capture_note, sizeof(p.capture_note), "rendered without plots (--no-plots)");
	}
	order = rc < 0 ? NULL : listing_order(&p);
	if (rc < 0 || !order) {
		if (rc >= 0)
			bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		page_free(&p);
		g_string_free(p.s, TRUE);
		cJSON_Delete(rep);
		return NULL;
	}
	snprintf(title, sizeof(title), "bcbench: %s", or_dash(bn_jstr(bn_jget(rep, "scenario"), "name")));
	bn_html_head(p.s, title);
	header(&p);
	g_string_append(p.s, "<nav><a href=\"#results\">Results</a> · <a href=\"#plots\">Waveforms</a> · "
			     "<a href=\"#events-h\">Events</a> · <a href=\"#files-h\">Files</a> · "
			     "<a href=\"#status\">Run</a></nav>\n");
	rules_table(&p, order);
	plots(&p, order);
	events_table(&p);
	files_table(&p);
	run_status(&p);
	bn_html_tail(p.s);
	free(order);
	page_free(&p);
	cJSON_Delete(rep);
	return g_string_free(p.s, FALSE);
}

int bn_report_html_write(const char *report_path, const char *html_path,
			 const struct bn_report_html_opts *o, struct bn_err *err)
{
	char *text = bn_report_html_render(report_path, o, err);
	int rc;

	if (!text)
		return err->code ? err->code : BN_ERR_NOMEM;
	/* not synced: rendered again from report.json at will (core/file.h) */
	rc = bn_file_write_atomic_nosync(html_path, text, strlen(text), err);
	g_free(text);
	return rc;
}
