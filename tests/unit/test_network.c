/* The nodal solver against circuits computed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sim/network.h"

#define EPS_V 1e-9
#define EPS_A 1e-12

static void assert_near(double got, double want, double eps)
{
	if (fabs(got - want) > eps)
		fail_msg("got %.12g, want %.12g (+-%g)", got, want, eps);
}

/* 5 V through 1 kohm (its output R) -> node 0 -> 1 kohm -> node 1 -> 2 kohm -> GND.
 * Series 4 kohm: I = 5 / 4000 = 1.25 mA; V0 = 5 - 1.25 = 3.75 V; V1 = 2.5 V. */
static void test_network__divider(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[2];
	int src, r01, r1g;

	bn_net_init(&net, 2);
	src = bn_net_add_vsrc(&net, 0, 5.0, 1000, 0, "src");
	r01 = bn_net_add_res(&net, 0, 1, 1000, "r01");
	r1g = bn_net_add_res(&net, 1, BN_NET_GND, 2000, "r1g");
	assert_true(src >= 0 && r01 >= 0 && r1g >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 3.75, EPS_V);
	assert_near(v[1], 2.5, EPS_V);
	assert_near(bn_net_elem_current(&net, src, v), 1.25e-3, EPS_A);
	/* from b (node 1, 2.5 V) into a (node 0, 3.75 V): -1.25 mA */
	assert_near(bn_net_elem_current(&net, r01, v), -1.25e-3, EPS_A);
	/* from ground into node 1: -2.5 / 2000 */
	assert_near(bn_net_elem_current(&net, r1g, v), -1.25e-3, EPS_A);
}

/* A resistor written ground-first: same node voltage, current from b into
 * a (ground) is +V/R. 1 V through 1 kohm into 3 kohm: V = 0.75 V. */
static void test_network__res_ground_first(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int r;

	bn_net_init(&net, 1);
	assert_true(bn_net_add_vsrc(&net, 0, 1.0, 1000, 0, "src") >= 0);
	r = bn_net_add_res(&net, BN_NET_GND, 0, 3000, "r");
	assert_true(r >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.75, EPS_V);
	assert_near(bn_net_elem_current(&net, r, v), 0.75 / 3000, EPS_A);
}

/* 1 V / 1 kohm and 2 V / 2 kohm into 1 kohm to ground:
 * V (1/1k + 1/2k + 1/1k) = 1/1k + 2/2k -> V * 2.5 mS = 2 mA -> V = 0.8 V.
 * I1 = 0.2 mA, I2 = 0.6 mA, load 0.8 mA. */
static void test_network__two_sources(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int s1, s2, rl;

	bn_net_init(&net, 1);
	s1 = bn_net_add_vsrc(&net, 0, 1.0, 1000, 0, "s1");
	s2 = bn_net_add_vsrc(&net, 0, 2.0, 2000, 0, "s2");
	rl = bn_net_add_res(&net, 0, BN_NET_GND, 1000, "load");
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.8, EPS_V);
	assert_near(bn_net_elem_current(&net, s1, v), 0.2e-3, EPS_A);
	assert_near(bn_net_elem_current(&net, s2, v), 0.6e-3, EPS_A);
	assert_near(bn_net_elem_current(&net, rl, v), -0.8e-3, EPS_A);
}

/* 10 uA into 100 kohm: 1.0 V, below the 3.3 V compliance.
 * With a 1 Mohm parallel R: 10 uA x (100k || 1M) = 10 uA x 90909.09 = 0.9090909 V;
 * it delivers 10 uA - 0.9090909 / 1M = 9.090909 uA. */
static void test_network__isrc_into_resistor(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int is;

	bn_net_init(&net, 1);
	is = bn_net_add_isrc(&net, 0, 10e-6, 3.3, 0, "idp_src");
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 100e3, "r") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 1.0, EPS_V);
	assert_near(bn_net_elem_current(&net, is, v), 10e-6, EPS_A);

	bn_net_init(&net, 1);
	is = bn_net_add_isrc(&net, 0, 10e-6, 3.3, 1e6, "idp_src");
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 100e3, "r") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 10e-6 * (100e3 * 1e6 / 1.1e6), EPS_V);
	assert_near(v[0], 0.909090909091, 1e-9);
	assert_near(bn_net_elem_current(&net, is, v), 9.0909090909e-6, 1e-13);
}

