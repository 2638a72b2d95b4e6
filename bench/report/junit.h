/* JUnit XML from a suite run's record (suite.json, schema
 * "bcbench-suite/2", docs/suite-report.md), for CI servers (Jenkins,
 * GitLab). One <testsuites> for the suite, one <testsuite> per entry with
 * its setup as <properties>, one <testcase> per result of the entry's
 * report; an entry whose run did not complete gets a testcase "run" that
 * is an error (a bench fault) unless the error was expected. Expected
 * failures (xfail) pass, a listed rule that did not fail (xpass) fails.
 * Output validates against tests/data/junit/junit-10.xsd (the schema the
 * Jenkins xUnit plugin uses), and the counts in the attributes are the
 * elements written. */
#ifndef BN_REPORT_JUNIT_H
#define BN_REPORT_JUNIT_H

#include <cjson/cJSON.h>

#include "core/err.h"

/* The XML text, malloc'ed and NUL-terminated. suite_path is where
 * suite_doc was (or will be) written: the entries' reports are read from
 * their paths relative to it, one at a time, and their sha256 checked. A
 * document that is not a bcbench-suite/2 object (wrong schema, entries
 * not an array, an entry or result without its id, an unknown verdict),
 * or a report missing or changed: NULL and BN_ERR_DATA naming what is
 * wrong. */
char *bn_junit_render(const cJSON *suite_doc, const char *suite_path, struct bn_err *err);

/* Render and write to path atomically; on any error nothing is written. */
int bn_junit_write(const cJSON *suite_doc, const char *suite_path, const char *path,
		   struct bn_err *err);

#endif
