/* The simulated bench for a sweep: a world with the charger behind the
 * named port and no device drawing (a firmware that never opens its
 * input), the "sim" fixture and load on it, and virtual time as the
 * sweep's clock. The sweep then runs the same instrument path as on a
 * real bench. */
#ifndef BN_CURVE_SWEEP_SIM_H
#define BN_CURVE_SWEEP_SIM_H

#include <signal.h>

#include "core/err.h"
#include "core/limits.h"
#include "curve/sweep.h"
#include "hil/backend.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/host.h"
#include "sim/port.h"

struct bn_sweep_sim {
	struct bn_port_profile port;
	struct bn_charger charger;
	struct bn_host_profile host;
	struct bn_dut_decl dut;
	struct bn_world *w;
	struct bn_fixture fx;
	struct bn_load ld;
};

/* port_path: a port profile (profiles/ports/NAME.json); the charger is
 * copied. stop: a signal flag the world reads (may be NULL). On error
 * nothing is left open. */
int bn_sweep_sim_open(struct bn_sweep_sim *s, const struct bn_limits *lim, const char *port_path,
		      const struct bn_charger *charger, volatile sig_atomic_t *stop,
		      struct bn_err *err);
/* The sweep's bench: the sim fixture and load, virtual time. */
void bn_sweep_sim_bench(struct bn_sweep_sim *s, struct bn_sweep_bench *b);
void bn_sweep_sim_close(struct bn_sweep_sim *s);

#endif
