/* Conditions a run is taken under, as data (profiles/conditions/NAME.json):
 * how each channel is measured (core/meas.h) and how the device is
 * handled (slow insertion, contact bounce). One file names one set, so a
 * suite can run every entry under ideal and under realistic conditions:
 *   {
 *     "schema": "bcbench-conditions/1",
 *     "name": "realistic",
 *     "description": "...",
 *     "measure": { "vbus": "noise=10mV,offset=10mV,bits=12,range=0V..25V", ... },
 *     "seed": 1,
 *     "data_delay": "1.5s",
 *     "bounce": { "count": 3, "each": "2ms" },
 *     "vbus_bounce": { "count": 3, "each": "1ms" },
 *     "gnd_offset": "0.375V",
 *     "line_cap": "100pF",
 *     "capture_start": "300ms"
 *   }
 * bounce is the data contacts', vbus_bounce the VBUS contact's (it makes
 * at the plug, then breaks and makes count times, each open or closed for
 * "each"); gnd_offset is the device's ground above the port's (the
 * compliance plan's tests 6.14 and 6.15: 0.375 V either way); line_cap
 * is added to each of D+ and D- while the data lines touch (the fixture
 * and its cable).
 * Every key but schema is optional; an unset one leaves the scenario's
 * (or bench.conf's) own. A scenario's own measure line wins over the
 * file's measure; the file's handling wins over the scenario's. */
#ifndef BN_CORE_CONDITIONS_H
#define BN_CORE_CONDITIONS_H

#include <stdbool.h>

#include "core/err.h"
#include "core/meas.h"
#include "core/time.h"

#define BN_CONDITIONS_SCHEMA "bcbench-conditions/1"
#define BN_COND_CH 5 /* in the order of enum bn_chan */

struct bn_conditions {
	char name[64];
	char description[240];
	unsigned meas_set;  /* bits: measure given for the channel */
	struct bn_meas meas[BN_COND_CH];
	bool has_seed;
	unsigned long long seed;
	bn_time_us data_delay_us;   /* -1: not set */
	int bounce_n;               /* -1: not set */
	bn_time_us bounce_us;
	int vbus_bounce_n;          /* -1: not set */
	bn_time_us vbus_bounce_us;
	bool has_gnd_offset;
	double gnd_offset_v;
	double line_cap_f;          /* < 0: not set */
	/* The capture instrument starts this long after the run (a capture
	 * that begins after the attach): no sample before it is captured or
	 * judged; the bench's own events still are. 0: from the start. */
	bn_time_us capture_start_us;
};

void bn_conditions_init(struct bn_conditions *c);
/* Errors name the file and the key, and what was expected (BN_ERR_DATA). */
int bn_conditions_load(const char *path, struct bn_conditions *c, struct bn_err *err);

#endif
