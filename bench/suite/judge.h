/* A suite entry's outcome from its run: pass, fail, xfail, xpass or
 * error (docs/suite-report.md), and the entry's record in suite.json. */
#ifndef BN_SUITE_JUDGE_H
#define BN_SUITE_JUDGE_H

#include <cjson/cJSON.h>

#include "suite/suite.h"

/* The entry's suite.json object. report: the entry's report.json (taken
 * over: the object owns it; NULL if none was written); exit_code: its
 * bcbench run's (-1: none); cause: why it did not run to the end, or
 * NULL; dir: the entry's directory relative to suite.json. NULL when out
 * of memory. */
cJSON *bn_suite_judge(const struct bn_suite_entry *e, cJSON *report, int exit_code,
		      const char *cause, const char *dir, double wall_s);

#endif
