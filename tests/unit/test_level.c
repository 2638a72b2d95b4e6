/* checks/level.h and bn_persist_run (checks/persist.h), each helper on its
 * own: persistence and its dating, VBUS valid and its re-arming, block
 * means and their U, and the extreme judge on both sides of a limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/level.h"
#include "lib/harness.h"

#define MS BN_US_PER_MS

/* Times t0, t0 + step, ... (n of them). */
static void times(bn_time_us *t, long n, bn_time_us t0, bn_time_us step)
{
	for (long k = 0; k < n; k++)
		t[k] = t0 + k * step;
}

/* An ideal bench sampling at rate_hz, judged against the shipped limits. */
static struct bn_check_ctx ctx_at(double rate_hz)
{
	struct bn_check_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.lim = &bn_test_lim;
	ctx.rate_hz = rate_hz;
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		bn_meas_ideal(&ctx.meas[ch]);
	return ctx;
}

static struct bn_result result(const char *decision)
{
	struct bn_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.decision, sizeof(r.decision), "%s", decision);
	return r;
}

/* ---- bn_persist_run ---- */

static void test_level__persist_run_dates_at_the_first_sample(void **state)
{
	struct bn_persist p;
	bn_time_us t[20], tc = -1;

	(void)state;
	/* 1 kHz: the third sample (2 ms on) completes both the count and 1 ms */
	times(t, 20, 10 * MS, MS);
	bn_persist_init(&p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	assert_int_equal(bn_persist_run(&p, true, t, 20, &tc), 2);
	assert_true(p.state);
	assert_int_equal(tc, 10 * MS);
	/* 10 kHz: the time decides, the sample 1 ms after the first */
	times(t, 20, 50 * MS, 100);
	bn_persist_init(&p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	assert_int_equal(bn_persist_run(&p, true, t, 20, &tc), 10);
	assert_int_equal(tc, 50 * MS);
	/* the same condition again changes nothing */
	assert_int_equal(bn_persist_run(&p, true, t, 20, &tc), 20);
}

static void test_level__persist_run_spans_runs_and_cancels(void **state)
{
	struct bn_persist p;
	bn_time_us t[4], tc = -1;

	(void)state;
	bn_persist_init(&p, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	/* two samples: pending, dated at the first */
	times(t, 2, 0, MS);
	assert_int_equal(bn_persist_run(&p, true, t, 2, &tc), 2);
	assert_true(bn_persist_pending(&p));
	/* one sample back cancels it */
	times(t, 1, 2 * MS, MS);
	assert_int_equal(bn_persist_run(&p, false, t, 1, &tc), 1);
	assert_false(bn_persist_pending(&p));
	/* a new change counts afresh from its own first sample, over runs */
	times(t, 2, 3 * MS, MS);
	assert_int_equal(bn_persist_run(&p, true, t, 2, &tc), 2);
	times(t, 4, 5 * MS, MS);
	assert_int_equal(bn_persist_run(&p, true, t, 4, &tc), 0);
	assert_true(p.state);
	assert_int_equal(tc, 3 * MS);
}

/* A run fed at once leaves the persistence as n single samples do. */
static void test_level__persist_run_equals_sample_by_sample(void **state)
{
	static const struct {
		bool raw;
		long n;
	} runs[] = { { true, 1 }, { true, 1 }, { false, 5 }, { true, 2 }, { true, 7 },
		     { false, 1 }, { true, 1 }, { false, 3 }, { false, 9 }, { true, 40 } };
	struct bn_persist a, b;
	bn_time_us t[64], t0 = 0;

	(void)state;
	bn_persist_init(&a, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
	b = a;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		long n = runs[r].n, k, k_each = n;
		bn_time_us tc_run = -1, tc_each = -1;

		times(t, n, t0, 400);
		k = bn_persist_run(&a, runs[r].raw, t, n, &tc_run);
		for (long i = 0; i < n; i++)
			if (bn_persist_feed(&b, runs[r].raw, t[i], t[i], 1, &tc_each) && k_each == n)
				k_each = i;
		assert_int_equal(k, k_each);
		assert_int_equal(tc_run, tc_each);
		assert_int_equal(a.state, b.state);
		assert_int_equal(a.pending, b.pending);
		/* the count and the first sample matter while a change is pending */
		if (a.pending) {
			assert_int_equal(a.n, b.n);
			assert_int_equal(a.t_first, b.t_first);
		}
		t0 += n * 400;
	}
	assert_true(a.state);
}

/* ---- uncertainty and ground ---- */

static void test_level__u_of_a_level_and_a_span(void **state)
{
	struct bn_check_ctx ctx = ctx_at(1000);
	double u1, u9;

	(void)state;
	ctx.meas[BN_CH_IBUS].noise_rms = 2e-3;
	ctx.meas[BN_CH_IBUS].offset = 0.2e-3;
	/* k = 2 over offset (rectangular) and noise (shrinking with n) */
	u1 = bn_level_U(&ctx, BN_CH_IBUS, 0.5, 1);
	u9 = bn_level_U(&ctx, BN_CH_IBUS, 0.5, 9);
	assert_near(u1, 2 * sqrt(0.2e-3 * 0.2e-3 / 3 + 4e-6), 1e-12);
	assert_near(u9, 2 * sqrt(0.2e-3 * 0.2e-3 / 3 + 4e-6 / 9), 1e-12);
	/* the offset stays however long the average */
	assert_near(bn_level_U(&ctx, BN_CH_IBUS, 0.5, 1L << 40), 2 * 0.2e-3 / sqrt(3), 1e-9);
	/* two step edges at 1 kHz: each a period, rectangular */
	assert_near(bn_span_U(&ctx, BN_CH_VBUS, BN_CH_DP), 2 * sqrt(2.0) * 1e-3 / sqrt(12), 1e-12);
}

static void test_level__device_ground(void **state)
{
	struct bn_check_ctx ctx = ctx_at(1000);

	(void)state;
	ctx.gnd_offset_v = 0.375;
	assert_near(bn_gnd_shift_v(&ctx, BN_CH_DP), 0.375, 0);
	assert_false(bn_gnd_unknown(&ctx, BN_CH_DP));
	ctx.meas[BN_CH_DP].gnd = BN_GND_DUT;
	assert_near(bn_gnd_shift_v(&ctx, BN_CH_DP), 0, 0);
	ctx.gnd_offset_v = NAN;
	assert_false(bn_gnd_unknown(&ctx, BN_CH_DP));
	ctx.meas[BN_CH_DP].gnd = BN_GND_PORT;
	assert_true(bn_gnd_unknown(&ctx, BN_CH_DP));
	assert_near(bn_gnd_shift_v(&ctx, BN_CH_DP), 0, 0);
}

/* ---- blocks ---- */

struct seen {
	int n;
	bn_time_us t0[8];
	long cnt[8];
	double m0[8], m1[8];
	bool full[8];
};

static void seen_fn(void *user, const struct bn_block *b)
{
	struct seen *s = user;

	if (s->n >= 8)
		return;
	s->t0[s->n] = b->t0;
	s->cnt[s->n] = b->n;
	s->m0[s->n] = bn_block_mean(b, 0);
	s->m1[s->n] = bn_block_mean(b, 1);
	s->full[s->n] = bn_block_full(b);
	s->n++;
}

static void test_level__block_length(void **state)
{
	struct bn_check_ctx a = ctx_at(1000), b = ctx_at(10000), c = ctx_at(0);

	(void)state;
	assert_int_equal(bn_block_len_us(&a), 3 * MS); /* 3 samples at 1 kHz */
	assert_int_equal(bn_block_len_us(&b), BN_PERSIST_LEVEL_US);
	assert_int_equal(bn_block_len_us(&c), BN_PERSIST_LEVEL_US);
}

static void test_level__block_means(void **state)
{
	struct bn_block b;
	struct seen s = { 0 };
	bn_time_us t[16];

	(void)state;
	bn_block_start(&b, 10 * MS, 3 * MS);
	/* a held run of 0.1 A over two blocks (at 2 kHz), then a sample past
	 * them closes both */
	times(t, 12, 10 * MS, MS / 2);
	bn_block_run(&b, t, 12, 0.1, 5.0, true, seen_fn, &s);
	times(t, 1, 16 * MS, MS);
	bn_block_run(&b, t, 1, 0.4, 5.0, true, seen_fn, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.t0[0], 10 * MS);
	assert_int_equal(s.t0[1], 13 * MS);
	assert_int_equal(s.cnt[0], 6);
	/* a run of one value has that mean, to the bit */
	assert_true(s.m0[0] == 0.1 && s.m0[1] == 0.1 && s.m1[0] == 5.0);
	assert_true(s.full[0] && s.full[1]);
	/* two values: their weighted mean; a sample failing the rule's
	 * condition spoils the block */
	times(t, 2, 17 * MS, MS);
	bn_block_run(&b, t, 2, 0.1, 5.0, false, seen_fn, &s);
	times(t, 1, 19 * MS, MS);
	bn_block_run(&b, t, 1, 0.1, 5.0, true, seen_fn, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.t0[2], 16 * MS);
	assert_near(s.m0[2], (0.4 + 0.2) / 3, 1e-15);
	assert_false(s.full[2]);
	/* too few samples: not a level; a long gap skips the empty blocks */
	times(t, 1, 40 * MS, MS);
	bn_block_run(&b, t, 1, 0.1, 5.0, true, seen_fn, &s);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.cnt[3], 1);
	assert_false(s.full[3]);
	assert_int_equal(b.t0, 40 * MS);
	/* restarted: the part block is dropped, blocks align to the start */
	bn_block_start(&b, 40 * MS + 500, 3 * MS);
	times(t, 4, 41 * MS, MS);
	bn_block_run(&b, t, 4, 0.1, 5.0, true, seen_fn, &s);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.t0[4], 40 * MS + 500);
	assert_int_equal(s.cnt[4], 3);
}

/* A run at once and the same samples one by one: the same sums, bit for bit. */
static void test_level__block_run_equals_sample_by_sample(void **state)
{
	struct bn_block a, b;
	struct seen sa = { 0 }, sb = { 0 };
	bn_time_us t[40];
	const double v[] = { 0.1, 0.3, 0.3, 0.7 };

	(void)state;
	bn_block_start(&a, 0, 3 * MS);
	bn_block_start(&b, 0, 3 * MS);
	for (int r = 0; r < 4; r++) {
		times(t, 10, r * 10 * MS / 4, MS / 4);
		bn_block_run(&a, t, 10, v[r], -v[r], true, seen_fn, &sa);
		for (int k = 0; k < 10; k++)
			bn_block_run(&b, &t[k], 1, v[r], -v[r], true, seen_fn, &sb);
	}
	assert_int_equal(sa.n, sb.n);
	assert_true(sa.n >= 2);
	for (int k = 0; k < sa.n; k++) {
		assert_true(sa.m0[k] == sb.m0[k] && sa.m1[k] == sb.m1[k]);
		assert_int_equal(sa.cnt[k], sb.cnt[k]);
	}
}

/* ---- the extreme judge ---- */

/* IBUS with 2 mA rms of noise and no offset: one 10-sample block's U is
 * 2 x 2 mA / sqrt(10) = 1.26 mA. */
static struct bn_check_ctx noisy_ibus(void)
{
	struct bn_check_ctx ctx = ctx_at(1000);

	ctx.meas[BN_CH_IBUS].noise_rms = 2e-3;
	return ctx;
}

static void test_level__extreme_pass_uses_one_blocks_u(void **state)
{
	struct bn_check_ctx ctx = noisy_ibus();
	struct bn_result r = result("guarded");
	double u1 = 2 * 2e-3 / sqrt(10);

	(void)state;
	/* the highest of 10000 blocks, 2 mA inside 0.1 A: passes with the plain U */
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.098, 1.0, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.u, u1, 1e-12);
	/* 0.5 mA inside: within U */
	r = result("guarded");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.0995, 1.0, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reason, "within measurement uncertainty"));
	/* a share of the samples (the rest exact zeros) scales the U */
	r = result("guarded");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.05, 0.5, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_PASS);
	assert_near(r.u, 0.5 * u1, 1e-12);
}

