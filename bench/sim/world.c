#define BN_LOG_MODULE "sim"
#include "sim/world.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "sim/battery.h"
#include "sim/lines.h"
#include "core/text.h"

#define WORLD_MAX_TELEMETRY 32
#define WORLD_DEFAULT_LIVELOCK 10000
/* The system load is declared as a VBUS-side current at nominal VBUS. */
#define WORLD_NOMINAL_VBUS_V 5.0
#define WORLD_DEFAULT_BATTERY_V 3.9
#define WORLD_BACKFEED_A 0.5
#define WORLD_MAX_SLICE_US (BN_US_PER_S / 4)
/* A capacitive quantity counts as settled this close to its steady
 * state: it then snaps there, and samples repeat exactly again. */
#define WORLD_SETTLE_VBUS_V 1e-6
#define WORLD_SETTLE_LINE_V 1e-7

/* One capacitive quantity between two replans: from v0 at t0 it relaxes
 * toward v_inf with time constant tau_s, or (tau_s infinite: nothing
 * restores it) ramps at slope_v_s. [lo, hi] is the range where the piece
 * of the characteristic it follows is valid: the world replans when it
 * reaches a bound (within the microsecond after, the piece's formula is
 * still the better guess: the characteristic is continuous). It never
 * goes below floor_v (VBUS: 0 V, where the draws starve). */
struct traj {
	bn_time_us t0;
	double v0;
	double v_inf, tau_s, slope_v_s;
	double lo, hi, floor_v;
	bool moving;
};

/* What drives the device's VBUS node. */
enum vbus_drive {
	DRIVE_GONE,     /* the device is not there and sources nothing: 0 V */
	DRIVE_NONE,     /* plugged, nothing sources: the capacitance discharges */
	DRIVE_CHARGER,  /* the charger, through the cable */
	DRIVE_OTG,      /* the device's own boost */
	DRIVE_CONFLICT, /* both: the static model's answer */
};

struct world_telem {
	char key[32];
	char val[64];
};

struct bn_world {
	struct bn_world_cfg cfg;
	const struct bn_dut_phy *phy_hw;
	bn_time_us now;

	/* what touches what */
	bool plugged;      /* VBUS and GND pins in contact */
	bool vbus_switch;  /* the fixture's VBUS switch */
	bool bench_vbus_on;
	bool data_contact_seen;
	bool data_contact; /* D+, D-, ID in contact */
	bn_time_us t_data_toggle;
	int toggles_left;
	bool vbus_contact; /* the VBUS pin in contact (it bounces apart) */
	bn_time_us t_vbus_toggle;
	int vbus_toggles_left;
	double load_a;

	struct bn_charger_state chg;

	/* the device */
	const struct bcfw_firmware *fw;
	void *fw_ctx;
	struct bcfw_hal hal;
	struct bcfw_decl decl;
	uint32_t phy;
	uint32_t ilim_ma;
	bool otg_on;
	bool otg_conflict_seen;
	bool system_on;
	bn_time_us fw_wake_at;
	uint32_t fw_pending;
	bool ic_locked;
	bn_time_us ic_unlock_at;   /* the restart time runs out */
	bn_time_us uvlo_low_since; /* VBUS below the threshold since, running */
	bool ic_retry;             /* the restart time just ran out */
	bool has_battery;
	struct bn_battery bat;
	struct bcfw_config cfgs[BCFW_MAX_CONFIGS];
	int n_cfgs;

	/* the sim host (port enumeration "host") */
	bool host_attached;
	int host_config;
	bool bus_suspended;
	bool scenario_suspend;
	bn_time_us t_enum;
	bn_time_us t_idle_suspend;

	/* the sim peripheral (port enumeration "device") */
	bool periph_wait;
	bool periph_done;
	bn_time_us t_periph;

	/* the port's VDM responder */
	bool resp_on;
	bn_time_us resp_at;
	bool resp_to;
	bool resp_blocked;        /* while the device is connected */
	bn_time_us resp_block_until;

	/* solved state: the values now */
	struct bn_lines_v lines;
	double vbus_v, i_dev_a;
	bool sess_vld;
	bool solved_once;

	/* capacitance (each false: the state follows the switches at once) */
	bool vbus_dyn, lines_dyn;
	enum vbus_drive drive;
	struct traj vbus_tr;
	double vbus_cin_f;        /* the device input's share of the node's capacitance */
	double vbus_bleed_s;      /* the input's discharge conductance */
	double i_dev_eff_a;       /* the IC's draw as it flows (less when VBUS is at 0 V) */
	double i_load_eff_a;      /* the bench load on the node */
	struct traj line_tr[2];   /* D+, D- */
	bn_time_us t_dyn;         /* a moving quantity reaches a level or settles */
	bool dyn_only;            /* this replan is only for what moves */
	double demand_a;          /* device_demand_a() as the last full solve saw it */
	/* IBUS with capacitance: the charge through the receptacle since the
	 * last sample, accumulated at every change */
	bn_time_us tick_t;        /* the last sample's time (-1: none yet) */
	bn_time_us q_t;           /* accumulated up to here */
	double q_c;
	bool q_have, q_mixed;     /* a value seen; more than one, or a moving one */
	double q_i_a;             /* the one value */

	/* the charger's time behaviour (profile v2); without it chg_eff is
	 * NULL and none of this acts */
	struct bn_charger *chg_eff; /* a copy holding the curve in force now */
	double chg_offset_v;      /* with capacitance: its offset, held until t_chg */
	bn_time_us t_chg;         /* its next replan: schedule, series sample, offset step */

	/* sampling */
	double rate_hz;
	int64_t next_tick_k;
	struct bn_sample cur;

	struct world_telem telem[WORLD_MAX_TELEMETRY];
	int n_telem;

	long wakes;
	long same_t_wakes;
	bn_time_us last_wake_t;
	struct bn_err fault;
};

