/* A supply following a charger profile (hil/supply_follow.h). */
#include "hil/supply_follow.h"
#include "core/time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int bn_follow_start(struct bn_follow *f, struct bn_supply *sp, const struct bn_guard *g,
		    const struct bn_follow_opts *o, struct bn_err *err)
{
	double v0;
	int rc;

	memset(f, 0, sizeof(*f));
	f->sp = sp;
	f->g = g;
	f->o = *o;
	if (!(f->o.deadband_v > 0))
		f->o.deadband_v = BN_FOLLOW_DEADBAND_V;
	if (!sp || !sp->ops || !sp->ops->measure || !sp->ops->set_voltage || !o->v_at)
		return bn_err_set(err, BN_ERR_ARG, "supply %s: cannot follow a curve (it cannot "
				  "measure its current or set its voltage)",
				  sp && sp->ops ? sp->ops->name : "none");
	/* the whole profile within the hard limits, before anything is sent:
	 * a refusal mid-run would leave the device on a stale voltage */
	rc = bn_guard_supply(g, o->v_max_v, o->ilim_a, err);
	if (rc < 0)
		return rc;
	/* the profile's voltage at no current: one it cannot state is a
	 * profile to refuse, not a supply to start at its maximum */
	v0 = o->v_at(o->user, 0.0, 0.0);
	if (!isfinite(v0) || v0 < 0)
		return bn_err_set(err, BN_ERR_DATA, "supply %s: the profile's voltage at 0 A when "
				  "it turns on is %g V: expected a voltage from 0 to %g V; nothing "
				  "sent", sp->ops->name, v0, o->v_max_v);
	if (v0 > o->v_max_v) {
		/* a power-up overshoot above the static curve the limits were
		 * checked for: the loop caps it too, and says so */
		v0 = o->v_max_v;
		f->capped++;
	}
	rc = bn_supply_start(sp, g, v0, o->ilim_a, err);
	if (rc < 0)
		return rc;
	f->on = true;
	f->v_set_v = v0;
	f->wall_start_s = bn_mono_s();
	f->wall_prev_s = -1;
	return BN_OK;
}

bool bn_follow_due(const struct bn_follow *f)
{
	if (!f->on)
		return false;
	return f->wall_prev_s < 0 || bn_mono_s() - f->wall_prev_s >= f->o.min_period_s;
}

int bn_follow_step(struct bn_follow *f, double t_s, struct bn_err *err)
{
	const struct bn_supply_ops *p = f->sp->ops;
	double t0 = bn_mono_s(), v = NAN, i = NAN, want, cyc;
	int rc;

	if (!f->on)
		return BN_OK;
	if (f->wall_prev_s >= 0 && t0 - f->wall_prev_s > f->max_period_s)
		f->max_period_s = t0 - f->wall_prev_s;
	f->wall_prev_s = t0;
	rc = p->measure(f->sp->priv, &v, &i, err);
	if (rc < 0)
		return rc;
	f->readings++;
	f->v_meas_v = v;
	f->i_meas_a = i;
	want = f->o.v_at(f->o.user, t_s, i > 0 ? i : 0.0);
	if (isfinite(want)) {
		if (want < 0)
			want = 0;
		if (f->o.v_max_v > 0 && want > f->o.v_max_v) {
			want = f->o.v_max_v; /* above what was guarded at start: never played */
			f->capped++;
		}
		if (fabs(want - f->v_set_v) > f->o.deadband_v) {
			rc = bn_guard_supply(f->g, want, f->o.ilim_a, err);
			if (rc == BN_OK)
				rc = p->set_voltage(f->sp->priv, want, err);
			if (rc < 0)
				return rc;
			f->sets++;
			if (fabs(want - f->v_set_v) > f->max_jump_v)
				f->max_jump_v = fabs(want - f->v_set_v);
			f->v_set_v = want;
		}
	}
	f->steps++;
	cyc = bn_mono_s() - t0;
	f->sum_cycle_s += cyc;
	if (cyc > f->max_cycle_s)
		f->max_cycle_s = cyc;
	return BN_OK;
}

