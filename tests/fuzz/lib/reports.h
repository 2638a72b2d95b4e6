/* A suite record names its entries' reports by path and sha256
 * (bcbench-suite/2), so a harness of diff or merge needs the reports as
 * files: the parts of an input after the records are written to a
 * directory of this process as r0.json, r1.json, ... . */
#ifndef BN_FUZZ_REPORTS_H
#define BN_FUZZ_REPORTS_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The directory (made once per process, under $TMPDIR or /tmp, removed at
 * exit); NULL if it cannot be made. */
const char *bn_fuzz_reports_dir(void);

/* Split data at NUL bytes: the first n_docs parts parsed as JSON into
 * docs[] (NULL where not JSON), every further part (at most max_files)
 * written raw as DIR/rK.json, K from 0; the files of an earlier input
 * beyond them removed. Returns the number of document parts. */
int bn_fuzz_docs_and_reports(const uint8_t *data, size_t size, cJSON **docs, int n_docs,
			     int max_files);

/* For every entry of a suite record whose report path names a file that
 * is there, set its sha256 to the file's real digest: without this, a
 * mutated report could never match and everything after the check would
 * go unfuzzed. The input chooses (a bit of its first byte) whether to. */
void bn_fuzz_fix_report_hashes(cJSON *doc, const char *dir);

#endif
