/* What a run is judged in: the port, the device's declaration, the
 * capture's channels, rate and measurement, the charger, known before the
 * first sample. The checks read it (checks/check.h); the runner and a
 * replay build it; events.json (capture/events.h) records and reloads it.
 * It lives on the ground floor because all of them name it. */
#ifndef BN_CORE_CHECK_CTX_H
#define BN_CORE_CHECK_CTX_H

#include <stdbool.h>

#include "core/channel.h"
#include "core/event.h"
#include "core/limits.h"
#include "core/meas.h"
#include "core/port_type.h"
#include "core/time.h"

/* Declarations a rule may need (bits of bn_rule.needs_decl / excludes_decl). */
enum bn_decl_bit {
	BN_DECL_BATTERY = 1u << 0,      /* battery powered */
	BN_DECL_DBP = 1u << 1,          /* supports Dead Battery Provision */
	BN_DECL_DEAD_BATTERY = 1u << 2, /* the battery starts dead (below its dead threshold) */
	BN_DECL_OTG = 1u << 3,          /* declares an OTG output rating > 0 */
	BN_DECL_SECONDARY = 1u << 4,    /* does secondary detection */
	BN_DECL_DROOP = 1u << 5,        /* declares a droop threshold */
};

/* The decision rule a verdict follows (docs/uncertainty.md).
 * GUARDED, in the manner of ISO 14253-1: pass only when the measured value
 * is inside the limit by more than its expanded uncertainty U, fail only
 * when it is outside by more than U, otherwise inconclusive ("within
 * measurement uncertainty"). SIMPLE: the plain limit, U reported but not
 * used (a lab's choice, said in the report). */
enum bn_acceptance { BN_ACCEPT_GUARDED = 0, BN_ACCEPT_SIMPLE };

const char *bn_acceptance_name(enum bn_acceptance a);

/* What a check knows before the first sample. */
struct bn_check_ctx {
	const struct bn_limits *lim;
	enum bn_port_type port;     /* the port as a correct device classifies it */
	bool port_unknown;          /* a replay without --port or events: port rules are inconclusive */
	const char *port_name;      /* the profile's name */
	/* The port's known network, for rules that compute currents from
	 * voltages (0 = not fitted / unknown). */
	double dp_pulldown_ohm, dm_pulldown_ohm, dp_dm_short_ohm;
	/* The device's declaration. */
	unsigned decl;              /* enum bn_decl_bit */
	bool decl_unknown;          /* no declaration given: rules that depend on one are inconclusive */
	double droop_threshold_v;
	double otg_rating_a;
	/* Advertised USB configurations (max power in A). */
	int n_configs;
	int config_value[8];
	double config_max_power_a[8];
	bool configs_known;
	/* The capture. */
	double rate_hz;
	unsigned channels;          /* bits of enum bn_chan */
	unsigned events;            /* BN_CEV_BIT()s the source provides */
	bool no_hold;               /* feed every sample one by one (tests of hold()) */
	bn_time_us t_start_us;
	/* How each channel is measured (core/meas.h) and where that came
	 * from. A channel whose source is BN_MEAS_SRC_ESTIMATED has its noise
	 * and resolution estimated from the samples by the engine, before
	 * any end() runs: a rule that kept the ctx pointer given to begin()
	 * reads the estimate there. */
	struct bn_meas meas[BN_CH_COUNT];
	enum bn_meas_src meas_src[BN_CH_COUNT];
	enum bn_acceptance acceptance;
	/* The device's ground against the port's, in V (the compliance plan's
	 * tests 6.14 and 6.15 shift it by 0.375 V either way): a level the
	 * device sources, measured on a channel referred to the port's ground
	 * (meas[].gnd), is v - gnd_offset_v in the device's own reference.
	 * 0: one ground; NAN: not known (such levels are then inconclusive). */
	double gnd_offset_v;
	/* Why, on this bench, a channel is not captured, an event is not
	 * known, or the rate is what it is: added to the engine's own words
	 * when a rule is inconclusive for it (e.g. "the bench's supply and
	 * load measure VBUS and IBUS only: no capture device"). NULL: none. */
	const char *chan_why[BN_CH_COUNT];
	const char *event_why[BN_CEV_COUNT];
	const char *rate_why;
	/* The charger behind the port (the port rules', bc12.port.*): filled
	 * by the runner from the scenario's charger, by a replay from the
	 * report or --charger. Known only with charger_name set: a context
	 * built without it (zeroed) knows no charger, whatever the numbers. */
	const char *charger_name;   /* NULL: not known */
	double charger_rated_a;     /* its declared rating; 0: not declared */
	double cable_ohm;           /* round-trip VBUS+GND cable resistance; NAN: not known */
	double cable_u_ohm;         /* its standard uncertainty (0: exact, as in the sim) */
	int charger_compliant;      /* -1 not known, 0 meant to fail a port rule, 1 meant to pass */
	/* The bench's own device-side network, when the bench plays the
	 * device (a port scenario: the built-in "probe" firmware). Port rules
	 * that compute a resistance or a release time from the lines need a
	 * current and a timing they know; on a device run they know only the
	 * device's limits. */
	struct bn_probe {
		bool present;           /* the bench, not a device, drives D+/D- */
		double idp_src_a;       /* sourced into D+ for data contact (0: not known) */
		double vdp_src_v;       /* D+ source in primary detection (0: not known) */
		double idm_sink_a;      /* sunk from D- in primary detection (0: not known) */
		double vdm_src_v;       /* D- source in secondary detection (0: not known) */
		double idp_sink_a;      /* sunk from D+ in secondary detection (0: not known) */
		double rdm_dwn_ohm;     /* its D- pull-down during data contact (0: not known) */
		double i_u_rel;         /* relative standard uncertainty of those currents */
		/* From releasing VDP_SRC to applying VDM_SRC (secondary
		 * detection): D- is the port's alone before it. INFINITY: the
		 * probe does no secondary detection; NAN: not known. */
		double sec_after_s;
	} probe;
	/* Set by the check engine for the rules of one session (NULL
	 * elsewhere): what rules that track the same thing share
	 * (checks/check.h). */
	struct bn_check_share *share;
};

#endif
