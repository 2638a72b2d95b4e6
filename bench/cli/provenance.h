/* Who made a record, when, where and on what: filled into a report
 * before its run starts (start time, host, operator, bench and its
 * instruments) and when it ends (end time). The device's USB identity
 * comes from the run itself (the host saw it enumerate). */
#ifndef BN_CLI_PROVENANCE_H
#define BN_CLI_PROVENANCE_H

#include "core/conf.h"
#include "hil/bench_hw.h"
#include "report/report.h"

/* The operator named by --operator, else $BCBENCH_OPERATOR, else the
 * login user ($USER, else the password entry), else "unknown". */
const char *bn_cli_operator(const char *opt, char *buf, size_t len);

/* Start time, host, operator; the bench's name (the fixture file's stem,
 * as its lock: "simulated" for the simulated bench) and each instrument
 * bench.conf names with what it says it is (*IDN?, the fixture file and
 * its hash). hw may be NULL (a replay: no instruments). */
void bn_cli_provenance_begin(struct bn_report *rep, const char *operator_name,
			     const struct bn_conf *conf, const struct bn_bench_hw *hw);
/* The end time. */
void bn_cli_provenance_end(struct bn_report *rep);

#endif