static void test_level__extreme_fail_needs_the_widened_u(void **state)
{
	struct bn_check_ctx ctx = noisy_ibus();
	struct bn_result r = result("guarded");

	(void)state;
	/* 2 mA over: beyond one block's U (1.26 mA), but not beyond the
	 * largest noise of 10000 blocks (about 4.6 sigma, 2.9 mA) */
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.102, 1.0, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	if (!strstr(r.reason, "as the highest of 10000 block means"))
		fail_msg("reason: %s", r.reason);
	/* the same from one block fails */
	r = result("guarded");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.102, 1.0, 10, 1, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	/* 5 mA over fails from 10000 blocks too */
	r = result("guarded");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.105, 1.0, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
	/* the lowest against a minimum, the same way */
	r = result("guarded");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.098, 1.0, 10, 10000, 0.1, NAN, "A");
	assert_int_equal(r.verdict, BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reason, "as the lowest of 10000 block means"));
	/* simple acceptance: the plain limit */
	r = result("simple");
	bn_judge_extreme(&r, &ctx, BN_CH_IBUS, 0.1005, 1.0, 10, 10000, NAN, 0.1, "A");
	assert_int_equal(r.verdict, BN_VERDICT_FAIL);
}

/* ---- VBUS valid ---- */

/* n samples at 1 kHz from t0: the index at which validity changed. */
static long vv_feed(struct bn_vvalid *vv, double vbus, double ibus, bn_time_us t0, long n)
{
	bn_time_us t[64];

	times(t, n, t0, MS);
	return bn_vvalid_run(vv, vbus, ibus, t, n);
}

