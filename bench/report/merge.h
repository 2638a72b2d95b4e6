/* Shards of one suite run (bcbench suite --shard K/N) joined into one
 * suite.json, as if the suite had run whole: entries concatenated and
 * sorted by index, totals and exit code recomputed. A merge that lacks a
 * shard is refused unless asked for, so a CI job cannot sign off a suite
 * with a missing shard. */
#ifndef BN_REPORT_MERGE_H
#define BN_REPORT_MERGE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"

struct bn_merge_opts {
	/* Accept shards missing (of "shard": {"count": N}, not all of 1..N
	 * given) and fewer entries than "entries_in_suite". */
	bool partial;
	/* Where the merged document will be written: each entry's "dir"
	 * and "report": {"path"} (relative to its shard's file) are
	 * rewritten relative to this file's directory (absolute when that
	 * cannot be worked out). NULL leaves them as they are. */
	const char *out_path;
};

/* Join the n suite documents docs[] (read from paths[], which name them in
 * messages and locate their entries' dirs; each passed by
 * bn_suite_doc_check). They must be one suite: equal suite.sha256, filter,
 * entries_in_suite, limits.sha256 and shard count (BN_ERR_DATA naming the
 * two files). An entry index in two files, or a shard given twice, is
 * BN_ERR_DATA naming both. *out (new, the caller's) is the document with
 * the lowest shard index, with the entries of all, "shard": null,
 * "merged_from": [{"path", "shard"}, ...], timing.wall_s the max and
 * timing.entries_wall_s the sum of the inputs', totals and exit_code by
 * bn_suite_doc_totals. The inputs are not changed. The entries' reports
 * are not read (the totals are of their "rules" counts); the caller
 * checks they are there (bn_suite_doc_verify_reports). */
int bn_suite_merge(cJSON *const *docs, const char *const *paths, int n,
		   const struct bn_merge_opts *opts, cJSON **out, struct bn_err *err);

#endif