static void emit(struct bn_world *w, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct bn_world *w, const char *kind, const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	if (!w->cfg.sink.event)
		return;
	va_start(ap, fmt);
	bn_str_vfmt(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	w->cfg.sink.event(w->cfg.sink.user, w->now, kind, detail);
}

static void cev(struct bn_world *w, enum bn_cev_kind kind, int value, double num,
		const char *key, const char *text)
{
	struct bn_cev ev = {
		.kind = kind, .t_us = w->now, .value = value, .num = num, .key = key, .text = text,
	};

	if (w->cfg.sink.cev)
		w->cfg.sink.cev(w->cfg.sink.user, &ev);
}

/* The bench's own view of VBUS: it applied it, or not. */
static void bench_vbus(struct bn_world *w)
{
	bool on = w->plugged && w->vbus_switch && w->cfg.port->vbus == BN_PORT_VBUS_EXTERNAL;

	if (on != w->bench_vbus_on) {
		w->bench_vbus_on = on;
		cev(w, on ? BN_CEV_VBUS_ON : BN_CEV_VBUS_OFF, 0, 0.0, NULL, NULL);
	}
}

static bn_time_us tmin(bn_time_us a, bn_time_us b)
{
	return a < b ? a : b;
}

static bn_time_us tick_time(const struct bn_world *w, int64_t k)
{
	return bn_tick_time(k, w->rate_hz);
}

/* ---- capacitive quantities ---- */

static void traj_hold(struct traj *tr, bn_time_us t, double v)
{
	*tr = (struct traj){ .t0 = t, .v0 = v, .v_inf = v, .lo = -INFINITY, .hi = INFINITY,
			     .floor_v = -INFINITY };
}

static double traj_at(const struct traj *tr, bn_time_us t)
{
	double dt_s, v;

	if (!tr->moving || t <= tr->t0)
		return tr->v0;
	dt_s = (double)(t - tr->t0) / 1e6;
	if (isinf(tr->tau_s))
		v = tr->v0 + tr->slope_v_s * dt_s;
	else
		v = tr->v_inf + (tr->v0 - tr->v_inf) * exp(-dt_s / tr->tau_s);
	return fmax(v, tr->floor_v);
}

/* dv/dt at a value v the trajectory passes. */
static double traj_slope(const struct traj *tr, double v)
{
	double dv;

	if (!tr->moving)
		return 0.0;
	dv = isinf(tr->tau_s) ? tr->slope_v_s : (tr->v_inf - v) / tr->tau_s;
	/* held at the floor */
	return v <= tr->floor_v && dv < 0.0 ? 0.0 : dv;
}

/* Seconds from t0 until the trajectory reaches level; INFINITY if never. */
static double traj_reach_s(const struct traj *tr, double level)
{
	double d0 = tr->v0 - level;

	if (!tr->moving)
		return INFINITY;
	if (isinf(tr->tau_s)) {
		double dt;

		if (tr->slope_v_s == 0.0)
			return INFINITY;
		dt = -d0 / tr->slope_v_s;
		return dt >= 0.0 ? dt : INFINITY;
	}
	{
		double a = tr->v0 - tr->v_inf, b = level - tr->v_inf;

		/* level between v0 and v_inf (v_inf itself only in the limit) */
		if (a == 0.0 || b == 0.0 || (a > 0.0) != (b > 0.0) || fabs(b) > fabs(a))
			return INFINITY;
		return tr->tau_s * log(a / b);
	}
}

/* The first whole microsecond after t0 at which the side of level the
 * trajectory is on has changed (a comparator on it flips); NEVER if it
 * does not. A trajectory that starts on the level leaves it at once. */
static bn_time_us traj_cross(const struct traj *tr, double level)
{
	double dt_s;

	if (!tr->moving || !isfinite(level))
		return BN_TIME_NEVER;
	if (tr->v0 == level)
		return traj_slope(tr, tr->v0) != 0.0 ? tr->t0 + 1 : BN_TIME_NEVER;
	dt_s = traj_reach_s(tr, level);
	if (!(dt_s < 1e9))
		return BN_TIME_NEVER;
	return tr->t0 + 1 + (bn_time_us)floor(dt_s * 1e6);
}

/* When the trajectory is within eps of where it settles (or at a bound). */
static bn_time_us traj_settle(const struct traj *tr, double eps)
{
	bn_time_us t = BN_TIME_NEVER;

	if (!tr->moving)
		return t;
	t = tmin(t, traj_cross(tr, tr->lo));
	t = tmin(t, traj_cross(tr, tr->hi));
	if (!isinf(tr->tau_s) && tr->v_inf >= tr->lo && tr->v_inf <= tr->hi) {
		double d = fabs(tr->v0 - tr->v_inf);
		double dt_s = d > eps ? tr->tau_s * log(d / eps) : 0.0;

		if (dt_s < 1e9)
			t = tmin(t, tr->t0 + 1 + (bn_time_us)ceil(dt_s * 1e6));
	}
	return t;
}

/* Start a trajectory at (t, v) toward what dv/dt = (a - b v) / c gives,
 * inside [lo, hi]: settled when it is there already or c is 0. */
static void traj_plan(struct traj *tr, bn_time_us t, double v, double a, double b, double c,
		      double lo, double hi, double eps)
{
	traj_hold(tr, t, v);
	tr->lo = lo;
	tr->hi = hi;
	if (b > 0.0) {
		tr->v_inf = a / b;
		tr->tau_s = c / b;
		if (fabs(v - tr->v_inf) <= eps || !(tr->tau_s > 0.0)) {
			/* settled, or no capacitance: at its steady state (in range) */
			tr->v0 = fmin(fmax(tr->v_inf, lo), hi);
			return;
		}
	} else {
		tr->tau_s = INFINITY;
		tr->slope_v_s = c > 0.0 ? a / c : (a > 0.0 ? INFINITY : a < 0.0 ? -INFINITY : 0.0);
		if (a == 0.0)
			return;
		if (isinf(tr->slope_v_s)) {
			double to = a > 0.0 ? hi : lo;

			tr->v0 = isfinite(to) ? to : v;
			return;
		}
	}
	/* already at the bound it moves toward */
	if ((v <= lo && (b > 0.0 ? tr->v_inf < v : a < 0.0)) ||
	    (v >= hi && (b > 0.0 ? tr->v_inf > v : a > 0.0))) {
		tr->v0 = v <= lo ? lo : hi;
		return;
	}
	tr->moving = true;
}

static bool system_running(const struct bn_world *w)
{
	if (!w->system_on)
		return false;
	return !w->has_battery || !bn_battery_is_dead(&w->bat) || w->i_dev_a > 0.0;
}

/* What the charger IC would draw if its input limit allowed: the system
 * plus the battery's charge current, as VBUS-side current. */
static double device_demand_a(const struct bn_world *w)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double demand = system_running(w) ? d->system_load_a : 0.0;

	if (w->has_battery && !bn_battery_is_full(&w->bat))
		demand += d->battery.max_charge_a * bn_battery_voltage(&w->bat) /
			  (WORLD_NOMINAL_VBUS_V * d->battery.efficiency);
	return demand;
}

/* The charger's output reaches the device's VBUS pin (it may be off). */
static bool charger_connected(const struct bn_world *w)
{
	return w->plugged && w->vbus_contact && w->vbus_switch &&
	       w->cfg.port->vbus == BN_PORT_VBUS_EXTERNAL && w->cfg.charger;
}

static bool external_vbus(const struct bn_world *w)
{
	return charger_connected(w) && !w->chg.off;
}

/* ---- the charger in time (bench/sim/charger_time.c) ---- */

/* The charger's output is on: the bench applies it and it is not shut
 * down (a bouncing VBUS pin does not turn it off). */
static bool output_on(const struct bn_world *w)
{
	return w->bench_vbus_on && w->cfg.charger && !w->chg.off;
}

/* The curve the node sees now: the profile's, or the one in force. */
static const struct bn_charger *chg_curve(const struct bn_world *w)
{
	return w->chg_eff ? w->chg_eff : w->cfg.charger;
}

/* Receptacle VBUS at a total draw i_a now, the static model. */
static double chg_vbus(const struct bn_world *w, double i_a)
{
	if (w->chg_eff)
		return bn_charger_vbus_at(w->cfg.charger, &w->chg, w->now, i_a);
	return bn_charger_vbus(w->cfg.charger, &w->chg, i_a);
}

/* Before a solve: the output on or off, the curve in force now. */
static void chg_time(struct bn_world *w)
{
	if (!w->chg_eff)
		return;
	bn_charger_output(w->cfg.charger, &w->chg, output_on(w), w->now);
	bn_charger_curve_now(w->cfg.charger, &w->chg, w->now, w->chg_eff);
	w->t_chg = bn_charger_next_change(w->cfg.charger, &w->chg, w->now, w->vbus_dyn);
	w->chg_offset_v = 0.0;
}

/* The draw the charger delivers from now on is i_a: its regulation loop
 * steps. With capacitance the charger's moving part (its offset, a
 * series) is held over the interval to its next replan at its value in
 * the interval's middle: the node's RC then stays one exponential. */
static void chg_commit(struct bn_world *w, double i_a)
{
	const struct bn_charger *c = w->cfg.charger;
	bn_time_us t_hold;

	if (!w->chg_eff)
		return;
	bn_charger_draw(c, &w->chg, w->now, i_a);
	if (!w->vbus_dyn)
		return;
	w->t_chg = bn_charger_next_change(c, &w->chg, w->now, true);
	t_hold = w->t_chg == BN_TIME_NEVER ? w->now : w->now + (w->t_chg - w->now) / 2;
	bn_charger_curve_now(c, &w->chg, t_hold, w->chg_eff);
	w->chg_offset_v = bn_charger_offset_v(c, &w->chg, t_hold, i_a);
}

/* Without capacitance VBUS still moves with a charger in time: a
 * series' line (a ramp until its next sample) or the loop's offset (an
 * exponential toward the curve), in closed form on the trajectory the
 * capacitive model uses, so samples show it at their own time and the
 * watched levels replan. */
static void chg_static_traj(struct bn_world *w, double i_a)
{
	const struct bn_charger *c = w->cfg.charger;
	struct traj *tr = &w->vbus_tr;
	double slope, d;

	traj_hold(tr, w->now, w->vbus_v);
	if (!external_vbus(w) || w->otg_on || !(w->vbus_v > 0.0))
		return;
	tr->floor_v = 0.0;
	slope = bn_charger_vbus_slope(c, &w->chg, w->now, i_a);
	d = bn_charger_offset_v(c, &w->chg, w->now, i_a);
	if (slope != 0.0) {
		tr->tau_s = INFINITY;
		tr->slope_v_s = slope;
		tr->moving = true;
	} else if (d != 0.0) {
		tr->v_inf = w->vbus_v - d;
		tr->tau_s = w->chg.offset_tau_s;
		tr->moving = true;
	}
}

/* The charger IC asks to draw (its input limit is set, it has a demand). */
static double ic_want_a(const struct bn_world *w)
{
	return w->ilim_ma > 0 ? fmin(w->ilim_ma / 1000.0, w->demand_a) : 0.0;
}

static void ic_trip(struct bn_world *w, bn_time_us t, double i_dev)
{
	const struct bn_dut_decl *d = w->cfg.dut;

	w->ic_locked = true;
	w->uvlo_low_since = BN_TIME_NEVER;
	w->ic_retry = false;
	if (!(i_dev > 0.0)) {
		/* not drawing: the IC is merely unpowered, no restart timer */
		w->ic_unlock_at = BN_TIME_NEVER;
		return;
	}
	/* The charger IC's input collapses under its own draw: it locks out
	 * and retries after its restart time. */
	w->ic_unlock_at = t + d->uvlo_restart_us;
	emit(w, "uvlo", "charger IC input below %.2f V at %.0f mA", d->uvlo_v, i_dev * 1000.0);
}

/* The lockout's state for VBUS v now, before the draw is decided: the
 * restart time ran out (a retry finding its input still under the
 * threshold locks out again) and the release above the threshold plus
 * its hysteresis. */
