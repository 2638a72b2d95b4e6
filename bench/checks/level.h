/* What the rules that judge a level on real signals share, so that each
 * idea is written once (and tested once, tests/unit/test_level.c):
 *
 *   the uncertainty  bn_level_U (a level), bn_span_U (a time between two
 *                    edges): expanded, k = 2, from ctx->meas.
 *   the ground       bn_gnd_shift_v: a level the device sources is judged
 *                    in the device's ground.
 *   blocks           bn_block: consecutive blocks of the level persistence.
 *                    An instant bound is judged on block means: noise
 *                    shrinks over a block, an excursion of two blocks always
 *                    counts, one shorter than a block never.
 *   the extreme      bn_judge_extreme: the highest (lowest) of many block
 *                    means against a limit, its U widened for a fail only.
 *   VBUS valid       bn_vvalid: VBUS measured valid (with U and persistence)
 *                    rather than the bench's command, so that a grace
 *                    starts when the device can see VBUS, and again when
 *                    VBUS returns after a charger shut down.
 *
 * Each keeps a run of n equal samples (a rule's hold()) exactly as n
 * single samples would leave it (checks/hold.h). */
#ifndef BN_CHECKS_LEVEL_H
#define BN_CHECKS_LEVEL_H

#include <math.h>
#include <stdbool.h>

#include "checks/check.h"
#include "checks/hold.h"
#include "checks/persist.h"

/* ---- uncertainty ---- */

/* Expanded U of a level on ch: one sample (n = 1) or the mean of n (its
 * noise shrinks; offset and gain do not). */
double bn_level_U(const struct bn_check_ctx *ctx, enum bn_chan ch, double v, long n);

/* Expanded U of a time between two step edges on channels a and b, each
 * dated at its first sample past its threshold (the sample period, the
 * clock's jitter). */
double bn_span_U(const struct bn_check_ctx *ctx, enum bn_chan a, enum bn_chan b);

/* ---- the device's ground ----
 * A level the device sources (its D+, its OTG VBUS) is limited in the
 * device's ground; a channel measured against the port's reads it
 * shifted by ctx->gnd_offset_v (CP 6.14, 6.15). */

/* ch reads against the port's ground and the offset is not known. */
static inline bool bn_gnd_unknown(const struct bn_check_ctx *ctx, enum bn_chan ch)
{
	return ctx->meas[ch].gnd == BN_GND_PORT && isnan(ctx->gnd_offset_v);
}

/* What to subtract from a reading on ch for the device's ground (0 when
 * the channel reads in it, or the offset is not known). */
static inline double bn_gnd_shift_v(const struct bn_check_ctx *ctx, enum bn_chan ch)
{
	return ctx->meas[ch].gnd == BN_GND_PORT && !isnan(ctx->gnd_offset_v) ? ctx->gnd_offset_v : 0;
}

/* ---- means ---- */

/* The mean of the n samples summed in r. A run of one value has that
 * value as its mean (n * v / n need not be v: a draw of exactly a limit
 * is not above it). */
static inline double bn_rsum_mean(const struct bn_rsum *r, long n)
{
	return r->done == 0 && r->n == n ? r->v : bn_rsum_total(r) / (double)n;
}

/* ---- consecutive blocks ---- */

/* Blocks [t0, t0 + len_us) one after the other from a start, of two
 * quantities summed over the same samples (a level, and the current
 * drawn meanwhile, say). */
struct bn_block {
	bn_time_us t0, len_us;     /* the block being filled */
	struct bn_rsum sum[2];
	long n;
	bool ok;                   /* every sample of it met the rule's condition */
};

/* Sees each block that closes with samples in it. */
typedef void (*bn_block_fn)(void *user, const struct bn_block *b);

/* The level persistence as a block: BN_PERSIST_LEVEL_US, and at least
 * BN_PERSIST_MIN_SAMPLES sample periods. */
bn_time_us bn_block_len_us(const struct bn_check_ctx *ctx);

/* Start afresh at t0 (a block cut short is dropped: it never held long
 * enough). bn_block_to: close the block if it ended at or before t (fn
 * sees it if it has samples) and move to the one holding t. */
void bn_block_start(struct bn_block *b, bn_time_us t0, bn_time_us len_us);

/* n equal samples of (x0, x1) at t[0..n-1], meeting the rule's condition
 * (ok) or not: closes the blocks that end before a sample (fn sees each
 * that has samples) and sums the rest. */
void bn_block_to(struct bn_block *b, bn_time_us t, bn_block_fn fn, void *user);
/* Inline: several rules call it once a sample. */
static inline void bn_block_run(struct bn_block *b, const bn_time_us *t, long n, double x0, double x1,
				bool ok, bn_block_fn fn, void *user)
{
	for (long k = 0, j; k < n; k = j) {
		if (t[k] >= b->t0 + b->len_us)
			bn_block_to(b, t[k], fn, user);
		j = bn_first_at(t, k + 1, n, b->t0 + b->len_us);
		bn_rsum_add(&b->sum[0], x0, j - k);
		bn_rsum_add(&b->sum[1], x1, j - k);
		b->n += j - k;
		if (!ok)
			b->ok = false;
	}
}

/* A block that counts as a level: every sample met the condition, and
 * there were BN_PERSIST_MIN_SAMPLES of them. */
static inline bool bn_block_full(const struct bn_block *b)
{
	return b->ok && b->n >= BN_PERSIST_MIN_SAMPLES;
}

static inline double bn_block_mean(const struct bn_block *b, int k)
{
	return bn_rsum_mean(&b->sum[k], b->n);
}

/* ---- the extreme of many block means ----
 * Judge the extreme block mean v (the highest against max, or the lowest
 * against min) of n_blk blocks of n samples on ch; scale (0, 1]: the mean
 * counts only that fraction of its samples, the rest as exact zeros (1:
 * all of them). Picking the extreme of many noisy means picks their noise
 * too, but only one way: the true extreme block lies within one block's U
 * of its own mean, so a pass needs the plain U; the block that measured
 * most extreme is the one whose noise went furthest out, so a failure
 * needs the noise part of U widened to the largest of n_blk noises.
 * Between the two: inconclusive. */
void bn_judge_extreme(struct bn_result *res, const struct bn_check_ctx *ctx, enum bn_chan ch, double v,
		      double scale, long n, long n_blk, double min, double max, const char *unit);

/* ---- VBUS valid, as measured ----
 * Valid: VBUS above VOTG_SESS_VLD max (where every device sees a session)
 * by more than one sample's U, for the level persistence, dated at its
 * first sample. Off again: below VBUS_LKG max by more than U as long, with
 * the device drawing no more than draw_a (a port that still delivers
 * current has folded back, not shut down). */
struct bn_vvalid {
	double on_v, off_v;        /* thresholds, U included */
	double draw_a;
	struct bn_persist above, below;
	bool valid;
	bn_time_us t_valid;        /* when it last became valid (its first sample) */
	int n_valid;               /* how many times it became valid */
};

/* The meter's stated accuracy sets the thresholds (a channel whose noise
 * the engine estimates has it only at end(): then offset, gain and
 * resolution alone). */
void bn_vvalid_init(struct bn_vvalid *vv, const struct bn_check_ctx *ctx, double draw_a);

/* A new session (the bench's vbus_on): not valid until measured so. */
void bn_vvalid_restart(struct bn_vvalid *vv);

/* n equal samples: the index at which vv->valid changed, n if none (a run
 * of one value changes it once at most). */
long bn_vvalid_run(struct bn_vvalid *vv, double vbus, double ibus, const bn_time_us *t, long n);

#endif
