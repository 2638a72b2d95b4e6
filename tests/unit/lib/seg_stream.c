#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "harness.h"
#include "seg_stream.h"

struct bn_check_ctx base_ctx(enum bn_port_type port)
{
	struct bn_check_ctx c = {
		.lim = &bn_test_lim,
		.port = port,
		.port_name = bn_port_name(port),
		.decl = BN_DECL_BATTERY | BN_DECL_OTG | BN_DECL_SECONDARY | BN_DECL_DROOP,
		.droop_threshold_v = 4.5,
		.otg_rating_a = 0.5,
		.n_configs = 2,
		.config_value = { 1, 2 },
		.config_max_power_a = { 0.5, 0.1 },
		.configs_known = true,
		.rate_hz = 10000.0,
		.channels = BN_CH_ALL,
		.events = BN_CEV_ALL,
	};

	return c;
}

/* Run the stream through every rule; copy out the result of rule id. */
struct bn_result run(const struct bn_check_ctx *ctx, const struct stream *s, const char *id)
{
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_result out;
	bool found = false;
	bn_time_us dt = (bn_time_us)llround(1e6 / ctx->rate_hz), t_end = MS(s->end_ms);
	int ei = 0;
	struct bn_rng rng;

	bn_rng_seed(&rng, s->seed ? s->seed : 1);
	assert_int_equal(bn_checks_new(ctx, &c, &err), BN_OK);
	for (bn_time_us t = 0; t < t_end; t += dt) {
		struct bn_sample smp = { { 0 } };

		while (ei < s->n_evs && MS(s->evs[ei].t_ms) <= t) {
			struct bn_cev e = { .kind = s->evs[ei].kind, .t_us = MS(s->evs[ei].t_ms),
					    .value = s->evs[ei].value, .num = s->evs[ei].num };

			bn_checks_event(c, &e);
			ei++;
		}
		for (int k = 0; k < s->n_segs; k++)
			if (t >= MS(s->segs[k].t0_ms) && t < MS(s->segs[k].t1_ms))
				smp.v[s->segs[k].ch] = s->segs[k].v;
		bn_test_measure(ctx, &rng, &smp);
		for (int ch = 0; ch < BN_CH_COUNT; ch++)
			if (!(ctx->channels & (1u << ch)))
				smp.v[ch] = NAN;
		bn_checks_sample(c, t, &smp);
	}
	for (; ei < s->n_evs; ei++) {
		struct bn_cev e = { .kind = s->evs[ei].kind, .t_us = MS(s->evs[ei].t_ms),
				    .value = s->evs[ei].value, .num = s->evs[ei].num };

		bn_checks_event(c, &e);
	}
	bn_report_init(&rep);
	bn_checks_end(c, t_end, &rep);
	for (int i = 0; i < rep.n_results; i++)
		if (!strcmp(rep.results[i].id, id)) {
			out = rep.results[i];
			found = true;
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	if (!found)
		fail_msg("no result %s", id);
	return out;
}