static void ic_release(struct bn_world *w, double v)
{
	const struct bn_dut_decl *d = w->cfg.dut;

	if (!w->ic_locked)
		return;
	if (w->ic_unlock_at == BN_TIME_NEVER && v >= d->uvlo_v + d->uvlo_hyst_v) {
		w->ic_locked = false;
		w->ic_retry = false;
		return;
	}
	if (w->ic_retry) {
		w->ic_retry = false;
		if (v < d->uvlo_v && ic_want_a(w) > 0.0)
			ic_trip(w, w->now, ic_want_a(w));
	}
}

/* Below the threshold while running: trip at once or after the
 * deglitch time. Returns true when it tripped. */
static bool ic_below(struct bn_world *w, double i_dev)
{
	const struct bn_dut_decl *d = w->cfg.dut;

	if (w->uvlo_low_since == BN_TIME_NEVER)
		w->uvlo_low_since = w->now;
	if (w->now - w->uvlo_low_since < d->uvlo_deglitch_us)
		return false;
	ic_trip(w, w->uvlo_low_since + d->uvlo_deglitch_us, i_dev);
	return true;
}

/* No capacitance: VBUS follows the draw at once (the charger's curve less
 * the cable's drop), and the lockout acts on the VBUS the draw gives. */
static void solve_vbus_static(struct bn_world *w)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double i_dev = 0.0, v = 0.0;

	if (external_vbus(w)) {
		if (!w->ic_locked)
			i_dev = ic_want_a(w);
		v = chg_vbus(w, i_dev + w->load_a);
		if (w->ic_locked) {
			ic_release(w, v);
			if (!w->ic_locked) {
				i_dev = ic_want_a(w);
				v = chg_vbus(w, i_dev + w->load_a);
			}
		}
		if (i_dev > 0.0 && v < d->uvlo_v) {
			if (ic_below(w, i_dev)) {
				i_dev = 0.0;
				v = chg_vbus(w, w->load_a);
			}
		} else {
			w->uvlo_low_since = BN_TIME_NEVER;
		}
		if (w->otg_on) {
			/* Two sources on VBUS: the device's boost pushes its
			 * rated current back into the charger. */
			i_dev = -(d->otg_rating_a > 0.0 ? d->otg_rating_a : WORLD_BACKFEED_A);
			if (!w->otg_conflict_seen) {
				w->otg_conflict_seen = true;
				emit(w, "otg_conflict", "device sources VBUS while VBUS is supplied");
			}
		}
	} else {
		w->uvlo_low_since = BN_TIME_NEVER;
		if (w->otg_on) {
			const struct bn_dut_phy *p = w->phy_hw;
			double i_out = w->plugged && w->vbus_contact ? w->load_a : 0.0;

			v = p->otg_v - i_out * p->otg_r_ohm;
			if (v < 0.0)
				v = 0.0;
			i_dev = -i_out;
		}
	}
	w->vbus_v = v;
	w->i_dev_a = i_dev;
	if (w->chg_eff) {
		double i_chg = external_vbus(w) ? i_dev + w->load_a : 0.0;

		chg_commit(w, i_chg);
		chg_static_traj(w, i_chg);
	}
}

/* ---- VBUS with capacitance ----
 * One node, the device's VBUS pin, carrying the device's input
 * capacitance and, while the charger's output reaches it, the charger's
 * output capacitance behind the cable. The charger is the current its
 * curve gives at the node's voltage (bn_charger_piece_at); the draws are
 * the charger IC's input current and the bench load (constant currents)
 * and the input's bleed. On each linear piece of the charger the node is
 * an RC: C dv/dt = a - b v. The charger's capacitance counts with the
 * weight r_out / (r_out + cable), so the piece's time constant is the
 * Elmore delay of the ladder (charger's output resistance, its
 * capacitance, the cable, the device's): r_out (C_out + C_in) + R C_in.
 * The cable's own RC (a microsecond or two) is left out. */

static enum vbus_drive vbus_drive(const struct bn_world *w)
{
	if (w->otg_on)
		return external_vbus(w) ? DRIVE_CONFLICT : DRIVE_OTG;
	if (external_vbus(w))
		return DRIVE_CHARGER;
	return w->plugged ? DRIVE_NONE : DRIVE_GONE;
}

/* The node's equation for drive dr at voltage v (moving in direction
 * dir): dv/dt = (a - b v) / c, valid for lo <= v <= hi. */
static void vbus_piece(const struct bn_world *w, enum vbus_drive dr, double v, int dir,
		       double i_sink, double *a, double *b, double *c, double *lo, double *hi)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double c_out = w->cfg.charger ? w->cfg.charger->output_cap_f : 0.0;

	*a = -i_sink;
	*b = w->vbus_bleed_s;
	*c = d->vbus_cap_f + (charger_connected(w) ? c_out : 0.0);
	*lo = 0.0;
	*hi = INFINITY;
	if (dr == DRIVE_CHARGER) {
		struct bn_charger_piece p;
		double r = w->cfg.charger->cable_ohm, off = w->chg_offset_v;

		/* a held offset moves the whole characteristic up or down */
		bn_charger_piece_at(chg_curve(w), v - off, dir, &p);
		if (off != 0.0) {
			p.v_lo += off;
			p.v_hi += off;
			p.g_v += off;
		}
		if (isinf(p.s_ohm)) {
			*a += p.i_a;
		} else {
			*a += p.g_v / p.s_ohm;
			*b += 1.0 / p.s_ohm;
			if (!isinf(p.r_out_ohm) && r > 0.0)
				*c = d->vbus_cap_f + c_out * p.r_out_ohm / (p.r_out_ohm + r);
		}
		*lo = fmax(p.v_lo, 0.0);
		*hi = p.v_hi;
	} else if (dr == DRIVE_OTG) {
		double r = fmax(w->phy_hw->otg_r_ohm, BN_CHARGER_MIN_S_OHM);

		*a += w->phy_hw->otg_v / r;
		*b += 1.0 / r;
	}
}

/* Plan VBUS from its value now: the draw the lockout allows, the piece
 * of the charger it sits on, the trajectory to the piece's end or the
 * steady state. */
static void solve_vbus_dyn(struct bn_world *w)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double v = traj_at(&w->vbus_tr, w->now);
	double i_dev, i_load, a, b, c, lo, hi, net;
	enum vbus_drive dr = vbus_drive(w);
	int dir;

	w->drive = dr;
	if (dr == DRIVE_GONE && !w->ic_locked) {
		/* the device is off the bench: its charger IC is unpowered */
		w->ic_locked = true;
		w->ic_unlock_at = BN_TIME_NEVER;
	}
	if (dr == DRIVE_GONE || dr == DRIVE_CONFLICT) {
		/* the static model's answer, at once */
		solve_vbus_static(w);
		traj_hold(&w->vbus_tr, w->now, w->vbus_v);
		w->i_dev_eff_a = w->i_dev_a;
		w->i_load_eff_a = 0.0;
		return;
	}
	ic_release(w, v);
	i_dev = dr != DRIVE_OTG && !w->ic_locked ? ic_want_a(w) : 0.0;
	if (!w->ic_locked && v < d->uvlo_v && dr != DRIVE_OTG) {
		if (ic_below(w, i_dev))
			i_dev = 0.0;
	} else {
		w->uvlo_low_since = BN_TIME_NEVER;
	}
	i_load = w->plugged && w->vbus_contact ? w->load_a : 0.0;
	chg_commit(w, dr == DRIVE_CHARGER ? i_dev + i_load : 0.0);
	for (int k = 0; k < BN_CHARGER_MAX_POINTS + 3; k++) {
		/* the direction it moves in picks the piece at a boundary */
		vbus_piece(w, dr, v, 1, i_dev + i_load, &a, &b, &c, &lo, &hi);
		net = a - b * v;
		dir = net < 0.0 ? -1 : 1;
		if (dir < 0)
			vbus_piece(w, dr, v, -1, i_dev + i_load, &a, &b, &c, &lo, &hi);
		traj_plan(&w->vbus_tr, w->now, v, a, b, c, lo, hi, WORLD_SETTLE_VBUS_V);
		w->vbus_tr.floor_v = 0.0;
		/* a piece without capacitance (the charger's only, behind an
		 * ideal piece) is crossed at once: on to the next one */
		if (w->vbus_tr.moving || w->vbus_tr.v0 == v || w->vbus_tr.v0 <= 0.0 ||
		    (w->vbus_tr.v0 != lo && w->vbus_tr.v0 != hi))
			break;
		v = w->vbus_tr.v0;
	}
	w->vbus_v = w->vbus_tr.v0;
	w->i_dev_a = dr == DRIVE_OTG ? -i_load : i_dev;
	w->i_dev_eff_a = i_dev;
	w->i_load_eff_a = i_load;
	if (w->vbus_v <= 0.0 && !w->vbus_tr.moving && i_dev + i_load > 0.0) {
		/* at 0 V the draws get only what flows in */
		double i_in = dr == DRIVE_CHARGER ? bn_charger_i_src(chg_curve(w), 0.0 - w->chg_offset_v)
						  : 0.0;

		w->i_load_eff_a = fmin(i_load, i_in);
		w->i_dev_eff_a = fmin(i_dev, i_in - w->i_load_eff_a);
	}
}

