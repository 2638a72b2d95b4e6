/* A sweep's profile and measured block: see sweep_out.h. */
#include "curve/sweep_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"
#include "curve/analyze.h"
#include "curve/measured.h"

/* Reduce the swept points until none is further than this from the
 * curve drawn through the kept ones: a tenth of a typical meter's
 * resolution at 5 V, below any limit's margin. */
#define SWEEP_REDUCE_TOL_V 1e-4

double bn_sweep_knee(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
		     const struct bn_sweep_meta *m, bool *at_least)
{
	struct bn_charger *ch = malloc(sizeof(*ch));
	struct bn_err e = { 0 };
	double k = NAN;

	if (at_least)
		*at_least = false;
	/* the profile the sweep writes: its knee is the one it states */
	if (ch && bn_sweep_charger(r, c, m, ch, &e) == BN_OK)
		k = bn_profile_knee(ch, m->vchg_min_v, at_least);
	free(ch);
	return k;
}

void bn_sweep_cable(const struct bn_sweep_result *r, const struct bn_sweep_meta *m,
		    double *ohm, double *u_ohm, const char **from)
{
	double i[BN_SWEEP_MAX_STEPS], vs[BN_SWEEP_MAX_STEPS], vr[BN_SWEEP_MAX_STEPS];
	struct bn_err e = { 0 };
	int n = 0;

	*ohm = 0.0;
	*u_ohm = NAN;
	*from = "unknown";
	if (!isnan(m->cable_given_ohm)) {
		*ohm = m->cable_given_ohm;
		*from = "given";
		return;
	}
	for (int k = 0; k < r->n; k++) {
		if (isnan(r->pts[k].v_src_v))
			continue;
		i[n] = r->pts[k].i_a;
		vs[n] = r->pts[k].v_src_v;
		vr[n] = r->pts[k].v_v;
		n++;
	}
	if (n >= 2 && bn_curve_cable_ohm(i, vs, vr, n, ohm, u_ohm, &e) == BN_OK) {
		if (*ohm < 0.0)
			*ohm = 0.0; /* the meters' scatter, not a cable that gives energy */
		*from = "two sense points";
	}
}

int bn_sweep_charger(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
		     const struct bn_sweep_meta *m, struct bn_charger *out, struct bn_err *err)
{
	double i[BN_SWEEP_MAX_STEPS], v[BN_SWEEP_MAX_STEPS], ohm, u_ohm;
	bool keep[BN_SWEEP_MAX_STEPS];
	const char *from;
	int n = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", m->name ? m->name : "swept");
	snprintf(out->description, sizeof(out->description), "Measured by bcbench curve sweep%s%s: "
		 "see \"measured\".", m->charger_swept ? " of the simulated charger " : " on bench ",
		 m->charger_swept ? m->charger_swept : m->bench_name ? m->bench_name : "?");
	out->compliant = -1; /* a sweep measures; the port rules judge */
	bn_sweep_cable(r, m, &ohm, &u_ohm, &from);
	/* currents strictly ascending, as a profile's curve must be: a
	 * reading at or below the last one (a load at its resolution) adds
	 * nothing the last did not say */
	for (int k = 0; k < r->n; k++) {
		double a = r->pts[k].i_a > 0.0 ? r->pts[k].i_a : 0.0;

		if (n && !(a > i[n - 1]))
			continue;
		i[n] = a;
		v[n] = r->pts[k].v_v + ohm * a;
		n++;
	}
	/* a fold-back: the reading that saw VBUS go is where the curve falls
	 * to (past it the profile gives 0 V); a shutdown's is its off state,
	 * which "shutdown" says */
	if (r->collapsed && !r->shutdown && n && r->collapse_a > i[n - 1] && n < BN_SWEEP_MAX_STEPS &&
	    !isnan(r->collapse_v)) {
		i[n] = r->collapse_a;
		v[n] = r->collapse_v + ohm * r->collapse_a;
		n++;
	}
	if (n < 2)
		return bn_err_set(err, BN_ERR_DATA, "the sweep read %d point(s) at distinct currents: "
				  "a curve needs 2 or more", n);
	bn_curve_reduce(i, v, n, BN_CHARGER_MAX_POINTS, SWEEP_REDUCE_TOL_V, keep);
	for (int k = 0; k < n; k++) {
		if (!keep[k])
			continue;
		out->i_a[out->n_points] = i[k];
		out->v_v[out->n_points] = v[k] < 0.0 ? 0.0 : v[k];
		out->n_points++;
	}
	out->cable_ohm = ohm;
	out->rated_a = m->rated_a;
	if (r->shutdown && !isnan(r->shutdown_above_a) && r->recovered) {
		out->has_shutdown = true;
		out->shutdown_above_a = r->shutdown_above_a;
		out->shutdown_after_us = bn_time_from_s(r->collapse_after_s);
		out->recover_us = bn_time_from_s(r->recover_s);
	}
	return BN_OK;
}

