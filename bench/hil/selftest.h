/* `bcbench selftest`: the fixture switched through every port type its
 * file defines, each checked against what the file says: the switch
 * states are legal and written (the backend refuses otherwise), the
 * inputs read what they should (an "expect" level, or the output they
 * "follow", e.g. VBUS_SENSE follows VBUS_EN), and, with a meter (a
 * capture device), each network's voltages with VBUS on and no device
 * attached lie in the port's "expect" ranges. One line per check:
 * PASS, FAIL or SKIP and why (NOTE lines say what was not done, and do
 * not count). VBUS comes from the supply behind the fixture: a
 * programmable one must be on before (bcbench selftest does that). */
#ifndef BN_HIL_SELFTEST_H
#define BN_HIL_SELFTEST_H

#include <signal.h>
#include <stdio.h>

#include "core/channel.h"
#include "core/err.h"
#include "hil/backend.h"
#include "hil/fixture_def.h"

/* Mean of each channel over a short window; NAN for one not measured. */
struct bn_selftest_meter {
	int (*measure)(void *user, double v[BN_CH_COUNT], struct bn_err *err);
	void *user;
};

struct bn_selftest_result {
	int pass, fail, skip;
	char first_fail[400];
};

/* Runs the checks on an open fixture, printing to out. meter may be NULL
 * (measurements SKIP). Stops between checks when *stop is set. Leaves the
 * fixture in its safe state. BN_OK when it ran to the end (see res for
 * the verdicts); BN_ERR_INTR when stopped; a fixture error (the bench
 * faulted: the checks cannot go on) otherwise. */
int bn_selftest_run(struct bn_fixture *fx, const struct bn_fixture_def *def,
		    const struct bn_selftest_meter *meter, volatile const sig_atomic_t *stop,
		    FILE *out, struct bn_selftest_result *res, struct bn_err *err);

#endif
