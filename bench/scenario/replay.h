/* bcbench replay: re-judge a capture (.sr from this tool or from any
 * sigrok device) with the same checks a live run uses.
 *
 * The capture is streamed as time-aligned frames (srzip_read.h); the
 * events come from the sidecar (events.json) when there is one, cut down
 * to the origins asked for, or else are inferred from the samples where a
 * sample can tell (attach and removal from VBUS crossing VOTG_SESS_VLD
 * min, connect from D+ rising above VLGC max, disconnect from D+ falling
 * below VLGC min). The port type and the device's declaration come from
 * --port / --dut, else from the sidecar; without either, the rules that
 * depend on them are inconclusive. Nothing passes on missing data.
 *
 * Bad input (the capture, the sidecar, a map, a profile) is BN_ERR_DATA
 * or BN_ERR_IO with the file and what is missing, and no report. Once the
 * stream runs, the report says how it ended. */
#ifndef BN_SCENARIO_REPLAY_H
#define BN_SCENARIO_REPLAY_H

#include <signal.h>
#include <stdio.h>

#include "checks/check.h"
#include "core/err.h"
#include "report/report.h"

struct bn_replay_opts {
	const char *capture_path;
	const char *events_path;   /* NULL: infer what the samples tell */
	const char *port;          /* port profile name or file; NULL: the sidecar's */
	const char *dut;           /* device declaration name or file; NULL: the sidecar's */
	const char *charger;       /* charger profile name or file (the port rules'); NULL: not known */
	const char *map;           /* channel map (chanmap.h); NULL: by name */
	const char *limits_path;   /* NULL: datadir/profiles/limits/bc12.json */
	const char *datadir;
	unsigned origins;          /* bits 1 << enum bn_cev_origin to trust; 0: all */
	/* --uncertainty CH=SPEC: each channel's accuracy (bits of meas_given);
	 * else the record's, else estimated from the samples. */
	unsigned meas_given;
	struct bn_meas meas[BN_CH_COUNT];
	enum bn_acceptance acceptance;
	/* --perturb CH=SPEC: degrade the capture as it is read (noise,
	 * offset, gain, resolution added with the seed below), and judge
	 * with the combined uncertainty: a robustness check of the verdicts. */
	unsigned perturb_set;
	struct bn_meas perturb[BN_CH_COUNT];
	unsigned long long perturb_seed;
	FILE *progress;            /* one line per result; NULL: silent */
	volatile const sig_atomic_t *stop_flag;
};

int bn_replay(const struct bn_replay_opts *o, struct bn_report *rep, struct bn_err *err);

#endif