/* The current into the device through its receptacle at VBUS v: what the
 * charger IC and the bleed draw plus what charges the input capacitance
 * as VBUS moves at dv_dt (negative when the device sources VBUS). */
static double vbus_ibus(const struct bn_world *w, double v, double dv_dt)
{
	if (!w->vbus_dyn || w->drive == DRIVE_GONE || w->drive == DRIVE_CONFLICT)
		return w->i_dev_a;
	if (w->drive == DRIVE_OTG)
		return -w->i_load_eff_a;
	if (!(w->plugged && w->vbus_contact))
		return 0.0;
	return w->i_dev_eff_a + v * w->vbus_bleed_s + w->cfg.dut->vbus_cap_f * dv_dt;
}

/* Add the charge through the receptacle from the last accumulation to
 * t_to, in the state as it is (before an event changes it). */
static void ibus_acc(struct bn_world *w, bn_time_us t_to)
{
	double dt_s, i_a;

	if (t_to <= w->q_t)
		return;
	dt_s = (double)(t_to - w->q_t) / 1e6;
	if (w->vbus_tr.moving && w->plugged && w->vbus_contact &&
	    (w->drive == DRIVE_CHARGER || w->drive == DRIVE_NONE)) {
		double va = traj_at(&w->vbus_tr, w->q_t), vb = traj_at(&w->vbus_tr, t_to);

		/* the bleed's share by the trapezoid: microamperes */
		w->q_c += (w->i_dev_eff_a + w->vbus_bleed_s * (va + vb) / 2.0) * dt_s +
			  w->cfg.dut->vbus_cap_f * (vb - va);
		w->q_mixed = true;
	} else {
		i_a = vbus_ibus(w, w->vbus_v, 0.0);
		w->q_c += i_a * dt_s;
		if (w->q_have && i_a != w->q_i_a)
			w->q_mixed = true;
		w->q_i_a = i_a;
	}
	w->q_have = true;
	w->q_t = t_to;
}

/* IBUS for the sample at tk: the average current since the last sample
 * (exactly the one value when it did not change). */
static double ibus_sample(struct bn_world *w, bn_time_us tk)
{
	double i_a;

	ibus_acc(w, tk);
	if (!w->q_have || w->tick_t < 0 || tk <= w->tick_t)
		i_a = vbus_ibus(w, w->vbus_v, 0.0);
	else if (w->q_mixed)
		i_a = w->q_c / ((double)(tk - w->tick_t) / 1e6);
	else
		i_a = w->q_i_a;
	w->q_c = 0.0;
	w->q_have = w->q_mixed = false;
	return i_a;
}

static void solve_vbus(struct bn_world *w)
{
	/* The battery's demand is read at every event and slice, as without
	 * capacitance; not when VBUS merely reaches a level or settles (a
	 * battery at its full mark would flip its top-up at that rate). */
	if (!w->dyn_only)
		w->demand_a = device_demand_a(w);
	chg_time(w);
	if (w->vbus_dyn)
		solve_vbus_dyn(w);
	else
		solve_vbus_static(w);
}

/* The charger's output current, for its shutdown rule. */
static double charger_draw_a(const struct bn_world *w)
{
	if (!external_vbus(w))
		return 0.0;
	if (w->vbus_dyn && w->drive == DRIVE_CHARGER)
		return bn_charger_i_src(chg_curve(w), w->vbus_v - w->chg_offset_v);
	return w->i_dev_a + w->load_a;
}

static void update_responder(struct bn_world *w)
{
	const struct bn_port_profile *pp = w->cfg.port;
	bool want;

	if (!pp->has_vdm_responder)
		return;
	if (!w->data_contact || !w->plugged) {
		w->resp_on = false;
		w->resp_at = BN_TIME_NEVER;
		return;
	}
	want = w->lines.dp_v >= pp->resp_dp_low_v && w->lines.dp_v <= pp->resp_dp_high_v &&
	       !w->resp_blocked && w->now >= w->resp_block_until && w->sess_vld;
	if (want == w->resp_on) {
		w->resp_at = BN_TIME_NEVER;
		return;
	}
	if (w->resp_at == BN_TIME_NEVER || w->resp_to != want) {
		w->resp_to = want;
		w->resp_at = w->now + (want ? pp->resp_on_delay_us : pp->resp_off_delay_us);
	}
}

static void update_host(struct bn_world *w)
{
	const struct bn_port_profile *pp = w->cfg.port;
	const struct bn_host_profile *h = w->cfg.host;
	bool connected = pp->enumeration == BN_PORT_ENUM_HOST && w->data_contact && w->sess_vld &&
			 (w->phy & BCFW_PHY_RDP_UP) && w->lines.dp_v > w->phy_hw->vlgc_v;

	if (connected && !w->host_attached) {
		w->host_attached = true;
		w->host_config = 0;
		w->bus_suspended = false;
		emit(w, "connect", "host sees D+ pull-up (D+ %.2f V)", w->lines.dp_v);
		cev(w, BN_CEV_CONNECT, 0, 0.0, NULL, NULL);
		/* an outside host enumerates and suspends, not the profile */
		if (!w->cfg.host_external && h->enumerates)
			w->t_enum = w->now + h->enum_delay_us;
		else if (!w->cfg.host_external)
			w->t_idle_suspend = w->now + h->idle_suspend_us;
	} else if (!connected && w->host_attached) {
		w->host_attached = false;
		w->host_config = 0;
		w->bus_suspended = false;
		w->t_enum = w->t_idle_suspend = BN_TIME_NEVER;
		emit(w, "disconnect", "D+ pull-up gone");
		cev(w, BN_CEV_DISCONNECT, 0, 0.0, NULL, NULL);
	}
	/* The CDP's responder stays off while a device is connected. */
	if (pp->has_vdm_responder) {
		bool pulled = (w->phy & BCFW_PHY_RDP_UP) && w->data_contact;

		if (pulled && !w->resp_blocked) {
			w->resp_blocked = true;
		} else if (!pulled && w->resp_blocked) {
			w->resp_blocked = false;
			w->resp_block_until = w->now + pp->resp_reenable_us;
		}
	}
}

static void update_peripheral(struct bn_world *w)
{
	bool ready = w->cfg.port->enumeration == BN_PORT_ENUM_DEVICE && w->data_contact &&
		     (w->phy & BCFW_PHY_HOST_PD) && w->vbus_v > w->phy_hw->sess_vld_v;

	if (ready && !w->periph_wait && !w->periph_done) {
		w->periph_wait = true;
		w->t_periph = w->now + w->cfg.host->enum_delay_us;
	} else if (!ready) {
		if (w->periph_done)
			emit(w, "peripheral_gone", "%s", w->cfg.port->peripheral);
		w->periph_wait = w->periph_done = false;
		w->t_periph = BN_TIME_NEVER;
	}
}

static void refresh_sample(struct bn_world *w)
{
	w->cur.v[BN_CH_VBUS] = w->vbus_v;
	w->cur.v[BN_CH_IBUS] = w->vbus_dyn ? vbus_ibus(w, w->vbus_v, traj_slope(&w->vbus_tr, w->vbus_v))
					   : w->i_dev_a;
	w->cur.v[BN_CH_DP] = w->lines.dp_v;
	w->cur.v[BN_CH_DM] = w->lines.dm_v;
	w->cur.v[BN_CH_ID] = w->lines.id_v;
}

/* A data line's capacitance: the PHY's, and while the lines touch the
 * port's (its cable included) and the fixture's. */
static double line_cap_f(const struct bn_world *w, bool contact)
{
	double c = w->phy_hw->line_cap_f;

	if (contact)
		c += w->cfg.port->line_cap_f + w->cfg.line_cap_f;
	return c;
}

/* Solve the data lines for the present switches: at once without
 * capacitance, else each of D+ and D- relaxes from its value now toward
 * the solution through the network's Thevenin resistance at it (the
 * steady state is the solver's, exactly). */
