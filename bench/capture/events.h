/* events.json, the sidecar of capture.sr (schema "bcbench-events/1"):
 * what srzip cannot keep. The bench context the checks need (the port as
 * a correct device classifies it, its known network, the device's
 * declaration and configurations), each channel's unit and where it was
 * measured, and every event of the run with its time and its origin:
 *
 *   fixture  what the bench itself did: VBUS on/off, data contact, e-load,
 *            scenario marks
 *   host     what the bench's USB side saw: connect, disconnect,
 *            configuration, suspend, resume, the accessory enumerated
 *   dut      the device's own console (telemetry)
 *
 * "known" lists the event kinds the record holds, so a kind that never
 * happened is told apart from one the source could not see. The writer
 * streams (memory does not grow with the run) to a temporary file that is
 * renamed into place at close, so an interrupted run still leaves a whole
 * file. */
#ifndef BN_CAPTURE_EVENTS_H
#define BN_CAPTURE_EVENTS_H

#include <stdint.h>

#include "core/check_ctx.h"
#include "core/event.h"
#include "core/err.h"

#define BN_EVENTS_SCHEMA "bcbench-events/1"

enum bn_cev_origin { BN_ORIGIN_FIXTURE = 0, BN_ORIGIN_HOST, BN_ORIGIN_DUT, BN_ORIGIN_COUNT };

enum bn_cev_origin bn_cev_origin(enum bn_cev_kind k);
const char *bn_origin_name(enum bn_cev_origin o);
/* BN_CEV_BIT()s of every kind from the origins in mask (bits 1 << origin). */
unsigned bn_origin_kinds(unsigned origin_mask);
/* "fixture,host" -> origin bits; what names the option in errors. */
int bn_origins_parse(const char *list, unsigned *mask, const char *what, struct bn_err *err);

struct bn_evlog_meta {
	const char *capture_file; /* "capture.sr", or NULL when none was written */
	const char *port_profile; /* the port profile's name */
	const char *dut_name;
	const char *scenario;
};

struct bn_evlog;

/* ctx: the checks' context of the run (lim is not stored). */
int bn_evlog_open(const char *path, const struct bn_check_ctx *ctx, const struct bn_evlog_meta *m,
		  struct bn_evlog **out, struct bn_err *err);
void bn_evlog_add(struct bn_evlog *l, const struct bn_cev *ev);
/* A scenario expectation judged at t_us: its line and its text as written
 * ("expect avg(ibus, 250ms) >= 0.4A"), so a replay can judge it again. */
void bn_evlog_expect(struct bn_evlog *l, bn_time_us t_us, int line, const char *text);
/* The device moved to another port at t_us (a scenario's move step): the
 * port's name, type and network from next, so a replay judges the run in
 * the same sessions. */
void bn_evlog_move(struct bn_evlog *l, bn_time_us t_us, const struct bn_check_ctx *next);
/* A real device enumerated and advertised these configurations (the
 * declaration knew none): written in the trailer ("enumerated"), which a
 * replay takes when the header's dut has no configurations. */
void bn_evlog_configs(struct bn_evlog *l, int n, const int *value, const double *max_power_a);
/* The first write of the stream that failed, if any, into err ("PATH:
 * error: writing: No space left on device"): BN_ERR_ENV; BN_OK when all
 * is well. For a caller that must stop as soon as the record is lost. */
int bn_evlog_error(const struct bn_evlog *l, struct bn_err *err);
/* Write the trailer with status ("completed", "aborted", "error": the
 * caller says "error" when the capture beside it was lost), rename into
 * place, free l (on any result). A write that failed before is returned
 * (BN_ERR_ENV, its errno in the message) and nothing is renamed. */
int bn_evlog_close(struct bn_evlog *l, bn_time_us t_end_us, int64_t frames, const char *status,
		   struct bn_err *err);

void bn_evlog_discard(struct bn_evlog *l);

/* Finish the events.json of a writer that died before close (the run's
 * process crashed or was killed): its temporary file beside path holds
 * every event up to the death (each is flushed as it is added); a last
 * line cut short is dropped. Writes path atomically with the trailer
 * (t_end_us, frames, status) and removes the temporary file. *t_end_us:
 * the end known (0: none), raised to the last kept event's time (a run
 * without a capture has no other end to go by), the one written. *n_events:
 * how many were kept. BN_ERR_NA when there is nothing beside path. */
int bn_evlog_salvage(const char *path, bn_time_us *t_end_us, int64_t frames, const char *status,
		     int *n_events, struct bn_err *err);

/* A loaded events.json. */
struct bn_evrec {
	struct bn_check_ctx ctx;  /* lim NULL; channels/rate as recorded */
	char port_profile[64];
	char charger_name[64];    /* ctx.charger_name points here (NULL: no charger recorded) */
	char dut_name[64];
	char scenario[200];
	bn_time_us t_end_us;      /* -1 when the file does not say */
	char status[16];          /* the recorded run's: "completed", "aborted", "error"; "" */
	unsigned meas_known;      /* channels whose measurement the record states (ctx.meas) */
	int n;
	struct bn_cev *ev;        /* time-ordered; key/text point into owned strings */
	int n_expects;            /* the scenario's expectations, as judged live */
	struct bn_evrec_expect {
		bn_time_us t_us;
		int line;
		const char *text;  /* owned string */
		int n_before;      /* events recorded before it (same time: order counts) */
	} *expects;
	int n_moves;              /* moves of the device to another port */
	struct bn_evrec_move {
		bn_time_us t_us;
		int n_before;
		char port_profile[64];
		char charger_name[64];
		/* port, port_name (-> port_profile), network; the charger the
		 * move names (its name in charger_name; "": the same) */
		struct bn_check_ctx port;
	} *moves;
	char **strings;
	int n_strings;
};

/* Errors name the file, the event's index and the key, and what was
 * expected (BN_ERR_DATA); an unknown schema is refused. */
int bn_evrec_load(const char *path, struct bn_evrec *out, struct bn_err *err);
void bn_evrec_free(struct bn_evrec *r);

#endif
