/* bcbench diff (bench/report/diff.c, suite_doc.c) on any bytes: two
 * records separated by a NUL byte (one alone is compared with itself),
 * each checked for its kind, then compared with the sections printed. */
#include "lib/fuzz.h"
#include "lib/split.h"

#include <stdio.h>

#include "report/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink; /* the printed sections go nowhere; opened once */
	cJSON *doc[2] = { NULL, NULL };
	enum bn_diff_kind kind[2];
	struct bn_diff_counts counts;
	struct bn_err err = { 0 };
	int n;

	bn_fuzz_quiet();
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	n = bn_fuzz_split_json(data, size, doc, 2);
	if (doc[0] && bn_diff_doc_kind(doc[0], "base", &kind[0], &err) == 0) {
		const cJSON *other = n > 1 ? doc[1] : doc[0];
		struct bn_err e2 = { 0 };

		if (other && bn_diff_doc_kind(other, "new", &kind[1], &e2) == 0 &&
		    bn_diff_docs(doc[0], other, 10.0, sink, &counts, &e2) == 0)
			bn_diff_print_totals(sink, &counts);
	}
	cJSON_Delete(doc[0]);
	cJSON_Delete(doc[1]);
	return 0;
}