/* VBUS valid at 1 kHz with noise_v rms on VBUS; drawing: above 10 mA. */
static struct bn_vvalid vv_new(double noise_v)
{
	struct bn_check_ctx ctx = ctx_at(1000);
	struct bn_vvalid vv;

	ctx.meas[BN_CH_VBUS].noise_rms = noise_v;
	bn_vvalid_init(&vv, &ctx, 0.01);
	return vv;
}

/* 5 V from t0 on: valid at its third sample, dated at t0, the n-th time. */
static void rises(struct bn_vvalid *vv, bn_time_us t0, int n)
{
	assert_int_equal(vv_feed(vv, 5, 0, t0, 10), 2);
	assert_true(vv->valid);
	assert_int_equal(vv->t_valid, t0);
	assert_int_equal(vv->n_valid, n);
}

static void test_level__vbus_valid_dated_and_rearmed(void **state)
{
	struct bn_vvalid vv = vv_new(0);
	double on = bn_limits_max(&bn_test_lim, "VOTG_SESS_VLD");
	double off = bn_limits_max(&bn_test_lim, "VBUS_LKG");

	(void)state;
	/* ideal: the thresholds are the limits themselves */
	assert_near(vv.on_v, on, 0);
	assert_near(vv.off_v, off, 0);
	assert_int_equal(vv_feed(&vv, 0, 0, 0, 5), 5);
	/* a 2 ms spike above is no VBUS */
	assert_int_equal(vv_feed(&vv, 5, 0, 5 * MS, 2), 2);
	assert_int_equal(vv_feed(&vv, 0, 0, 7 * MS, 1), 1);
	assert_false(vv.valid);
	/* valid once held: dated at its first sample */
	rises(&vv, 8 * MS, 1);
	/* a sag between the thresholds, or low while the device still draws
	 * (a port that folded back): still valid */
	assert_int_equal(vv_feed(&vv, 0.5 * (on + off), 0, 18 * MS, 10), 10);
	assert_int_equal(vv_feed(&vv, 0, 0.5, 28 * MS, 10), 10);
	assert_true(vv.valid);
	/* off: below VBUS_LKG with nothing drawn, for the persistence */
	assert_int_equal(vv_feed(&vv, 0, 0, 38 * MS, 10), 2);
	assert_false(vv.valid);
	/* it returns: valid again, the grace re-armed from the return */
	rises(&vv, 60 * MS, 2);
	/* a new session is not valid until measured so */
	bn_vvalid_restart(&vv);
	assert_false(vv.valid);
	assert_int_equal(vv_feed(&vv, 5, 0, 80 * MS, 2), 2);
	assert_false(vv.valid);
	assert_int_equal(vv_feed(&vv, 5, 0, 82 * MS, 1), 0);
	assert_int_equal(vv.t_valid, 80 * MS);
}

