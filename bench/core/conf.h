/* bench.conf: which backends and files a bench uses. Lines "key = value",
 * '#' comments. Keys:
 *   backend = sim          the bench backend (sim is the only one so far)
 *   limits  = FILE         default limits file (a scenario's own wins)
 *   datadir = DIR          where profiles/ live (default: the conf's directory)
 *   out     = DIR          where reports go (default: reports)
 *   capture = sim          the samples the checks judge: the simulated bench's own
 *                          (default), or sigrok:DRIVER[:conn=SPEC], a capture device
 *                          through libsigrok acquiring alongside the scenario (which
 *                          then runs in real time)
 *   capture_map  = MAP     bench channel <- device channel, e.g.
 *                          VBUS=A0,IBUS=A1:scale=10:unit=A (capture/chanmap.h)
 *   capture_rate = RATE    the device's samplerate, e.g. 20kHz (default: the
 *                          scenario's capture rate)
 * Errors read "FILE:LINE: error: ..." and name what was expected. */
#ifndef BN_CORE_CONF_H
#define BN_CORE_CONF_H

#include "core/err.h"

struct bn_conf {
	char path[512];
	char backend[32];
	char limits[512];
	char datadir[512];
	char out[512];
	char capture_driver[64];    /* "" : the simulated bench's samples */
	char capture_conn[256];
	char capture_map[512];
	int capture_map_line;
	double capture_rate_hz;     /* 0: the scenario's */
};

void bn_conf_defaults(struct bn_conf *c);
int bn_conf_load(const char *path, struct bn_conf *c, struct bn_err *err);

#endif