static void solve_lines(struct bn_world *w)
{
	struct bn_lines_state st = {
		.data_contact = w->data_contact && w->plugged,
		.phy = w->phy,
		.responder_on = w->resp_on,
		.gnd_offset_v = w->cfg.gnd_offset_v,
	};
	struct bn_err e = { 0 };
	double r_th[BN_LINE_COUNT], now_v[2], c;
	int rc;

	if (!w->lines_dyn) {
		if (bn_lines_solve(w->cfg.port, w->phy_hw, &st, &w->lines, &e) < 0)
			bn_err_set(&w->fault, BN_ERR_BUG, "data-line network: %s", e.msg);
		return;
	}
	for (int k = 0; k < 2; k++)
		now_v[k] = traj_at(&w->line_tr[k], w->now);
	rc = bn_lines_solve_rth(w->cfg.port, w->phy_hw, &st, &w->lines, r_th, &e);
	if (rc < 0) {
		bn_err_set(&w->fault, BN_ERR_BUG, "data-line network: %s", e.msg);
		return;
	}
	c = line_cap_f(w, st.data_contact);
	for (int k = 0; k < 2; k++) {
		double ss = k == BN_LINE_DP ? w->lines.dp_v : w->lines.dm_v;
		struct traj *tr = &w->line_tr[k];

		traj_hold(tr, w->now, ss);
		if (w->solved_once && r_th[k] * c > 0.0 &&
		    fabs(now_v[k] - ss) > WORLD_SETTLE_LINE_V) {
			tr->v0 = now_v[k];
			tr->tau_s = r_th[k] * c;
			tr->moving = true;
		}
	}
	w->lines.dp_v = w->line_tr[BN_LINE_DP].v0;
	w->lines.dm_v = w->line_tr[BN_LINE_DM].v0;
}

/* The next time a moving quantity reaches a level something watches
 * (the charger IC's thresholds, session valid, the charger's shutdown
 * current, the host's and the CDP responder's D+ thresholds), the end of
 * its piece, or settles. */
static void plan_dyn(struct bn_world *w)
{
	bn_time_us t = BN_TIME_NEVER;

	if (w->vbus_tr.moving) {
		const struct bn_dut_decl *d = w->cfg.dut;
		const struct traj *tr = &w->vbus_tr;

		t = tmin(t, traj_settle(tr, WORLD_SETTLE_VBUS_V));
		t = tmin(t, traj_cross(tr, d->uvlo_v));
		t = tmin(t, traj_cross(tr, d->uvlo_v + d->uvlo_hyst_v));
		t = tmin(t, traj_cross(tr, w->phy_hw->sess_vld_v));
		if (w->cfg.charger && w->cfg.charger->has_shutdown && w->drive == DRIVE_CHARGER)
			t = tmin(t, traj_cross(tr, bn_charger_vbus(chg_curve(w), NULL,
								   w->cfg.charger->shutdown_above_a) +
							   w->chg_offset_v));
	}
	if (w->chg_eff)
		t = tmin(t, w->t_chg);
	for (int k = 0; k < 2; k++) {
		const struct traj *tr = &w->line_tr[k];

		if (!tr->moving)
			continue;
		t = tmin(t, traj_settle(tr, WORLD_SETTLE_LINE_V));
		if (k == BN_LINE_DP) {
			t = tmin(t, traj_cross(tr, w->phy_hw->vlgc_v));
			if (w->cfg.port->has_vdm_responder) {
				t = tmin(t, traj_cross(tr, w->cfg.port->resp_dp_low_v));
				t = tmin(t, traj_cross(tr, w->cfg.port->resp_dp_high_v));
			}
		}
	}
	w->t_dyn = t;
}

/* Solve everything that follows instantly from the present switches
 * (and, with capacitance, from the values now). */
static void recompute(struct bn_world *w)
{
	bool was_vld = w->sess_vld;

	if (w->vbus_dyn)
		ibus_acc(w, w->now);
	solve_lines(w);
	solve_vbus(w);
	/* The charger's shutdown rule sees every change of the draw. */
	for (int k = 0; w->cfg.charger && k < 3; k++) {
		double i_a = charger_draw_a(w);

		if (!bn_charger_update(w->cfg.charger, &w->chg, w->now, i_a))
			break;
		emit(w, w->chg.off ? "charger_shutdown" : "charger_recover", "charger %s at %.0f mA",
		     w->chg.off ? "shuts down" : "recovers", i_a * 1000.0);
		solve_vbus(w);
	}
	w->sess_vld = w->vbus_v > w->phy_hw->sess_vld_v;
	if (w->solved_once && w->sess_vld != was_vld) {
		w->fw_pending |= BCFW_EV_VBUS;
		emit(w, w->sess_vld ? "vbus_valid" : "vbus_lost", "VBUS %.3f V", w->vbus_v);
	}
	w->solved_once = true;
	update_responder(w);
	update_host(w);
	update_peripheral(w);
	refresh_sample(w);
	plan_dyn(w);
}

/* The values at now of what moves, without replanning (between events). */
static void refresh_now(struct bn_world *w)
{
	if (w->vbus_tr.moving)
		w->vbus_v = traj_at(&w->vbus_tr, w->now);
	if (w->line_tr[BN_LINE_DP].moving)
		w->lines.dp_v = traj_at(&w->line_tr[BN_LINE_DP], w->now);
	if (w->line_tr[BN_LINE_DM].moving)
		w->lines.dm_v = traj_at(&w->line_tr[BN_LINE_DM], w->now);
	refresh_sample(w);
}

/* ---- the HAL the firmware sees ---- */

static uint64_t hal_now_us(void *b)
{
	return (uint64_t)((struct bn_world *)b)->now;
}

static void hal_wake_at(void *b, uint64_t t_us)
{
	struct bn_world *w = b;
	bn_time_us t = t_us > (uint64_t)INT64_MAX ? BN_TIME_NEVER : (bn_time_us)t_us;

	w->fw_wake_at = t < w->now ? w->now : t;
}

static uint32_t hal_vbus_mv(void *b)
{
	struct bn_world *w = b;

	return (uint32_t)lround(fmax(w->vbus_v, 0.0) * 1000.0);
}

static uint32_t hal_battery_mv(void *b)
{
	struct bn_world *w = b;

	return w->has_battery ? (uint32_t)lround(bn_battery_voltage(&w->bat) * 1000.0) : 0;
}

static uint32_t hal_id_mv(void *b)
{
	struct bn_world *w = b;

	/* the device reads ID against its own ground */
	return (uint32_t)lround(fmax(w->lines.id_v - w->cfg.gnd_offset_v, 0.0) * 1000.0);
}

static uint32_t hal_comparators(void *b)
{
	struct bn_world *w = b;
	const struct bn_dut_phy *p = w->phy_hw;
	/* the device's comparators work against its own ground */
	double dp_v = w->lines.dp_v - w->cfg.gnd_offset_v, dm_v = w->lines.dm_v - w->cfg.gnd_offset_v;
	uint32_t c = 0;

	if (dp_v > p->vdat_ref_v)
		c |= BCFW_CMP_DP_VDAT_REF;
	if (dm_v > p->vdat_ref_v)
		c |= BCFW_CMP_DM_VDAT_REF;
	if (dp_v > p->vlgc_v)
		c |= BCFW_CMP_DP_VLGC;
	if (dm_v > p->vlgc_v)
		c |= BCFW_CMP_DM_VLGC;
	if (w->sess_vld)
		c |= BCFW_CMP_SESS_VLD;
	return c;
}

static void hal_phy_set(void *b, uint32_t phy)
{
	struct bn_world *w = b;

	if (phy == w->phy)
		return;
	w->phy = phy;
	recompute(w);
}

static void hal_set_input_limit_ma(void *b, uint32_t ma)
{
	struct bn_world *w = b;

	if (ma == w->ilim_ma)
		return;
	w->ilim_ma = ma;
	recompute(w);
}

static void hal_source_vbus(void *b, int on)
{
	struct bn_world *w = b;

	if (!!on == w->otg_on)
		return;
	w->otg_on = !!on;
	emit(w, on ? "otg_on" : "otg_off", "device %s VBUS", on ? "sources" : "stops sourcing");
	recompute(w);
}

static void hal_advertise(void *b, const struct bcfw_config *cfg, int n)
{
	struct bn_world *w = b;

	if (n < 0)
		n = 0;
	if (n > BCFW_MAX_CONFIGS)
		n = BCFW_MAX_CONFIGS;
	memcpy(w->cfgs, cfg, sizeof(*cfg) * (size_t)n);
	w->n_cfgs = n;
}

static void hal_system_power(void *b, int on)
{
	struct bn_world *w = b;

	if (!!on == w->system_on)
		return;
	w->system_on = !!on;
	emit(w, "system", "device system power %s", on ? "on" : "off");
	recompute(w);
}

static int hal_host_config(void *b)
{
	return ((struct bn_world *)b)->host_config;
}

static int hal_bus_suspended(void *b)
{
	return ((struct bn_world *)b)->bus_suspended;
}

static void telem_set(struct bn_world *w, const char *key, const char *val)
{
	int i;

	for (i = 0; i < w->n_telem; i++)
		if (!strcmp(w->telem[i].key, key))
			break;
	if (i == w->n_telem) {
		if (w->n_telem == WORLD_MAX_TELEMETRY)
			return;
		w->n_telem++;
		bn_str_copy(w->telem[i].key, sizeof(w->telem[i].key), key);
		w->telem[i].val[0] = '\0';
	} else if (!strcmp(w->telem[i].val, val)) {
		return;
	}
	bn_str_copy(w->telem[i].val, sizeof(w->telem[i].val), val);
	emit(w, "telemetry", "%s=%s", key, val);
	cev(w, BN_CEV_TELEMETRY, 0, 0.0, w->telem[i].key, w->telem[i].val);
}

