#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"
#include "gen_stream.h"

void ctx_init(struct bn_check_ctx *ctx, enum bn_port_type port, unsigned decl, double rate_hz)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->lim = &bn_test_lim;
	ctx->port = port;
	ctx->port_name = bn_port_name(port);
	ctx->decl = decl;
	ctx->droop_threshold_v = 4.5;
	ctx->rate_hz = rate_hz;
	ctx->channels = BN_CH_ALL;
	ctx->events = BN_CEV_ALL;
}

void ev_at(struct bn_checks *c, enum bn_cev_kind k, double t_s)
{
	struct bn_cev ev = { .kind = k, .t_us = bn_time_from_s(t_s) };

	bn_checks_event(c, &ev);
}

/* Run the stream; return the verdict of rule id (and its result in *out). */
enum bn_verdict run_stream(const struct stream *st, enum bn_port_type port, unsigned decl,
				  const char *id, struct bn_result *out)
{
	struct bn_check_ctx ctx;
	struct bn_checks *c = NULL;
	struct bn_err err = { 0 };
	struct bn_report rep;
	long n = (long)(st->dur_s * st->rate_hz);
	bool conn = false, disc = false;
	enum bn_verdict v = BN_VERDICT_ERROR;
	struct bn_rng rng;

	bn_rng_seed(&rng, 1);
	ctx_init(&ctx, port, decl, st->rate_hz);
	if (st->conditions)
		bn_test_ctx_conditions(&ctx, st->conditions);
	ctx.channels &= ~st->drop_channels;
	ctx.events &= ~st->drop_events;
	assert_int_equal(bn_checks_new(&ctx, &c, &err), BN_OK);
	ev_at(c, BN_CEV_VBUS_ON, 0.0);
	for (long i = 0; i < n; i++) {
		double t = (double)i / st->rate_hz;
		struct bn_sample s = { { 0 } };

		if (!conn && st->connect_s >= 0 && t >= st->connect_s) {
			ev_at(c, BN_CEV_CONNECT, st->connect_s);
			conn = true;
		}
		if (!disc && st->disconnect_s >= 0 && t >= st->disconnect_s) {
			ev_at(c, BN_CEV_DISCONNECT, st->disconnect_s);
			disc = true;
		}
		st->gen(t, &s);
		bn_test_measure(&ctx, &rng, &s);
		bn_checks_sample(c, bn_time_from_s(t), &s);
	}
	ev_at(c, BN_CEV_VBUS_OFF, st->dur_s);
	bn_report_init(&rep);
	bn_checks_end(c, bn_time_from_s(st->dur_s), &rep);
	for (int k = 0; k < rep.n_results; k++)
		if (!strcmp(rep.results[k].id, id)) {
			v = rep.results[k].verdict;
			if (out)
				*out = rep.results[k];
		}
	bn_report_free(&rep);
	bn_checks_free(c);
	return v;
}

void run_table(const struct tcase *tc, size_t n, enum bn_port_type port, unsigned decl)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct bn_result r = { 0 };
		enum bn_verdict v = run_stream(&tc[i].st, port, decl, tc[i].rule, &r);

		if (v != tc[i].expect) {
			print_error("%s / %s: %s, expected %s (%s)\n", tc[i].rule, tc[i].name,
				    bn_verdict_name(v), bn_verdict_name(tc[i].expect), r.reason);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}
