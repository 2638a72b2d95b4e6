/* A suite entry's outcome from its run: pass, fail, xfail, xpass or
 * error (docs/suite-report.md), and the entry's record in suite.json. */
#ifndef BN_SUITE_JUDGE_H
#define BN_SUITE_JUDGE_H

#include <cjson/cJSON.h>

#include "suite/suite.h"

/* The entry's suite.json object. report: the entry's report.json, read
 * only (NULL if none was written or it is unreadable); report_sha256: the
 * sha256 of that file's bytes, recorded with its path DIR/report.json so
 * readers find it and know it unchanged; exit_code: its bcbench run's, or
 * for an entry not run (or whose run was killed) why, as an exit code
 * (core/exit.h: 5 the bench in use or gone, 128+N a signal; -1: none);
 * cause: why it did not run to the end, or NULL; dir: the
 * entry's directory relative to suite.json. The object holds what the
 * suite needs of the report (outcome, "rules": its verdict counts), not
 * the report, and "exit_cause" (core/exit.h): for an entry in error, why
 * (its report's status.cause, else from exit_code), else "rule-failed"
 * when it is not as expected, "ok" when it is. An entry expected to end
 * in error (xerror) is as expected only when the device broke its run
 * ("device-broke-run"): a bench fault, an interrupt or a full disk never
 * tested it. NULL when out of memory or the report has a result without
 * a known verdict. */
cJSON *bn_suite_judge(const struct bn_suite_entry *e, const cJSON *report,
		      const char *report_sha256, int exit_code, const char *cause,
		      const char *dir, double wall_s);

#endif