/* 10 uA into 1 Mohm would be 10 V: it stops at its 3.3 V compliance and
 * delivers only 3.3 V / 1 Mohm = 3.3 uA. */
static void test_network__isrc_compliance(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int is, r;

	bn_net_init(&net, 1);
	is = bn_net_add_isrc(&net, 0, 10e-6, 3.3, 0, "idp_src");
	r = bn_net_add_res(&net, 0, BN_NET_GND, 1e6, "leak");
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 3.3, EPS_V);
	assert_near(bn_net_elem_current(&net, is, v), 3.3e-6, EPS_A);
	assert_near(bn_net_elem_current(&net, r, v), -3.3e-6, EPS_A);
}

/* A 100 uA sink on a node fed by 0.6 V through 200 ohm: linear,
 * V = 0.6 - 200 x 100 uA = 0.58 V. Fed through 10 kohm instead it would
 * reach 0.6 - 1.0 = -0.4 V: it stops at 0 V and sinks only 0.6 / 10k = 60 uA. */
static void test_network__sink_compliance(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int sk;

	bn_net_init(&net, 1);
	assert_true(bn_net_add_vsrc(&net, 0, 0.6, 200, 0, "vsrc") >= 0);
	sk = bn_net_add_isrc(&net, 0, -100e-6, 0.0, 0, "idm_sink");
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.58, EPS_V);
	assert_near(bn_net_elem_current(&net, sk, v), -100e-6, EPS_A);

	bn_net_init(&net, 1);
	assert_true(bn_net_add_vsrc(&net, 0, 0.6, 10e3, 0, "vsrc") >= 0);
	sk = bn_net_add_isrc(&net, 0, -100e-6, 0.0, 0, "idm_sink");
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.0, EPS_V);
	assert_near(bn_net_elem_current(&net, sk, v), -60e-6, EPS_A);
}

/* 0.6 V / 200 ohm limited to 250 uA into 1 kohm: linear would be
 * 0.6 / 1200 = 500 uA, so it delivers 250 uA: V = 250 uA x 1 k = 0.25 V.
 * Against a 1.5 kohm pull-up to 3.3 V it would sink
 * (0.6 - 0.9176) / 200 = -1.59 mA: limited to -250 uA, V = 3.3 - 1500 x 250 uA = 2.925 V. */
static void test_network__vsrc_current_limit(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int vs;

	bn_net_init(&net, 1);
	vs = bn_net_add_vsrc(&net, 0, 0.6, 200, 250e-6, "resp");
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "load") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.25, EPS_V);
	assert_near(bn_net_elem_current(&net, vs, v), 250e-6, EPS_A);

	bn_net_init(&net, 1);
	vs = bn_net_add_vsrc(&net, 0, 0.6, 200, 250e-6, "resp");
	assert_true(bn_net_add_vsrc(&net, 0, 3.3, 1500, 0, "rdp_up") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 2.925, EPS_V);
	assert_near(bn_net_elem_current(&net, vs, v), -250e-6, EPS_A);

	/* under the limit it is an ordinary Thevenin source:
	 * 0.6 x 100k / 100.2k = 0.598802 V */
	bn_net_init(&net, 1);
	vs = bn_net_add_vsrc(&net, 0, 0.6, 200, 250e-6, "resp");
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 100e3, "load") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.6 * 100e3 / 100.2e3, EPS_V);
}

/* A source pulled past its compliance from outside delivers nothing:
 * 3.3 V through 1.5 kohm against 300 kohm leakage: 3.3 x 300k / 301.5k = 3.283582 V,
 * above the 2 V compliance of the 10 uA source. */
static void test_network__isrc_pushed_past(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int is;

	bn_net_init(&net, 1);
	is = bn_net_add_isrc(&net, 0, 10e-6, 2.0, 0, "src");
	assert_true(bn_net_add_vsrc(&net, 0, 3.3, 1500, 0, "pullup") >= 0);
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 300e3, "leak") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 3.3 * 300e3 / 301.5e3, EPS_V);
	assert_near(bn_net_elem_current(&net, is, v), 0.0, EPS_A);
}

