#define BN_LOG_MODULE "run"
#include "scenario/runner.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/channel.h"
#include "capture/events.h"
#include "capture/srzip_write.h"
#include "checks/check.h"
#include "core/datadir.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/suggest.h"
#include "firmware/bcfw.h"
#include "firmware/fw_load.h"
#include "firmware/probe_fw.h"
#include "hil/poll_cap.h"
#include "hil/fixture_def.h"
#include "hil/sigrok_cap.h"
#include "hil/supply_follow.h"
#include "hil/usb_desc.h"
#include "hil/usb_host.h"
#include "scenario/expect.h"
#include "scenario/scenario.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/port.h"
#include "sim/world.h"
#include "core/text.h"
#include "core/time.h"

struct run_ctx {
	const struct bn_run_opts *o;
	struct bn_scenario scn;
	struct bn_limits lim;
	struct bn_port_profile port;
	struct bn_charger charger;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_fw_handle fw;
	bool have_lim, have_scn, have_charger;
	bool lim_borrowed;	/* c->lim is the caller's (o->limits_parsed): not freed here */
	/* the folders a scenario's and a device declaration's relative paths
	 * start from */
	char scn_dir[BN_SCN_PATH_LEN], dut_dir[BN_SCN_PATH_LEN + 600];
	/* Recent samples, sized by the longest window any expect asks for:
	 * memory does not grow with the run's length. */
	struct bn_sample_ring win;
	struct bn_report *rep;
	struct bn_world *world;
	struct bn_check_ctx cctx;
	struct bn_checks *checks;
	/* The capture files (out_dir): the captured channels in bn_chan order. */
	struct bn_srw *srw;
	struct bn_evlog *evlog;
	int n_cap, cap_ch[BN_CH_COUNT];
	struct bn_err cap_err;
	/* The stream the checks judge: the simulated bench's samples, or a
	 * capture device's frames (then the scenario runs in real time). */
	double rate_hz;
	unsigned chan_mask;
	struct bn_sigrok_cap *dev;
	/* A real bench without a capture device: its instruments' readings,
	 * one frame per poll on a grid of poll.period_s from poll_next. */
	struct bn_poll_cap poll;
	bool polling;
	bn_time_us poll_next;
	long poll_held;              /* grid points a late poll could not fill */
	struct bn_sample poll_last;
	bool vbus_on;                /* a real fixture's VBUS, for its events */
	/* The bench PC as the device's USB host (o->dut_usb). */
	struct bn_usb_host usbh;
	enum { HOST_WAIT_DEVICE, HOST_WAIT_CONFIG, HOST_READY, HOST_SUSPENDED } usbh_state;
	bool usbh_open;              /* usbh holds what bn_usb_host_close puts back */
	bn_time_us usbh_since;       /* a connect became possible (VBUS on, lines made) */
	bn_time_us usbh_wait_until;  /* HOST_WAIT_CONFIG gives up then */
	bn_time_us usbh_last_t;      /* the last host event's time: they stay in order */
	bn_time_us usbh_prev_poll;   /* the bench time of the poll before this one */
	/* Why a channel, event or rate is missing on this real bench. */
	const char *chan_why[BN_CH_COUNT], *event_why[BN_CEV_COUNT], *rate_why;
	/* The instruments the steps drive: the caller's, or the simulated
	 * ones on the world (own_*). */
	struct bn_fixture *fx, own_fx;
	struct bn_load *ld, own_ld;
	struct bn_supply *sp, own_sp;
	bool connected;              /* the port network is on the data lines */
	bool safed;                  /* bench_safe() ran after the last step */
	int64_t dev_k;               /* frames taken from the device */
	bn_time_us dev_off_us;       /* bench time of the device's t = 0 */
	bool dev_off_known;
	bn_time_us dev_t;            /* bench time of the last frame taken; -1 none */
	bn_time_us dev_until;        /* none taken after this (the run's end) */
	bn_time_us dev_seen;         /* bench time of the last frame read, taken or not */
	bool dev_polled;             /* no samplerate: its readings onto a grid */
	bool dev_have_last;
	bn_time_us dev_last_t;       /* the newest reading's bench time */
	long dev_gaps;               /* scope frames: sessions cut at unknown gaps */
	/* A capture device's frames lag its time (a packet or more): an
	 * expectation on a channel waits here for the frames up to its time
	 * while the scenario goes on, so the capture's lag never stretches
	 * the scenario. */
	struct exp_wait { const struct bn_expect *ex; bn_time_us t; int res; } exp_wait[32];
	int n_exp_wait;
	double wall0_s;              /* wall time of world time 0 */
	/* What the real device said on its console (o->console), latest
	 * value per key: dut.* is judged from this table then. */
	struct { char key[24], val[40]; } con_tel[24];
	int n_con_tel;
	long con_lines;
	struct bn_cev *evq;          /* world events waiting for the device's frames */
	int evq_n, evq_cap, evq_head;
	char **evq_str;              /* their key/text copies */
	int evq_nstr;
	/* The simulated bench's measurement conditions: what its instrument
	 * adds to the model's true values (ideal: nothing). */
	bool meas_on;
	struct bn_meas meas[BN_CH_COUNT];
	enum bn_meas_src meas_src[BN_CH_COUNT];
	struct bn_rng rng;
	struct bn_sample meas_prev;  /* the previous true sample, for jitter */
	bn_time_us meas_prev_t;
	bool meas_have_prev;
	/* The scenario's move steps, loaded before the run (in step order;
	 * the world keeps pointers into it), and the port plugged into now. */
	struct run_move {
		struct bn_port_profile port;
		struct bn_charger charger;
		struct bn_host_profile host;
		bool has_charger, has_host;
	} *moves;
	int n_moves, next_move;
	const struct bn_port_profile *cur_port;
	/* A real supply playing the charger profile in a quasi-static loop
	 * (o->supply_follow, hil/supply_follow.h): on while following. */
	struct bn_follow follow;
	struct bn_follow_charger follow_chg;
	bool following;
	double follow_t0_s;          /* bench time the supply turned on (or the move) */
	const struct bn_charger *follow_cur; /* the charger it follows now */
	/* A port run on a real bench (the dut's firmware is the built-in
	 * probe): the simulated probe's device-side networks played by the
	 * fixture's (dev_side), or why D+ and D- are not judged. */
	bool dev_side;
	unsigned dev_nets_now;       /* on the lines now, bits of enum bn_fx_dev_net */
	unsigned dev_nets_have;      /* what the fixture has (the optional ones may be absent) */
	char dev_side_why[200];
};

static bool file_exists(const char *p)
{
	return access(p, R_OK) == 0;
}

/* The folder of the file path names (no slash: "."). */
static void folder_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* A bare name (no slash, no .json, no .so) is a profile:
 * profiles/<kind>/<name>.json under the data dir; an unknown one is
 * answered with the names there and the nearest. A relative path written
 * in a file is relative to that file's folder (base: the scenario's, or
 * the device declaration's for its firmware), then to the data dir
 * (profiles/chargers/x.json), never to the current directory: a scenario
 * means the same from wherever it is run. base NULL: the path came from
 * the command line, relative to the current directory, then the data
 * dir. */
static int resolve_in(struct run_ctx *c, const char *base, const char *kind, const char *what,
		      const char *spec, struct bn_scn_loc loc, char *out, size_t len, struct bn_err *err)
{
	const char *dd = c->o->datadir ? c->o->datadir : ".";
	bool bare = !strchr(spec, '/') && !strstr(spec, ".json") && !strstr(spec, ".so");
	char first[BN_SCN_PATH_LEN + 600] = "", where[80], hint[900] = "";

	if (loc.line)
		snprintf(where, sizeof(where), "%d:%d: ", loc.line, loc.col);
	else
		snprintf(where, sizeof(where), " ");
	if (bare) {
		snprintf(out, len, "%s/profiles/%s/%s.json", dd, kind, spec);
		if (file_exists(out))
			return BN_OK;
		if (!strcmp(kind, "firmware")) {
			static const char *const builtins[] = { "probe", "reference" };
			char list[200];

			bn_suggest_text(spec, builtins, 2, list, sizeof(list));
			return bn_err_set(err, BN_ERR_DATA, "%s:%serror: unknown firmware \"%s\" (built in: "
					  "%s; or a path to a .so)", c->scn.path, where, spec, list);
		}
		bn_suggest_profile(dd, kind, spec, hint, sizeof(hint));
		return bn_err_set(err, BN_ERR_DATA, "%s:%serror: unknown %s \"%s\"%s%s", c->scn.path,
				  where, what, spec, hint,
				  loc.line ? "" : " (not written in the scenario: the command line's or the default)");
	}
	if (spec[0] == '/') {
		snprintf(out, len, "%s", spec);
	} else {
		/* (a scenario in the working directory: its paths as written) */
		if (base && strcmp(base, "."))
			snprintf(first, sizeof(first), "%s/%s", base, spec);
		else
			snprintf(first, sizeof(first), "%s", spec);
		if (file_exists(first))
			snprintf(out, len, "%s", first);
		else if (!strcmp(dd, "."))
			snprintf(out, len, "%s", spec);
		else
			snprintf(out, len, "%s/%s", dd, spec);
	}
	if (file_exists(out))
		return BN_OK;
	if (first[0] && strcmp(first, out))
		bn_str_fmt(hint, sizeof(hint), "looked for %s (relative to %s) and %s (the data dir's)",
			 first, base ? (base == c->scn_dir ? "the scenario's folder" : "the declaration's folder")
				     : "the current directory", out);
	else
		snprintf(hint, sizeof(hint), "looked for %s", out);
	return bn_err_set(err, BN_ERR_DATA, "%s:%serror: cannot open %s \"%s\" (%s%s)", c->scn.path,
			  where, what, spec, hint,
			  loc.line ? "" : "; not written in the scenario: the command line's or the default");
}

static int resolve(struct run_ctx *c, const char *kind, const char *what, const char *spec,
		   struct bn_scn_loc loc, char *out, size_t len, struct bn_err *err)
{
	return resolve_in(c, loc.line ? c->scn_dir : NULL, kind, what, spec, loc, out, len, err);
}


/* A suite's matrix value in place of the scenario's statement; line 0
 * says it came from the command line. */
static void override(char field[BN_SCN_PATH_LEN], struct bn_scn_loc *loc, const char *value)
{
	if (!value)
		return;
	snprintf(field, BN_SCN_PATH_LEN, "%s", value);
	*loc = (struct bn_scn_loc){ 0, 0 };
}

static int load_all(struct run_ctx *c, struct bn_err *err)
{
	char path[BN_SCN_PATH_LEN + 600], sha[65];
	struct bn_err e2 = { 0 };
	struct bn_scenario *s = &c->scn;
	const char *dd = c->o->datadir ? c->o->datadir : ".";
	const char *fw_spec;
	int rc;

	rc = bn_scenario_parse_file(c->o->scenario_path, s, err);
	if (rc < 0)
		return rc;
	c->have_scn = true;
	folder_of(s->path, c->scn_dir, sizeof(c->scn_dir));
	override(s->port, &s->port_loc, c->o->port_override);
	override(s->charger, &s->charger_loc, c->o->charger_override);
	override(s->host, &s->host_loc, c->o->host_override);
	override(s->dut, &s->dut_loc, c->o->dut_override);

	if (c->o->limits_override) {
		snprintf(path, sizeof(path), "%s", c->o->limits_override);
		if (!file_exists(path))
			return bn_err_set(err, BN_ERR_IO, "cannot open limits file \"%s\" (looked for it "
					  "from the working directory: --limits takes a file)", path);
	} else if (s->limits[0]) {
		rc = resolve(c, "limits", "limits file", s->limits, s->limits_loc, path, sizeof(path), err);
		if (rc < 0)
			return rc;
	} else {
		bn_run_limits_path(NULL, c->o->limits_path, dd, path, sizeof(path));
	}
	/* The caller's parse of the same file (a suite's, made once before it
	 * forked this entry) is borrowed; any other file is parsed here. */
	if (c->o->limits_parsed && c->o->limits_parsed->path &&
	    !strcmp(c->o->limits_parsed->path, path)) {
		c->lim = *c->o->limits_parsed;
		c->lim_borrowed = true;
	} else {
		rc = bn_limits_load(path, &c->lim, err);
		if (rc < 0)
			return rc;
	}
	c->have_lim = true;
	/* the digest of the bytes parsed: the file is not read again */
	bn_report_add_file_sha(c->rep, "limits", path, NULL, c->lim.sha256);
	bn_report_set_limits(c->rep, &c->lim);
	bn_report_add_file_sha(c->rep, "scenario", s->path, s->name, s->sha256[0] ? s->sha256 : NULL);
	if (c->o->conf_path)
		bn_report_add_file(c->rep, "conf", c->o->conf_path, NULL);
	if (c->o->conditions && c->o->conditions_path)
		bn_report_add_file(c->rep, "conditions", c->o->conditions_path, c->o->conditions->name);

#define LOAD(field, kind, what, dflt, loader, target, role)                                    \
	do {                                                                                    \
		const char *spec = s->field[0] ? s->field : (dflt);                             \
		rc = resolve(c, kind, what, spec, s->field##_loc, path, sizeof(path), err);     \
		if (rc < 0)                                                                     \
			return rc;                                                              \
		rc = loader;                                                                    \
		if (rc < 0) {                                                                   \
			if (s->field##_loc.line)                                                \
				return bn_err_set(err, rc, "%s:%d:%d: error: %s", s->path,      \
						  s->field##_loc.line, s->field##_loc.col,      \
						  e2.msg);                                      \
			return bn_err_set(err, rc, "%s", e2.msg);                               \
		}                                                                               \
		bn_report_add_file_sha(c->rep, role, path, (target)->name, sha);                \
	} while (0)

	/* each file read once: its digest is of the bytes the loader parsed */
	LOAD(port, "ports", "port profile", "sdp", bn_port_load_sha(path, &c->lim, &c->port, sha, &e2),
	     &c->port, "port");
	if (c->port.vbus == BN_PORT_VBUS_EXTERNAL || s->charger[0]) {
		LOAD(charger, "chargers", "charger profile", "ideal-5a",
		     bn_charger_load_sha(path, &c->charger, sha, &e2), &c->charger, "charger");
		c->have_charger = true;
	}
	if (s->host[0])
		LOAD(host, "hosts", "host profile", "root-500ma",
		     bn_host_load_sha(path, &c->lim, &c->host, sha, &e2), &c->host, "host");
	else
		bn_host_default(&c->lim, &c->host);
	LOAD(dut, "duts", "device declaration", "phone", bn_dut_load_sha(path, &c->lim, &c->dut, sha, &e2),
	     &c->dut, "dut");
	folder_of(path, c->dut_dir, sizeof(c->dut_dir));
#undef LOAD

	fw_spec = s->firmware[0] ? s->firmware : c->dut.firmware;
	if (c->o->firmware_override) {
		fw_spec = c->o->firmware_override;
		if (!bn_fw_is_builtin(fw_spec) && !file_exists(fw_spec) && !strchr(fw_spec, '/') &&
		    !strstr(fw_spec, ".so")) {
			static const char *const builtins[] = { "probe", "reference" };
			char list[200];

			bn_suggest_text(fw_spec, builtins, 2, list, sizeof(list));
			return bn_err_set(err, BN_ERR_DATA, "--firmware: unknown firmware \"%s\" (built in: "
					  "%s; nor %s.so in the firmware dir: BCBENCH_FWDIR=DIR, else the "
					  "one beside the bcbench binary; or a path to a .so)", fw_spec,
					  list, fw_spec);
		}
		if (!bn_fw_is_builtin(fw_spec) && !file_exists(fw_spec))
			return bn_err_set(err, BN_ERR_IO, "cannot open firmware \"%s\" (looked for %s%s; "
					  "give reference, a path to a .so, or the NAME of one in the "
					  "firmware dir: BCBENCH_FWDIR=DIR, else the one beside the "
					  "bcbench binary)", fw_spec, fw_spec,
					  strchr(fw_spec, '/') ? "" : " from the working directory, then "
					  "NAME.so in the firmware dir");
		if (!bn_fw_is_builtin(fw_spec)) {
			snprintf(path, sizeof(path), "%s", fw_spec);
			fw_spec = path;
		}
	} else if (!bn_fw_is_builtin(fw_spec)) {
		struct bn_scn_loc loc = s->firmware[0] ? s->firmware_loc : s->dut_loc;

		/* the declaration's firmware is relative to the declaration */
		rc = resolve_in(c, s->firmware[0] ? (loc.line ? c->scn_dir : NULL) : c->dut_dir,
				"firmware", "firmware", fw_spec, loc, path, sizeof(path), err);
		if (rc < 0)
			return rc;
		fw_spec = path;
	}
	/* telemetry keys, their units and the check ids: the parser's */
	rc = bn_fw_load(fw_spec, &c->fw, &e2);
	if (rc < 0)
		return bn_err_set(err, rc, "%s:%d:%d: error: %s", s->path,
				  s->firmware[0] ? s->firmware_loc.line : s->dut_loc.line,
				  s->firmware[0] ? s->firmware_loc.col : s->dut_loc.col, e2.msg);
	if (c->fw.dl)
		bn_report_add_file(c->rep, "firmware", fw_spec, c->fw.fw->name);
	return BN_OK;
}

/* Each move step's port, charger and host, resolved and loaded before
 * anything runs: a bad one is the scenario's error at its line. */
static int load_moves(struct run_ctx *c, struct bn_err *err)
{
	const struct bn_scenario *s = &c->scn;
	char path[BN_SCN_PATH_LEN + 600];
	int n = 0, k = 0;

	c->cur_port = &c->port;
	for (int i = 0; i < s->n_steps; i++)
		n += s->steps[i].kind == BN_STEP_MOVE;
	if (!n)
		return BN_OK;
	c->moves = calloc((size_t)n, sizeof(*c->moves));
	if (!c->moves)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	c->n_moves = n;
	for (int i = 0; i < s->n_steps; i++) {
		const struct bn_step *st = &s->steps[i];
		const struct bn_move *mv = &st->move;
		struct run_move *m;
		struct bn_scn_loc loc = { st->line, st->col };
		struct bn_err e2 = { 0 };
		int rc;

		if (st->kind != BN_STEP_MOVE)
			continue;
		m = &c->moves[k++];
		if (c->o->fixture && (mv->charger[0] || mv->host[0]))
			return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: a real bench cannot change its "
					  "charger or host within a run (move %s: only the port)", s->path,
					  st->line, st->col, mv->port);
		rc = resolve(c, "ports", "port profile", mv->port, loc, path, sizeof(path), err);
		if (rc == BN_OK && (rc = bn_port_load(path, &c->lim, &m->port, &e2)) < 0)
			return bn_err_set(err, rc, "%s:%d:%d: error: %s", s->path, st->line, st->col, e2.msg);
		if (rc < 0)
			return rc;
		if (mv->charger[0]) {
			rc = resolve(c, "chargers", "charger profile", mv->charger, loc, path, sizeof(path), err);
			if (rc == BN_OK && (rc = bn_charger_load(path, &m->charger, &e2)) < 0)
				return bn_err_set(err, rc, "%s:%d:%d: error: %s", s->path, st->line, st->col,
						  e2.msg);
			if (rc < 0)
				return rc;
			m->has_charger = true;
		} else if (m->port.vbus == BN_PORT_VBUS_EXTERNAL && !c->have_charger) {
			return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: move to %s needs a charger "
					  "(expected: move %s charger NAME)", s->path, st->line, st->col,
					  mv->port, mv->port);
		}
		if (mv->host[0]) {
			rc = resolve(c, "hosts", "host profile", mv->host, loc, path, sizeof(path), err);
			if (rc == BN_OK && (rc = bn_host_load(path, &c->lim, &m->host, &e2)) < 0)
				return bn_err_set(err, rc, "%s:%d:%d: error: %s", s->path, st->line, st->col,
						  e2.msg);
			if (rc < 0)
				return rc;
			m->has_host = true;
		}
	}
	return BN_OK;
}

