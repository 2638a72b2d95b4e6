/* Compliance checks: each BC-1.2 device rule is a streaming check that
 * sees the samples (VBUS, IBUS, DP, DM, ID at the capture rate) and the
 * events of a run in one pass, with memory that does not depend on the
 * run's length. It never sees the simulator: the same code judges a
 * capture from a sigrok device or a file.
 *
 * A rule declares its inputs (channels, events, minimum sample rate) and
 * where it applies (ports, device declarations). The engine (engine.c)
 * decides before the run: a rule that does not apply is skipped with why;
 * one whose inputs are missing is inconclusive with what was missing;
 * only the rest get begin/sample/event/end. A rule's end() may itself say
 * inconclusive (for example: the phase it judges never happened). Nothing
 * passes on missing data. */
#ifndef BN_CHECKS_CHECK_H
#define BN_CHECKS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/channel.h"
#include "core/check_ctx.h"
#include "core/event.h"
#include "core/limits.h"
#include "core/meas.h"
#include "core/time.h"
#include "report/report.h"
#include "core/port_type.h"

/* The five tasks of a BC-1.2 portable device (README.md, "Compliance rules"). */
#define BN_TASK_DETECT "1-detect-port"
#define BN_TASK_ADVERTISE "2-advertise-configurations"
#define BN_TASK_HOST_CHOICE "3-obey-host-choice"
#define BN_TASK_CURRENT "4-current-within-range"
#define BN_TASK_DBP "5-dead-battery"
/* The charging port's duties (the compliance plan's DCP and CDP tests):
 * rules judging the port, not the device (bn_rule.side). */
#define BN_TASK_PORT_OUTPUT "p1-port-output"
#define BN_TASK_PORT_LINES "p2-port-data-lines"
#define BN_TASK_PORT_HANDSHAKE "p3-port-handshake"
#define BN_TASK_PORT_RATING "p4-port-rating"

/* Whom a rule judges: the device under test (every rule of the five
 * device tasks) or the charging port in front of it. A port's failure
 * never makes a device non-compliant; it makes the device rules that
 * depend on the port inconclusive, naming the port. */
enum bn_side { BN_SIDE_DEVICE = 0, BN_SIDE_PORT };
const char *bn_side_name(enum bn_side s); /* "device", "port" */

#define BN_PORT_BIT(t) (1u << (t))

/* Standard uncertainties of a channel's level (one sample, or the average
 * of n), of a difference of two levels on it, and of an edge's time on it
 * (slew in unit/s; 0: a step). */
double bn_ctx_u_level(const struct bn_check_ctx *ctx, enum bn_chan ch, double v, long n);
double bn_ctx_u_delta(const struct bn_check_ctx *ctx, enum bn_chan ch, double dv, long n);
double bn_ctx_u_edge(const struct bn_check_ctx *ctx, enum bn_chan ch, double slew_per_s);

struct bn_rule {
	const char *id;       /* stable: "bc12.<family>.<rule>" */
	const char *task;     /* BN_TASK_* */
	enum bn_side side;    /* zero: the device */
	/* A device rule's verdict may rest on the port doing its duty: the
	 * port rules (ids, NULL-terminated; NULL: none) it rests on. When one
	 * of them fails in the same session, this rule's fail (a warning too)
	 * becomes inconclusive naming the port and what it failed; a pass
	 * stays (docs/port-dependencies.md). */
	const char *const *port_deps;
	const char *title;
	const char *clause;   /* compliance plan clause or tester tag, NULL if none */
	const char *limit;    /* the limits-file name judged against, NULL if none */
	/* What makes an excursion count, and over which window the rule
	 * judges: said in every result (e.g. "D+ outside VDP_SRC for > 1 ms
	 * ends the phase"). NULL: the rule judges events, not levels. */
	const char *persistence;
	unsigned needs_channels;
	unsigned needs_events;
	/* Events the verdict may rest on when they come, without needing
	 * them. A pass that rests on an event of needs_events | uses_events
	 * inferred from the samples (bn_cev.inferred) is made inconclusive. */
	unsigned uses_events;
	double min_rate_hz;   /* 0: any */
	unsigned ports;       /* BN_PORT_BIT()s where it applies; 0: every port */
	unsigned needs_decl;  /* all of these must be declared */
	unsigned excludes_decl; /* none of these may be declared */
	/* The rule reads ctx->port or ctx->decl itself (beyond ports and
	 * needs_decl): it cannot judge when they are unknown. */
	bool uses_port, uses_decl;
	/* A capture that starts after the attach is the rule's own business:
	 * its verdict does not rest on seeing the attach (the current family
	 * judges levels over the whole capture, its graces counted from VBUS
	 * measured valid), or it judges what such a capture still shows (a
	 * time known only as a bound). Otherwise, when the attach lies before
	 * the first sample, the engine makes a data-line rule's pass or fail
	 * inconclusive, saying so. */
	bool judges_late_capture;
	size_t priv_size;
	/* priv is zeroed. */
	void (*begin)(void *priv, const struct bn_check_ctx *ctx);
	void (*sample)(void *priv, bn_time_us t_us, const struct bn_sample *s);
	/* n more samples equal to the last one sample() saw (every channel,
	 * bitwise), at the increasing times t[0..n-1]: a capture holds still
	 * for long stretches (a simulated one almost always), and the engine
	 * hands such a run over at once. It must leave the rule as n calls of
	 * sample() would; sums may be formed as n * v (the same within
	 * rounding). NULL: the engine calls sample() n times. */
	void (*hold)(void *priv, const bn_time_us *t, long n, const struct bn_sample *s);
	/* Asked once every rule of the session has begun: true when sample()
	 * and hold() would do nothing this session (a rule that takes its
	 * state from another's at end(), detection.c), so the engine does not
	 * call them. NULL: false. */
	bool (*no_samples)(const void *priv);
	void (*event)(void *priv, const struct bn_cev *ev);
	/* Fill verdict, measured/unit, limit_min/max, margin, window, reason.
	 * id, task, title and limit name are filled by the engine. */
	void (*end)(void *priv, bn_time_us t_end_us, struct bn_result *res);
};

