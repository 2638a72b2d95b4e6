/* bcbench merge (bench/report/merge.c, suite_doc.c) on any bytes: up to
 * four suite.json shards separated by NUL bytes, each checked as a suite
 * document, then joined (partial when the first byte is odd), and the
 * merged document's totals recomputed and rendered. */
#include "lib/fuzz.h"
#include "lib/split.h"

#include <stdbool.h>
#include <stdlib.h>

#include "report/merge.h"
#include "report/suite_doc.h"

#define MAX_SHARDS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[MAX_SHARDS] = { "a/suite.json", "b/suite.json",
						       "suite.json", "/abs/c/suite.json" };
	struct bn_merge_opts mo = { .partial = size > 0 && (data[0] & 1),
				    .out_path = "merged/suite.json" };
	cJSON *doc[MAX_SHARDS] = { NULL }, *merged = NULL;
	struct bn_err err = { 0 };
	bool all_ok = true;
	int n;

	bn_fuzz_quiet();
	n = bn_fuzz_split_json(data, size, doc, MAX_SHARDS);
	for (int i = 0; i < n; i++) {
		struct bn_err e = { 0 };

		if (!doc[i] || bn_suite_doc_check(doc[i], paths[i], &e) < 0)
			all_ok = false;
	}
	if (all_ok && bn_suite_merge(doc, paths, n, &mo, &merged, &err) == 0) {
		char *text;

		bn_suite_doc_totals(merged, &err);
		text = cJSON_PrintUnformatted(merged);
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