/* ---- the sample window ---- */

/* One frame of the judged stream: the window, the capture file, the checks. */
static void beacon_beat(struct run_ctx *c, bn_time_us t)
{
	struct bn_run_beacon *b = c->o->beacon;

	if (!b)
		return;
	__atomic_store_n(&b->sim_t_us, t, __ATOMIC_RELAXED);
	__atomic_store_n(&b->beats, __atomic_load_n(&b->beats, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* The capture (or its events record) cannot be written: a run whose
 * evidence is lost stops at once, as an environment fault (exit 6), with the file and
 * the errno in its reason; the bench then goes to its safe state. */
static void capture_lost(struct run_ctx *c, bn_time_us t)
{
	struct bn_err e = { 0 };

	if (c->cap_err.code)
		return;
	if (bn_srw_error(c->srw, &e) == BN_OK && bn_evlog_error(c->evlog, &e) == BN_OK)
		return;
	bn_err_set(&c->cap_err, e.code, "the capture was lost at t=%.3f s: %s", bn_time_to_s(t),
		   e.msg);
	if (c->world)
		bn_world_fail(c->world, c->cap_err.code, c->cap_err.msg);
}

static void judge_waiting(struct run_ctx *c, bn_time_us t);

static void take_frame(struct run_ctx *c, bn_time_us t, const struct bn_sample *smp)
{
	/* a capture that starts late (conditions capture_start) has nothing before it */
	if (c->o->conditions && t < c->o->conditions->capture_start_us)
		return;
	if (c->n_exp_wait && c->exp_wait[0].t < t)
		judge_waiting(c, t);
	beacon_beat(c, t);
	bn_ring_push(&c->win, smp);
	c->rep->n_samples++;
	if (c->srw) {
		double v[BN_CH_COUNT];

		for (int i = 0; i < c->n_cap; i++)
			v[i] = smp->v[c->cap_ch[i]];
		if (bn_srw_frame(c->srw, v) < 0)
			capture_lost(c, t);
	}
	if (c->checks) {
		struct bn_sample seen = *smp;

		/* Checks see only the captured channels. */
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(c->chan_mask & (1u << ch)))
				seen.v[ch] = NAN;
		bn_checks_sample(c->checks, t, &seen);
	}
}

/* What the simulated instrument reads for the model's true sample. */
static void measure(struct run_ctx *c, bn_time_us t, const struct bn_sample *truth,
		    struct bn_sample *seen)
{
	double dt = c->meas_have_prev ? bn_time_to_s(t - c->meas_prev_t) : 0;

	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		double slope = dt > 0 ? (truth->v[ch] - c->meas_prev.v[ch]) / dt : 0;

		seen->v[ch] = bn_meas_apply(&c->meas[ch], &c->rng, truth->v[ch], slope);
	}
	c->meas_prev = *truth;
	c->meas_prev_t = t;
	c->meas_have_prev = true;
}

static void on_sample(void *user, bn_time_us t, const struct bn_sample *smp)
{
	struct run_ctx *c = user;
	struct bn_sample seen;

	/* With a capture device, its frames are the evidence, not the model's;
	 * on a real bench the model's are never evidence. */
	if (c->dev || c->o->real_bench)
		return;
	if (!c->meas_on) {
		take_frame(c, t, smp);
		return;
	}
	measure(c, t, smp, &seen);
	take_frame(c, t, &seen);
}

/* Each channel's measurement: the scenario's measure line, else
 * bench.conf's, else ideal (the sim) or unknown (a capture device, whose
 * noise the checks then estimate). */
static void setup_meas(struct run_ctx *c)
{
	const struct bn_conditions *cd = c->o->conditions;

	_Static_assert(BN_COND_CH == BN_CH_COUNT, "conditions follow enum bn_chan");
	bn_rng_seed(&c->rng, c->scn.has_meas_seed ? c->scn.meas_seed
			     : cd && cd->has_seed ? cd->seed : 1);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		bool conf = c->o->meas_set & (1u << ch);
		bool cond = cd && (cd->meas_set & (1u << ch));

		bn_meas_ideal(&c->meas[ch]);
		if (c->dev || c->o->real_bench) {
			if (conf)
				c->meas[ch] = c->o->meas[ch];
			c->meas_src[ch] = conf ? BN_MEAS_SRC_CONF : BN_MEAS_SRC_ESTIMATED;
			continue;
		}
		if (c->scn.meas_loc[ch].line)
			c->meas[ch] = c->scn.meas[ch];
		else if (cond)
			c->meas[ch] = cd->meas[ch];
		else if (conf)
			c->meas[ch] = c->o->meas[ch];
		c->meas_src[ch] = bn_meas_is_ideal(&c->meas[ch]) ? BN_MEAS_SRC_IDEAL : BN_MEAS_SRC_SIM;
		if (c->meas_src[ch] == BN_MEAS_SRC_SIM)
			c->meas_on = true;
	}
}

/* log: also to events.json (a queued event was written when it came) */
static void deliver_cev(struct run_ctx *c, const struct bn_cev *ev, bool log)
{
	if (c->checks)
		bn_checks_event(c->checks, ev);
	if (log)
		bn_evlog_add(c->evlog, ev);
}

