/* What the unit tests share: where the tree is, the shipped limits file
 * as a group fixture, and two ways of feeding the check engine a
 * synthetic stream (lib/seg_stream.h, lib/gen_stream.h). Linked into
 * every test binary by the Makefile. */
#ifndef BN_TESTS_UNIT_HARNESS_H
#define BN_TESTS_UNIT_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "checks/check.h"
#include "core/limits.h"

/* $BN_SRCDIR, or "." (tests run from the repository root). */
const char *bn_test_srcdir(void);

/* buf = the source tree's path rel. */
void bn_test_path(const char *rel, char *buf, size_t len);

/* The stems of the scenario files in scripts/scenarios ("dcp", "sdp-root", ...), sorted,
 * at most max; the count. */
int bn_test_scenario_names(char names[][64], int max);

/* a within eps of b, naming the expression when not. */
#define assert_near(a, b, eps)                                                      \
	do {                                                                        \
		double a_ = (a), b_ = (b);                                          \
		if (!(fabs(a_ - b_) <= (eps)))                                      \
			fail_msg("%s = %.9g, expected %.9g (+-%g)", #a, a_, b_,     \
				 (double)(eps));                                    \
	} while (0)

/* The error message contains s. */
#define assert_msg_has(err, s)                                                      \
	do {                                                                        \
		if (!strstr((err)->msg, (s)))                                       \
			fail_msg("message \"%s\" lacks \"%s\"", (err)->msg, (s));   \
	} while (0)

/* profiles/limits/bc12.json, loaded by the group setup. */
extern struct bn_limits bn_test_lim;
int bn_test_setup_limits(void **state);
int bn_test_teardown_limits(void **state);

/* profiles/conditions/NAME.json's measurement, given to ctx as the
 * simulated conditions (BN_MEAS_SRC_SIM) of every channel it sets: the
 * stream runners (seg_stream, gen_stream) then apply it to the samples,
 * with a fixed seed, and the rules judge with its uncertainty. Fails the
 * test if the file does not load. */
void bn_test_ctx_conditions(struct bn_check_ctx *ctx, const char *name);

/* Apply ctx's simulated conditions to one sample (no-op when ideal). */
struct bn_rng;
void bn_test_measure(const struct bn_check_ctx *ctx, struct bn_rng *rng, struct bn_sample *s);

#endif