static void hal_telemetry_str(void *b, const char *key, const char *value)
{
	if (key && value)
		telem_set(b, key, value);
}

static void hal_telemetry_int(void *b, const char *key, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	if (key)
		telem_set(b, key, buf);
}

/* ---- life cycle ---- */

/* The copy a charger in time keeps its curve in force in (none for a
 * charger without time behaviour). */
static int chg_set(struct bn_world *w, struct bn_err *err)
{
	const struct bn_charger *c = w->cfg.charger;

	free(w->chg_eff);
	w->chg_eff = NULL;
	w->chg_offset_v = 0.0;
	w->t_chg = BN_TIME_NEVER;
	if (!c || !bn_charger_timed(c))
		return BN_OK;
	w->chg_eff = malloc(sizeof(*w->chg_eff));
	if (!w->chg_eff)
		return bn_err_set(err, BN_ERR_NOMEM, "world: out of memory");
	memcpy(w->chg_eff, c, sizeof(*c));
	return BN_OK;
}

/* Tell a watcher the firmware runs (see in_fw_call in sim/world.h). */
static void fw_call(struct bn_world *w, int32_t in)
{
	if (w->cfg.in_fw_call)
		__atomic_store_n(w->cfg.in_fw_call, in, __ATOMIC_RELAXED);
}

int bn_world_new(const struct bn_world_cfg *cfg, struct bn_world **out, struct bn_err *err)
{
	struct bn_world *w;
	const struct bn_dut_decl *d = cfg->dut;
	int rc;

	if (!cfg->lim || !cfg->port || !cfg->host || !d || !cfg->fw || cfg->sample_rate_hz <= 0)
		return bn_err_set(err, BN_ERR_ARG, "world: incomplete configuration");
	if (cfg->fw->abi_version != BCFW_ABI_VERSION)
		return bn_err_set(err, BN_ERR_DATA, "firmware \"%s\": ABI version %d, bench speaks %d",
				  cfg->fw->name, cfg->fw->abi_version, BCFW_ABI_VERSION);
	if (cfg->port->vbus == BN_PORT_VBUS_EXTERNAL && !cfg->charger)
		return bn_err_set(err, BN_ERR_ARG, "port %s supplies VBUS but no charger is given",
				  cfg->port->name);
	if (!isfinite(cfg->gnd_offset_v) || !(cfg->line_cap_f >= 0.0) || cfg->vbus_bounce_n < 0 ||
	    (cfg->vbus_bounce_n > 0 && !(cfg->vbus_bounce_us > 0)))
		return bn_err_set(err, BN_ERR_ARG,
				  "world: ground offset, line capacitance or VBUS bounce out of range");
	if (cfg->charger && (d->vbus_cap_f > 0.0 || cfg->charger->output_cap_f > 0.0) &&
	    bn_charger_check_falling(cfg->charger, err) < 0)
		return BN_ERR_DATA;
	w = calloc(1, sizeof(*w));
	if (!w)
		return bn_err_set(err, BN_ERR_NOMEM, "world: out of memory");
	w->cfg = *cfg;
	w->t_chg = BN_TIME_NEVER;
	if (chg_set(w, err) < 0) {
		free(w);
		return err ? err->code : BN_ERR_NOMEM;
	}
	if (w->cfg.livelock_wakes <= 0)
		w->cfg.livelock_wakes = WORLD_DEFAULT_LIVELOCK;
	w->phy_hw = &d->phy;
	w->rate_hz = cfg->sample_rate_hz;
	w->vbus_switch = true;
	w->system_on = true;
	w->t_data_toggle = BN_TIME_NEVER;
	w->fw_wake_at = BN_TIME_NEVER;
	w->t_enum = w->t_idle_suspend = w->t_periph = BN_TIME_NEVER;
	w->resp_at = BN_TIME_NEVER;
	w->ic_unlock_at = BN_TIME_NEVER;
	w->uvlo_low_since = BN_TIME_NEVER;
	w->t_vbus_toggle = BN_TIME_NEVER;
	w->t_dyn = BN_TIME_NEVER;
	w->tick_t = -1;
	w->q_t = 0;
	w->vbus_dyn = d->vbus_cap_f > 0.0 || (cfg->charger && cfg->charger->output_cap_f > 0.0);
	w->vbus_bleed_s = w->vbus_dyn && d->vbus_bleed_ohm > 0.0 ? 1.0 / d->vbus_bleed_ohm : 0.0;
	w->lines_dyn = d->phy.line_cap_f > 0.0 || cfg->port->line_cap_f > 0.0 || cfg->line_cap_f > 0.0;
	w->last_wake_t = -1;
	bn_charger_state_init(&w->chg);
	w->has_battery = d->has_battery;
	if (w->has_battery) {
		bn_battery_init(&w->bat, &d->battery, 1.0);
		bn_battery_set_voltage(&w->bat, isnan(cfg->battery_v) ? WORLD_DEFAULT_BATTERY_V
								      : cfg->battery_v);
	}

	w->decl.battery_powered = d->battery_powered;
	w->decl.droop_threshold_mv = (uint32_t)lround(d->droop_threshold_v * 1000.0);
	w->decl.dbp = d->dbp;
	w->decl.secondary_detection = d->secondary_detection;
	w->decl.otg_rating_ma = (uint32_t)lround(d->otg_rating_a * 1000.0);
	w->decl.id_pullup_ohm = (uint32_t)lround(d->phy.id_pullup_ohm);
	w->decl.id_pullup_mv = (uint32_t)lround(d->phy.id_pullup_v * 1000.0);
	if (d->has_battery) {
		w->decl.battery_dead_mv = (uint32_t)lround(d->battery.dead_v * 1000.0);
		w->decl.battery_weak_mv = (uint32_t)lround(d->battery.weak_v * 1000.0);
	}

	w->hal = (struct bcfw_hal){
		.bench = w,
		.now_us = hal_now_us,
		.wake_at = hal_wake_at,
		.vbus_mv = hal_vbus_mv,
		.battery_mv = hal_battery_mv,
		.id_mv = hal_id_mv,
		.comparators = hal_comparators,
		.phy_set = hal_phy_set,
		.set_input_limit_ma = hal_set_input_limit_ma,
		.source_vbus = hal_source_vbus,
		.system_power = hal_system_power,
		.advertise = hal_advertise,
		.host_config = hal_host_config,
		.bus_suspended = hal_bus_suspended,
		.telemetry_str = hal_telemetry_str,
		.telemetry_int = hal_telemetry_int,
	};
	w->fw = cfg->fw;
	w->fw_ctx = calloc(1, cfg->fw->ctx_size ? cfg->fw->ctx_size : 1);
	if (!w->fw_ctx) {
		free(w->chg_eff);
		free(w);
		return bn_err_set(err, BN_ERR_NOMEM, "world: out of memory");
	}
	recompute(w);
	if (w->fault.code) {
		bn_err_set(err, w->fault.code, "%s", w->fault.msg);
		bn_world_free(w);
		return err ? err->code : BN_ERR_BUG;
	}
	fw_call(w, 1);
	rc = w->fw->init(w->fw_ctx, &w->hal, &w->decl);
	fw_call(w, 0);
	if (rc < 0) {
		bn_err_set(err, BN_ERR_DUT, "firmware \"%s\" refused to start", w->fw->name);
		bn_world_free(w);
		return BN_ERR_DUT;
	}
	w->fw_pending = BCFW_EV_RESET;
	*out = w;
	return BN_OK;
}

void bn_world_free(struct bn_world *w)
{
	if (!w)
		return;
	free(w->fw_ctx);
	free(w->chg_eff);
	free(w);
}

/* ---- scenario actions ---- */

void bn_world_plug(struct bn_world *w)
{
	bn_time_us delay = w->cfg.data_delay_us >= 0 ? w->cfg.data_delay_us
						     : w->cfg.dut->data_contact_delay_us;

	if (w->plugged)
		return;
	w->plugged = true;
	w->data_contact = false;
	w->toggles_left = 1 + 2 * (w->cfg.bounce_n > 0 ? w->cfg.bounce_n : 0);
	w->t_data_toggle = w->now + delay;
	/* VBUS touches with the plug; a bouncing pin then breaks and makes
	 * again bounce_n times */
	w->vbus_contact = true;
	w->vbus_toggles_left = 2 * w->cfg.vbus_bounce_n;
	w->t_vbus_toggle = w->vbus_toggles_left > 0 ? w->now + w->cfg.vbus_bounce_us : BN_TIME_NEVER;
	bn_charger_state_init(&w->chg);
	emit(w, "attach", "VBUS contact; data lines in %.1f ms", delay / 1000.0);
	bench_vbus(w);
	recompute(w);
}