static char *keep_str(struct run_ctx *c, const char *s)
{
	char **v;

	if (!s)
		return NULL;
	v = realloc(c->evq_str, (size_t)(c->evq_nstr + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->evq_str = v;
	v[c->evq_nstr] = strdup(s);
	return v[c->evq_nstr] ? v[c->evq_nstr++] : NULL;
}

/* With a capture device, the bench's events wait for the frames of their
 * time, so the checks see both in time order. */
static void queue_cev(struct run_ctx *c, const struct bn_cev *ev)
{
	struct bn_cev e = *ev;

	if (c->evq_n == c->evq_cap) {
		int cap = c->evq_cap ? 2 * c->evq_cap : 64;
		struct bn_cev *q = realloc(c->evq, (size_t)cap * sizeof(*q));

		if (!q) {
			bn_err_log("out of memory for the event queue: event %s dropped",
				   bn_cev_name(ev->kind));
			return;
		}
		c->evq = q;
		c->evq_cap = cap;
	}
	e.key = keep_str(c, ev->key);
	if (ev->key && !e.key)
		return;
	e.text = keep_str(c, ev->text);
	if (ev->text && !e.text)
		return;
	c->evq[c->evq_n++] = e;
}

static void flush_cevs(struct run_ctx *c, bn_time_us upto)
{
	while (c->evq_head < c->evq_n && c->evq[c->evq_head].t_us <= upto)
		deliver_cev(c, &c->evq[c->evq_head++], false);
}

static void route_cev(struct run_ctx *c, const struct bn_cev *ev)
{
	/* events.json gets it now, in the order the bench met it (the
	 * scenario's expectations too, which are written at their step);
	 * the checks when the frames of its time have come */
	if (c->dev || c->polling) {
		bn_evlog_add(c->evlog, ev);
		queue_cev(c, ev);
	} else {
		deliver_cev(c, ev, true);
	}
}

static void on_cev(void *user, const struct bn_cev *ev)
{
	struct run_ctx *c = user;

	/* With a real device's console, the simulated firmware's telemetry
	 * is not the device's: the console's goes to the rules instead. */
	if (c->o->console && ev->kind == BN_CEV_TELEMETRY)
		return;
	/* On a real bench the model's events are the simulated device's and
	 * host's: the bench states what its real parts did (bench_event). */
	if (c->o->real_bench)
		return;
	route_cev(c, ev);
}

/* On a real bench: what a real part of it did, at the bench's time. */
static void bench_event(struct run_ctx *c, bool part_is_real, enum bn_cev_kind kind, double num)
{
	struct bn_cev ev = { .kind = kind, .t_us = bn_world_now(c->world), .num = num };

	if (c->o->real_bench && part_is_real)
		route_cev(c, &ev);
}

static void con_set(struct run_ctx *c, const char *key, const char *val)
{
	struct bn_cev ev = { .kind = BN_CEV_TELEMETRY, .t_us = bn_world_now(c->world) };
	int i;

	for (i = 0; i < c->n_con_tel && strcmp(c->con_tel[i].key, key); i++)
		;
	if (i == c->n_con_tel) {
		if (i == (int)(sizeof(c->con_tel) / sizeof(c->con_tel[0])))
			return;
		bn_str_copy(c->con_tel[i].key, sizeof(c->con_tel[i].key), key);
		c->n_con_tel++;
	} else if (!strcmp(c->con_tel[i].val, val)) {
		return; /* the device repeats itself: not an event */
	}
	bn_str_copy(c->con_tel[i].val, sizeof(c->con_tel[i].val), val);
	ev.key = c->con_tel[i].key;
	ev.text = c->con_tel[i].val;
	bn_report_event(c->rep, ev.t_us, "console", key);
	route_cev(c, &ev);
}

static void con_set_int(struct run_ctx *c, const char *key, int v)
{
	char buf[16];

	if (v == BN_CON_ABSENT)
		return;
	snprintf(buf, sizeof(buf), "%d", v);
	con_set(c, key, buf);
}

static const char *con_get(const struct run_ctx *c, const char *key)
{
	for (int i = 0; i < c->n_con_tel; i++)
		if (!strcmp(c->con_tel[i].key, key))
			return c->con_tel[i].val;
	return NULL;
}

/* Every record the console has now, into the table (in the keys the
 * simulated firmware uses, so scenarios read the same either way). A
 * console that went away is a bench fault. */
static int drain_console(struct run_ctx *c, struct bn_err *err)
{
	struct bn_con_rec r;

	for (;;) {
		struct bn_err e = { 0 };
		int rc = bn_console_next(c->o->console, &r, 0, &e);

		if (rc == BN_ERR_TIMEOUT)
			return BN_OK;
		if (rc < 0)
			return bn_err_set(err, BN_ERR_FAULT, "device console lost: %s", e.msg);
		c->con_lines++;
		switch (r.kind) {
		case BN_CON_PORT:
			con_set(c, "port", r.port == BN_PORT_UNKNOWN ? "none" : bn_port_name(r.port));
			/* a port record may carry the state too */
			__attribute__((fallthrough));
		case BN_CON_STATE:
			if (r.state[0])
				con_set(c, "state", r.state);
			con_set_int(c, "ilim_ma", r.ilim_ma);
			con_set_int(c, "vbus_mv", r.vbus_mv);
			break;
		case BN_CON_BAT:
			con_set_int(c, "bat_mv", r.bat_mv);
			con_set_int(c, "bat_ma", r.bat_ma);
			con_set_int(c, "soc_pct", r.soc_pct);
			break;
		case BN_CON_CFG:
			con_set_int(c, "config", r.cfg_value);
			con_set_int(c, "max_power_ma", r.max_power_ma);
			break;
		}
	}
}

/* The real instruments that deliver while the scenario waits. */
static int drain_real(struct run_ctx *c, struct bn_err *err);

/* One frame of the capture device at bench time t. A polled device's
 * readings (no samplerate, time-stamped on arrival) go onto the bench's
 * grid as the instruments' own polls do: each grid point takes the newest
 * reading before it, and a point no new reading reached is counted held.
 * A scope's new frame after an unknown gap starts a new session of the
 * rules: nothing is judged across it. */
static void grid_point(struct run_ctx *c, bn_time_us period, const struct bn_sample *v, bool held);

static void dev_take(struct run_ctx *c, bn_time_us t, const struct bn_cap_frame *f)
{
	if (c->dev_polled) {
		bn_time_us period = bn_time_from_s(1.0 / c->rate_hz);

		while (c->poll_next <= t)
			grid_point(c, period, c->dev_have_last ? &c->poll_last : &f->s,
				   c->dev_have_last && c->poll_next - c->dev_last_t > period);
		c->poll_last = f->s;
		c->dev_last_t = t;
		c->dev_have_last = true;
		return;
	}
	if (f->gap_before && c->dev_t >= 0 && c->checks) {
		struct bn_err e = { 0 };

		c->dev_gaps++;
		bn_report_event(c->rep, t, "capture-gap", "a new scope frame after an unknown gap: "
				"the rules judge the frames apart");
		if (bn_checks_move(c->checks, t, &c->cctx, &e) < 0)
			bn_err_log("capture gap: %s", e.msg);
	}
	flush_cevs(c, t);
	take_frame(c, t, &f->s);
	c->dev_t = t;
}

/* Take what the capture device has aligned so far. */
static int drain_device(struct run_ctx *c, struct bn_err *err)
{
	struct bn_cap_frame buf[512];
	long n;

	if (!c->dev_off_known) {
		struct bn_sigrok_timing tm;

		/* the device's t = 0 is its acquisition's start, a little
		 * before the bench's own */
		bn_sigrok_cap_timing(c->dev, &tm);
		c->dev_off_us = tm.start_mono_us - (int64_t)llround(c->wall0_s * 1e6);
		c->dev_off_known = true;
	}
	while ((n = bn_sigrok_cap_read(c->dev, buf, 512, err)) > 0) {
		for (long i = 0; i < n; i++, c->dev_k++) {
			bn_time_us t = buf[i].t_us + c->dev_off_us;

			if (t > c->dev_seen)
				c->dev_seen = t;
			if (t < 0 || t <= c->dev_t || t > c->dev_until)
				continue; /* before or after the run, or not after the last */
			dev_take(c, t, &buf[i]);
		}
	}
	return n < 0 ? (int)n : BN_OK;
}

/* The polls due by bench time now, each a frame on its grid point; a
 * poll that comes more than a period late fills the points it missed with
 * its reading, and they are counted (poll_held) and reported. */
/* One point of the bench's grid of polled readings (the instruments'
 * own, or a capture device's without a samplerate): the events up to it,
 * then its frame; held: no new reading reached it (counted, reported). */
static void grid_point(struct run_ctx *c, bn_time_us period, const struct bn_sample *v, bool held)
{
	if (held)
		c->poll_held++;
	flush_cevs(c, c->poll_next);
	take_frame(c, c->poll_next, v);
	c->dev_t = c->poll_next;
	c->poll_next += period;
}

static int poll_due(struct run_ctx *c, bn_time_us now, struct bn_err *err)
{
	bn_time_us period = bn_time_from_s(c->poll.period_s);

	while (c->polling && c->poll_next <= now) {
		struct bn_sample s;
		int rc = bn_poll_cap_read(&c->poll, &s, err);

		if (rc < 0)
			return rc;
		if (now - c->poll_next > period)
			c->poll.late_polls++;
		/* the points this poll came too late for */
		while (now - c->poll_next > period)
			grid_point(c, period, c->rep->n_samples ? &c->poll_last : &s, true);
		grid_point(c, period, &s, false);
		c->poll_last = s;
	}
	return BN_OK;
}

static void sleep_until_wall(double t_s)
{
	double d = t_s - bn_mono_s();

	if (d > 0) {
		struct timespec ts = { .tv_sec = (time_t)d, .tv_nsec = (long)((d - floor(d)) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

static int bench_supply_follow(struct run_ctx *c, struct bn_err *err);
static int bench_device_side_step(struct run_ctx *c, struct bn_err *err);

/* A wait on a real bench (real instruments, a capture device, the
 * device's console) runs in real time, 10 ms at a step. */
static int wait_paced(struct run_ctx *c, bn_time_us dur, struct bn_err *err)
{
	bn_time_us end = bn_world_now(c->world) + dur;
	int rc = BN_OK;

	while (rc == BN_OK && bn_world_now(c->world) < end) {
		bn_time_us step = bn_world_now(c->world) + 10000;

		if (step > end)
			step = end;
		rc = bn_world_run_until(c->world, step, err);
		if (rc < 0)
			break;
		sleep_until_wall(c->wall0_s + bn_time_to_s(step));
		beacon_beat(c, step);
		rc = drain_real(c, err);
		if (rc == BN_OK)
			rc = bench_supply_follow(c, err);
		if (rc == BN_OK)
			rc = bench_device_side_step(c, err);
	}
	return rc;
}

/* ---- the bench PC as the device's USB host ---- */

/* sysfs waits for a configuration the kernel chooses, a suspend or a
 * resume: the kernel's own figures are milliseconds (its generic driver
 * configures a device right after the device appears, or leaves it
 * unconfigured when no configuration fits the port's power). */
#define USBH_CONFIG_WAIT_US 500000
#define USBH_STEP_TIMEOUT_MS 2000

static const char *usbh_root(const struct run_ctx *c)
{
	return c->o->sysfs_root ? c->o->sysfs_root : "/sys";
}

/* A CLOCK_MONOTONIC time of the host's as bench time (the runner's clock
 * is the same monotonic clock from wall0_s), never before the last. */
static bn_time_us usbh_time(struct run_ctx *c, int64_t mono_us)
{
	bn_time_us t = mono_us - (int64_t)llround(c->wall0_s * 1e6);

	if (t < c->usbh_last_t)
		t = c->usbh_last_t;
	c->usbh_last_t = t;
	return t;
}

static int drain_console(struct run_ctx *c, struct bn_err *err);

/* A host event comes at the wall clock's time, after a sysfs wait that
 * may have outrun the bench's step: what the console said meanwhile is
 * taken first (it came before), then the bench's clock moves on to the
 * event, so the record stays in time order. A console or world that
 * fails here fails again at the next step, which reports it. */
static void usbh_event(struct run_ctx *c, enum bn_cev_kind kind, bn_time_us t, int value, double num,
		       double win_s, const char *detail)
{
	struct bn_cev ev = { .kind = kind, .t_us = t, .value = value, .num = num, .win_s = win_s };
	struct bn_err e = { 0 };

	if (c->o->console)
		drain_console(c, &e);
	if (t > bn_world_now(c->world))
		bn_world_run_until(c->world, t, &e);
	bn_report_event(c->rep, t, "usb-host", detail);
	route_cev(c, &ev);
}

static double usbh_max_power_a(const struct run_ctx *c, int value)
{
	for (int i = 0; i < c->usbh.desc.n_configs; i++)
		if (c->usbh.desc.cfg[i].value == value)
			return c->usbh.desc.cfg[i].max_power_ma / 1000.0;
	return 0.0;
}

/* The device's configuration is now value (0: unconfigured), as of t,
 * known only within [t - win_s, t]. */
static void usbh_configured(struct run_ctx *c, bn_time_us t, double win_s, int value, const char *how)
{
	char d[160];

	snprintf(d, sizeof(d), "%s: configuration %d (bMaxPower %.0f mA)", how, value,
		 usbh_max_power_a(c, value) * 1000.0);
	usbh_event(c, BN_CEV_CONFIG, t, value, usbh_max_power_a(c, value), win_s, d);
}

static void report_configs(struct bn_report *rep, const struct bn_usb_desc *usb);

/* The device appeared in sysfs: it enumerated. Its configurations are
 * the task 2 rules' from now on, and the report's. */
/* The device's USB identity, for the record. */
static void usbh_identity(struct run_ctx *c)
{
	const struct bn_usb_host *h = &c->usbh;
	cJSON *o = cJSON_CreateObject();
	char hex[8];

	snprintf(hex, sizeof(hex), "%04x", h->desc.dev.vid);
	cJSON_AddStringToObject(o, "vid", hex);
	snprintf(hex, sizeof(hex), "%04x", h->desc.dev.pid);
	cJSON_AddStringToObject(o, "pid", hex);
	snprintf(hex, sizeof(hex), "%x.%02x", h->desc.dev.bcd_device >> 8, h->desc.dev.bcd_device & 0xff);
	cJSON_AddStringToObject(o, "bcd_device", hex);
	cJSON_AddStringToObject(o, "manufacturer", h->manufacturer);
	cJSON_AddStringToObject(o, "product", h->product);
	cJSON_AddStringToObject(o, "serial", h->serial);
	cJSON_AddStringToObject(o, "path", h->name);
	cJSON_AddStringToObject(o, "speed_mbps", h->speed);
	cJSON_Delete(c->rep->dut_usb);
	c->rep->dut_usb = o;
}

static void usbh_found(struct run_ctx *c, bn_time_us now)
{
	const struct bn_usb_desc *d = &c->usbh.desc;
	int val[8];
	double mp[8];
	int n = d->n_configs < 8 ? d->n_configs : 8;
	char det[240], spec[80];

	for (int i = 0; i < n; i++) {
		val[i] = d->cfg[i].value;
		mp[i] = d->cfg[i].max_power_ma / 1000.0;
	}
	bn_checks_set_configs(c->checks, n, val, mp);
	bn_evlog_configs(c->evlog, n, val, mp);
	report_configs(c->rep, d);
	usbh_identity(c);
	/* the pull-up came between the moment a connect became possible and
	 * this sighting: the window the rules are told */
	snprintf(det, sizeof(det), "%s enumerated (%s, %d configuration%s), seen %.0f ms after a "
		 "connect became possible", c->usbh.name, bn_usb_spec_str(c->o->dut_usb, spec, sizeof(spec)),
		 d->n_configs, d->n_configs == 1 ? "" : "s", bn_time_to_s(now - c->usbh_since) * 1e3);
	usbh_event(c, BN_CEV_CONNECT, now, 0, 0, bn_time_to_s(now - c->usbh_since), det);
}

/* The host profile's choice, once the kernel made its own. */
static int usbh_choose(struct run_ctx *c, struct bn_err *err)
{
	struct bn_usb_host_ev ev;
	struct bn_err e = { 0 };
	int want = bn_usb_host_choose(&c->usbh.desc, (unsigned)llround(c->host.budget_a * 1000.0));
	int rc;

	if (want != c->usbh.config) {
		rc = bn_usb_host_set_config(&c->usbh, want, USBH_STEP_TIMEOUT_MS, &ev, &e);
		if (rc < 0)
			return bn_err_set(err, rc == BN_ERR_ARG ? BN_ERR_FAULT : rc,
					  "the bench's USB host could not choose configuration %d: %s",
					  want, e.msg);
		/* SET_CONFIGURATION went out within the write (Linux's store is
		 * synchronous), at the latest when bConfigurationValue showed
		 * it (a host that acts after the write returns, as the twin's
		 * kernel does): dated then, so the rules judge the new draw no
		 * sooner than it was certainly asked */
		bn_time_us seen = ev.t_seen_us >= 0 ? ev.t_seen_us : ev.t_cmd_end_us;

		usbh_configured(c, usbh_time(c, seen), (double)(seen - ev.t_cmd_us) / 1e6, ev.config_after,
				"the host profile's choice");
	}
	/* awake until the scenario suspends it */
	rc = bn_usb_host_resume(&c->usbh, USBH_STEP_TIMEOUT_MS, c->o->stop_flag, &ev, &e);
	if (rc < 0)
		return bn_err_set(err, rc, "the bench's USB host could not hold the device awake: %s",
				  e.msg);
	c->usbh_state = HOST_READY;
	return BN_OK;
}

/* Each step of a real run: the device appearing, configured, or gone.
 * block: wait out the kernel's choice now (a step needs the device
 * settled). */
static int usbh_poll_state(struct run_ctx *c, bool block, bn_time_us now, struct bn_err *err);

static int usbh_poll(struct run_ctx *c, bool block, struct bn_err *err)
{
	bn_time_us now = bn_world_now(c->world);
	int rc;

	if (!c->o->dut_usb)
		return BN_OK;
	rc = usbh_poll_state(c, block, now, err);
	c->usbh_prev_poll = now;
	return rc;
}

static int usbh_poll_state(struct run_ctx *c, bool block, bn_time_us now, struct bn_err *err)
{
	struct bn_usb_host_ev ev;
	struct bn_err e = { 0 };
	int rc;

	switch (c->usbh_state) {
	case HOST_WAIT_DEVICE:
		if (!c->connected || !c->vbus_on)
			return BN_OK;
		rc = bn_usb_host_open(&c->usbh, usbh_root(c), c->o->dut_usb, &ev, &e);
		if (rc == BN_ERR_FAULT)
			return BN_OK; /* not (yet) enumerated */
		if (rc < 0)
			return bn_err_set(err, BN_ERR_FAULT, "the device under test on the bench's USB "
					  "host: %s", e.msg);
		c->usbh_open = true;
		usbh_found(c, usbh_time(c, bn_usb_host_now_us()));
		c->usbh_state = HOST_WAIT_CONFIG;
		c->usbh_wait_until = now + USBH_CONFIG_WAIT_US;
		__attribute__((fallthrough));
	case HOST_WAIT_CONFIG:
		rc = bn_usb_host_wait_configured(&c->usbh,
						 block && c->usbh_wait_until > now
							 ? (int)((c->usbh_wait_until - now) / 1000) : 0,
						 c->o->stop_flag, &ev, &e);
		if (rc == BN_ERR_TIMEOUT && now < c->usbh_wait_until && !block)
			return BN_OK;
		if (rc < 0 && rc != BN_ERR_TIMEOUT)
			return bn_err_set(err, rc, "the bench's USB host: %s", e.msg);
		/* made since the step before this sighting (or the device's) */
		if (rc == BN_OK) {
			bn_time_us t = usbh_time(c, ev.t_seen_us);

			bn_time_us from = c->usbh_prev_poll > c->usbh_since ? c->usbh_prev_poll
									    : c->usbh_since;

			usbh_configured(c, t, bn_time_to_s(t - from), ev.config_after,
					"the kernel's choice at enumeration");
		}
		return usbh_choose(c, err);
	case HOST_READY:
	case HOST_SUSPENDED:
		if (access(c->usbh.dir, F_OK) == 0)
			return BN_OK;
		usbh_event(c, BN_CEV_DISCONNECT, usbh_time(c, bn_usb_host_now_us()), 0, 0, 0,
			   "the device left the bus");
		bn_usb_host_close(&c->usbh);
		c->usbh_open = false;
		c->usbh_state = HOST_WAIT_DEVICE;
		return BN_OK;
	}
	return BN_OK;
}

/* The scenario's suspend or resume, through runtime PM: the moment the
 * bus changed lies between the command and sysfs showing its effect. A
 * host that cannot do it ends the run as a bench fault: what the
 * scenario expects next would be judged in a state the bench did not
 * make. */
static int usbh_suspend(struct run_ctx *c, bool suspend, struct bn_err *err)
{
	struct bn_usb_host_ev ev;
	struct bn_err e = { 0 };
	int rc;
	bn_time_us t;
	char d[200];

	if (c->usbh_state == HOST_WAIT_CONFIG && (rc = usbh_poll(c, true, err)) < 0)
		return rc;
	if (c->usbh_state != HOST_READY && c->usbh_state != HOST_SUSPENDED)
		return bn_err_set(err, BN_ERR_FAULT, "%s: the device never enumerated on the bench's "
				  "USB host (%s)", suspend ? "suspend" : "resume",
				  bn_usb_spec_str(c->o->dut_usb, d, sizeof(d)));
	rc = suspend ? bn_usb_host_suspend(&c->usbh, USBH_STEP_TIMEOUT_MS, c->o->stop_flag, &ev, &e)
		     : bn_usb_host_resume(&c->usbh, USBH_STEP_TIMEOUT_MS, c->o->stop_flag, &ev, &e);
	/* (the PC's own set-up, which a retry repeats, stays the environment's) */
	if (rc < 0)
		return bn_err_set(err, rc == BN_ERR_INTR || rc == BN_ERR_ENV ? rc : BN_ERR_FAULT,
				  "the bench's USB host could not %s the device: %s",
				  suspend ? "suspend" : "resume", e.msg);
	if (ev.t_cmd_us < 0) {
		/* already in that state before anything was written: it came
		 * some time since the step before, not known when */
		bn_time_us since = c->usbh_prev_poll > c->usbh_last_t ? c->usbh_prev_poll : c->usbh_last_t;

		t = usbh_time(c, ev.t_seen_us);
		snprintf(d, sizeof(d), "%s: power/runtime_status already %s", suspend ? "suspend" : "resume",
			 ev.state);
		usbh_event(c, suspend ? BN_CEV_SUSPEND : BN_CEV_RESUME, since < t ? since : t, 0, 0,
			   bn_time_to_s(t - (since < t ? since : t)), d);
		c->usbh_state = suspend ? HOST_SUSPENDED : HOST_READY;
		return BN_OK;
	}
	t = usbh_time(c, ev.t_cmd_us);
	snprintf(d, sizeof(d), "%s: power/runtime_status %s %.1f ms after the command",
		 suspend ? "suspend" : "resume", ev.state,
		 (double)(ev.t_seen_us - ev.t_cmd_us) / 1e3);
	usbh_event(c, suspend ? BN_CEV_SUSPEND : BN_CEV_RESUME, t, 0, 0,
		   (double)(ev.t_seen_us - ev.t_cmd_us + ev.poll_us) / 1e6, d);
	c->usbh_state = suspend ? HOST_SUSPENDED : HOST_READY;
	return BN_OK;
}

static int drain_real(struct run_ctx *c, struct bn_err *err)
{
	int rc = c->dev ? drain_device(c, err) : poll_due(c, bn_world_now(c->world), err);

	if (rc == BN_OK && c->o->console)
		rc = drain_console(c, err);
	if (rc == BN_OK)
		rc = usbh_poll(c, false, err);
	return rc;
}

/* Before judging a window: the device's frames up to now. They lag by a
 * packet or two (libsigrok 0.5.2's hantek-6xxx sends 1.31 s at 100 kHz
 * in one packet), so the wait is bounded by the device's stall time, past
 * which a read fails anyway; the window then lacks what did not come and
 * its verdict says so. */
static int sync_device(struct run_ctx *c, struct bn_err *err)
{
	double give_up = bn_mono_s() + (double)bn_sigrok_cap_stall_us(c->dev) / 1e6;
	bn_time_us now = bn_world_now(c->world);
	int rc = BN_OK;

	while (rc == BN_OK && bn_mono_s() < give_up && c->dev_seen < now) {
		sleep_until_wall(bn_mono_s() + 0.005);
		rc = drain_device(c, err);
	}
	return rc;
}

/* The scope is armed before the stimulus: the run begins once the
 * capture device delivers, so its first packet (which a driver may lose,
 * as libsigrok 0.5.2's hantek-6xxx does after the channel check, or send
 * a whole transfer late) is not the run's first second. Frames from
 * before the run are dropped when read. Bounded by the device's stall
 * time: a device that sends nothing is a bench fault before anything is
 * switched. */
#define PREROLL_PACKETS 3

static int capture_preroll(struct run_ctx *c, struct bn_err *err)
{
	double stall_s = (double)bn_sigrok_cap_stall_us(c->dev) / 1e6;
	double t0 = bn_mono_s(), give_up = t0 + stall_s, t_first = -1;
	struct bn_sigrok_timing tm;
	char d[240];

	for (;;) {
		struct bn_cap_frame skip[512];
		long n;

		/* frames from before the run: read (the queue holds about a
		 * packet and a half) and dropped */
		while ((n = bn_sigrok_cap_read(c->dev, skip, 512, err)) > 0)
			;
		if (n < 0)
			return (int)n;
		bn_sigrok_cap_timing(c->dev, &tm);
		if (tm.frames > 0 && t_first < 0) {
			t_first = bn_mono_s();
			/* a stream dated back from a late packet's arrival: a few
			 * more packets bound its dating tighter (the quickest
			 * delivery is the least late), each within a stall time */
			give_up = t_first + PREROLL_PACKETS * stall_s;
		}
		if (t_first >= 0 && (tm.start_lost_us == 0 || tm.start_packets >= PREROLL_PACKETS ||
				     bn_mono_s() >= give_up))
			break;
		if (t_first < 0 && bn_mono_s() >= give_up)
			return bn_err_set(err, BN_ERR_FAULT, "capture device %s: no data %.1f s after the "
					  "acquisition's start", bn_sigrok_cap_describe(c->dev),
					  bn_mono_s() - t0);
		if (c->o->stop_flag && *c->o->stop_flag)
			return bn_err_set(err, BN_ERR_INTR, "interrupted while the capture device started");
		sleep_until_wall(bn_mono_s() + 0.005);
	}
	bn_sigrok_cap_freeze_clock(c->dev);
	bn_sigrok_cap_timing(c->dev, &tm);
	if (tm.start_lost_us > 0)
		snprintf(d, sizeof(d), "the capture device delivered %.3f s after its start, its stream's "
			 "start lost and dated from %ld packets' arrivals (%.1f ms earlier than the first "
			 "said); the run began %.3f s after the start",
			 t_first - t0, tm.start_packets, bn_time_to_s(tm.start_refined_us) * 1e3,
			 bn_mono_s() - t0);
	else
		snprintf(d, sizeof(d), "the capture device delivered %.3f s after its start; the run "
			 "began then", bn_mono_s() - t0);
	bn_report_event(c->rep, 0, "capture", d);
	return BN_OK;
}

/* A real bench's clock is the wall clock: after a step that waited for
 * something (the capture device's frames), the bench's time moves on to
 * now, so the next wait lasts as long as it says and an event's time is
 * when it happened, not the scenario's plan. */
static int catch_up_wall(struct run_ctx *c, struct bn_err *err)
{
	bn_time_us wall_t = bn_time_from_s(bn_mono_s() - c->wall0_s);

	if (!c->o->real_bench || wall_t <= bn_world_now(c->world))
		return BN_OK;
	return bn_world_run_until(c->world, wall_t, err);
}

static void on_event(void *user, bn_time_us t, const char *kind, const char *detail)
{
	struct run_ctx *c = user;

	bn_report_event(c->rep, t, kind, detail);
	bn_dbg("%10.6f %-14s %s", bn_time_to_s(t), kind, detail);
}

/* ---- expectations ---- */

static void eval_stat(struct run_ctx *c, const struct bn_expect *ex, struct bn_result *r, bn_time_us t)
{
	bn_expect_judge_stat(ex, &c->win, c->rate_hz, (c->chan_mask & (1u << ex->chan)) != 0, t, r);
}

static void progress(struct run_ctx *c, const struct bn_result *r);

/* The waiting expectations whose time came before a frame at t: the
 * ring holds the frames up to them now. */
static void judge_waiting(struct run_ctx *c, bn_time_us t)
{
	int k = 0;

	while (k < c->n_exp_wait && c->exp_wait[k].t < t) {
		struct bn_result *r = &c->rep->results[c->exp_wait[k].res];

		r->reason[0] = '\0';
		eval_stat(c, c->exp_wait[k].ex, r, c->exp_wait[k].t);
		progress(c, r);
		k++;
	}
	memmove(c->exp_wait, c->exp_wait + k, sizeof(c->exp_wait[0]) * (size_t)(c->n_exp_wait - k));
	c->n_exp_wait -= k;
}

static void eval_telemetry(struct run_ctx *c, const struct bn_expect *ex, struct bn_result *r)
{
	const char *val;

	if (c->o->real_bench && !c->o->console) {
		r->t0_us = r->t1_us = bn_world_now(c->world);
		r->verdict = BN_VERDICT_INCONCLUSIVE;
		bn_str_fmt(r->reason, sizeof(r->reason), "what the real device says of dut.%s is not "
			   "known: this bench has no device console (bench.conf console)", ex->key);
		return;
	}
	val = c->o->console ? con_get(c, ex->key) : bn_world_telemetry(c->world, ex->key);

	bn_expect_judge_value(ex, val, c->o->console ? " on its console" : "", bn_world_now(c->world), r);
}

static void progress(struct run_ctx *c, const struct bn_result *r)
{
	if (c->o->progress)
		bn_result_print(c->o->progress, r);
}

static void run_expect(struct run_ctx *c, const struct bn_step *st)
{
	struct bn_result *r = bn_report_add(c->rep);

	if (!r)
		return;
	bn_expect_result_init(r, st->line, st->expect.text);
	/* recorded, so a replay of the capture judges it again */
	bn_evlog_expect(c->evlog, bn_world_now(c->world), st->line, st->expect.text);
	if (st->expect.kind == BN_EXPECT_STAT && c->dev && c->n_exp_wait < (int)(sizeof(c->exp_wait) /
										 sizeof(c->exp_wait[0]))) {
		/* until its frames come: what it is if they never do */
		r->t0_us = r->t1_us = bn_world_now(c->world);
		r->verdict = BN_VERDICT_INCONCLUSIVE;
		bn_str_fmt(r->reason, sizeof(r->reason), "the capture device's frames never reached "
			   "%.3f s", bn_time_to_s(r->t1_us));
		c->exp_wait[c->n_exp_wait++] = (struct exp_wait){ .ex = &st->expect,
								  .t = bn_world_now(c->world),
								  .res = (int)(r - c->rep->results) };
		return;
	}
	if (st->expect.kind == BN_EXPECT_STAT)
		eval_stat(c, &st->expect, r, bn_world_now(c->world));
	else
		eval_telemetry(c, &st->expect, r);
	progress(c, r);
}

/* The rules run over the whole stream; a check step only names what the
 * scenario is about (validated when it was loaded). */
static void run_check(struct run_ctx *c, const struct bn_step *st)
{
	for (int i = 0; i < st->n_checks; i++)
		bn_report_event(c->rep, bn_world_now(c->world), "check", st->checks[i]);
}

/* ---- the instruments ---- */

/* An instrument that fails mid-run is a bench fault (exit 5), whatever
 * its own code; a refused command (hard limits), an interrupt, and what is
 * not the instrument's (an output that cannot be written, memory, the
 * firmware) stay what they are. */
static int bench_fault(int rc, struct bn_err *err)
{
	if (rc >= 0 || rc == BN_ERR_ARG || rc == BN_ERR_INTR || rc == BN_ERR_ENV ||
	    rc == BN_ERR_NOMEM || rc == BN_ERR_DUT)
		return rc;
	err->code = BN_ERR_FAULT;
	return BN_ERR_FAULT;
}

/* A port run whose fixture plays the probe on its device-side networks:
 * the probe runs in the world on the bench's own clock, so the world's
 * plug and VBUS follow the fixture's switching (a simulated fixture drives
 * the world itself; a real device runs its own detection). */
static void probe_world_follow(struct run_ctx *c, bool connected, bool vbus_on)
{
	if (!c->dev_side)
		return;
	if (connected && !bn_world_plugged(c->world))
		bn_world_plug(c->world);
	if (bn_world_plugged(c->world) && bn_world_vbus_switch(c->world) != vbus_on)
		bn_world_vbus(c->world, vbus_on);
	if (!connected && bn_world_plugged(c->world))
		bn_world_unplug(c->world);
}

static int bench_connect(struct run_ctx *c, struct bn_err *err)
{
	int rc = BN_OK;

	bool was = c->connected;

	if (!c->connected && c->fx->ops->connect)
		rc = c->fx->ops->connect(c->fx->priv, c->cur_port->name, err);
	if (rc == BN_OK)
		c->connected = true;
	if (rc == BN_OK && !was) {
		probe_world_follow(c, true, c->vbus_on);
		bench_event(c, c->o->fixture, BN_CEV_DATA_CONTACT, 1);
		if (c->vbus_on) /* lines made under VBUS: a connect is possible from now */
			c->usbh_since = bn_world_now(c->world);
	}
	return bench_fault(rc, err);
}

/* VBUS onto a port whose network is made first, as a plug would. */
static int bench_vbus(struct run_ctx *c, bool on, struct bn_err *err)
{
	int rc = on ? bench_connect(c, err) : BN_OK;

	if (rc == BN_OK && c->fx->ops->vbus)
		rc = bench_fault(c->fx->ops->vbus(c->fx->priv, on, err), err);
	if (rc == BN_OK && on != c->vbus_on) {
		bench_event(c, c->o->fixture, on ? BN_CEV_VBUS_ON : BN_CEV_VBUS_OFF, 0);
		if (on) /* the lines are made first: a connect is possible from now */
			c->usbh_since = bn_world_now(c->world);
	}
	if (rc == BN_OK) {
		c->vbus_on = on;
		probe_world_follow(c, c->connected, on);
	}
	return rc;
}

static int bench_unplug(struct run_ctx *c, struct bn_err *err)
{
	int rc = bench_vbus(c, false, err);

	bool was = c->connected;

	if (rc == BN_OK && c->fx->ops->disconnect)
		rc = bench_fault(c->fx->ops->disconnect(c->fx->priv, err), err);
	if (rc == BN_OK)
		c->connected = false;
	if (rc == BN_OK)
		probe_world_follow(c, false, false);
	if (rc == BN_OK && was)
		bench_event(c, c->o->fixture, BN_CEV_DATA_CONTACT, 0);
	return rc;
}

/* The setpoint with the input off, then the load path, then the input:
 * the load never sinks a stale setpoint. Off goes the other way. */
static int bench_load(struct run_ctx *c, double amps, struct bn_err *err)
{
	const struct bn_load_ops *l = c->ld->ops;
	int rc = BN_OK;

	if (amps > 0) {
		rc = bn_guard_load(c->o->guard, amps, 0.0, err);
		if (rc == BN_OK && l->set_current)
			rc = l->set_current(c->ld->priv, amps, err);
		if (rc == BN_OK && c->fx->ops->load_path)
			rc = c->fx->ops->load_path(c->fx->priv, true, err);
		if (rc == BN_OK && l->enable)
			rc = l->enable(c->ld->priv, true, err);
	} else {
		if (l->enable)
			rc = l->enable(c->ld->priv, false, err);
		if (rc == BN_OK && c->fx->ops->load_path)
			rc = c->fx->ops->load_path(c->fx->priv, false, err);
	}
	if (rc == BN_OK) {
		bn_poll_cap_load(&c->poll, amps > 0);
		bench_event(c, c->o->load, BN_CEV_LOAD, amps > 0 ? amps : 0.0);
	}
	return bench_fault(rc, err);
}

/* A real supply that follows the charger's curve: the voltage at the
 * receptacle for the current it delivers, set as fast as it answers
 * (hil/supply_follow.h). Refused by the hard limits: nothing is sent. */
static int bench_supply_follow_start(struct run_ctx *c, struct bn_err *err)
{
	struct bn_follow_opts fo = { .v_at = bn_follow_charger_v, .user = &c->follow_chg };
	struct bn_err e = { 0 };
	int rc;

	bn_follow_charger_init(&c->follow_chg, &c->charger);
	bn_follow_charger_bounds(&c->charger, &fo.v_max_v, &fo.ilim_a);
	/* a move's charger too: every voltage the run may ask is guarded now */
	for (int i = 0; i < c->n_moves; i++) {
		double v, ilim;

		if (!c->moves[i].has_charger)
			continue;
		bn_follow_charger_bounds(&c->moves[i].charger, &v, &ilim);
		fo.v_max_v = fmax(fo.v_max_v, v);
	}
	c->follow_cur = &c->charger;
	rc = bn_follow_start(&c->follow, c->sp, c->o->guard, &fo, &e);
	if (rc < 0)
		return bench_fault(bn_err_set(err, rc, "supply following charger %s: %s",
					      c->charger.name, e.msg), err);
	c->following = true;
	c->follow_t0_s = bn_time_to_s(bn_world_now(c->world));
	bn_report_event(c->rep, bn_world_now(c->world), "supply",
			"the supply follows the charger's curve (less its cable) at the current it "
			"reads");
	return BN_OK;
}

/* After a move to another charger the loop follows that one, its clock
 * from the move, with its own current limit. */
static int bench_supply_follow_move(struct run_ctx *c, struct bn_err *err)
{
	const struct bn_charger *want = &c->charger;
	const struct bn_supply_ops *p = c->sp->ops;
	struct bn_err e = { 0 };
	double v, ilim;
	int rc = BN_OK;

	for (int i = c->next_move - 1; i >= 0; i--)
		if (c->moves[i].has_charger) {
			want = &c->moves[i].charger;
			break;
		}
	if (want == c->follow_cur)
		return BN_OK;
	bn_follow_charger_init(&c->follow_chg, want);
	c->follow_cur = want;
	c->follow_t0_s = bn_time_to_s(bn_world_now(c->world));
	bn_follow_charger_bounds(want, &v, &ilim);
	c->follow.o.ilim_a = ilim;
	rc = bn_guard_supply(c->o->guard, c->follow.o.v_max_v, ilim, &e);
	if (rc == BN_OK && ilim > 0 && p->set_current_limit)
		rc = p->set_current_limit(c->sp->priv, ilim, &e);
	if (rc < 0)
		return bench_fault(bn_err_set(err, rc, "supply following charger %s: %s", want->name,
					      e.msg), err);
	bn_report_event(c->rep, bn_world_now(c->world), "supply", want->name);
	return BN_OK;
}

/* One step of the loop when due. A supply that stops answering is the
 * bench's fault: the run ends, the bench goes safe. */
static int bench_supply_follow(struct run_ctx *c, struct bn_err *err)
{
	struct bn_err e = { 0 };
	double t_s;
	int rc;

	if (!c->following || c->safed || !bn_follow_due(&c->follow))
		return BN_OK;
	rc = bench_supply_follow_move(c, err);
	if (rc < 0)
		return rc;
	t_s = bn_time_to_s(bn_world_now(c->world)) - c->follow_t0_s;
	rc = bn_follow_step(&c->follow, t_s, &e);
	if (rc < 0) {
		c->following = false;
		return bench_fault(bn_err_set(err, rc, "supply following charger %s at %.3f s: %s",
					      c->charger.name, t_s, e.msg), err);
	}
	return BN_OK;
}

/* The loop's rate and what it cannot reproduce, as a result of kind
 * "bench": a statement of the bench, not a verdict (skipped: it counts
 * neither way). */
static void bench_supply_follow_report(struct run_ctx *c)
{
	struct bn_follow_stats st;
	struct bn_result *r;

	if (!c->follow.sp)
		return;
	r = bn_report_add(c->rep);
	if (!r)
		return;
	bn_follow_stats(&c->follow, &st);
	bn_str_copy(r->id, sizeof(r->id), "bench.supply_follow");
	bn_str_copy(r->kind, sizeof(r->kind), "bench");
	bn_str_fmt(r->text, sizeof(r->text), "the supply plays charger %s%s: its curve's voltage at "
		   "the current it delivers, quasi-statically", c->charger.name,
		   c->follow_cur != &c->charger ? " and the moves' chargers" : "");
	r->verdict = BN_VERDICT_SKIPPED;
	r->has_measured = true;
	r->measured = st.loop_hz;
	bn_str_copy(r->unit, sizeof(r->unit), "Hz");
	r->limit_min = r->limit_max = NAN;
	r->t0_us = bn_time_from_s(c->follow_t0_s);
	r->t1_us = bn_world_now(c->world);
	bn_follow_describe(&st, r->reason, sizeof(r->reason));
	r->n_figures = 4;
	bn_str_copy(r->figures[0].name, sizeof(r->figures[0].name), "loop_rate");
	r->figures[0].value = st.loop_hz;
	bn_str_copy(r->figures[0].unit, sizeof(r->figures[0].unit), "Hz");
	bn_str_copy(r->figures[1].name, sizeof(r->figures[1].name), "link_ops_rate");
	r->figures[1].value = st.ops_hz;
	bn_str_copy(r->figures[1].unit, sizeof(r->figures[1].unit), "Hz");
	bn_str_copy(r->figures[2].name, sizeof(r->figures[2].name), "slowest_edge");
	r->figures[2].value = st.max_period_s + st.max_cycle_s;
	bn_str_copy(r->figures[2].unit, sizeof(r->figures[2].unit), "s");
	bn_str_copy(r->figures[3].name, sizeof(r->figures[3].name), "largest_setpoint_step");
	r->figures[3].value = st.max_jump_v;
	bn_str_copy(r->figures[3].unit, sizeof(r->figures[3].unit), "V");
}

/* ---- a port run: the bench plays the device on the data lines ---- */

/* The dut is the built-in probe (the bench plays a device's detection,
 * the port is what is judged), as set_judges says. */
static bool bench_probe_run(const struct run_ctx *c)
{
	return c->fw.fw && !c->fw.dl && c->fw.fw->name && !strcmp(c->fw.fw->name, "probe");
}

/* The simulated PHY's switches as the fixture's device-side networks;
 * the ID pull-up and the A-device's pull-downs have none. */
static unsigned phy_dev_nets(uint32_t phy)
{
	static const struct { uint32_t phy; int net; } map[] = {
		{ BCFW_PHY_IDP_SRC, BN_FX_DEV_IDP_SRC },   { BCFW_PHY_RDM_DWN, BN_FX_DEV_RDM_DWN },
		{ BCFW_PHY_VDP_SRC, BN_FX_DEV_VDP_SRC },   { BCFW_PHY_IDM_SINK, BN_FX_DEV_IDM_SINK },
		{ BCFW_PHY_VDM_SRC, BN_FX_DEV_VDM_SRC },   { BCFW_PHY_IDP_SINK, BN_FX_DEV_IDP_SINK },
		{ BCFW_PHY_RDP_UP, BN_FX_DEV_DP_PULLUP },
	};
	unsigned nets = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (phy & map[i].phy)
			nets |= 1u << map[i].net;
	return nets;
}

/* A port run on a real bench: a fixture with device-side networks plays
 * the probe's sequence on them (bench_device_side_step); without, D+ and
 * D- are not judged (nothing applies the device's sources and sinks the
 * port answers), saying why, and VBUS and the load still are. */
static void bench_device_side_setup(struct run_ctx *c)
{
	const struct bn_fixture *fx = c->o->fixture;
	unsigned have;

	if (!c->o->real_bench || !bench_probe_run(c))
		return;
	have = fx && fx->ops && fx->ops->device_nets ? fx->ops->device_nets(fx->priv) : 0;
	if (fx && fx->ops->device_side && (have & BN_FX_DEV_REQUIRED) == BN_FX_DEV_REQUIRED) {
		c->dev_side = true;
		c->dev_nets_have = have;
		bn_report_event(c->rep, 0, "device-side", "the fixture's device-side networks play "
				"the probe's detection on D+ and D-");
		if (!(have & BN_FX_DEV_RDM_DWN))
			bn_report_event(c->rep, 0, "device-side", "the fixture has no D- pull-down "
					"(RDM_DWN): data contact detection runs without it");
		return;
	}
	if (fx && fx->ops)
		snprintf(c->dev_side_why, sizeof(c->dev_side_why),
			 "fixture %.60s has no device-side networks: nothing plays the device's "
			 "detection on D+ and D-", fx->ops->wiring ? fx->ops->wiring(fx->priv)
								   : fx->ops->name);
	else
		snprintf(c->dev_side_why, sizeof(c->dev_side_why),
			 "the fixture is simulated (bench.conf fixture): nothing plays the device's "
			 "detection on D+ and D-");
	c->chan_mask &= ~((1u << BN_CH_DP) | (1u << BN_CH_DM));
	c->chan_why[BN_CH_DP] = c->chan_why[BN_CH_DM] = c->dev_side_why;
	bn_report_event(c->rep, 0, "device-side", c->dev_side_why);
}

/* The probe's networks as the simulated run has them now, onto the
 * fixture's (up to one wait step, 10 ms, later than the model): only
 * while the port is connected (an unplug opens them with the lines). */
static int bench_device_side_step(struct run_ctx *c, struct bn_err *err)
{
	struct bn_err e = { 0 };
	char names[160];
	unsigned nets;
	int rc;

	if (!c->dev_side || c->safed)
		return BN_OK;
	if (!c->connected) {
		c->dev_nets_now = 0;
		return BN_OK;
	}
	/* an optional network the fixture lacks is left out, said at set-up */
	nets = phy_dev_nets(bn_world_phy(c->world)) & c->dev_nets_have;
	if (nets == c->dev_nets_now)
		return BN_OK;
	bn_fx_dev_nets_str(nets, names, sizeof(names));
	rc = c->fx->ops->device_side(c->fx->priv, nets, &e);
	if (rc < 0)
		return bench_fault(bn_err_set(err, rc, "playing the probe's %s: %s", names, e.msg), err);
	c->dev_nets_now = nets;
	bn_report_event(c->rep, bn_world_now(c->world), "device-side", names);
	return BN_OK;
}

/* The charger behind the port, where a programmable supply plays it:
 * its open-circuit voltage and the current where its curve ends; or,
 * asked (o->supply_follow) on a real supply in real time, its curve
 * followed as the current changes. */
static int bench_supply_start(struct run_ctx *c, struct bn_err *err)
{
	double v = 0.0, ilim = 0.0;

	if (!c->have_charger || c->charger.n_points < 1)
		return BN_OK;
	if (c->o->supply_follow && c->o->supply && (c->o->real_time || c->o->real_bench))
		return bench_supply_follow_start(c, err);
	v = c->charger.v_v[0];
	for (int i = 0; i < c->charger.n_points; i++)
		if (c->charger.v_v[i] > 0)
			ilim = c->charger.i_a[i];
	return bench_fault(bn_supply_start(c->sp, c->o->guard, v, ilim, err), err);
}

/* Load off, supply off, then the fixture (VBUS off, load path and data
 * lines open): every instrument is tried, the first failure is kept. */
static int bench_safe(struct run_ctx *c, struct bn_err *err)
{
	int rc = BN_OK, r;

	if (c->ld && c->ld->ops && c->ld->ops->safe) {
		r = c->ld->ops->safe(c->ld->priv, err);
		rc = rc < 0 ? rc : r;
	}
	if (c->sp && c->sp->ops && c->sp->ops->safe) {
		r = c->sp->ops->safe(c->sp->priv, err);
		rc = rc < 0 ? rc : r;
	}
	if (c->fx && c->fx->ops && c->fx->ops->safe) {
		r = c->fx->ops->safe(c->fx->priv, err);
		rc = rc < 0 ? rc : r;
		if (r == BN_OK && c->vbus_on)
			bench_event(c, c->o->fixture, BN_CEV_VBUS_OFF, 0);
		if (r == BN_OK)
			c->vbus_on = false;
	}
	c->connected = false;
	c->safed = true;
	return rc;
}

/* The caller's instruments, or the simulated ones on the world. */
static int bench_open(struct run_ctx *c, struct bn_err *err)
{
	struct bn_backend_open bo = { .world = c->world, .datadir = c->o->datadir };
	int rc = BN_OK;

	c->fx = c->o->fixture;
	c->ld = c->o->load;
	c->sp = c->o->supply;
	if (!c->fx) {
		rc = bn_fixture_open(&c->own_fx, "sim", &bo, err);
		c->fx = &c->own_fx;
	}
	if (rc == BN_OK && !c->ld) {
		rc = bn_load_open(&c->own_ld, "sim", &bo, err);
		c->ld = &c->own_ld;
	}
	if (rc == BN_OK && !c->sp) {
		rc = bn_supply_open(&c->own_sp, "sim", &bo, err);
		c->sp = &c->own_sp;
	}
	return rc;
}

static void bench_close_own(struct run_ctx *c)
{
	bn_load_close(&c->own_ld);
	bn_supply_close(&c->own_sp);
	bn_fixture_close(&c->own_fx);
}

static int run_wait(struct run_ctx *c, bn_time_us dur, struct bn_err *err)
{
	if (c->dev || c->o->console || c->o->real_time || c->o->real_bench)
		return wait_paced(c, dur, err);
	return bn_world_run_until(c->world, bn_world_now(c->world) + dur, err);
}

static void checks_charger(const struct run_ctx *c, const struct bn_charger *ch, struct bn_check_ctx *ctx);

/* Unplug, carry the device over for TVBUS_REAPP min (VBUS off that long
 * forces a renegotiation), plug into the next port (charger, host) with
 * its contact timing: the rules judge the run in sessions, one per port. */
static int run_move(struct run_ctx *c, const struct bn_step *st, struct bn_err *err)
{
	struct run_move *m = &c->moves[c->next_move++];
	struct bn_check_ctx next = c->cctx;
	double away_s = bn_limits_min(&c->lim, "TVBUS_REAPP");
	int rc = bench_unplug(c, err);

	if (rc == BN_OK)
		rc = run_wait(c, bn_time_from_s(isnan(away_s) ? 0.1 : away_s), err);
	if (rc < 0)
		return rc;
	rc = bn_world_move(c->world, &m->port, m->has_charger ? &m->charger : NULL,
			   m->has_host ? &m->host : NULL, st->move.data_delay_us, st->move.bounce_n,
			   st->move.bounce_us, err);
	if (rc < 0)
		return rc;
	c->cur_port = &m->port;
	next.port = m->port.expect;
	next.port_unknown = false;
	next.port_name = m->port.name;
	next.dp_pulldown_ohm = m->port.dp_pulldown_ohm;
	next.dm_pulldown_ohm = m->port.dm_pulldown_ohm;
	next.dp_dm_short_ohm = m->port.dp_dm_short_ohm;
	if (m->has_charger)
		checks_charger(c, &m->charger, &next);
	if (c->checks && (rc = bn_checks_move(c->checks, bn_world_now(c->world), &next, err)) < 0)
		return rc;
	/* the session's context from now on: a later move naming no charger,
	 * or a capture gap, keeps this port and charger, not the first */
	c->cctx = next;
	bn_evlog_move(c->evlog, bn_world_now(c->world), &next);
	bn_report_event(c->rep, bn_world_now(c->world), "move", m->port.name);
	return bench_vbus(c, true, err);
}

static int run_steps(struct run_ctx *c, struct bn_err *err)
{
	for (int i = 0; i < c->scn.n_steps; i++) {
		const struct bn_step *st = &c->scn.steps[i];
		int rc = BN_OK;

		if (c->o->beacon) {
			__atomic_store_n(&c->o->beacon->line, st->line, __ATOMIC_RELAXED);
			beacon_beat(c, bn_world_now(c->world));
		}
		switch (st->kind) {
		case BN_STEP_VBUS: rc = bench_vbus(c, st->on, err); break;
		case BN_STEP_PLUG: rc = bench_connect(c, err); break;
		case BN_STEP_UNPLUG: rc = bench_unplug(c, err); break;
		case BN_STEP_WAIT: rc = run_wait(c, st->dur_us, err); break;
		case BN_STEP_LOAD: rc = bench_load(c, st->load_off ? 0.0 : st->load_a, err); break;
		case BN_STEP_SUSPEND:
		case BN_STEP_RESUME:
			if (c->o->real_bench && c->o->dut_usb)
				rc = usbh_suspend(c, st->kind == BN_STEP_SUSPEND, err);
			else
				bn_world_bus_suspend(c->world, st->kind == BN_STEP_SUSPEND);
			break;
		case BN_STEP_MARK: {
			struct bn_cev ev = { .kind = BN_CEV_MARK, .t_us = bn_world_now(c->world),
					     .text = st->mark };

			bn_report_event(c->rep, ev.t_us, "mark", st->mark);
			route_cev(c, &ev);
			break;
		}
		case BN_STEP_EXPECT:
			if (c->dev && c->n_exp_wait == (int)(sizeof(c->exp_wait) / sizeof(c->exp_wait[0])))
				rc = sync_device(c, err); /* too many waiting: the oldest are judged */
			else if (c->polling)
				rc = bench_fault(poll_due(c, bn_world_now(c->world), err), err);
			if (rc == BN_OK && c->o->console)
				rc = drain_console(c, err);
			run_expect(c, st);
			if (rc == BN_OK)
				rc = catch_up_wall(c, err);
			break;
		case BN_STEP_CHECK: run_check(c, st); break;
		case BN_STEP_MOVE: rc = run_move(c, st, err); break;
		}
		if (rc == BN_OK && !c->cap_err.code && c->evlog)
			capture_lost(c, bn_world_now(c->world));
		if (rc == BN_OK && c->cap_err.code)
			rc = bn_err_set(err, c->cap_err.code, "%s", c->cap_err.msg);
		if (rc < 0)
			return rc;
	}
	return BN_OK;
}

/* The configurations the device advertised, as a host reads them: the
 * sim device's are built into descriptor bytes and parsed back by the
 * parser the real device's go through (hil/usb_desc.h). */
static int read_configs(struct run_ctx *c, struct bn_usb_desc *usb, struct bn_err *err)
{
	const struct bcfw_config *cfg;
	int n;

	/* the simulated device's are not the real one's */
	if (c->o->real_bench) {
		memset(usb, 0, sizeof(*usb));
		return BN_OK;
	}
	n = bn_world_configs(c->world, &cfg);
	return bn_usb_sim_configs(cfg, n, usb, err);
}

/* The report's advertised configurations (those it had are replaced). */
static void report_configs(struct bn_report *rep, const struct bn_usb_desc *usb)
{
	cJSON_Delete(rep->configs);
	rep->configs = cJSON_CreateArray();
	for (int i = 0; i < usb->n_configs; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "bConfigurationValue", usb->cfg[i].value);
		cJSON_AddNumberToObject(o, "max_power_ma", usb->cfg[i].max_power_ma);
		cJSON_AddBoolToObject(o, "self_powered", usb->cfg[i].self_powered);
		cJSON_AddItemToArray(rep->configs, o);
	}
}

/* The side the record judges: a run whose dut runs the bench's built-in
 * probe (profiles/duts/bench-probe.json) drives the port, so it judges
 * the port; any other run judges the device. */
static void set_judges(struct run_ctx *c)
{
	bool probe = c->fw.fw && !c->fw.dl && !strcmp(c->fw.fw->name, "probe");

	snprintf(c->rep->judges, sizeof(c->rep->judges), "%s", probe ? "port" : "device");
}

static void fill_report_meta(struct run_ctx *c, const struct bn_usb_desc *usb)
{
	struct bn_report *rep = c->rep;

	bn_str_copy(rep->scenario_name, sizeof(rep->scenario_name), c->scn.name);
	if (c->o->real_bench)
		snprintf(rep->backend, sizeof(rep->backend), "real");
	/* on a real bench the device runs its own firmware, not the model's */
	bn_str_copy(rep->fw_name, sizeof(rep->fw_name), c->o->real_bench ? "real device" : c->fw.fw->name);
	bn_str_copy(rep->fw_version, sizeof(rep->fw_version), c->o->real_bench ? "" : c->fw.fw->version);
	snprintf(rep->port_name, sizeof(rep->port_name), "%s", c->port.name);
	snprintf(rep->port_expect, sizeof(rep->port_expect), "%s", bn_port_name(c->port.expect));
	rep->rate_hz = c->rate_hz;
	rep->channel_mask = c->chan_mask;
	report_configs(rep, usb);
	set_judges(c);
}

static unsigned real_events(const struct run_ctx *c);

/* The charger behind the port, for the port rules (bc12.port.*): the
 * sim's cable is the profile's, exactly; a real bench's cable is its own
 * (not known), though its supply plays the profile's rating. */
static void checks_charger(const struct run_ctx *c, const struct bn_charger *ch,
			   struct bn_check_ctx *ctx)
{
	ctx->charger_name = NULL;
	ctx->charger_rated_a = 0;
	ctx->cable_ohm = NAN;
	ctx->cable_u_ohm = 0;
	ctx->charger_compliant = -1;
	if (!ch)
		return;
	ctx->charger_name = ch->name;
	ctx->charger_rated_a = ch->rated_a;
	ctx->charger_compliant = ch->compliant;
	if (!c->o->real_bench)
		ctx->cable_ohm = ch->cable_ohm;
}

/* The bench's own device-side network when its built-in probe plays the
 * device (a port scenario): the simulated dut's PHY values, exact in the
 * sim; a real fixture does not declare its own yet. When the probe
 * applies its own VDM_SRC after primary (sec_after_s) is the probe
 * firmware's release time: NAN (not known) until it is set here. */
static void checks_probe(const struct run_ctx *c, struct bn_check_ctx *ctx)
{
	bool probe = c->fw.fw && !c->fw.dl && !strcmp(c->fw.fw->name, "probe");

	if (!probe)
		return;
	ctx->probe.present = true;
	ctx->probe.sec_after_s = NAN;
	if (c->o->real_bench)
		return; /* the fixture's networks: not declared yet */
	/* from releasing VDP_SRC to applying VDM_SRC: the probe's release gap */
	ctx->probe.sec_after_s = probe_fw_timing.release_us / 1e6;
	ctx->probe.idp_src_a = c->dut.phy.idp_src_a;
	ctx->probe.vdp_src_v = c->dut.phy.vdp_src_v;
	ctx->probe.idm_sink_a = c->dut.phy.idm_sink_a;
	ctx->probe.vdm_src_v = c->dut.phy.vdm_src_v;
	ctx->probe.idp_sink_a = c->dut.phy.idp_sink_a;
	ctx->probe.rdm_dwn_ohm = c->dut.phy.rdm_dwn_ohm;
	ctx->probe.i_u_rel = 0;
}

static int start_checks(struct run_ctx *c, const struct bn_usb_desc *usb, struct bn_err *err)
{
	struct bn_check_ctx ctx = {
		.lim = &c->lim,
		.port = c->port.expect,
		.port_name = c->port.name,
		.dp_pulldown_ohm = c->port.dp_pulldown_ohm,
		.dm_pulldown_ohm = c->port.dm_pulldown_ohm,
		.dp_dm_short_ohm = c->port.dp_dm_short_ohm,
		.droop_threshold_v = c->dut.droop_threshold_v,
		.otg_rating_a = c->dut.otg_rating_a,
		.rate_hz = c->rate_hz,
		.channels = c->chan_mask,
		.events = BN_CEV_ALL,
		.no_hold = c->o->checks_no_hold,
		.acceptance = c->o->acceptance,
	};
	int n = usb->n_configs;

	setup_meas(c);
	memcpy(ctx.meas, c->meas, sizeof(ctx.meas));
	memcpy(ctx.meas_src, c->meas_src, sizeof(ctx.meas_src));
	ctx.gnd_offset_v = c->o->conditions && c->o->conditions->has_gnd_offset
				   ? c->o->conditions->gnd_offset_v : 0.0;

	if (c->dut.battery_powered)
		ctx.decl |= BN_DECL_BATTERY;
	if (c->dut.dbp)
		ctx.decl |= BN_DECL_DBP;
	if (c->dut.has_battery && c->scn.has_battery_v && c->scn.battery_v < c->dut.battery.dead_v)
		ctx.decl |= BN_DECL_DEAD_BATTERY;
	if (c->dut.otg_rating_a > 0)
		ctx.decl |= BN_DECL_OTG;
	if (c->dut.secondary_detection)
		ctx.decl |= BN_DECL_SECONDARY;
	c->rep->droop_threshold_v = c->dut.droop_threshold_v; /* for the record's plots */
	if (c->dut.droop_threshold_v > 0)
		ctx.decl |= BN_DECL_DROOP;
	ctx.configs_known = !c->o->real_bench;
	if (c->o->real_bench) {
		ctx.events = real_events(c);
		memcpy(ctx.chan_why, c->chan_why, sizeof(ctx.chan_why));
		memcpy(ctx.event_why, c->event_why, sizeof(ctx.event_why));
		ctx.rate_why = c->rate_why;
	}
	for (int i = 0; i < n && i < 8; i++) {
		ctx.config_value[i] = usb->cfg[i].value;
		ctx.config_max_power_a[i] = usb->cfg[i].max_power_ma / 1000.0;
	}
	ctx.n_configs = n < 8 ? n : 8;
	checks_charger(c, c->have_charger ? &c->charger : NULL, &ctx);
	checks_probe(c, &ctx);
	c->cctx = ctx;
	return bn_checks_new(&ctx, &c->checks, err);
}

/* Why no capture.sr is written although samples are judged: --no-capture
 * or the scenario's `capture off`; NULL when it is written. */
static const char *capture_off_why(const struct run_ctx *c, char *buf, size_t len)
{
	if (c->o->no_capture)
		return "--no-capture";
	if (!c->scn.capture_off)
		return NULL;
	snprintf(buf, len, "capture off (%s:%d)", c->scn.path, c->scn.capture_loc.line);
	return buf;
}

/* capture.sr and events.json in out_dir, for the captured channels. */
static int start_capture(struct run_ctx *c, struct bn_err *err)
{
	char path[1200], why_buf[BN_SCN_PATH_LEN + 40];
	const char *off = capture_off_why(c, why_buf, sizeof(why_buf));
	struct bn_srw_opts so = { .rate_hz = c->rate_hz, .threads = c->o->capture_threads,
				  .no_sync = c->o->defer_sync };
	struct bn_evlog_meta m = { .capture_file = "capture.sr", .port_profile = c->port.name,
				   .dut_name = c->dut.name, .scenario = c->scn.name };
	int rc;

	if (!c->o->out_dir)
		return BN_OK;
	rc = bn_mkdir_p(c->o->out_dir, err);
	if (rc < 0)
		return rc;
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		if (!(c->chan_mask & (1u << ch)))
			continue;
		c->cap_ch[c->n_cap] = ch;
		so.names[c->n_cap] = bn_chan_label(ch);
		so.units[c->n_cap] = bn_chan_unit(ch);
		c->n_cap++;
	}
	so.n_ch = c->n_cap;
	snprintf(path, sizeof(path), "%s/capture.sr", c->o->out_dir);
	if (off && c->n_cap)
		snprintf(c->rep->capture_off, sizeof(c->rep->capture_off), "%s", off);
	/* a real bench with nothing to measure has no capture, only events;
	 * nor has a run told not to write one */
	rc = c->n_cap && !off ? bn_srw_open(path, &so, &c->srw, err) : BN_OK;
	if (rc < 0)
		return rc;
	if (!c->srw) {
		m.capture_file = NULL; /* its sidecar names no capture */
		/* An earlier run's capture in this directory would sit beside a
		 * report that names none, and replay would judge it as this
		 * run's; a run with a capture replaces it the same way. */
		if (unlink(path) < 0 && errno != ENOENT)
			return bn_err_set(err, bn_err_from_write_errno(errno),
					  "%s: cannot remove an earlier run's capture: %s", path,
					  strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/events.json", c->o->out_dir);
	return bn_evlog_open(path, &c->cctx, &m, &c->evlog, err);
}

/* Finish both files whatever happened; the first failure is in err. */
static int finish_capture(struct run_ctx *c, const char *status, struct bn_err *err)
{
	int64_t frames = c->srw ? bn_srw_frames(c->srw) : 0;
	int rc = BN_OK, rc2;

	if (c->srw) {
		if (c->cap_err.code) {
			bn_srw_discard(c->srw);
			rc = bn_err_set(err, c->cap_err.code, "%s", c->cap_err.msg);
		} else {
			rc = bn_srw_close(c->srw, err);
		}
		c->srw = NULL;
		if (rc == BN_OK)
			bn_report_artifact(c->rep, "capture", "capture.sr");
	}
	/* the record beside a lost capture says the run is an error */
	if (rc < 0)
		status = "error";
	if (c->evlog) {
		rc2 = bn_evlog_close(c->evlog, c->world ? bn_world_now(c->world) : 0, frames, status,
				     err);
		c->evlog = NULL;
		if (rc2 == BN_OK)
			bn_report_artifact(c->rep, "events", "events.json");
		else if (rc == BN_OK)
			rc = rc2;
	}
	return rc;
}

/* The exit code of a run that ended on error code rc (core/exit.h): an
 * interrupt's is its signal's (the stop flag holds it). */
static int run_exit_code(const struct run_ctx *c, int rc)
{
	int signo = c->o->stop_flag ? (int)*c->o->stop_flag : 0;

	return bn_exit_of_err(rc, signo);
}

/* The same once the bench has started: an I/O error then comes from an
 * instrument, the capture device or the device's USB link that answered
 * when it was opened (EIO, EPROTO, EBUSY mid-run), not from the input. */
static int bench_exit_code(const struct run_ctx *c, int rc)
{
	return run_exit_code(c, rc == BN_ERR_IO ? BN_ERR_FAULT : rc);
}

/* The run broke: no rule can claim a verdict on a partial stream. */
static void end_checks_broken(struct run_ctx *c, struct bn_report *rep)
{
	int first = rep->n_results;

	bn_checks_end(c->checks, bn_world_now(c->world), rep);
	for (int i = first; i < rep->n_results; i++) {
		struct bn_result *r = &rep->results[i];

		if (r->verdict == BN_VERDICT_SKIPPED)
			continue;
		r->verdict = BN_VERDICT_ERROR;
		snprintf(r->reason, sizeof(r->reason), "the run ended early: %.*s",
			 bn_utf8_prec(rep->reason, 200), rep->reason);
	}
}

static void snapshot_telemetry(struct run_ctx *c)
{
	static const char *const keys[] = { "port", "state", "ilim_ma", "backoffs", "ramp",
					    "config", "bus", "dcd", "dbp", "peripheral",
					    "trip_ceiling_ma" };

	if (c->o->console) { /* what the real device said, all of it */
		for (int i = 0; i < c->n_con_tel; i++)
			cJSON_AddStringToObject(c->rep->telemetry, c->con_tel[i].key, c->con_tel[i].val);
		return;
	}
	if (c->o->real_bench) /* the model's are not the device's */
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = bn_world_telemetry(c->world, keys[i]);

		if (v)
			cJSON_AddStringToObject(c->rep->telemetry, keys[i], v);
	}
}

/* What the bench PC can play as the device's USB host, refused before
 * anything is switched: without one, no suspend or resume; with one, the
 * kernel enumerates every device it sees, so a host that never
 * enumerates is the fixture's to play (data lines open). */
static int check_real_host(struct run_ctx *c, struct bn_err *err)
{
	if (!c->o->real_bench)
		return BN_OK;
	for (int i = 0; i < c->scn.n_steps; i++) {
		const struct bn_step *st = &c->scn.steps[i];

		if ((st->kind == BN_STEP_SUSPEND || st->kind == BN_STEP_RESUME) && !c->o->dut_usb)
			return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: %s needs the bench PC as "
					  "the device's USB host on a real bench (bench.conf dut_usb = "
					  "VID:PID[:SERIAL])", c->scn.path, st->line, st->col,
					  st->kind == BN_STEP_SUSPEND ? "suspend" : "resume");
	}
	if (!c->o->dut_usb)
		return BN_OK;
	if (!c->host.enumerates)
		return bn_err_set(err, BN_ERR_DATA, "%s: host %s never enumerates: the bench PC's USB "
				  "host enumerates every device it sees; play it with the fixture (the "
				  "data lines open) on a bench.conf without dut_usb", c->scn.path,
				  c->host.name);
	/* A host that grants less than the kernel's port (a hub's 100 mA, a
	 * host out of power's 0) is played by choosing its configuration
	 * (0: unconfigured) once the kernel has chosen its own: both are
	 * events, so the rules judge the device in each. */
	return BN_OK;
}

/* A scenario that asks the bench for more than its hard limits is bad
 * input for this bench: refused before anything is switched. */
static int check_hard_limits(struct run_ctx *c, struct bn_err *err)
{
	for (int i = 0; i < c->scn.n_steps; i++) {
		const struct bn_step *st = &c->scn.steps[i];
		struct bn_err e = { 0 };

		if (st->kind != BN_STEP_LOAD || st->load_off)
			continue;
		if (bn_guard_load(c->o->guard, st->load_a, 0.0, &e) < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: %s", c->scn.path, st->line,
					  st->col, e.msg);
	}
	return BN_OK;
}

/* The free space of the file system dir is (or would be) on: its
 * nearest existing ancestor's. -1 when unknown. */
static double free_bytes(const char *dir)
{
	char buf[1200];
	struct statvfs vfs;

	snprintf(buf, sizeof(buf), "%s", dir);
	for (;;) {
		char *slash;

		if (statvfs(buf, &vfs) == 0)
			return (double)vfs.f_bavail * (double)vfs.f_frsize;
		if (errno != ENOENT)
			return -1;
		slash = strrchr(buf, '/');
		if (!slash)
			return statvfs(".", &vfs) == 0 ? (double)vfs.f_bavail * (double)vfs.f_frsize : -1;
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (!strcmp(buf, "/") && statvfs(buf, &vfs) != 0)
			return -1;
	}
}

void bn_run_limits_path(const char *limits_override, const char *conf_limits, const char *datadir,
			char *path, size_t len)
{
	const char *dd = datadir ? datadir : ".";

	if (limits_override)
		snprintf(path, len, "%s", limits_override);
	else if (conf_limits && conf_limits[0]) {
		snprintf(path, len, "%s", conf_limits);
		if (!file_exists(path) && path[0] != '/')
			snprintf(path, len, "%s/%s", dd, conf_limits);
	} else {
		snprintf(path, len, "%s/profiles/limits/bc12.json", dd);
	}
}

int bn_run_estimate(const struct bn_scenario *scn, double rate_hz, unsigned chan_mask,
		    double move_s, struct bn_run_estimate *e)
{
	memset(e, 0, sizeof(*e));
	for (unsigned m = chan_mask; m; m &= m - 1)
		e->n_ch++;
	e->rate_hz = rate_hz;
	e->dur_s = bn_time_to_s(bn_scenario_duration_us(scn, bn_time_from_s(move_s)));
	e->disk_bytes = bn_srw_estimate_bytes(rate_hz, e->n_ch ? e->n_ch : 1, e->dur_s) +
			BN_RUN_ESTIMATE_SLACK;
	e->window_bytes = (ceil(bn_time_to_s(bn_scenario_longest_window(scn)) * rate_hz) + 2) *
			  BN_CH_COUNT * (double)sizeof(double);
	return BN_OK;
}

int bn_run_rate_check(const char *path, const struct bn_scn_loc *loc, double rate_hz,
		      double max_hz, const char *source, struct bn_err *err)
{
	if (rate_hz <= max_hz)
		return BN_OK;
	return bn_err_set(err, BN_ERR_DATA,
			  "%s:%d:%d: error: capture rate %g Hz is above the maximum of %s, %g Hz",
			  path, loc->line ? loc->line : 1, loc->line ? loc->col : 1, rate_hz, source,
			  max_hz);
}

static const char *human_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
	return buf;
}

/* What the scenario asks of this bench, refused before it runs: a rate
 * its source cannot sample, a window too big for memory, a capture
 * bigger than the output's disk (unless --force). */
static int check_bounds(struct run_ctx *c, struct bn_err *err)
{
	struct bn_run_estimate e;
	double away_s = bn_limits_min(&c->lim, "TVBUS_REAPP"), free_b;
	char need[32], have[32];
	int rc;

	if (!c->dev) {
		rc = bn_run_rate_check(c->scn.path, &c->scn.capture_loc, c->rate_hz,
				       BN_WORLD_MAX_RATE_HZ, "the simulated bench (its clock ticks in microseconds)", err);
		if (rc < 0)
			return rc;
	}
	bn_run_estimate(&c->scn, c->rate_hz, c->chan_mask, isnan(away_s) ? 0.1 : away_s, &e);
	if (e.window_bytes > BN_RUN_MAX_WINDOW_BYTES) {
		const struct bn_step *st = NULL;
		bn_time_us longest = bn_scenario_longest_window(&c->scn);

		for (int i = 0; i < c->scn.n_steps && !st; i++)
			if (c->scn.steps[i].kind == BN_STEP_EXPECT &&
			    c->scn.steps[i].expect.kind == BN_EXPECT_STAT &&
			    c->scn.steps[i].expect.window_us == longest)
				st = &c->scn.steps[i];
		return bn_err_set(err, BN_ERR_DATA,
				  "%s:%d:%d: error: a window of %.3f s at %g Hz needs %s of memory, "
				  "more than the %s a run may hold (a shorter window, or a lower rate)",
				  c->scn.path, st ? st->line : 1, st ? st->col : 1, bn_time_to_s(longest),
				  c->rate_hz, human_bytes(e.window_bytes, need, sizeof(need)),
				  human_bytes(BN_RUN_MAX_WINDOW_BYTES, have, sizeof(have)));
	}
	if (!c->o->out_dir || c->o->force)
		return BN_OK;
	if (capture_off_why(c, NULL, 0)) /* no capture.sr: only the reports */
		e.disk_bytes = BN_RUN_ESTIMATE_SLACK;
	free_b = free_bytes(c->o->out_dir);
	if (free_b >= 0 && e.disk_bytes > free_b)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: the run needs about %s of disk in %s (%.0f s x %g Hz x %d "
				  "channels x 4 bytes, the zip stored at worst) and %s is free there "
				  "(--force runs it anyway)",
				  c->scn.path, human_bytes(e.disk_bytes, need, sizeof(need)),
				  c->o->out_dir, e.dur_s, e.rate_hz, e.n_ch,
				  human_bytes(free_b, have, sizeof(have)));
	return BN_OK;
}

/* A real bench without a capture device: its supply's and load's
 * readings, polled. None to read: nothing is captured. One failing: the
 * bench's fault, said in fail (the report's reason). */
static int real_poll_open(struct run_ctx *c, char *fail, size_t len)
{
	struct bn_err e = { 0 };
	int rc = bn_poll_cap_open(&c->poll, c->o->supply, c->o->load, 0, &e);

	if (rc == BN_ERR_ARG) {
		c->chan_mask = 0;
		snprintf(c->rep->capture_source, sizeof(c->rep->capture_source), "none");
		return BN_OK;
	}
	if (rc < 0) {
		snprintf(fail, len, "polling the instruments: %.600s", e.msg);
		c->chan_mask = 0;
		return BN_OK;
	}
	c->polling = true;
	c->rate_hz = bn_poll_cap_rate(&c->poll);
	c->chan_mask = c->poll.channels & c->scn.capture_mask;
	snprintf(c->rep->capture_source, sizeof(c->rep->capture_source),
		 "polled: the bench's %s readings", c->o->supply ? "supply's and load's" : "load's");
	return BN_OK;
}

/* What a real bench cannot say, and why, for the rules that need it. */
static void real_whys(struct run_ctx *c)
{
	static const char no_dev[] = "nothing on this bench measures it (no capture device; the "
				     "supply and load read VBUS and IBUS only)";
	static const char no_sp[] = "nothing on this bench measures the device's current (no "
				    "capture device, no supply to read)";
	static const char polled[] = "polled from the bench's supply and load (no capture device)";
	static const char sim_fx[] = "the fixture is simulated (bench.conf fixture): nothing "
				     "attaches the real device";
	static const char sim_ld[] = "the load is simulated (bench.conf load)";
	static const char no_host[] = "no USB host on this bench watches the device (bench.conf dut_usb)";
	static const char no_con[] = "this bench has no device console (bench.conf console)";
	static const char no_acc[] = "a real bench does not see the device enumerate an accessory";

	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (!(c->chan_mask & (1u << ch)))
			c->chan_why[ch] = c->dev ? "the capture device's map does not name it (bench.conf "
						   "capture_map)"
				      : ch == BN_CH_IBUS && c->polling ? no_sp : no_dev;
	if (c->polling)
		c->rate_why = polled;
	if (c->dev_polled)
		c->rate_why = "a polled capture device (no samplerate): its readings on the bench's "
			      "50 Hz grid";
	if (!c->o->fixture)
		c->event_why[BN_CEV_VBUS_ON] = c->event_why[BN_CEV_VBUS_OFF] =
			c->event_why[BN_CEV_DATA_CONTACT] = sim_fx;
	if (!c->o->load)
		c->event_why[BN_CEV_LOAD] = sim_ld;
	if (!c->o->dut_usb) {
		c->event_why[BN_CEV_CONNECT] = c->event_why[BN_CEV_DISCONNECT] = no_host;
		c->event_why[BN_CEV_CONFIG] = c->event_why[BN_CEV_SUSPEND] = no_host;
		c->event_why[BN_CEV_RESUME] = no_host;
	}
	if (!c->o->console)
		c->event_why[BN_CEV_TELEMETRY] = no_con;
	c->event_why[BN_CEV_PERIPHERAL] = no_acc;
}

/* The events a real bench knows: those no reason above stands against. */
static unsigned real_events(const struct run_ctx *c)
{
	unsigned ev = 0;

	for (int k = 0; k < BN_CEV_COUNT; k++)
		if (!c->event_why[k])
			ev |= BN_CEV_BIT(k);
	return ev;
}

static void identity_of(char *buf, size_t len, const char *name,
			void (*identity)(void *, char *, size_t), void *priv)
{
	char id[200] = "";

	if (identity)
		identity(priv, id, sizeof(id));
	snprintf(buf, len, "%s%s%s", name, id[0] ? ": " : "", id);
}

/* The report's word on each part of the bench and each channel: which
 * instrument measured it, at what rate, and (in "spec") with what
 * uncertainty; a channel nothing measured says why. */
static void annotate_measurement(struct run_ctx *c)
{
	struct bn_report *rep = c->rep;
	cJSON *chs = rep->measurement ? cJSON_GetObjectItemCaseSensitive(rep->measurement, "channels")
				      : NULL;
	cJSON *ins;
	char buf[400];
	struct bn_sigrok_timing tm = { 0 };

	if (!chs)
		return;
	if (c->dev)
		bn_sigrok_cap_timing(c->dev, &tm);
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		cJSON *o = cJSON_GetObjectItemCaseSensitive(chs, bn_chan_label(ch));

		if (!o && c->o->real_bench) {
			o = cJSON_AddObjectToObject(chs, bn_chan_label(ch));
			cJSON_AddStringToObject(o, "spec", "not measured");
			cJSON_AddStringToObject(o, "source", "none");
			cJSON_AddStringToObject(o, "ground", "port");
			cJSON_AddStringToObject(o, "instrument", "none");
			cJSON_AddStringToObject(o, "why", c->chan_why[ch] ? c->chan_why[ch]
							   : "not asked for by the scenario's capture line");
			continue;
		}
		if (!o)
			continue;
		if (c->dev) {
			struct bn_sigrok_chan_info ci;

			if (bn_sigrok_cap_chan_info(c->dev, ch, &ci)) {
				char scale[40] = "", shunt[40] = "";
				bool grp = ci.dev_group[0] && strcmp(ci.dev_group, ci.dev_chan);

				if (ci.scale != 1.0)
					snprintf(scale, sizeof(scale), ", scale %.6g", ci.scale);
				if (ci.shunt_ohm > 0)
					snprintf(shunt, sizeof(shunt), ", shunt %.6g ohm", ci.shunt_ohm);
				snprintf(buf, sizeof(buf), "sigrok:%s (%s): its channel %s%s%s%s (%s, %s%s%s)%s%s",
					 c->o->capture_dev->driver, bn_sigrok_cap_describe(c->dev),
					 ci.dev_chan, grp ? " (group " : "", grp ? ci.dev_group : "",
					 grp ? ")" : "",
					 ci.reported ? ci.mq_name : "not reported",
					 ci.reported ? ci.unit_name : "?", ci.flags_text[0] ? " " : "",
					 ci.flags_text, scale, shunt);
			} else {
				snprintf(buf, sizeof(buf), "%s", rep->capture_source);
			}
		} else if (c->polling)
			snprintf(buf, sizeof(buf), "%s", c->poll.src[ch]);
		else if (c->o->real_bench)
			snprintf(buf, sizeof(buf), "none");
		else
			snprintf(buf, sizeof(buf), "simulated bench (the model's values)");
		cJSON_AddStringToObject(o, "instrument", buf);
		cJSON_AddNumberToObject(o, "rate_hz", c->rate_hz);
		if (c->dev) {
			cJSON_AddStringToObject(o, "clock", c->dev_polled ? "polled"
						: tm.clock == BN_SIGROK_CLOCK_FRAMES ? "frames"
										     : "samplerate");
			if (c->dev_polled) {
				cJSON_AddNumberToObject(o, "achieved_hz", tm.mean_rate_hz);
				cJSON_AddNumberToObject(o, "held_frames", (double)c->poll_held);
			}
			if (tm.clock == BN_SIGROK_CLOCK_FRAMES)
				cJSON_AddNumberToObject(o, "gaps", (double)c->dev_gaps);
			cJSON_AddNumberToObject(o, "max_interval_s", bn_time_to_s(tm.max_interval_us));
			if (tm.start_lost_us > 0) {
				cJSON_AddNumberToObject(o, "start_lost_s", bn_time_to_s(tm.start_lost_us));
				cJSON_AddNumberToObject(o, "start_packets", (double)tm.start_packets);
			}
		}
		if (c->polling) {
			cJSON_AddNumberToObject(o, "polls", (double)c->poll.polls);
			cJSON_AddNumberToObject(o, "late_polls", (double)c->poll.late_polls);
			cJSON_AddNumberToObject(o, "held_frames", (double)c->poll_held);
			cJSON_AddNumberToObject(o, "slowest_poll_s", c->poll.max_cycle_s);
		}
	}
	if (!c->o->real_bench)
		return;
	ins = cJSON_AddArrayToObject(rep->measurement, "instruments");
	for (int k = 0; k < 5; k++) {
		static const char *const roles[] = { "fixture", "load", "supply", "capture", "console" };
		cJSON *o = cJSON_CreateObject();
		bool real = true;

		buf[0] = 0;
		switch (k) {
		case 0:
			real = c->o->fixture != NULL;
			snprintf(buf, sizeof(buf), "%s", c->fx && c->fx->ops ? c->fx->ops->name : "sim");
			break;
		case 1:
			real = c->o->load != NULL;
			if (c->ld && c->ld->ops)
				identity_of(buf, sizeof(buf), c->ld->ops->name, c->ld->ops->identity, c->ld->priv);
			break;
		case 2:
			real = c->o->supply != NULL;
			if (c->sp && c->sp->ops)
				identity_of(buf, sizeof(buf), c->sp->ops->name, c->sp->ops->identity, c->sp->priv);
			break;
		case 3:
			real = c->dev != NULL;
			snprintf(buf, sizeof(buf), "%s", c->dev ? rep->capture_source : "none");
			break;
		case 4:
			real = c->o->console != NULL;
			snprintf(buf, sizeof(buf), "%s", real ? "the device's telemetry console" : "none");
			break;
		}
		cJSON_AddStringToObject(o, "role", roles[k]);
		cJSON_AddStringToObject(o, "instrument", buf);
		cJSON_AddBoolToObject(o, "simulated", !real && strcmp(buf, "none") != 0);
		cJSON_AddItemToArray(ins, o);
	}
}

int bn_run_scenario(const struct bn_run_opts *o, struct bn_report *rep, struct bn_err *err)
{
	struct run_ctx *c = calloc(1, sizeof(*c));
	struct bn_world_cfg wc;
	struct bn_usb_desc usb;
	struct bn_err run_err = { 0 };
	char dev_fail[720] = "";
	double t0 = bn_mono_s();
	int rc;

	if (!c)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	c->o = o;
	c->rep = rep;
	rc = load_all(c, err);
	if (rc == BN_OK)
		rc = load_moves(c, err);
	if (rc == BN_OK)
		rc = check_hard_limits(c, err);
	if (rc == BN_OK)
		rc = check_real_host(c, err);
	if (rc < 0)
		goto out;
	c->rate_hz = c->scn.capture_rate_hz;
	c->chan_mask = c->scn.capture_mask;
	if (o->capture_dev) {
		struct bn_sigrok_cap_opts dev_o = *o->capture_dev;

		struct bn_err derr = { 0 };
		bool scn_rate = !(dev_o.rate_hz > 0);

		/* the scenario's rate is a wish a device that sets its own
		 * (a scope's timebase, a polled supply) may not follow */
		if (scn_rate) {
			dev_o.rate_hz = c->scn.capture_rate_hz;
			dev_o.rate_advisory = true;
		}
		rc = bn_sigrok_cap_open(&dev_o, &c->dev, &derr);
		if (rc == BN_ERR_ARG && scn_rate && strstr(derr.msg, "samplerate")) {
			/* the scenario's rate: where it was asked for */
			rc = bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: %s", c->scn.path,
					c->scn.capture_loc.line ? c->scn.capture_loc.line : 1,
					c->scn.capture_loc.line ? c->scn.capture_loc.col : 1, derr.msg);
			goto out;
		}
		if (rc == BN_ERR_ARG || rc == BN_ERR_DATA) {
			bn_err_set(err, rc, "%s", derr.msg);
			goto out;
		}
		if (rc < 0) {
			/* Not there, or failing: the bench's fault, not the
			 * input's; reported once the report knows the run. */
			snprintf(dev_fail, sizeof(dev_fail), "%.700s", derr.msg);
			rc = BN_OK;
		}
	}
	c->dev_t = -1;
	c->dev_until = INT64_MAX;
	c->dev_seen = -1;
	if (c->dev) {
		c->rate_hz = bn_sigrok_cap_rate(c->dev);
		c->chan_mask = bn_sigrok_cap_channels(c->dev);
		if (!(c->rate_hz > 0)) { /* polled: onto the bench's grid */
			c->dev_polled = true;
			c->rate_hz = BN_POLL_MAX_RATE_HZ;
		}
		snprintf(rep->capture_source, sizeof(rep->capture_source), "sigrok:%.30s (%.50s)",
			 o->capture_dev->driver, bn_sigrok_cap_describe(c->dev));
	} else if (o->real_bench && !o->capture_dev) {
		rc = real_poll_open(c, dev_fail, sizeof(dev_fail));
		if (rc < 0)
			goto out;
	}
	if (o->real_bench)
		real_whys(c);
	bench_device_side_setup(c);
	rc = check_bounds(c, err);
	if (rc < 0)
		goto out;
	rc = bn_ring_init(&c->win, bn_scenario_longest_window(&c->scn), c->rate_hz);
	if (rc < 0) {
		bn_err_set(err, rc, "out of memory for the sample window");
		goto out;
	}
	wc = (struct bn_world_cfg){
		.lim = &c->lim,
		.port = &c->port,
		.charger = c->have_charger ? &c->charger : NULL,
		.host = &c->host,
		.dut = &c->dut,
		.fw = c->fw.fw,
		.battery_v = c->scn.has_battery_v ? c->scn.battery_v : NAN,
		.data_delay_us = c->o->conditions && c->o->conditions->data_delay_us >= 0
					 ? c->o->conditions->data_delay_us : c->scn.data_delay_us,
		.bounce_n = c->o->conditions && c->o->conditions->bounce_n >= 0
				    ? c->o->conditions->bounce_n : c->scn.bounce_n,
		.bounce_us = c->o->conditions && c->o->conditions->bounce_n >= 0
				     ? c->o->conditions->bounce_us : c->scn.bounce_us,
		/* the physics a conditions file adds; none without one */
		.vbus_bounce_n = c->o->conditions && c->o->conditions->vbus_bounce_n > 0
					 ? c->o->conditions->vbus_bounce_n : 0,
		.vbus_bounce_us = c->o->conditions && c->o->conditions->vbus_bounce_n > 0
					  ? c->o->conditions->vbus_bounce_us : 0,
		.gnd_offset_v = c->o->conditions && c->o->conditions->has_gnd_offset
					? c->o->conditions->gnd_offset_v : 0.0,
		.line_cap_f = c->o->conditions && c->o->conditions->line_cap_f > 0
				      ? c->o->conditions->line_cap_f : 0.0,
		.sample_rate_hz = c->scn.capture_rate_hz,
		.sink = { .user = c, .sample = on_sample, .event = on_event, .cev = on_cev },
		.livelock_wakes = o->livelock_wakes,
		.stop_flag = o->stop_flag,
		.in_fw_call = o->beacon ? &o->beacon->in_fw_call : NULL,
	};
	rc = bn_world_new(&wc, &c->world, err);
	if (rc < 0)
		goto out;
	if (o->world_hook)
		o->world_hook(o->world_hook_user, c->world);
	rc = bench_open(c, err);
	if (rc < 0)
		goto out;
	rc = read_configs(c, &usb, err);
	fill_report_meta(c, &usb);
	if (rc == BN_OK && dev_fail[0]) {
		rep->status = BN_RUN_ERROR;
		rep->exit_code = BN_EXIT_BENCH_FAULT;
		snprintf(rep->reason, sizeof(rep->reason),
			 "%s%.600s; nothing was measured, the bench is in its safe state",
			 c->polling || !o->capture_dev ? "" : "the capture device failed before the run: ",
			 dev_fail);
		bn_err_log("%s", rep->reason);
		goto out;
	}
	if (rc == BN_OK)
		rc = start_checks(c, &usb, err);
	if (rc < 0)
		goto out;
	rc = start_capture(c, &run_err);
	if (rc == BN_ERR_ARG || rc == BN_ERR_DATA) {
		bn_err_set(err, rc, "%s", run_err.msg);
		goto out;
	}
	if (rc < 0) {
		/* not the input's fault (a full disk, a read-only directory):
		 * the environment's (exit 6), in the report when one can be written */
		rep->status = BN_RUN_ERROR;
		rep->exit_code = run_exit_code(c, run_err.code);
		snprintf(rep->reason, sizeof(rep->reason), "cannot start the capture: %.700s",
			 run_err.msg);
		bn_err_log("%s", rep->reason);
		rc = BN_OK;
		goto out;
	}

	if (c->dev) {
		struct bn_err derr = { 0 };

		rc = bn_sigrok_cap_start(c->dev, &derr);
		if (rc == BN_OK)
			rc = capture_preroll(c, &derr);
		if (rc < 0) {
			/* opened a moment ago, now it will not start (a logic
			 * analyser dropped off USB): the bench's fault (exit 5),
			 * with a report, not bad input */
			rep->status = BN_RUN_ERROR;
			rep->exit_code = bench_exit_code(c, rc);
			snprintf(rep->reason, sizeof(rep->reason),
				 "cannot start the capture device: %.700s", derr.msg);
			bn_err_log("%s", rep->reason);
			rc = BN_OK;
			goto out;
		}
	}
	c->wall0_s = bn_mono_s();
	c->poll_next = 0;
	if (o->console) { /* what it said before the run is not this run's */
		struct bn_con_rec r;
		struct bn_err e = { 0 };

		while ((rc = bn_console_next(o->console, &r, 0, &e)) == BN_OK)
			;
		if (rc != BN_ERR_TIMEOUT) {
			bn_err_set(err, BN_ERR_FAULT, "device console: %s", e.msg);
			goto out;
		}
		rc = BN_OK;
		bn_report_event(rep, 0, "console", "dut.* from the device's telemetry console");
	}

	/* From here the bench runs: every outcome is in the report. */
	if (o->on_started) {
		/* what the report says if the process dies from here on: every
		 * rule that applies an error (the parent fills in why) */
		int first = rep->n_results;

		if (c->checks)
			bn_checks_unfinished(c->checks, rep, "the run's process ended");
		o->on_started(o->on_started_user, rep);
		rep->n_results = first;
	}
	if (o->beacon)
		__atomic_store_n(&o->beacon->started, 1, __ATOMIC_RELAXED);
	rc = bench_supply_start(c, &run_err);
	if (rc == BN_OK)
		rc = run_steps(c, &run_err);
	{
		struct bn_err serr = { 0 };

		/* A bench that cannot reach its safe state must say so loudly:
		 * the run is an error whatever it measured. */
		if (bench_safe(c, &serr) < 0) {
			bn_err_log("SAFE STATE NOT REACHED: %s", serr.msg);
			if (rc == BN_OK)
				rc = bn_err_set(&run_err, BN_ERR_FAULT, "safe state not reached: %s",
						serr.msg);
		}
	}
	if (c->dev) {
		struct bn_err derr = { 0 };
		int rc2 = BN_OK;
		int64_t dropped;

		/* the frames up to the run's end are still in the device's
		 * pipe (a packet of up to its stall time); none after it: the
		 * safe state is not the scenario's */
		c->dev_until = bn_world_now(c->world);
		if (rc == BN_OK)
			rc2 = sync_device(c, &derr);
		if (rc2 == BN_OK)
			rc2 = bn_sigrok_cap_stop(c->dev, &derr);
		else
			bn_sigrok_cap_stop(c->dev, &(struct bn_err){ 0 });

		if (rc2 == BN_OK)
			rc2 = drain_device(c, &derr);
		flush_cevs(c, INT64_MAX);
		dropped = bn_sigrok_cap_dropped(c->dev);
		if (rc2 < 0 && rc == BN_OK)
			rc = bn_err_set(&run_err, BN_ERR_FAULT, "capture device: %s", derr.msg);
		else if (dropped > 0 && rc == BN_OK)
			rc = bn_err_set(&run_err, BN_ERR_FAULT,
					"capture device: %lld frames lost (the run could not keep up)",
					(long long)dropped);
	}
	if (c->polling) {
		struct bn_err perr = { 0 };
		int rc2 = poll_due(c, bn_world_now(c->world), &perr);

		flush_cevs(c, INT64_MAX);
		if (rc2 < 0 && rc == BN_OK)
			rc = bn_err_set(&run_err, BN_ERR_FAULT, "%s", perr.msg);
	}
	snapshot_telemetry(c);
	if (rc == BN_OK) {
		int first = rep->n_results;

		rep->status = BN_RUN_COMPLETED;
		bn_checks_end(c->checks, bn_world_now(c->world), rep);
		for (int i = first; i < rep->n_results; i++)
			if (rep->results[i].verdict != BN_VERDICT_SKIPPED)
				progress(c, &rep->results[i]);
	} else {
		rep->status = rc == BN_ERR_INTR ? BN_RUN_ABORTED : BN_RUN_ERROR;
		rep->exit_code = bench_exit_code(c, rc);
		bn_str_copy(rep->reason, sizeof(rep->reason), run_err.msg);
		end_checks_broken(c, rep);
	}
	bench_supply_follow_report(c);
	annotate_measurement(c);
	rep->sim_s = bn_time_to_s(bn_world_now(c->world));
	rep->fw_wakes = c->o->real_bench ? 0 : bn_world_wakes(c->world);
	{
		static const char *const status_names[] = { "completed", "aborted", "error" };
		struct bn_err cerr = { 0 };
		int frc;

		/* Zipping a long capture takes a while without a sample: a
		 * watcher must not take it for a hang. */
		if (o->beacon) {
			beacon_beat(c, bn_world_now(c->world));
			__atomic_store_n(&o->beacon->finishing, 1, __ATOMIC_RELAXED);
		}
		frc = finish_capture(c, status_names[rep->status], &cerr);
		if (o->beacon) {
			__atomic_store_n(&o->beacon->finishing, 0, __ATOMIC_RELAXED);
			beacon_beat(c, bn_world_now(c->world));
		}
		/* A run whose evidence is lost cannot stand as completed. */
		if (frc < 0) {
			if (rep->status == BN_RUN_COMPLETED) {
				rep->status = BN_RUN_ERROR;
				rep->exit_code = run_exit_code(c, cerr.code);
				bn_str_copy(rep->reason, sizeof(rep->reason), cerr.msg);
			}
			bn_err_log("%s", cerr.msg);
		}
	}
	rc = BN_OK;
out:
	if (c->fx && !c->safed) {
		struct bn_err serr = { 0 };

		/* Every path that touched an instrument leaves it safe. */
		if (bench_safe(c, &serr) < 0)
			bn_err_log("SAFE STATE NOT REACHED: %s", serr.msg);
	}
	bench_close_own(c);
	if (c->usbh_open)
		bn_usb_host_close(&c->usbh);
	if (c->dev)
		bn_sigrok_cap_close(c->dev);
	for (int i = 0; i < c->evq_nstr; i++)
		free(c->evq_str[i]);
	free(c->evq_str);
	free(c->evq);
	if (c->srw)
		bn_srw_discard(c->srw);
	if (c->evlog)
		bn_evlog_discard(c->evlog);
	rep->wall_s = bn_mono_s() - t0;
	bn_checks_free(c->checks);
	/* Whatever the hook bound to the world lets go of it first. */
	if (c->world && o->world_hook)
		o->world_hook(o->world_hook_user, NULL);
	bn_world_free(c->world);
	free(c->moves);
	bn_ring_free(&c->win);
	bn_fw_unload(&c->fw);
	if (c->have_lim && !c->lim_borrowed)
		bn_limits_free(&c->lim);
	if (c->have_scn)
		bn_scenario_free(&c->scn);
	free(c);
	return rc;
}
