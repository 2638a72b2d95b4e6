/* A small resistive network solved by nodal analysis. It knows nodes and
 * elements only, never port types: the world builds the elements from the
 * port profile and the device's PHY state and asks for node voltages.
 *
 * Nodes are 0..n_nodes-1; BN_NET_GND (-1) is ground.
 * Elements:
 *  - resistor between two nodes (or a node and ground);
 *  - voltage source to ground with a series output resistance and an
 *    optional current limit (|I| > i_limit_a turns it into a current source
 *    of i_limit_a in the same direction);
 *  - current source into a node (i_a > 0 sources, i_a < 0 sinks), with a
 *    parallel output resistance (0 = ideal) and a compliance voltage: a
 *    source cannot push its node above v_compliance, a sink cannot pull it
 *    below v_compliance; at the limit the element behaves as a voltage
 *    source at v_compliance that delivers at most |i_a|.
 * Piecewise elements are solved by iterating their active set until it is
 * consistent. A node with no path to ground is singular: BN_ERR_DATA. */
#ifndef BN_SIM_NETWORK_H
#define BN_SIM_NETWORK_H

#include "core/err.h"

#define BN_NET_GND (-1)
#define BN_NET_MAX_NODES 6
#define BN_NET_MAX_ELEMS 40

enum bn_net_kind { BN_NET_RES, BN_NET_VSRC, BN_NET_ISRC };

struct bn_net_elem {
	enum bn_net_kind kind;
	int a, b;            /* RES: both ends; VSRC/ISRC: node a, b unused */
	double r_ohm;        /* RES: resistance; VSRC: series R (> 0); ISRC: parallel R, 0 = ideal */
	double v;            /* VSRC: open-circuit voltage; ISRC: compliance voltage */
	double i_a;          /* ISRC: current into node a; VSRC: current limit, 0 = none */
	const char *label;   /* for messages and debugging; not owned */
};

struct bn_net {
	int n_nodes;
	int n_elems;
	struct bn_net_elem e[BN_NET_MAX_ELEMS];
};

void bn_net_init(struct bn_net *net, int n_nodes);
/* Each returns the element index, or BN_ERR_ARG (bad node, bad value, full). */
int bn_net_add_res(struct bn_net *net, int a, int b, double r_ohm, const char *label);
int bn_net_add_vsrc(struct bn_net *net, int node, double v, double r_out_ohm,
		    double i_limit_a, const char *label);
int bn_net_add_isrc(struct bn_net *net, int node, double i_a, double v_compliance,
		    double r_out_ohm, const char *label);

/* Solve: v_out[0..n_nodes-1] in volts. */
int bn_net_solve(const struct bn_net *net, double *v_out, struct bn_err *err);
/* The same, and each node's driving-point (Thevenin) resistance in the
 * solved state: what a capacitance on the node charges through, so a
 * node with capacitance c settles toward v_out with a time constant
 * r_th_ohm * c. Piecewise elements keep their solved state (a current
 * source at its compliance holds its node: 0 ohm; one delivering its
 * current adds nothing). r_th_ohm may be NULL. */
int bn_net_solve_rth(const struct bn_net *net, double *v_out, double *r_th_ohm,
		     struct bn_err *err);

/* The current element idx delivers into its node a (for RES: from b into a)
 * at the solved voltages v, honouring compliance and limits. */
double bn_net_elem_current(const struct bn_net *net, int idx, const double *v);

#endif
