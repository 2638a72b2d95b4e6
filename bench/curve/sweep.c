/* The sweep over the instrument ops: see sweep.h. */
#define BN_LOG_MODULE "sweep"
#include "curve/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "curve/analyze.h"
#include "curve/measured.h"

/* A step's setpoint is within this of --to: the last step (rounding of
 * from + k * step must not add a step past it). */
#define SWEEP_EPS_A 1e-9

struct run {
	const struct bn_sweep_cfg *cfg;
	struct bn_sweep_bench *b;
	struct bn_sweep_result *res;
	struct bn_curve_pt *buf;  /* the readings of a step or of the probe */
	double *src;              /* the second sense point's, alongside */
	int nbuf, capbuf;
	bn_time_us t0;
	bool load_on;
};

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int bn_sweep_cfg_check(const struct bn_sweep_cfg *c, int *n_steps, struct bn_err *err)
{
	double n;

	if (!(c->from_a >= 0.0))
		return bn_err_set(err, BN_ERR_ARG, "--from %.4g A: expected a current of 0 A or more",
				  c->from_a);
	if (!(c->to_a >= c->from_a))
		return bn_err_set(err, BN_ERR_ARG, "--to %.4g A: expected at least --from (%.4g A)",
				  c->to_a, c->from_a);
	if (!(c->step_a > 0.0))
		return bn_err_set(err, BN_ERR_ARG, "--step %.4g A: expected more than 0 A", c->step_a);
	if (c->poll_us <= 0 || c->dwell_us < c->poll_us)
		return bn_err_set(err, BN_ERR_ARG, "--dwell %.4g s: expected at least one reading's "
				  "time (%.4g s)", bn_time_to_s(c->dwell_us), bn_time_to_s(c->poll_us));
	if (c->settle_us < 0 || c->settle_us + c->poll_us > c->dwell_us)
		return bn_err_set(err, BN_ERR_ARG, "--settle %.4g s: expected 0 or more and room for a "
				  "reading after it within --dwell %.4g s (readings every %.4g s)",
				  bn_time_to_s(c->settle_us), bn_time_to_s(c->dwell_us),
				  bn_time_to_s(c->poll_us));
	if (!(c->valid_v > 0.0))
		return bn_err_set(err, BN_ERR_ARG, "VBUS valid %.4g V: expected more than 0 V", c->valid_v);
	if (c->recover_wait_us < 0 || c->cool_us < 0 || c->cool_between_us < 0)
		return bn_err_set(err, BN_ERR_ARG, "--recover-wait, --cool: expected 0 s or more");
	n = floor((c->to_a - c->from_a) / c->step_a + 1e-6) + 1;
	if (c->to_a - (c->from_a + (n - 1) * c->step_a) > SWEEP_EPS_A)
		n += 1; /* a last, shorter step lands on --to */
	if (n > BN_SWEEP_MAX_STEPS)
		return bn_err_set(err, BN_ERR_ARG, "--from %.4g A --to %.4g A --step %.4g A: %.0f steps "
				  "(at most %d)", c->from_a, c->to_a, c->step_a, n, BN_SWEEP_MAX_STEPS);
	*n_steps = (int)n;
	return BN_OK;
}

static void identity(char *buf, size_t len, const char *name,
		     void (*fn)(void *priv, char *buf, size_t len), void *priv)
{
	buf[0] = '\0';
	if (fn)
		fn(priv, buf, len);
	if (!buf[0])
		snprintf(buf, len, "%s", name);
}

static int stopped(struct run *r, struct bn_err *err)
{
	if (r->cfg->stop && *r->cfg->stop)
		return bn_err_set(err, BN_ERR_INTR, "interrupted by signal %d", (int)*r->cfg->stop);
	return BN_OK;
}

static int push(struct run *r, double i, double v, double vs, bn_time_us t)
{
	if (r->nbuf == r->capbuf) {
		int cap = r->capbuf ? 2 * r->capbuf : 256;
		struct bn_curve_pt *nb = realloc(r->buf, (size_t)cap * sizeof(*nb));
		double *ns;

		if (!nb)
			return BN_ERR_NOMEM;
		r->buf = nb;
		ns = realloc(r->src, (size_t)cap * sizeof(*ns));
		if (!ns)
			return BN_ERR_NOMEM;
		r->src = ns;
		r->capbuf = cap;
	}
	r->buf[r->nbuf] = (struct bn_curve_pt){ i, v, bn_time_to_s(t - r->t0) };
	r->src[r->nbuf] = vs;
	r->nbuf++;
	return BN_OK;
}

/* One reading: the load's VBUS and current, the supply's VBUS as the
 * second sense point when asked. */
