/* Nodal analysis of a small resistive network with piecewise elements.
 *
 * Linear parts are stamped into a conductance matrix (a voltage source with
 * series R as its Norton equivalent). The piecewise elements each have a
 * state, and the solver iterates the set of states until every element is
 * consistent with the voltages it produced:
 *  - a voltage source with a current limit: LINEAR, or LIM_POS / LIM_NEG
 *    (an ideal current source of +-i_limit);
 *  - a current source (sign s = +1 for a source, -1 for a sink): NORMAL
 *    (delivers i_a), CLAMP (an ideal voltage source at the compliance
 *    voltage, one extra unknown for its current, which must stay between 0
 *    and |i_a| in the source's direction) or OFF (pushed past its compliance
 *    from outside: delivers nothing).
 * Both characteristics are monotone, so the iteration converges; a state
 * set whose matrix is singular (a node fed only by ideal current sources,
 * which happens on the way) is solved with a small conductance to ground on
 * every node to steer the next flip, and the final answer is always solved
 * without it. */
#include "sim/network.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Unknowns: the node voltages plus one current per clamped current source
 * (at most one clamp per node). */
#define NET_MAX_UNK (2 * BN_NET_MAX_NODES)
/* Steering conductance for singular intermediate states (1 Gohm). */
#define NET_GMIN_S 1e-9
/* A pivot below this fraction of the largest matrix entry is zero. */
#define NET_PIVOT_REL 1e-14
#define NET_TOL_V 1e-9
#define NET_TOL_A 1e-12
#define NET_TOL_REL 1e-9
#define NET_MAX_ITER 200

enum net_state {
	ST_LINEAR = 0, /* VSRC unlimited, ISRC delivering i_a (NORMAL) */
	ST_LIM_POS,    /* VSRC at +i_limit */
	ST_LIM_NEG,    /* VSRC at -i_limit */
	ST_CLAMP,      /* ISRC holding its node at the compliance voltage */
	ST_OFF,        /* ISRC pushed past its compliance: delivers 0 */
};

void bn_net_init(struct bn_net *net, int n_nodes)
{
	memset(net, 0, sizeof(*net));
	net->n_nodes = n_nodes;
}

static bool node_ok(const struct bn_net *net, int node)
{
	return node >= 0 && node < net->n_nodes && net->n_nodes <= BN_NET_MAX_NODES;
}

static int add_elem(struct bn_net *net, const struct bn_net_elem *el)
{
	if (net->n_elems >= BN_NET_MAX_ELEMS || net->n_elems < 0)
		return BN_ERR_ARG;
	net->e[net->n_elems] = *el;
	return net->n_elems++;
}

int bn_net_add_res(struct bn_net *net, int a, int b, double r_ohm, const char *label)
{
	struct bn_net_elem el = { .kind = BN_NET_RES, .a = a, .b = b, .r_ohm = r_ohm, .label = label };

	if (!net || !isfinite(r_ohm) || r_ohm <= 0 || a == b)
		return BN_ERR_ARG;
	if ((a != BN_NET_GND && !node_ok(net, a)) || (b != BN_NET_GND && !node_ok(net, b)))
		return BN_ERR_ARG;
	return add_elem(net, &el);
}

int bn_net_add_vsrc(struct bn_net *net, int node, double v, double r_out_ohm,
		    double i_limit_a, const char *label)
{
	struct bn_net_elem el = { .kind = BN_NET_VSRC, .a = node, .b = BN_NET_GND,
				  .r_ohm = r_out_ohm, .v = v, .i_a = i_limit_a, .label = label };

	if (!net || !node_ok(net, node) || !isfinite(v) || !isfinite(r_out_ohm) || r_out_ohm <= 0 ||
	    !isfinite(i_limit_a) || i_limit_a < 0)
		return BN_ERR_ARG;
	return add_elem(net, &el);
}

int bn_net_add_isrc(struct bn_net *net, int node, double i_a, double v_compliance,
		    double r_out_ohm, const char *label)
{
	struct bn_net_elem el = { .kind = BN_NET_ISRC, .a = node, .b = BN_NET_GND,
				  .r_ohm = r_out_ohm, .v = v_compliance, .i_a = i_a, .label = label };

	if (!net || !node_ok(net, node) || !isfinite(i_a) || !isfinite(v_compliance) ||
	    !isfinite(r_out_ohm) || r_out_ohm < 0)
		return BN_ERR_ARG;
	return add_elem(net, &el);
}

