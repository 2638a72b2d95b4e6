/* How a channel is measured: what the instrument adds to the true value
 * (offset, gain error, resolution, noise, sample-clock jitter) and its
 * ground reference. The same description serves three purposes:
 *   - the simulated bench's measurement conditions (bench.conf meas_CH,
 *     the scenario's `measure CH "..."`): the sim applies the values as
 *     written (an offset of -5mV shifts every sample by -5 mV);
 *   - an instrument's stated accuracy (bench.conf for a real capture
 *     device, `replay --uncertainty CH=...`): the values are bounds;
 *   - the uncertainty a result carries (bn_meas_u_*), which the decision
 *     rule weighs against a limit (checks/check.h).
 * Text form, one channel: comma-separated KEY=VALUE items,
 *   noise=3mV,offset=-2mV,gain=0.5%,bits=12,range=-1V..6V,jitter=1us,gnd=port
 * noise is white noise rms; offset a constant added; gain the relative
 * error of the scale (written with % or as a fraction); bits and range the
 * ADC's resolution (step = span / 2^bits, samples clipped to the range);
 * jitter the sample clock's rms error; gnd the ground the channel is
 * measured against: port (the port's ground, the default) or dut (the
 * device's). Unset items are ideal. */
#ifndef BN_CORE_MEAS_H
#define BN_CORE_MEAS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/units.h"

enum bn_gnd { BN_GND_PORT = 0, BN_GND_DUT };

struct bn_meas {
	double noise_rms;   /* channel unit */
	double offset;      /* channel unit, signed */
	double gain;        /* relative, signed (0.005 = +0.5 %) */
	int bits;           /* 0: continuous */
	double range_lo, range_hi; /* with bits; clipping */
	double jitter_s;    /* rms */
	enum bn_gnd gnd;
};

/* Where a channel's accuracy came from, for the report. */
enum bn_meas_src {
	BN_MEAS_SRC_IDEAL = 0,  /* the simulated bench with no conditions: exact */
	BN_MEAS_SRC_SIM,        /* the simulated bench's conditions (known exactly) */
	BN_MEAS_SRC_CONF,       /* bench.conf, for a real capture device */
	BN_MEAS_SRC_GIVEN,      /* replay --uncertainty, or the capture's own record */
	BN_MEAS_SRC_ESTIMATED,  /* none given: noise estimated from the data, accuracy unknown */
};

const char *bn_meas_src_name(enum bn_meas_src s);

/* The ideal measurement. */
void bn_meas_ideal(struct bn_meas *m);
bool bn_meas_is_ideal(const struct bn_meas *m);

/* Parse the text form for a channel of dimension dim (BN_DIM_V or
 * BN_DIM_A) into m (which starts ideal). On error: BN_ERR_DATA with
 * "what was expected" in why. */
int bn_meas_parse(const char *text, enum bn_dim dim, struct bn_meas *m, char *why, unsigned why_len);
/* The text form (for reports and events.json); "ideal" when ideal. */
void bn_meas_format(const struct bn_meas *m, enum bn_dim dim, char *buf, unsigned len);

/* The measurement of a channel measured by a, then degraded by b (replay
 * --perturb): noise adds in quadrature, offset and gain bounds add, the
 * coarser step stays. */
void bn_meas_combine(struct bn_meas *out, const struct bn_meas *a, const struct bn_meas *b);

/* The resolution step, 0 when continuous. */
double bn_meas_lsb(const struct bn_meas *m);

/* ---- applying conditions (the simulated bench) ---- */

/* A small deterministic generator (splitmix64 + Box-Muller): the same
 * seed gives the same noise on every machine. */
struct bn_rng {
	uint64_t s;
	bool have_spare;
	double spare;
};

void bn_rng_seed(struct bn_rng *r, uint64_t seed);
double bn_rng_uniform(struct bn_rng *r);  /* [0, 1) */
double bn_rng_gauss(struct bn_rng *r);    /* N(0, 1) */

/* What the instrument reads for the true value v; slope (unit/s) is the
 * signal's local slope, for the sample clock's jitter. */
double bn_meas_apply(const struct bn_meas *m, struct bn_rng *r, double v, double slope_per_s);

/* ---- uncertainty (expanded, coverage factor 2, as GUM / ISO 14253-1) ---- */

#define BN_MEAS_K 2.0

/* Standard uncertainty of one sample of value v, or of an average of n
 * samples (n >= 1): offset and gain are bounds (rectangular, a/sqrt(3))
 * and do not shrink; noise shrinks by sqrt(n); the resolution step
 * (rectangular, q/sqrt(12)) shrinks only as far as the noise dithers it. */
double bn_meas_u_level(const struct bn_meas *m, double v, long n);
/* The same for a difference of two levels measured on one channel
 * (offset cancels, gain applies to the difference). */
double bn_meas_u_delta(const struct bn_meas *m, double dv, long n);
/* Standard uncertainty of the time of one edge seen in samples at
 * rate_hz: the sample period (rectangular), the noise over the edge's
 * slew (unit/s; <= 0 or inf: a step), the clock jitter. */
double bn_meas_u_edge(const struct bn_meas *m, double rate_hz, double slew_per_s);

/* Root sum of squares of n standard uncertainties, times the coverage
 * factor: the expanded uncertainty U. */
double bn_u_expand(int n, const double *u);

#endif
