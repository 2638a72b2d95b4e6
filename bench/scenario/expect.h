/* Judging a scenario's expectations, for a live run (runner.c) and for a
 * replay that judges them again from the capture (scenario/replay.c): a
 * window of recent samples per channel, sized by the scenario's longest
 * STAT window, and the two kinds of expectation. An expectation is the
 * scenario author's own plain comparison (no uncertainty, no decision
 * rule): it says what the author asked for. */
#ifndef BN_SCENARIO_EXPECT_H
#define BN_SCENARIO_EXPECT_H

#include <stdbool.h>

#include "core/channel.h"
#include "report/report.h"
#include "scenario/scenario.h"

struct bn_sample_ring {
	double *v[BN_CH_COUNT];
	long cap, n, head; /* head: next write index */
};

/* The longest STAT window of the scenario's expectations (0: none). */
bn_time_us bn_scenario_longest_window(const struct bn_scenario *s);
int bn_ring_init(struct bn_sample_ring *w, bn_time_us longest_us, double rate_hz);
void bn_ring_push(struct bn_sample_ring *w, const struct bn_sample *s);
void bn_ring_free(struct bn_sample_ring *w);

/* The result's identity: expect.L<line>, kind, text, line. */
void bn_expect_result_init(struct bn_result *r, int line, const char *text);
/* STAT(CH, W) OP VALUE over the ring's latest samples at time now;
 * captured: whether CH is in the capture. */
void bn_expect_judge_stat(const struct bn_expect *ex, const struct bn_sample_ring *w,
			  double rate_hz, bool captured, bn_time_us now, struct bn_result *r);
/* dut.KEY OP VALUE on the value the device last reported (NULL: never;
 * where_suffix is added to that message, e.g. " on its console"). */
void bn_expect_judge_value(const struct bn_expect *ex, const char *val, const char *where_suffix,
			   bn_time_us now, struct bn_result *r);

/* The telemetry keys the bench knows a device to report: the built-in
 * firmware's (reference, probe) and a real device's console's
 * (docs/console-telemetry.md); *n their count. A firmware of one's own
 * may report others. */
const char *const *bn_telemetry_keys(int *n);

/* The unit a telemetry key carries in its name: _ma a current, _mv a
 * voltage, else none. */
enum bn_dim bn_expect_key_dim(const char *key);

#endif