static double node_v(const double *v, int node)
{
	return node == BN_NET_GND ? 0.0 : v[node];
}

static const char *elem_label(const struct bn_net_elem *el)
{
	return el->label ? el->label : "(unlabelled)";
}

/* "node 1 (dm_pulldown, idm_sink)" */
static void node_desc(const struct bn_net *net, int node, char *buf, size_t len)
{
	size_t used;
	int n = 0;

	snprintf(buf, len, "node %d (", node);
	for (int i = 0; i < net->n_elems; i++) {
		const struct bn_net_elem *el = &net->e[i];

		if (el->a != node && !(el->kind == BN_NET_RES && el->b == node))
			continue;
		used = strlen(buf);
		if (used + 1 >= len)
			break;
		snprintf(buf + used, len - used, "%s%s", n ? ", " : "", elem_label(el));
		n++;
	}
	used = strlen(buf);
	if (!n && used + 1 < len)
		snprintf(buf + used, len - used, "nothing attached");
	used = strlen(buf);
	if (used + 1 < len)
		snprintf(buf + used, len - used, ")");
}

/* A node needs a conductive path to ground through resistors, voltage
 * sources (their series R) or current sources with a parallel R. */
static int check_paths(const struct bn_net *net, struct bn_err *err)
{
	bool reach[BN_NET_MAX_NODES] = { false };
	bool grew = true;
	char desc[256];

	while (grew) {
		grew = false;
		for (int i = 0; i < net->n_elems; i++) {
			const struct bn_net_elem *el = &net->e[i];
			bool ra, rb;

			if (el->kind == BN_NET_ISRC && el->r_ohm <= 0)
				continue;
			ra = el->a == BN_NET_GND || reach[el->a];
			rb = el->kind != BN_NET_RES || el->b == BN_NET_GND || reach[el->b];
			if (ra != rb) {
				if (!ra)
					reach[el->a] = true;
				else
					reach[el->b] = true;
				grew = true;
			}
		}
	}
	for (int k = 0; k < net->n_nodes; k++) {
		if (reach[k])
			continue;
		node_desc(net, k, desc, sizeof(desc));
		return bn_err_set(err, BN_ERR_DATA,
				  "network: %s has no resistive path to ground: singular", desc);
	}
	return BN_OK;
}

/* Solve A x = b in place (n <= NET_MAX_UNK) by Gaussian elimination with
 * partial pivoting. Returns -1, or the index of the unknown whose pivot
 * vanished. */
