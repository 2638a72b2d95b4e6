/* A synthetic stream as tables: channel segments (a value over [t0, t1),
 * 0 elsewhere) and events, fed through the whole check engine. */
#ifndef BN_TESTS_UNIT_SEG_STREAM_H
#define BN_TESTS_UNIT_SEG_STREAM_H

#include <stdbool.h>

#include "checks/check.h"
#include "report/report.h"

#define MS(x) ((bn_time_us)((x) * 1000.0))

struct seg {
	double t0_ms, t1_ms;
	enum bn_chan ch;
	double v;
};

struct ev {
	double t_ms;
	enum bn_cev_kind kind;
	int value;
	double num;
};

struct stream {
	const struct seg *segs;
	int n_segs;
	const struct ev *evs;
	int n_evs;
	double end_ms;
	unsigned long long seed;  /* of the measurement noise (ctx's conditions); 0: 1 */
};

#define STREAM(segs_, evs_, end_)                                                             \
	((struct stream){ .segs = (segs_), .n_segs = (int)(sizeof(segs_) / sizeof((segs_)[0])), \
			  .evs = (evs_), .n_evs = (int)(sizeof(evs_) / sizeof((evs_)[0])),      \
			  .end_ms = (end_) })

/* A context with every channel, event and declaration at 10 kHz. */
struct bn_check_ctx base_ctx(enum bn_port_type port);
/* Run the stream through every rule; the result of rule id. */
struct bn_result run(const struct bn_check_ctx *ctx, const struct stream *s, const char *id);

#define assert_verdict(res, v)                                                                \
	do {                                                                                  \
		if ((res).verdict != (v)) {                                                   \
			print_error("%s: %s, expected %s (%s)\n", (res).id,                   \
				    bn_verdict_name((res).verdict), bn_verdict_name(v), (res).reason); \
			fail();                                                               \
		}                                                                             \
	} while (0)

#endif