static int read_once(struct run *r, double *v, double *i, double *vs, struct bn_err *err)
{
	const struct bn_load_ops *l = r->b->ld->ops;
	int rc;

	*vs = NAN;
	if (!l->measure)
		return bn_err_set(err, BN_ERR_NA, "load \"%s\": cannot measure", l->name);
	rc = l->measure(r->b->ld->priv, v, i, err);
	if (rc == BN_OK && r->cfg->sense2) {
		double is;

		rc = r->b->sp->ops->measure(r->b->sp->priv, vs, &is, err);
	}
	return rc;
}

static int wait_for(struct run *r, bn_time_us dur, struct bn_err *err)
{
	int rc = stopped(r, err);

	if (rc == BN_OK && dur > 0)
		rc = r->b->clock.wait(r->b->clock.user, dur, err);
	return rc == BN_OK ? stopped(r, err) : rc;
}

static bn_time_us now(struct run *r)
{
	return r->b->clock.now(r->b->clock.user);
}

/* The load's input off, then its path: it sinks nothing more. */
static int load_off(struct run *r, struct bn_err *err)
{
	const struct bn_load_ops *l = r->b->ld->ops;
	struct bn_fixture *fx = r->b->fx;
	int rc = BN_OK;

	if (l->enable)
		rc = l->enable(r->b->ld->priv, false, err);
	if (rc == BN_OK && fx && fx->ops->load_path)
		rc = fx->ops->load_path(fx->priv, false, err);
	if (rc == BN_OK)
		r->load_on = false;
	return rc;
}

/* The setpoint with the input off, then the path and the input, as the
 * runner's load step: the load never sinks a stale setpoint. */
static int load_set(struct run *r, double amps, struct bn_err *err)
{
	const struct bn_load_ops *l = r->b->ld->ops;
	struct bn_fixture *fx = r->b->fx;
	int rc = BN_OK;

	if (l->set_current)
		rc = l->set_current(r->b->ld->priv, amps, err);
	if (rc == BN_OK && !r->load_on && fx && fx->ops->load_path)
		rc = fx->ops->load_path(fx->priv, true, err);
	if (rc == BN_OK && !r->load_on && l->enable)
		rc = l->enable(r->b->ld->priv, true, err);
	if (rc == BN_OK)
		r->load_on = true;
	return rc;
}

/* After a collapse: the load released, VBUS watched until valid again
 * or recover_wait. */
static int probe(struct run *r, bn_time_us t_collapse, struct bn_err *err)
{
	const struct bn_sweep_cfg *c = r->cfg;
	struct bn_curve_shutdown sd;
	bn_time_us t_rel;
	int rc = load_off(r, err);

	t_rel = now(r);
	r->nbuf = 0;
	while (rc == BN_OK && now(r) - t_rel < c->recover_wait_us) {
		double v, i, vs;

		rc = wait_for(r, c->poll_us, err);
		if (rc == BN_OK)
			rc = read_once(r, &v, &i, &vs, err);
		if (rc == BN_OK)
			rc = push(r, i, v, vs, now(r));
		if (rc == BN_OK && v >= c->valid_v)
			break;
	}
	if (rc < 0)
		return rc;
	bn_curve_shutdown(r->buf, r->nbuf, bn_time_to_s(t_collapse - r->t0),
			  bn_time_to_s(t_rel - r->t0), bn_time_to_s(c->settle_us), c->valid_v, &sd);
	r->res->shutdown = sd.latched;
	r->res->recovered = sd.recovered;
	r->res->recover_s = sd.recover_s;
	return BN_OK;
}

/* A mean to the nano-unit, far below any instrument's resolution: a
 * decimal of at most 15 digits, which a JSON file (cJSON prints 15
 * significant digits when they compare equal within its epsilon) gives
 * back as the same double; the profile's curve then holds exactly the
 * swept currents. */
static double nano(double x)
{
	return round(x * 1e9) / 1e9;
}

/* One step: readings every poll for the dwell, those after settle kept.
 * *collapse_t is set (else -1) when VBUS fell below valid. */
static int dwell(struct run *r, double set_a, bn_time_us *collapse_t, struct bn_err *err)
{
	const struct bn_sweep_cfg *c = r->cfg;
	bn_time_us t_start = now(r), t;
	int rc = BN_OK;

	*collapse_t = -1;
	r->nbuf = 0;
	while (rc == BN_OK && (t = now(r)) - t_start < c->dwell_us) {
		double v, i, vs;

		rc = wait_for(r, c->poll_us, err);
		if (rc == BN_OK)
			rc = read_once(r, &v, &i, &vs, err);
		if (rc < 0)
			break;
		t = now(r);
		if (v < c->valid_v) {
			*collapse_t = t;
			r->res->collapse_after_s = bn_time_to_s(t - t_start);
			bn_info("VBUS %.3f V at %.3f A: collapsed", v, set_a);
			/* held for settle: where a fold-back sits at this current,
			 * once an output capacitance has let go */
			while (rc == BN_OK && now(r) - t < c->settle_us) {
				rc = wait_for(r, c->poll_us, err);
				if (rc == BN_OK)
					rc = read_once(r, &v, &i, &vs, err);
			}
			r->res->collapse_v = nano(v);
			return rc;
		}
		if (t - t_start >= c->settle_us)
			rc = push(r, i, v, vs, t);
	}
	return rc;
}

