/* A synthetic stream from a generator function, fed through the whole
 * check engine: VBUS on at 0, optional connect and disconnect, VBUS off
 * at the end; channels and event kinds can be dropped from the context. */
#ifndef BN_TESTS_UNIT_GEN_STREAM_H
#define BN_TESTS_UNIT_GEN_STREAM_H

#include <stddef.h>

#include "checks/check.h"
#include "report/report.h"

/* A stream: samples from gen() at rate_hz for dur_s, VBUS on at 0, the
 * listed connect/disconnect times, VBUS off at the end. */
struct stream {
	double dur_s, rate_hz;
	void (*gen)(double t, struct bn_sample *s);
	double connect_s, disconnect_s; /* < 0: none */
	unsigned drop_channels, drop_events;
	/* NULL: ideal; else profiles/conditions/NAME.json's measurement is
	 * applied to the samples (seed 1) and given to the rules. */
	const char *conditions;
};

struct tcase {
	const char *rule;
	const char *name;
	struct stream st;
	enum bn_verdict expect;
};

/* A context for port, decl and rate: every channel and event kind. */
void ctx_init(struct bn_check_ctx *ctx, enum bn_port_type port, unsigned decl, double rate_hz);
/* An event of kind k at t_s. */
void ev_at(struct bn_checks *c, enum bn_cev_kind k, double t_s);
/* Run the stream; the verdict of rule id (and its result in *out). */
enum bn_verdict run_stream(const struct stream *st, enum bn_port_type port, unsigned decl,
			   const char *id, struct bn_result *out);
/* Every case of the table must reach its expected verdict. */
void run_table(const struct tcase *tc, size_t n, enum bn_port_type port, unsigned decl);

#endif
