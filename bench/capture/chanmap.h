/* A channel map: which source channel (a file's or a sigrok device's)
 * feeds each bench channel, with a scale and a unit. Written as
 *   VBUS=A0,IBUS=A1:scale=0.1:unit=A,DP=A2
 * (replay --map, bench.conf capture_map). The value stored for the bench
 * channel is raw * scale, in unit, converted to SI (mV -> V, mA -> A).
 * A bench channel not named keeps its own name as the source name. */
#ifndef BN_CAPTURE_CHANMAP_H
#define BN_CAPTURE_CHANMAP_H

#include <stdbool.h>

#include "capture/channel.h"
#include "core/err.h"

struct bn_chanmap_entry {
	bool set;         /* named in the spec */
	char src[64];     /* source channel name */
	double scale;     /* raw * scale = value in unit */
	double to_si;     /* unit -> SI: 1 for V/A, 1e-3 for mV/mA */
	char unit[8];     /* as written, or the channel's own */
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
/* raw -> SI value for bench channel ch. */
static inline double bn_chanmap_apply(const struct bn_chanmap *m, int ch, double raw)
{
	return raw * m->e[ch].scale * m->e[ch].to_si;
}

#endif