void bn_follow_stats(const struct bn_follow *f, struct bn_follow_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->steps = f->steps;
	s->sets = f->sets;
	s->dur_s = f->wall_prev_s >= 0 ? f->wall_prev_s - f->wall_start_s : 0.0;
	if (f->steps > 1 && s->dur_s > 0) {
		/* steps - 1 periods between the first step and the last */
		s->loop_hz = (double)(f->steps - 1) / s->dur_s;
		s->ops_hz = (double)(f->readings - 1 + f->sets) / s->dur_s;
	}
	s->max_period_s = f->max_period_s;
	s->mean_cycle_s = f->steps ? f->sum_cycle_s / (double)f->steps : 0.0;
	s->max_cycle_s = f->max_cycle_s;
	s->max_jump_v = f->max_jump_v;
	s->capped = f->capped;
	s->v_max_v = f->o.v_max_v;
}

void bn_follow_describe(const struct bn_follow_stats *s, char *buf, size_t len)
{
	/* a current change right after a reading waits a period, then the
	 * step that reads and sets: the slowest edge the loop reproduces */
	double lag_s = s->max_period_s + s->max_cycle_s;

	char cap[96] = "";

	/* bn_follow_charger_bounds takes the static curves only: a power-up
	 * peak or a load step's overshoot above them is what was capped */
	if (s->capped)
		snprintf(cap, sizeof(cap), "; %ld overshoot setpoint(s) capped at %.2f V", s->capped,
			 s->v_max_v);
	if (s->steps < 2) {
		snprintf(buf, len, "%ld step(s): the run was too short to follow the curve; only "
			 "its voltage at the current(s) read then was set%s", s->steps, cap);
		return;
	}
	/* short: it is a report result's reason (240 bytes) */
	snprintf(buf, len, "%.1f steps/s (%.0f readings+setpoints/s): the curve's V at the current "
		 "read, up to %.0f ms late; faster edges (load-step under/overshoot, power-up "
		 "overshoot, VBUS ripple) not reproduced%s",
		 s->loop_hz, s->ops_hz, lag_s * 1e3, cap);
}

void bn_follow_charger_init(struct bn_follow_charger *fc, const struct bn_charger *c)
{
	fc->c = c;
	bn_charger_state_init(&fc->st);
	fc->started = false;
}

double bn_follow_charger_v(void *user, double t_s, double i_a)
{
	struct bn_follow_charger *fc = user;
	const struct bn_charger *c = fc->c;
	bn_time_us t = bn_time_from_s(t_s);
	double v;

	if (!fc->started) {
		bn_charger_output(c, &fc->st, true, t); /* the supply just turned on */
		fc->started = true;
	}
	/* the shutdown rule at the loop's pace: over its threshold for its
	 * time, the output goes to 0 V for its recovery */
	bn_charger_update(c, &fc->st, t, i_a);
	if (!bn_charger_timed(c))
		return bn_charger_vbus(c, &fc->st, i_a);
	/* as the simulated world: off while shut down (back on: the clock
	 * and the power-up start again), the voltage with the loop's step to
	 * this draw, then the step taken */
	bn_charger_output(c, &fc->st, !fc->st.off, t);
	v = bn_charger_vbus_at(c, &fc->st, t, i_a);
	bn_charger_draw(c, &fc->st, t, i_a);
	return v;
}

/* One curve's highest receptacle voltage and its last delivering
 * current, into the running maxima. */
static void curve_bounds(const double *i_a, const double *v_v, int n, double cable_ohm,
			 double *v_max_v, double *ilim_a)
{
	/* the curve less the cable is piecewise linear: its highest point is
	 * one of the curve's own */
	for (int k = 0; k < n; k++) {
		double v = v_v[k] - i_a[k] * cable_ohm;

		if (v > *v_max_v)
			*v_max_v = v;
		if (v_v[k] > 0 && i_a[k] > *ilim_a)
			*ilim_a = i_a[k];
	}
}

void bn_follow_charger_bounds(const struct bn_charger *c, double *v_max_v, double *ilim_a)
{
	const struct bn_charger_vbus_t *vt = &c->vbus_t;

	*v_max_v = 0.0;
	*ilim_a = 0.0;
	curve_bounds(c->i_a, c->v_v, c->n_points, c->cable_ohm, v_max_v, ilim_a);
	for (int p = 0; p < c->n_phases; p++)
		curve_bounds(c->phases[p].i_a, c->phases[p].v_v, c->phases[p].n_points, c->cable_ohm,
			     v_max_v, ilim_a);
	/* a captured series at no draw: v(t) + r_out i(t) */
	for (int k = 0; k < vt->n; k++) {
		double v = vt->v_v[k] + vt->r_out_ohm * (vt->has_i ? vt->i_a[k] : 0.0);

		if (v > *v_max_v)
			*v_max_v = v;
	}
}
