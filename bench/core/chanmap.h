/* A channel map: which source channel (a file's or a sigrok device's)
 * feeds each bench channel, with a scale and a unit. Written as
 *   VBUS=A0,IBUS=A1:shunt=0.1,DP=A2
 * (replay --map, bench.conf capture_map). The value stored for the bench
 * channel is raw * scale, in unit, converted to SI (mV -> V, mA -> A),
 * and for a shunt divided by its resistance (V -> A). A bench channel not
 * named keeps its own name as the source name. */
#ifndef BN_CORE_CHANMAP_H
#define BN_CORE_CHANMAP_H

#include <stdbool.h>

#include "core/channel.h"
#include "core/err.h"

struct bn_chanmap_entry {
	bool set;         /* named in the spec */
	char src[64];     /* source channel name */
	double scale;     /* raw * scale = the source's value in unit */
	double to_si;     /* unit -> the bench channel's SI unit: 1 for V/A,
			   * 1e-3 for mV/mA, and 1 / shunt_ohm (V) or
			   * 1e-3 / shunt_ohm (mV) for a shunt */
	char unit[8];     /* the source's unit: as written, else V for a
			   * shunt, else the bench channel's own */
	bool unit_set;    /* unit= was written */
	double shunt_ohm; /* IBUS measured as the voltage across this
			   * resistance (or a current probe's V per A); 0: the
			   * source is the current itself */
};

struct bn_chanmap {
	struct bn_chanmap_entry e[BN_CH_COUNT];
};

/* Defaults: every bench channel from the source channel of its own label
 * ("VBUS", ...), scale 1, its own unit. */
void bn_chanmap_default(struct bn_chanmap *m);
/* Parse spec over m. what names the origin in errors ("--map",
 * "bench.conf:7"). */
int bn_chanmap_parse(const char *spec, struct bn_chanmap *m, const char *what, struct bn_err *err);
/* What the source channel of bench channel ch measures: a current for
 * IBUS without a shunt, else a voltage (VBUS, DP, DM, ID, and IBUS across
 * a shunt). A source that states its quantity must agree. */
static inline bool bn_chanmap_source_is_current(const struct bn_chanmap *m, int ch)
{
	return ch == BN_CH_IBUS && !(m->e[ch].shunt_ohm > 0);
}
/* raw -> SI value for bench channel ch. */
static inline double bn_chanmap_apply(const struct bn_chanmap *m, int ch, double raw)
{
	return raw * m->e[ch].scale * m->e[ch].to_si;
}

#endif