int bn_world_move(struct bn_world *w, const struct bn_port_profile *port,
		  const struct bn_charger *charger, const struct bn_host_profile *host,
		  bn_time_us data_delay_us, int bounce_n, bn_time_us bounce_us, struct bn_err *err)
{
	const struct bn_port_profile *np = port ? port : w->cfg.port;
	const struct bn_charger *nc = charger ? charger : w->cfg.charger;

	if (w->plugged)
		return bn_err_set(err, BN_ERR_ARG, "world: move while plugged (unplug first)");
	if (np->vbus == BN_PORT_VBUS_EXTERNAL && !nc)
		return bn_err_set(err, BN_ERR_ARG, "world: port %s needs a charger behind it", np->name);
	/* the capacitive model assumes a curve that never rises, as at the start */
	if (nc && (w->cfg.dut->vbus_cap_f > 0.0 || nc->output_cap_f > 0.0) &&
	    bn_charger_check_falling(nc, err) < 0)
		return BN_ERR_DATA;
	w->cfg.port = np;
	w->cfg.charger = nc;
	if (chg_set(w, err) < 0)
		return err ? err->code : BN_ERR_NOMEM;
	if (host)
		w->cfg.host = host;
	if (data_delay_us >= 0)
		w->cfg.data_delay_us = data_delay_us;
	if (bounce_n >= 0) {
		w->cfg.bounce_n = bounce_n;
		w->cfg.bounce_us = bounce_us;
	}
	/* the new port's own state: nothing of the old one carries over */
	w->host_attached = false;
	w->host_config = 0;
	w->bus_suspended = false;
	w->scenario_suspend = false;
	w->t_enum = w->t_idle_suspend = w->t_periph = BN_TIME_NEVER;
	w->periph_wait = w->periph_done = false;
	w->resp_on = w->resp_to = w->resp_blocked = false;
	w->resp_at = BN_TIME_NEVER;
	w->resp_block_until = 0; /* the old port's re-enable time is not the new one's */
	w->lines_dyn = w->phy_hw->line_cap_f > 0.0 || np->line_cap_f > 0.0 || w->cfg.line_cap_f > 0.0;
	w->vbus_dyn = w->cfg.dut->vbus_cap_f > 0.0 || (nc && nc->output_cap_f > 0.0);
	bn_charger_state_init(&w->chg);
	emit(w, "move", "to port %s%s%s", np->name, nc ? ", charger " : "", nc ? nc->name : "");
	recompute(w);
	return BN_OK;
}

void bn_world_unplug(struct bn_world *w)
{
	if (!w->plugged)
		return;
	w->plugged = false;
	w->data_contact = false;
	w->t_data_toggle = BN_TIME_NEVER;
	w->vbus_contact = false;
	w->t_vbus_toggle = BN_TIME_NEVER;
	w->periph_done = false;
	emit(w, "detach", "plug removed");
	if (w->data_contact_seen)
		cev(w, BN_CEV_DATA_CONTACT, 0, 0.0, NULL, NULL);
	w->data_contact_seen = false;
	bench_vbus(w);
	recompute(w);
}

void bn_world_vbus(struct bn_world *w, bool on)
{
	if (on && !w->plugged) {
		w->vbus_switch = true;
		bn_world_plug(w);
		return;
	}
	if (on == w->vbus_switch)
		return;
	w->vbus_switch = on;
	emit(w, on ? "vbus_on" : "vbus_off", "fixture VBUS switch %s", on ? "closed" : "open");
	bench_vbus(w);
	recompute(w);
}

void bn_world_load(struct bn_world *w, double load_a)
{
	w->load_a = load_a > 0.0 ? load_a : 0.0;
	emit(w, "load", "%.1f mA", w->load_a * 1000.0);
	cev(w, BN_CEV_LOAD, 0, w->load_a, NULL, NULL);
	recompute(w);
}

void bn_world_bus_suspend(struct bn_world *w, bool suspended)
{
	w->scenario_suspend = suspended;
	if (!w->host_attached) {
		emit(w, suspended ? "suspend" : "resume", "no device connected: nothing to %s",
		     suspended ? "suspend" : "resume");
		return;
	}
	if (suspended == w->bus_suspended)
		return;
	w->bus_suspended = suspended;
	w->fw_pending |= suspended ? BCFW_EV_SUSPEND : BCFW_EV_RESUME;
	emit(w, suspended ? "suspend" : "resume", "host %s the bus",
	     suspended ? "suspends" : "resumes");
	cev(w, suspended ? BN_CEV_SUSPEND : BN_CEV_RESUME, 0, 0.0, NULL, NULL);
}

void bn_world_host_config(struct bn_world *w, int value)
{
	const struct bcfw_config *c = NULL;

	if (!w->host_attached) {
		emit(w, "config", "no device connected: configuration %d not set", value);
		return;
	}
	for (int i = 0; value > 0 && i < w->n_cfgs; i++)
		if (w->cfgs[i].value == value)
			c = &w->cfgs[i];
	w->host_config = value > 0 ? value : 0;
	cev(w, BN_CEV_CONFIG, w->host_config, c ? c->max_power_ma / 1000.0 : 0.0, NULL, NULL);
	w->fw_pending |= BCFW_EV_BUS_RESET | BCFW_EV_CONFIG;
	if (w->host_config)
		emit(w, "config", "host sets configuration %d (%u mA)", w->host_config,
		     c ? c->max_power_ma : 0u);
	else
		emit(w, "config", "host leaves the device unconfigured");
}

bool bn_world_host_attached(const struct bn_world *w)
{
	return w->host_attached;
}

void bn_world_safe_state(struct bn_world *w)
{
	w->vbus_switch = false;
	w->load_a = 0.0;
	w->plugged = false;
	w->data_contact = false;
	w->t_data_toggle = BN_TIME_NEVER;
	w->vbus_contact = false;
	w->t_vbus_toggle = BN_TIME_NEVER;
	emit(w, "safe_state", "VBUS off, load off, data lines open");
	if (w->data_contact_seen)
		cev(w, BN_CEV_DATA_CONTACT, 0, 0.0, NULL, NULL);
	w->data_contact_seen = false;
	bench_vbus(w);
	recompute(w);
}

/* ---- the event loop ---- */

static void process_timers(struct bn_world *w)
{
	bn_time_us t = w->now;

	if (t >= w->t_data_toggle) {
		w->data_contact = !w->data_contact;
		w->toggles_left--;
		w->t_data_toggle = w->toggles_left > 0 ? t + w->cfg.bounce_us : BN_TIME_NEVER;
		emit(w, w->data_contact ? "data_contact" : "data_break", "data lines %s",
		     w->data_contact ? "make contact" : "bounce open");
		w->data_contact_seen = w->data_contact;
		cev(w, BN_CEV_DATA_CONTACT, 0, w->data_contact ? 1.0 : 0.0, NULL, NULL);
	}
	if (t >= w->t_vbus_toggle) {
		w->vbus_contact = !w->vbus_contact;
		w->vbus_toggles_left--;
		w->t_vbus_toggle = w->vbus_toggles_left > 0 ? t + w->cfg.vbus_bounce_us
							    : BN_TIME_NEVER;
		emit(w, w->vbus_contact ? "vbus_contact" : "vbus_break", "VBUS pin %s",
		     w->vbus_contact ? "makes contact" : "bounces open");
	}
	if (t >= w->resp_at) {
		w->resp_on = w->resp_to;
		w->resp_at = BN_TIME_NEVER;
		emit(w, w->resp_on ? "port_vdm_src_on" : "port_vdm_src_off", "port VDM_SRC on D- %s",
		     w->resp_on ? "on" : "off");
	}
	if (t >= w->ic_unlock_at) {
		/* the restart time ran out: the IC releases if its input is up */
		w->ic_unlock_at = BN_TIME_NEVER;
		w->ic_retry = true;
	}
	if (t >= w->t_dyn)
		w->t_dyn = BN_TIME_NEVER; /* recompute() replans */
	if (t >= w->t_enum) {
		const struct bcfw_config *best = NULL;

		w->t_enum = BN_TIME_NEVER;
		for (int i = 0; i < w->n_cfgs; i++)
			if (w->cfgs[i].max_power_ma <= lround(w->cfg.host->budget_a * 1000.0) &&
			    (!best || w->cfgs[i].max_power_ma > best->max_power_ma))
				best = &w->cfgs[i];
		w->host_config = best ? best->value : 0;
		cev(w, BN_CEV_CONFIG, w->host_config, best ? best->max_power_ma / 1000.0 : 0.0, NULL,
		    NULL);
		w->fw_pending |= BCFW_EV_BUS_RESET | BCFW_EV_CONFIG;
		if (best)
			emit(w, "config", "host (budget %.0f mA) sets configuration %d (%u mA)",
			     w->cfg.host->budget_a * 1000.0, best->value, best->max_power_ma);
		else
			emit(w, "config", "host (budget %.0f mA): no configuration fits, unconfigured",
			     w->cfg.host->budget_a * 1000.0);
		if (w->scenario_suspend)
			bn_world_bus_suspend(w, true);
	}
	if (t >= w->t_idle_suspend) {
		w->t_idle_suspend = BN_TIME_NEVER;
		w->bus_suspended = true;
		w->fw_pending |= BCFW_EV_SUSPEND;
		emit(w, "suspend", "no enumeration: port suspends");
		cev(w, BN_CEV_SUSPEND, 0, 0.0, NULL, NULL);
	}
	if (t >= w->t_periph) {
		w->t_periph = BN_TIME_NEVER;
		w->periph_wait = false;
		w->periph_done = true;
		w->fw_pending |= BCFW_EV_PERIPHERAL;
		cev(w, BN_CEV_PERIPHERAL, 0, 0.0, NULL, NULL);
		emit(w, "peripheral", "%s enumerated by the device",
		     w->cfg.port->peripheral[0] ? w->cfg.port->peripheral : "peripheral");
	}
	if (t >= w->fw_wake_at) {
		w->fw_wake_at = BN_TIME_NEVER;
		w->fw_pending |= BCFW_EV_TIMER;
	}
}