static int gauss(double a[NET_MAX_UNK][NET_MAX_UNK + 1], int n, double *x)
{
	double amax = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			amax = fmax(amax, fabs(a[i][j]));
	if (amax == 0)
		return n ? 0 : -1;
	for (int k = 0; k < n; k++) {
		int p = k;

		for (int i = k + 1; i < n; i++)
			if (fabs(a[i][k]) > fabs(a[p][k]))
				p = i;
		if (fabs(a[p][k]) <= NET_PIVOT_REL * amax)
			return k;
		if (p != k) {
			for (int j = k; j <= n; j++) {
				double t = a[k][j];

				a[k][j] = a[p][j];
				a[p][j] = t;
			}
		}
		for (int i = k + 1; i < n; i++) {
			double f = a[i][k] / a[k][k];

			if (f == 0)
				continue;
			for (int j = k; j <= n; j++)
				a[i][j] -= f * a[k][j];
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		double s = a[i][n];

		for (int j = i + 1; j < n; j++)
			s -= a[i][j] * x[j];
		x[i] = s / a[i][i];
	}
	return -1;
}

/* One linear solve for a given state set. v[] gets the node voltages,
 * iclamp[i] the source current of each clamped element i. Returns -1 on
 * success, else the unknown that was singular (a node index, or
 * n_nodes + k for the k-th clamp) and *which_clamp the element of it. */
static int solve_state(const struct bn_net *net, const enum net_state *st, double gmin,
		       const double *inj, double *v, double *iclamp, int *which_clamp)
{
	double a[NET_MAX_UNK][NET_MAX_UNK + 1];
	double x[NET_MAX_UNK];
	int clamp_elem[NET_MAX_UNK];
	int n = net->n_nodes, nunk = n, bad;

	memset(a, 0, sizeof(a));
	for (int k = 0; k < n; k++) {
		a[k][k] += gmin;
		if (inj)
			a[k][n] += inj[k];
	}
	for (int i = 0; i < net->n_elems; i++) {
		const struct bn_net_elem *el = &net->e[i];
		int p = el->a;

		switch (el->kind) {
		case BN_NET_RES: {
			double g = 1.0 / el->r_ohm;
			int q = el->b;

			if (p != BN_NET_GND)
				a[p][p] += g;
			if (q != BN_NET_GND)
				a[q][q] += g;
			if (p != BN_NET_GND && q != BN_NET_GND) {
				a[p][q] -= g;
				a[q][p] -= g;
			}
			break;
		}
		case BN_NET_VSRC:
			if (st[i] == ST_LIM_POS) {
				a[p][n] += el->i_a;
			} else if (st[i] == ST_LIM_NEG) {
				a[p][n] -= el->i_a;
			} else {
				a[p][p] += 1.0 / el->r_ohm;
				a[p][n] += el->v / el->r_ohm;
			}
			break;
		case BN_NET_ISRC:
			if (el->r_ohm > 0)
				a[p][p] += 1.0 / el->r_ohm;
			if (st[i] == ST_LINEAR)
				a[p][n] += el->i_a;
			/* CLAMP columns are added below, OFF delivers nothing */
			break;
		}
	}
	/* Clamps: unknown I (into node p): KCL row gets -I, and V_p = v_c.
	 * The right-hand side sits in column n before the extra columns are
	 * known, so move it to the last column first. */
	for (int i = 0; i < net->n_elems; i++)
		if (net->e[i].kind == BN_NET_ISRC && st[i] == ST_CLAMP)
			clamp_elem[nunk++ - n] = i;
	if (nunk > n) {
		for (int k = 0; k < n; k++) {
			a[k][nunk] = a[k][n];
			a[k][n] = 0;
		}
		for (int c = 0; c < nunk - n; c++) {
			const struct bn_net_elem *el = &net->e[clamp_elem[c]];

			a[el->a][n + c] = -1.0;
			a[n + c][el->a] = 1.0;
			a[n + c][nunk] = el->v;
		}
	}
	bad = gauss(a, nunk, x);
	if (bad >= 0) {
		*which_clamp = bad >= n ? clamp_elem[bad - n] : -1;
		return bad;
	}
	for (int k = 0; k < n; k++)
		v[k] = x[k];
	for (int c = 0; c < nunk - n; c++)
		iclamp[clamp_elem[c]] = x[n + c];
	return -1;
}

static double tol_v(double ref)
{
	return NET_TOL_V + NET_TOL_REL * fabs(ref);
}

static double tol_a(double ref)
{
	return NET_TOL_A + NET_TOL_REL * fabs(ref);
}

/* The state element i should move to, given the solution; st[i] if it is
 * consistent. */
static enum net_state next_state(const struct bn_net_elem *el, enum net_state cur,
				 const double *v, double iclamp)
{
	double vn = node_v(v, el->a);

	if (el->kind == BN_NET_VSRC) {
		double lim = el->i_a, i_lin = (el->v - vn) / el->r_ohm;

		if (lim <= 0)
			return ST_LINEAR;
		switch (cur) {
		case ST_LIM_POS:
			return i_lin >= lim - tol_a(lim) ? ST_LIM_POS : ST_LINEAR;
		case ST_LIM_NEG:
			return i_lin <= -lim + tol_a(lim) ? ST_LIM_NEG : ST_LINEAR;
		default:
			if (i_lin > lim + tol_a(lim))
				return ST_LIM_POS;
			if (i_lin < -lim - tol_a(lim))
				return ST_LIM_NEG;
			return ST_LINEAR;
		}
	}
	if (el->kind == BN_NET_ISRC && el->i_a != 0) {
		double s = el->i_a > 0 ? 1.0 : -1.0, m = fabs(el->i_a);
		double u = s * vn, c = s * el->v;

		switch (cur) {
		case ST_CLAMP: {
			double sc = s * iclamp; /* in the source's direction */

			if (sc > m + tol_a(m))
				return ST_LINEAR;
			if (sc < -tol_a(m))
				return ST_OFF;
			return ST_CLAMP;
		}
		case ST_OFF:
			return u < c - tol_v(c) ? ST_CLAMP : ST_OFF;
		default:
			return u > c + tol_v(c) ? ST_CLAMP : ST_LINEAR;
		}
	}
	return cur;
}

/* Apply a move of element i to CLAMP: a node holds one clamp at a time, so
 * a clamp already on that node hands over and goes back to NORMAL (the new
 * one is the constraint the solution violated). */
static void set_state(const struct bn_net *net, enum net_state *st, int i, enum net_state ns)
{
	if (ns == ST_CLAMP) {
		for (int j = 0; j < net->n_elems; j++)
			if (j != i && st[j] == ST_CLAMP && net->e[j].a == net->e[i].a)
				st[j] = ST_LINEAR;
	}
	st[i] = ns;
}

static int report_singular(const struct bn_net *net, int bad, int clamp, struct bn_err *err)
{
	char desc[256];

	if (clamp >= 0) {
		node_desc(net, net->e[clamp].a, desc, sizeof(desc));
		return bn_err_set(err, BN_ERR_DATA,
				  "network: singular at %s: '%s' holds it at %g V against another ideal source",
				  desc, elem_label(&net->e[clamp]), net->e[clamp].v);
	}
	node_desc(net, bad, desc, sizeof(desc));
	return bn_err_set(err, BN_ERR_DATA,
			  "network: singular matrix at %s: no path to ground in the solved state", desc);
}

/* Solve, leaving the consistent state set in st. */
static int net_solve(const struct bn_net *net, double *v_out, enum net_state *st,
		     struct bn_err *err)
{
	double iclamp[BN_NET_MAX_ELEMS];
	double v[BN_NET_MAX_NODES];
	int n_pw = 0, max_iter, rc;

	if (!net || !v_out || net->n_nodes < 0 || net->n_nodes > BN_NET_MAX_NODES ||
	    net->n_elems < 0 || net->n_elems > BN_NET_MAX_ELEMS)
		return bn_err_set(err, BN_ERR_ARG, "network: bad network (nodes %d, elements %d)",
				  net ? net->n_nodes : -1, net ? net->n_elems : -1);
	if (net->n_nodes == 0)
		return BN_OK;
	rc = check_paths(net, err);
	if (rc)
		return rc;
	for (int i = 0; i < net->n_elems; i++) {
		st[i] = ST_LINEAR;
		iclamp[i] = 0;
		if ((net->e[i].kind == BN_NET_VSRC && net->e[i].i_a > 0) ||
		    (net->e[i].kind == BN_NET_ISRC && net->e[i].i_a != 0))
			n_pw++;
	}
	max_iter = 8 + 4 * n_pw;
	if (max_iter > NET_MAX_ITER)
		max_iter = NET_MAX_ITER;
	for (int iter = 0; iter < max_iter; iter++) {
		int bad, clamp = -1, changed = 0, first_bad = -1;
		bool one_at_a_time = iter >= max_iter / 2;
		double gmin = 0;

		bad = solve_state(net, st, 0, NULL, v, iclamp, &clamp);
		if (bad >= 0) {
			/* an intermediate state; steer with gmin */
			gmin = NET_GMIN_S;
			bad = solve_state(net, st, gmin, NULL, v, iclamp, &clamp);
			if (bad >= 0)
				return report_singular(net, bad, clamp, err);
		}
		for (int i = 0; i < net->n_elems; i++) {
			enum net_state ns = next_state(&net->e[i], st[i], v, iclamp[i]);

			if (ns == st[i])
				continue;
			if (first_bad < 0)
				first_bad = i;
			if (one_at_a_time)
				continue;
			set_state(net, st, i, ns);
			changed++;
		}
		if (one_at_a_time && first_bad >= 0) {
			set_state(net, st, first_bad,
				  next_state(&net->e[first_bad], st[first_bad], v, iclamp[first_bad]));
			changed++;
		}
		if (!changed) {
			if (gmin != 0) {
				/* consistent only with the steering conductance */
				bad = solve_state(net, st, 0, NULL, v, iclamp, &clamp);
				return report_singular(net, bad, clamp, err);
			}
			memcpy(v_out, v, sizeof(double) * (size_t)net->n_nodes);
			return BN_OK;
		}
	}
	{
		char desc[256];
		int i = 0;

		/* name an element still inconsistent */
		for (; i < net->n_elems; i++)
			if (next_state(&net->e[i], st[i], v, iclamp[i]) != st[i])
				break;
		if (i == net->n_elems)
			i = 0;
		node_desc(net, net->n_elems && net->e[i].a != BN_NET_GND ? net->e[i].a : 0, desc,
			  sizeof(desc));
		return bn_err_set(err, BN_ERR_DATA,
				  "network: piecewise elements did not settle after %d iterations at %s (last: '%s')",
				  max_iter, desc, net->n_elems ? elem_label(&net->e[i]) : "-");
	}
}

int bn_net_solve(const struct bn_net *net, double *v_out, struct bn_err *err)
{
	enum net_state st[BN_NET_MAX_ELEMS];

	return net_solve(net, v_out, st, err);
}

/* The test current for the driving-point resistances: the state set is
 * fixed, so the answer is linear in it and any size gives the same
 * resistance; 1 mA keeps the differences well above rounding for
 * resistances from milliohms to gigaohms. */
#define NET_RTH_TEST_A 1e-3

int bn_net_solve_rth(const struct bn_net *net, double *v_out, double *r_th_ohm,
		     struct bn_err *err)
{
	enum net_state st[BN_NET_MAX_ELEMS];
	double iclamp[BN_NET_MAX_ELEMS];
	double inj[BN_NET_MAX_NODES], v[BN_NET_MAX_NODES];
	int rc = net_solve(net, v_out, st, err), clamp;

	if (rc || !r_th_ohm)
		return rc;
	for (int k = 0; k < net->n_nodes; k++) {
		memset(inj, 0, sizeof(inj));
		inj[k] = NET_RTH_TEST_A;
		/* The state set solved without steering, so this cannot be
		 * singular; if it were, the node is held by an ideal source. */
		if (solve_state(net, st, 0, inj, v, iclamp, &clamp) >= 0) {
			r_th_ohm[k] = 0.0;
			continue;
		}
		r_th_ohm[k] = fmax(0.0, (v[k] - v_out[k]) / NET_RTH_TEST_A);
	}
	return BN_OK;
}

/* The current an element delivers, computed from the node voltages alone;
 * *at_limit is set for a current source sitting at its compliance, whose
 * current only KCL can tell. */
static double local_current(const struct bn_net_elem *el, const double *v, bool *at_limit)
{
	double vn = node_v(v, el->a);

	*at_limit = false;
	switch (el->kind) {
	case BN_NET_RES:
		return (node_v(v, el->b) - node_v(v, el->a)) / el->r_ohm;
	case BN_NET_VSRC: {
		double i = (el->v - vn) / el->r_ohm;

		if (el->i_a > 0)
			i = fmax(-el->i_a, fmin(el->i_a, i));
		return i;
	}
	case BN_NET_ISRC: {
		double par = el->r_ohm > 0 ? -vn / el->r_ohm : 0.0;
		double s = el->i_a > 0 ? 1.0 : -1.0;
		double u = s * vn, c = s * el->v;

		if (el->i_a == 0)
			return par;
		if (u < c - tol_v(c))
			return el->i_a + par;
		if (u > c + tol_v(c))
			return par;
		*at_limit = true;
		return par;
	}
	}
	return 0;
}

double bn_net_elem_current(const struct bn_net *net, int idx, const double *v)
{
	const struct bn_net_elem *el;
	double need = 0, par;
	bool lim;

	if (!net || !v || idx < 0 || idx >= net->n_elems)
		return NAN;
	el = &net->e[idx];
	par = local_current(el, v, &lim);
	if (!lim)
		return par;
	/* At compliance: what the rest of the node does not supply. Several
	 * clamps on one node share it in index order, each up to |i_a|. */
	for (int j = 0; j < net->n_elems; j++) {
		const struct bn_net_elem *o = &net->e[j];
		bool olim;
		double io;

		if (j == idx)
			continue;
		if (o->a == el->a) {
			io = local_current(o, v, &olim);
			need -= io;
		} else if (o->kind == BN_NET_RES && o->b == el->a) {
			need += local_current(o, v, &olim); /* current into o's a leaves node b */
		}
	}
	/* need: what all at-limit elements on the node deliver together,
	 * parallel resistances included (their 'par' parts are already in
	 * need via local_current of the others, and ours below) */
	{
		double s = el->i_a > 0 ? 1.0 : -1.0, m = fabs(el->i_a);
		double src = need - par; /* our source part plus other clamps' */

		for (int j = 0; j < idx; j++) {
			const struct bn_net_elem *o = &net->e[j];
			bool olim;

			if (o->a != el->a || o->kind != BN_NET_ISRC)
				continue;
			local_current(o, v, &olim);
			if (!olim)
				continue;
			/* an earlier clamp takes its share first */
			{
				double os = o->i_a > 0 ? 1.0 : -1.0;
				double take = os * fmax(0.0, fmin(fabs(o->i_a), os * src));

				src -= take;
			}
		}
		src = s * fmax(0.0, fmin(m, s * src));
		return src + par;
	}
}