static cJSON *num(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static void add_num(cJSON *o, const char *k, double x)
{
	cJSON_AddItemToObject(o, k, num(x));
}

static void add_str(cJSON *o, const char *k, const char *s)
{
	if (s && s[0])
		cJSON_AddStringToObject(o, k, s);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *settings(const struct bn_sweep_cfg *c, const struct bn_sweep_meta *m)
{
	cJSON *s = cJSON_CreateObject();

	add_str(s, "port", c->port_type);
	add_num(s, "from_a", c->from_a);
	add_num(s, "step_a", c->step_a);
	add_num(s, "to_a", c->to_a);
	add_num(s, "to_asked_a", m->to_asked_a);
	add_str(s, "to_capped_by", m->to_capped_by);
	add_num(s, "dwell_s", bn_time_to_s(c->dwell_us));
	add_num(s, "settle_s", bn_time_to_s(c->settle_us));
	add_num(s, "poll_s", bn_time_to_s(c->poll_us));
	add_num(s, "floor_v", c->floor_v > 0.0 ? c->floor_v : NAN);
	add_num(s, "valid_v", c->valid_v);
	add_num(s, "cool_s", bn_time_to_s(c->cool_us));
	add_num(s, "cool_between_s", bn_time_to_s(c->cool_between_us));
	add_num(s, "recover_wait_s", bn_time_to_s(c->recover_wait_us));
	add_num(s, "cable_given_ohm", m->cable_given_ohm);
	add_num(s, "rated_given_a", m->rated_a > 0.0 ? m->rated_a : NAN);
	cJSON_AddBoolToObject(s, "sense2", c->sense2);
	return s;
}

cJSON *bn_sweep_measured(const struct bn_sweep_result *r, const struct bn_sweep_cfg *c,
			 const struct bn_sweep_meta *m)
{
	struct bn_measured_head h = {
		.by = "sweep", .utc = r->utc_start, .complete = r->complete,
		.vchg_min_v = m->vchg_min_v, .vchg_max_v = m->vchg_max_v,
		.limits_path = m->limits_path, .uncertainty = bn_measured_u_text(c->meas_v != NULL,
						  c->meas_v && bn_meas_is_ideal(c->meas_v)),
	};
	struct bn_charger *ch = malloc(sizeof(*ch));
	struct bn_err e = { 0 };
	cJSON *o = ch ? bn_measured_new(&h) : NULL, *b, *ins, *x;
	double ohm, u_ohm;
	const char *from;

	if (!o) {
		free(ch);
		return NULL;
	}
	add_str(o, "utc_end", r->utc_end);
	add_str(o, r->complete ? "end" : "why", r->end);
	cJSON_AddBoolToObject(o, "safe_confirmed", r->safe_confirmed);
	b = cJSON_AddObjectToObject(o, "bench");
	add_str(b, "name", m->bench_name);
	add_str(b, "conf", m->conf_path);
	cJSON_AddBoolToObject(b, "simulated", m->simulated);
	if (m->charger_swept)
		add_str(b, "charger", m->charger_swept);
	ins = cJSON_AddObjectToObject(o, "instruments");
	add_str(ins, "load", r->id_load);
	add_str(ins, "fixture", r->id_fixture);
	add_str(ins, "supply", r->id_supply);
	cJSON_AddItemToObject(o, "settings", settings(c, m));
	for (int k = 0; k < r->n; k++) {
		const struct bn_sweep_point *p = &r->pts[k];

		x = bn_measured_point(o, p->i_a, p->v_v, p->n, p->u_v_v);
		if (!x)
			continue;
		add_num(x, "set_a", p->set_a);
		add_num(x, "u_a", p->u_i_a);
		if (!isnan(p->v_src_v))
			add_num(x, "v_src", p->v_src_v);
		add_num(x, "t_s", p->t_s);
	}
	/* the knee of the profile written (one meaning with import's) */
	if (bn_sweep_charger(r, c, m, ch, &e) == BN_OK) {
		bn_measured_knee(o, ch, m->vchg_min_v);
	} else {
		x = bn_measured_knee(o, NULL, m->vchg_min_v);
		if (x)
			cJSON_AddStringToObject(x, "why", e.msg);
	}
	free(ch);
	if (r->collapsed) {
		x = bn_measured_collapse(o, r->collapse_a, r->collapse_v, r->collapse_after_s,
					 r->recovered ? r->recover_s : NAN, r->shutdown,
					 r->recovered ? "folded back: VBUS was back once the load let go"
						      : "not seen back, nor watched long enough to call "
							"it a shutdown");
		if (x)
			cJSON_AddBoolToObject(x, "recovered", r->recovered);
	}
	if (r->shutdown)
		bn_measured_shutdown(o, r->shutdown_above_a, r->collapse_a, r->collapse_after_s,
				     r->recover_s);
	bn_sweep_cable(r, m, &ohm, &u_ohm, &from);
	x = cJSON_AddObjectToObject(o, "cable");
	add_num(x, "ohm", strcmp(from, "unknown") ? ohm : NAN);
	add_num(x, "u_ohm", u_ohm);
	cJSON_AddStringToObject(x, "from", from);
	return o;
}

void bn_sweep_partial_path(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (n > 5 && !strcmp(path + n - 5, ".json"))
		snprintf(buf, len, "%.*s.partial.json", (int)(n - 5), path);
	else
		snprintf(buf, len, "%s.partial.json", path);
}

int bn_sweep_write(const char *path, const struct bn_charger *c, bool has_curve,
		   const cJSON *measured, struct bn_err *err)
{
	cJSON *root;

	if (has_curve)
		return bn_charger_write(path, c, measured, err);
	/* no curve, no charger: the measured block alone, never loadable */
	root = cJSON_CreateObject();
	if (!root)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	cJSON_AddStringToObject(root, "schema", BN_CHARGER_SCHEMA);
	cJSON_AddStringToObject(root, "name", c->name);
	cJSON_AddStringToObject(root, "description", "A sweep cut short before it read a curve: "
				"see \"measured\".");
	if (measured) {
		cJSON *dup = cJSON_Duplicate(measured, true);

		if (!dup) {
			cJSON_Delete(root);
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
		}
		cJSON_AddItemToObject(root, "measured", dup);
	}
	return bn_json_write_atomic(path, root, err);
}
