/* Runs a parsed scenario on the simulated bench and fills a report.
 *
 * Everything the scenario names is resolved and loaded first (limits,
 * port, charger, host, dut, firmware); any error there is bad input
 * (BN_ERR_DATA / BN_ERR_IO, "FILE:LINE:COL: error: ...") and the bench is
 * never touched. Once the bench runs, the function returns BN_OK and the
 * report says how the run ended (completed, aborted, error) and why; the
 * bench is left in its safe state on every path. */
#ifndef BN_SCENARIO_RUNNER_H
#define BN_SCENARIO_RUNNER_H

#include <signal.h>
#include <stdio.h>

#include "core/err.h"
#include "report/report.h"

struct bn_run_opts {
	const char *scenario_path;
	const char *datadir;        /* where profiles/ live */
	const char *limits_path;    /* from bench.conf; NULL: datadir default */
	const char *limits_override;/* --limits: wins over the scenario's and the conf's */
	const char *firmware_override; /* --firmware: wins over the scenario's and the dut's */
	const char *conf_path;      /* for the report; may be NULL */
	FILE *progress;             /* one line per step result; NULL: silent */
	volatile const sig_atomic_t *stop_flag;
	int livelock_wakes;         /* 0: default */
};

int bn_run_scenario(const struct bn_run_opts *o, struct bn_report *rep, struct bn_err *err);

#endif