static void test_level__vbus_valid_thresholds_carry_u(void **state)
{
	struct bn_vvalid vv = vv_new(10e-3);
	double on = bn_limits_max(&bn_test_lim, "VOTG_SESS_VLD");
	double off = bn_limits_max(&bn_test_lim, "VBUS_LKG");

	(void)state;
	/* one sample's U (2 x 10 mV) beyond each limit */
	assert_near(vv.on_v, on + 0.02, 1e-12);
	assert_near(vv.off_v, off - 0.02, 1e-12);
	/* just above the limit is within U: not yet valid */
	assert_int_equal(vv_feed(&vv, on + 0.01, 0, 0, 10), 10);
	assert_false(vv.valid);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level__persist_run_dates_at_the_first_sample),
		cmocka_unit_test(test_level__persist_run_spans_runs_and_cancels),
		cmocka_unit_test(test_level__persist_run_equals_sample_by_sample),
		cmocka_unit_test(test_level__u_of_a_level_and_a_span),
		cmocka_unit_test(test_level__device_ground),
		cmocka_unit_test(test_level__block_length),
		cmocka_unit_test(test_level__block_means),
		cmocka_unit_test(test_level__block_run_equals_sample_by_sample),
		cmocka_unit_test(test_level__extreme_pass_uses_one_blocks_u),
		cmocka_unit_test(test_level__extreme_fail_needs_the_widened_u),
		cmocka_unit_test(test_level__vbus_valid_dated_and_rearmed),
		cmocka_unit_test(test_level__vbus_valid_thresholds_carry_u),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, bn_test_setup_limits, bn_test_teardown_limits);
}