/* Two 10 uA sources on one 1 Mohm node, compliances 3.3 V and 2 V: the
 * 3.3 V one holds the node (delivering 3.3 uA); the 2 V one is off. */
static void test_network__two_clamps_one_node(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int a, b;

	bn_net_init(&net, 1);
	a = bn_net_add_isrc(&net, 0, 10e-6, 2.0, 0, "low");
	b = bn_net_add_isrc(&net, 0, 10e-6, 3.3, 0, "high");
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 1e6, "leak") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 3.3, EPS_V);
	assert_near(bn_net_elem_current(&net, a, v), 0.0, EPS_A);
	assert_near(bn_net_elem_current(&net, b, v), 3.3e-6, EPS_A);
}

/* A limited source against a stronger sink: the limit starves the node,
 * the sink stops at 0 V and takes what the source gives.
 * 1 V / 1 ohm limited to 1 mA; sink 5 mA: V = 0, sink -1 mA. */
static void test_network__limit_against_sink(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[1];
	int vs, sk;

	bn_net_init(&net, 1);
	vs = bn_net_add_vsrc(&net, 0, 1.0, 1.0, 1e-3, "lim");
	sk = bn_net_add_isrc(&net, 0, -5e-3, 0.0, 0, "sink");
	assert_int_equal(bn_net_solve(&net, v, &err), BN_OK);
	assert_near(v[0], 0.0, EPS_V);
	assert_near(bn_net_elem_current(&net, vs, v), 1e-3, EPS_A);
	assert_near(bn_net_elem_current(&net, sk, v), -1e-3, EPS_A);
}

/* Node 1 only hangs on node 0 through a resistor that does not reach ground,
 * or only on an ideal current source: singular, and the message names it. */
/* Driving-point resistances in the solved state: what a capacitance on
 * the node charges through. */
static void test_network__rth_linear(void **state)
{
	struct bn_net net;
	double v[2], r[2];

	/* 10 V behind 1 kohm into 1 kohm: 5 V through 500 ohm */
	bn_net_init(&net, 1);
	bn_net_add_vsrc(&net, 0, 10.0, 1e3, 0, "src");
	bn_net_add_res(&net, 0, BN_NET_GND, 1e3, "load");
	assert_int_equal(bn_net_solve_rth(&net, v, r, NULL), BN_OK);
	assert_near(v[0], 5.0, 1e-12);
	assert_near(r[0], 500.0, 1e-6);
	/* a ladder: node 0 to ground 1k, to node 1 1k, node 1 to ground 1k */
	bn_net_init(&net, 2);
	bn_net_add_res(&net, 0, BN_NET_GND, 1e3, "a");
	bn_net_add_res(&net, 0, 1, 1e3, "b");
	bn_net_add_res(&net, 1, BN_NET_GND, 1e3, "c");
	bn_net_add_isrc(&net, 0, 1e-3, 10.0, 0, "i");
	assert_int_equal(bn_net_solve_rth(&net, v, r, NULL), BN_OK);
	assert_near(r[0], 1e3 * 2e3 / 3e3, 1e-6);
	assert_near(r[1], 1e3 * 2e3 / 3e3, 1e-6);
	/* the same voltages as bn_net_solve, bit for bit */
	{
		double v2[2];

		assert_int_equal(bn_net_solve(&net, v2, NULL), BN_OK);
		assert_memory_equal(v, v2, sizeof(v));
	}
	/* NULL resistances: just the solve */
	assert_int_equal(bn_net_solve_rth(&net, v, NULL, NULL), BN_OK);
}

/* Piecewise elements keep their solved state: a source at its compliance
 * holds its node (0 ohm), a current-limited source adds no conductance. */