static int add_point(struct run *r, double set_a, bn_time_us t_step, struct bn_err *err)
{
	struct bn_sweep_result *res = r->res;
	struct bn_sweep_point *p;
	double vs = 0.0;
	int rc;

	if (res->n == res->cap)
		return bn_err_set(err, BN_ERR_BUG, "sweep: more steps than planned");
	p = &res->pts[res->n];
	rc = bn_curve_mean(r->buf, r->nbuf, &p->i_a, &p->v_v, &p->u_i_a, &p->u_v_v, err);
	if (rc < 0)
		return rc;
	for (int k = 0; k < r->nbuf; k++)
		vs += r->src[k];
	p->v_src_v = r->cfg->sense2 ? nano(vs / r->nbuf) : NAN;
	p->i_a = nano(p->i_a);
	p->v_v = nano(p->v_v);
	/* the meter's stated accuracy does not average away with n */
	p->u_v_v = hypot(p->u_v_v, bn_measured_u_inst(r->cfg->meas_v, p->v_v));
	p->u_i_a = hypot(p->u_i_a, bn_measured_u_inst(r->cfg->meas_i, p->i_a));
	p->set_a = set_a;
	p->n = r->nbuf;
	p->t_s = bn_time_to_s(t_step - r->t0);
	res->n++;
	return BN_OK;
}

/* The steps until --to, a collapse or the floor. */
static int steps(struct run *r, int n_steps, struct bn_err *err)
{
	const struct bn_sweep_cfg *c = r->cfg;
	struct bn_sweep_result *res = r->res;
	double last_v = 0.0, v, i, vs;
	int rc;

	/* VBUS on the port's network, then the open-circuit reading: no
	 * charger output is no sweep */
	if (r->b->fx && r->b->fx->ops->connect) {
		rc = r->b->fx->ops->connect(r->b->fx->priv, c->port_type, err);
		if (rc < 0)
			return rc;
	}
	if (r->b->fx && r->b->fx->ops->vbus) {
		rc = r->b->fx->ops->vbus(r->b->fx->priv, true, err);
		if (rc < 0)
			return rc;
	}
	rc = wait_for(r, c->settle_us > c->poll_us ? c->settle_us : c->poll_us, err);
	if (rc == BN_OK)
		rc = read_once(r, &v, &i, &vs, err);
	if (rc < 0)
		return rc;
	if (v < c->valid_v)
		return bn_err_set(err, BN_ERR_FAULT, "VBUS %.3f V with the load off, below VBUS valid "
				  "(%.3f V): no charger output on port \"%s\"", v, c->valid_v, c->port_type);
	last_v = v;
	for (int k = 0; k < n_steps; k++) {
		/* to the nanoampere: 24 steps of 50 mA are 1.2 A, not 1.2 A and
		 * a rounding error above a threshold of 1.2 A */
		double set = fmin(round((c->from_a + k * c->step_a) * 1e9) / 1e9, c->to_a);
		bn_time_us t_step, t_col;

		rc = bn_guard_load(c->guard, set, last_v, err);
		if (rc == BN_OK)
			rc = stopped(r, err);
		if (rc == BN_OK)
			rc = load_set(r, set, err);
		if (rc < 0)
			return rc;
		res->to_a = set;
		t_step = now(r);
		rc = dwell(r, set, &t_col, err);
		if (rc < 0)
			return rc;
		if (t_col >= 0) {
			res->collapsed = true;
			res->collapse_a = set;
			res->shutdown_above_a = res->n ? res->pts[res->n - 1].set_a : NAN;
			snprintf(res->end, sizeof(res->end), "VBUS collapsed at %.3f A (below VBUS valid "
				 "%.3f V)", set, c->valid_v);
			return probe(r, t_col, err);
		}
		rc = add_point(r, set, t_step, err);
		if (rc < 0)
			return rc;
		last_v = res->pts[res->n - 1].v_v;
		if (c->floor_v > 0.0 && last_v < c->floor_v) {
			snprintf(res->end, sizeof(res->end), "VBUS %.3f V at %.3f A, below --floor %.3f V",
				 last_v, set, c->floor_v);
			return BN_OK;
		}
		if (c->cool_between_us > 0 && k + 1 < n_steps) {
			rc = load_off(r, err);
			if (rc == BN_OK)
				rc = wait_for(r, c->cool_between_us, err);
			if (rc < 0)
				return rc;
		}
	}
	snprintf(res->end, sizeof(res->end), "reached --to %.3f A", res->to_a);
	return BN_OK;
}