/* The next event other than the dynamics' replan. */
static bn_time_us next_event_but_dyn(const struct bn_world *w)
{
	bn_time_us t = w->fw_wake_at;

	if (w->fw_pending)
		return w->now;
	t = tmin(t, w->t_data_toggle);
	t = tmin(t, w->resp_at);
	t = tmin(t, w->ic_unlock_at);
	t = tmin(t, w->t_vbus_toggle);
	if (!w->ic_locked && w->uvlo_low_since != BN_TIME_NEVER)
		t = tmin(t, w->uvlo_low_since + w->cfg.dut->uvlo_deglitch_us);
	t = tmin(t, w->t_enum);
	t = tmin(t, w->t_idle_suspend);
	t = tmin(t, w->t_periph);
	if (w->cfg.charger)
		t = tmin(t, bn_charger_next_event(w->cfg.charger, &w->chg, charger_draw_a(w)));
	return t < w->now ? w->now : t;
}

static bn_time_us next_event(const struct bn_world *w)
{
	bn_time_us t = next_event_but_dyn(w);

	return w->fw_pending ? t : tmin(t, w->t_dyn < w->now ? w->now : w->t_dyn);
}

static void integrate(struct bn_world *w, bn_time_us t_to)
{
	double dt_s = (double)(t_to - w->now) / 1e6;
	double p_in = 0.0;

	if (!w->has_battery || dt_s <= 0.0)
		return;
	if (w->i_dev_a > 0.0)
		p_in = w->vbus_v * w->i_dev_a;
	bn_battery_integrate(&w->bat, p_in,
			     system_running(w) ? w->cfg.dut->system_load_a * WORLD_NOMINAL_VBUS_V : 0.0,
			     dt_s);
}

static void emit_samples(struct bn_world *w, bn_time_us before)
{
	struct bn_ticker tkr;
	bn_time_us tk;

	if (!w->cfg.sink.sample) {
		while (tick_time(w, w->next_tick_k) < before)
			w->next_tick_k++;
		return;
	}
	/* the ticks stepped by additions (one division here, not one a
	 * sample), at the times tick_time() gives */
	bn_ticker_init(&tkr, w->rate_hz, w->next_tick_k);
	if (!w->vbus_dyn && !w->vbus_tr.moving && !w->line_tr[0].moving && !w->line_tr[1].moving) {
		while ((tk = bn_ticker_peek(&tkr)) < before) {
			w->cfg.sink.sample(w->cfg.sink.user, tk, &w->cur);
			bn_ticker_next(&tkr);
			w->next_tick_k++;
		}
		return;
	}
	/* something may move: each sample shows it at its own time */
	while ((tk = bn_ticker_peek(&tkr)) < before) {
		struct bn_sample s = w->cur;

		if (w->vbus_dyn) {
			/* IBUS as the charge through the receptacle over the
			 * sample period: a front end whose bandwidth is near its
			 * sample rate shows that, not a microsecond inrush's
			 * peak, and the input's charge is kept */
			if (w->vbus_tr.moving)
				s.v[BN_CH_VBUS] = traj_at(&w->vbus_tr, tk);
			s.v[BN_CH_IBUS] = ibus_sample(w, tk);
			w->tick_t = tk;
		} else if (w->vbus_tr.moving) {
			s.v[BN_CH_VBUS] = traj_at(&w->vbus_tr, tk); /* a charger in time */
		}
		if (w->line_tr[BN_LINE_DP].moving)
			s.v[BN_CH_DP] = traj_at(&w->line_tr[BN_LINE_DP], tk);
		if (w->line_tr[BN_LINE_DM].moving)
			s.v[BN_CH_DM] = traj_at(&w->line_tr[BN_LINE_DM], tk);
		w->cfg.sink.sample(w->cfg.sink.user, tk, &s);
		bn_ticker_next(&tkr);
		w->next_tick_k++;
	}
}

static int run_firmware(struct bn_world *w, struct bn_err *err)
{
	while (w->fw_pending) {
		uint32_t ev = w->fw_pending;

		w->fw_pending = 0;
		if (w->now == w->last_wake_t) {
			if (++w->same_t_wakes > w->cfg.livelock_wakes)
				return bn_err_set(err, BN_ERR_DUT,
						  "firmware \"%s\" livelocked virtual time: woken %ld times at "
						  "t=%.6f s without time advancing",
						  w->fw->name, w->same_t_wakes, bn_time_to_s(w->now));
		} else {
			w->last_wake_t = w->now;
			w->same_t_wakes = 1;
		}
		w->wakes++;
		fw_call(w, 1);
		w->fw->wake(w->fw_ctx, ev);
		fw_call(w, 0);
		recompute(w);
		if (w->fault.code)
			return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
		/* A wake-up requested for now is a new wake at the same instant. */
		if (w->fw_wake_at <= w->now) {
			w->fw_wake_at = BN_TIME_NEVER;
			w->fw_pending |= BCFW_EV_TIMER;
		}
	}
	return BN_OK;
}

int bn_world_run_until(struct bn_world *w, bn_time_us t_end, struct bn_err *err)
{
	int rc;

	if (w->fault.code)
		return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
	for (;;) {
		bn_time_us next;

		if (w->cfg.stop_flag && *w->cfg.stop_flag)
			return bn_err_set(err, BN_ERR_INTR, "interrupted at t=%.6f s",
					  bn_time_to_s(w->now));
		rc = run_firmware(w, err);
		if (rc < 0)
			return rc;
		next = next_event(w);
		/* Long quiet stretches go in slices, so a stop request is seen
		 * and slow dynamics (the battery) are integrated finely. */
		if (next - w->now > WORLD_MAX_SLICE_US && w->now + WORLD_MAX_SLICE_US < t_end) {
			bn_time_us t = w->now + WORLD_MAX_SLICE_US;

			emit_samples(w, t);
			integrate(w, t);
			w->now = t;
			recompute(w);
			if (w->fault.code) /* a sink's bn_world_fail */
				return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
			continue;
		}
		if (next >= t_end) {
			emit_samples(w, t_end);
			integrate(w, t_end);
			w->now = t_end;
			refresh_now(w);
			return BN_OK;
		}
		emit_samples(w, next);
		integrate(w, next);
		w->now = next;
		/* only the dynamics' own replan is due */
		w->dyn_only = w->t_dyn == next && !w->fw_pending && next_event_but_dyn(w) > next;
		process_timers(w);
		recompute(w);
		w->dyn_only = false;
		if (w->fault.code)
			return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
	}
}

void bn_world_fail(struct bn_world *w, int code, const char *msg)
{
	bn_err_set(&w->fault, code, "%s", msg);
}

const struct bn_port_profile *bn_world_port(const struct bn_world *w)
{
	return w->cfg.port;
}

const struct bn_sample *bn_world_sample_now(const struct bn_world *w)
{
	return &w->cur;
}

double bn_world_load_a(const struct bn_world *w)
{
	return w->load_a;
}

bool bn_world_plugged(const struct bn_world *w)
{
	return w->plugged;
}

bool bn_world_vbus_switch(const struct bn_world *w)
{
	return w->vbus_switch;
}

uint32_t bn_world_phy(const struct bn_world *w)
{
	return w->phy;
}

bn_time_us bn_world_now(const struct bn_world *w)
{
	return w->now;
}

const char *bn_world_telemetry(const struct bn_world *w, const char *key)
{
	for (int i = 0; i < w->n_telem; i++)
		if (!strcmp(w->telem[i].key, key))
			return w->telem[i].val;
	return NULL;
}

long bn_world_wakes(const struct bn_world *w)
{
	return w->wakes;
}

int bn_world_configs(const struct bn_world *w, const struct bcfw_config **cfg)
{
	*cfg = w->cfgs;
	return w->n_cfgs;
}