static void test_network__rth_piecewise(void **state)
{
	struct bn_net net;
	double v[1], r[1];

	/* 1 mA into 10 kohm wants 10 V, compliance 3.3 V: clamped */
	bn_net_init(&net, 1);
	bn_net_add_isrc(&net, 0, 1e-3, 3.3, 0, "i");
	bn_net_add_res(&net, 0, BN_NET_GND, 10e3, "r");
	assert_int_equal(bn_net_solve_rth(&net, v, r, NULL), BN_OK);
	assert_near(v[0], 3.3, 1e-9);
	assert_near(r[0], 0.0, 1e-9);
	/* 10 uA into 10 kohm: delivering, 10 kohm */
	bn_net_init(&net, 1);
	bn_net_add_isrc(&net, 0, 10e-6, 3.3, 0, "i");
	bn_net_add_res(&net, 0, BN_NET_GND, 10e3, "r");
	assert_int_equal(bn_net_solve_rth(&net, v, r, NULL), BN_OK);
	assert_near(v[0], 0.1, 1e-12);
	assert_near(r[0], 10e3, 1e-6);
	/* 5 V behind 1 ohm limited to 1 mA into 1 kohm: at its limit */
	bn_net_init(&net, 1);
	bn_net_add_vsrc(&net, 0, 5.0, 1.0, 1e-3, "lim");
	bn_net_add_res(&net, 0, BN_NET_GND, 1e3, "r");
	assert_int_equal(bn_net_solve_rth(&net, v, r, NULL), BN_OK);
	assert_near(v[0], 1.0, 1e-9);
	assert_near(r[0], 1e3, 1e-6);
}

static void test_network__singular_rejected(void **state)
{
	struct bn_net net;
	struct bn_err err = { 0 };
	double v[3];

	bn_net_init(&net, 3);
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "r0") >= 0);
	assert_true(bn_net_add_res(&net, 1, 2, 1000, "r12") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "node 1"));
	assert_non_null(strstr(err.msg, "r12"));

	bn_err_clear(&err);
	bn_net_init(&net, 2);
	assert_true(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "r0") >= 0);
	assert_true(bn_net_add_isrc(&net, 1, 1e-6, 3.3, 0, "lonely") >= 0);
	assert_int_equal(bn_net_solve(&net, v, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "node 1"));
	assert_non_null(strstr(err.msg, "lonely"));
}

static void test_network__bad_args(void **state)
{
	struct bn_net net;

	bn_net_init(&net, 2);
	assert_int_equal(bn_net_add_res(&net, 0, 1, 0.0, "zero"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_res(&net, 0, 1, -5.0, "neg"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_res(&net, 0, 2, 1.0, "node"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_res(&net, 1, 1, 1.0, "self"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_res(&net, BN_NET_GND, BN_NET_GND, 1.0, "gg"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_vsrc(&net, 0, 1.0, 0.0, 0, "r0"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_vsrc(&net, BN_NET_GND, 1.0, 1.0, 0, "gnd"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_vsrc(&net, 0, 1.0, 1.0, -1e-3, "lim"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_isrc(&net, 0, 1e-6, 3.3, -1.0, "rneg"), BN_ERR_ARG);
	assert_int_equal(bn_net_add_isrc(&net, 0, NAN, 3.3, 0, "nan"), BN_ERR_ARG);
	assert_int_equal(net.n_elems, 0);
	for (int i = 0; i < BN_NET_MAX_ELEMS; i++)
		assert_int_equal(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "r"), i);
	assert_int_equal(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "full"), BN_ERR_ARG);
	assert_true(isnan(bn_net_elem_current(&net, BN_NET_MAX_ELEMS, (double[2]){ 0, 0 })));

	bn_net_init(&net, BN_NET_MAX_NODES + 1);
	assert_int_equal(bn_net_add_res(&net, 0, BN_NET_GND, 1000, "r"), BN_ERR_ARG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network__divider),
		cmocka_unit_test(test_network__res_ground_first),
		cmocka_unit_test(test_network__two_sources),
		cmocka_unit_test(test_network__isrc_into_resistor),
		cmocka_unit_test(test_network__isrc_compliance),
		cmocka_unit_test(test_network__sink_compliance),
		cmocka_unit_test(test_network__vsrc_current_limit),
		cmocka_unit_test(test_network__isrc_pushed_past),
		cmocka_unit_test(test_network__two_clamps_one_node),
		cmocka_unit_test(test_network__limit_against_sink),
		cmocka_unit_test(test_network__rth_linear),
		cmocka_unit_test(test_network__rth_piecewise),
		cmocka_unit_test(test_network__singular_rejected),
		cmocka_unit_test(test_network__bad_args),
	};

	return cmocka_run_group_tests_name("network", tests, NULL, NULL);
}