/* Every rule, in report order: bn_rule_at(0 .. bn_rules_count()-1). */
int bn_rules_count(void);
const struct bn_rule *bn_rule_at(int idx);
const struct bn_rule *bn_rule_find(const char *id);
/* True if name is a rule id or a family prefix ("bc12.dcd"), for check steps. */
bool bn_rule_name_known(const char *name);

/* Result helpers for rules. */
void bn_result_measured(struct bn_result *res, double v, const char *unit);
/* Judge v against [min, max] (NAN: open): sets verdict, limits and the
 * margin (signed distance to the nearest bound, positive inside). An exact
 * value (a count, a declared figure): no measurement uncertainty. */
void bn_result_judge(struct bn_result *res, double v, double min, double max, const char *unit);
/* The same for a measured value with expanded uncertainty U (>= 0, in
 * unit), under the result's decision rule (res->decision, set by the
 * engine before end()): inside by more than U passes, outside by more
 * than U fails, else inconclusive "within measurement uncertainty". */
void bn_result_judge_u(struct bn_result *res, double v, double u, double min, double max,
		       const char *unit);
void bn_result_window(struct bn_result *res, bn_time_us t0_us, bn_time_us t1_us);
/* A figure (not a verdict), e.g. time to settle; dropped when the result's
 * figures are full. */
void bn_result_figure(struct bn_result *res, const char *name, double v, const char *unit);
void bn_result_inconclusive(struct bn_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bn_result_fail(struct bn_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the engine: runs every rule over one stream ---- */

struct bn_checks;

/* What the rules of one session share through ctx->share, cleared by the
 * engine before each session's begin()s. The detection rules (detection.c)
 * all run one tracker on the same inputs: the last to begin steps it
 * (det_leader), the others take a copy of its state at end() (the engine
 * ends rules in the order it began them). det_zero: a rule reads the
 * idle lines' auto-zero. */
struct bn_check_share {
	void *det_leader;
	bool det_zero;
};

int bn_checks_new(const struct bn_check_ctx *ctx, struct bn_checks **out, struct bn_err *err);
void bn_checks_sample(struct bn_checks *c, bn_time_us t_us, const struct bn_sample *s);
/* A sample equal to the last one given (the caller knows: a replay
 * compares the stored floats), without building and comparing it. */
void bn_checks_sample_again(struct bn_checks *c, bn_time_us t_us);
/* n of them at the increasing times t[0..n-1]. */
void bn_checks_sample_again_n(struct bn_checks *c, const bn_time_us *t, long n);
void bn_checks_event(struct bn_checks *c, const struct bn_cev *ev);
/* The noise estimate (checks/estimate.h) of the channels of unknown
 * accuracy, counted by the caller instead (a replay's reading thread):
 * from now on the engine counts no steps itself, and the caller adds the
 * counts of the steps between the samples it hands over, which must be
 * bn_est_repeat()'s (a frame equal to the one before) and bn_est_add()'s
 * (any other) of them, before bn_checks_end().
 * Call before the first sample. Returns the channels to count, 0 for
 * none. */
struct bn_est;
unsigned bn_checks_estimate_outside(struct bn_checks *c);
void bn_checks_add_estimate(struct bn_checks *c, const struct bn_est *e);
/* The device moved to another port (a scenario's move step; it was
 * unplugged first): every rule's judgement so far ends as one session, and
 * fresh instances judge the next session against next's port (its port,
 * port_unknown, port_name, network and charger are taken; the rest
 * stays). A rule's result is its worst session's, naming the session and
 * its port. */
int bn_checks_move(struct bn_checks *c, bn_time_us t_us, const struct bn_check_ctx *next,
		   struct bn_err *err);
/* The configurations the device advertises, learnt during the run (a
 * real device read when it enumerated): from now on the rules see them
 * as if known before the run (configs_known set). n > 8: the first 8. */
void bn_checks_set_configs(struct bn_checks *c, int n, const int *value,
			   const double *max_power_a);
/* Append one result per rule to the report (in table order). */
void bn_checks_end(struct bn_checks *c, bn_time_us t_end_us, struct bn_report *rep);
/* One result per rule as a run that ends now, unjudged, leaves it: a rule
 * that does not apply skipped, every other an error saying the run ended
 * early (reason). For the report a run leaves if its process dies. */
void bn_checks_unfinished(const struct bn_checks *c, struct bn_report *rep, const char *reason);
void bn_checks_free(struct bn_checks *c);

#endif