/* One instrument's safe(), its own bn_err: a message left by a call
 * that then succeeded (a retried command) is not a failure's. The first
 * failure's code and message go to err. */
static int safe_one(int (*safe)(void *, struct bn_err *), void *priv, int rc, struct bn_err *err)
{
	struct bn_err e = { 0 };
	int x = safe(priv, &e);

	if (x < 0 && rc == BN_OK)
		return bn_err_set(err, x, "%s", e.msg);
	return rc;
}

/* Load, supply, fixture, each tried; the first failure kept. */
static int safe_all(struct bn_sweep_bench *b, struct bn_err *err)
{
	int rc = BN_OK;

	if (b->ld && b->ld->ops && b->ld->ops->safe)
		rc = safe_one(b->ld->ops->safe, b->ld->priv, rc, err);
	if (b->sp && b->sp->ops && b->sp->ops->safe)
		rc = safe_one(b->sp->ops->safe, b->sp->priv, rc, err);
	if (b->fx && b->fx->ops && b->fx->ops->safe)
		rc = safe_one(b->fx->ops->safe, b->fx->priv, rc, err);
	return rc;
}

int bn_sweep_run(const struct bn_sweep_cfg *cfg, struct bn_sweep_bench *b,
		 struct bn_sweep_result *res, struct bn_err *err)
{
	struct run r = { .cfg = cfg, .b = b, .res = res };
	struct bn_err e2 = { 0 };
	int n_steps = 0, rc, rs;

	memset(res, 0, sizeof(*res));
	res->recover_s = NAN;
	res->collapse_a = NAN;
	res->collapse_v = NAN;
	res->shutdown_above_a = NAN;
	res->collapse_after_s = NAN;
	utc_now(res->utc_start, sizeof(res->utc_start));
	rc = bn_sweep_cfg_check(cfg, &n_steps, err);
	if (rc == BN_OK && (!b->ld || !b->ld->ops || !b->clock.wait || !b->clock.now))
		rc = bn_err_set(err, BN_ERR_BUG, "sweep: no load or no clock");
	if (rc == BN_OK && cfg->sense2 && (!b->sp || !b->sp->ops || !b->sp->ops->measure))
		rc = bn_err_set(err, BN_ERR_ARG, "a second sense point needs a supply that measures "
				"(bench.conf supply)");
	if (rc < 0) {
		snprintf(res->end, sizeof(res->end), "%s", err->msg);
		res->cut_code = rc;
		return rc;
	}
	identity(res->id_load, sizeof(res->id_load), b->ld->ops->name, b->ld->ops->identity,
		 b->ld->priv);
	if (b->fx && b->fx->ops)
		identity(res->id_fixture, sizeof(res->id_fixture), b->fx->ops->name,
			 b->fx->ops->identity, b->fx->priv);
	if (b->sp && b->sp->ops)
		identity(res->id_supply, sizeof(res->id_supply), b->sp->ops->name,
			 b->sp->ops->identity, b->sp->priv);
	res->pts = calloc((size_t)n_steps, sizeof(*res->pts));
	if (!res->pts)
		return bn_err_set(err, BN_ERR_NOMEM, "sweep: out of memory");
	res->cap = n_steps;
	r.t0 = now(&r);
	rc = steps(&r, n_steps, err);
	if (rc == BN_OK && r.load_on)
		rc = load_off(&r, err);
	if (rc == BN_OK)
		rc = wait_for(&r, cfg->cool_us, err);
	if (rc < 0) {
		res->cut_code = rc;
		snprintf(res->end, sizeof(res->end), "%s", err->msg);
	}
	rs = safe_all(b, rc < 0 ? &e2 : err);
	res->safe_confirmed = rs == BN_OK;
	if (rs < 0 && rc < 0) {
		bn_err_log("SAFE STATE NOT CONFIRMED after the sweep: %s", e2.msg);
		snprintf(res->end + strlen(res->end), sizeof(res->end) - strlen(res->end),
			 "; SAFE STATE NOT CONFIRMED: %.120s", e2.msg);
	} else if (rs < 0) {
		rc = rs;
		res->cut_code = rc;
		snprintf(res->end, sizeof(res->end), "safe state not confirmed: %s", err->msg);
	}
	res->complete = rc == BN_OK;
	utc_now(res->utc_end, sizeof(res->utc_end));
	free(r.buf);
	free(r.src);
	return rc;
}

void bn_sweep_result_free(struct bn_sweep_result *res)
{
	free(res->pts);
	res->pts = NULL;
	res->n = res->cap = 0;
}
