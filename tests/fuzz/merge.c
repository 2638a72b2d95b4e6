/* bcbench merge (bench/report/merge.c, suite_doc.c) on any bytes: up to
 * four suite.json shards separated by NUL bytes, then the entries'
 * reports, each part after the shards written as rK.json beside them.
 * The first byte is not part of them but flags: bit 0, a partial merge;
 * bit 1, the shards' report hashes set to the files' real ones; bits 2-3,
 * how many parts are shards, less one. Each shard is checked as a suite
 * document, then they are joined, the merged document's totals recomputed
 * and rendered, and its rebased report paths verified. */
#include "lib/fuzz.h"
#include "lib/reports.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/json.h"
#include "report/merge.h"
#include "report/suite_doc.h"

#define MAX_SHARDS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = bn_fuzz_reports_dir();
	char paths_buf[MAX_SHARDS][300], out_path[300];
	const char *paths[MAX_SHARDS];
	struct bn_merge_opts mo = { .partial = size > 0 && (data[0] & 1), .out_path = out_path };
	cJSON *doc[MAX_SHARDS], *merged = NULL;
	struct bn_err err = { 0 };
	bool all_ok = true;
	int n, n_shards = size > 0 ? 1 + ((data[0] >> 2) & 3) : 1;

	bn_fuzz_quiet();
	if (size < 1 || !dir)
		return 0;
	for (int i = 0; i < MAX_SHARDS; i++) {
		snprintf(paths_buf[i], sizeof(paths_buf[i]), "%s/s%d.json", dir, i);
		paths[i] = paths_buf[i];
	}
	snprintf(out_path, sizeof(out_path), "%s/merged.json", dir);
	n = bn_fuzz_docs_and_reports(data + 1, size - 1, doc, n_shards, 16);
	for (int i = 0; i < n; i++) {
		struct bn_err e = { 0 };

		if (data[0] & 2)
			bn_fuzz_fix_report_hashes(doc[i], dir);
		if (!doc[i] || bn_suite_doc_check(doc[i], paths[i], &e) < 0)
			all_ok = false;
	}
	if (all_ok && bn_suite_merge(doc, paths, n, &mo, &merged, &err) == 0) {
		struct bn_err e = { 0 };
		char *text;

		bn_suite_doc_totals(merged, &e);
		bn_suite_doc_verify_reports(merged, out_path, &e);
		text = bn_json_print(merged);
		free(text);
		cJSON_Delete(merged);
	}
	for (int i = 0; i < n; i++) {
		struct bn_err e = { 0 };

		if (doc[i] && bn_suite_doc_check(doc[i], paths[i], &e) == 0)
			bn_suite_doc_totals(doc[i], &e);
		cJSON_Delete(doc[i]);
	}
	return 0;
}
