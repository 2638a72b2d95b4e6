/* bcbench diff (bench/report/diff.c, suite_doc.c) on any bytes: two
 * records separated by a NUL byte (one alone is compared with itself),
 * then the entries' reports, each part after the records written as
 * rK.json beside them (a suite record names its reports by path and
 * sha256); each record checked for its kind, then compared with the
 * sections printed. The first byte is not part of them but flags: bit 1,
 * the records' report hashes are set to the files' real ones (else a
 * mutated report could never match). */
#include "lib/fuzz.h"
#include "lib/reports.h"

#include <stdio.h>

#include "report/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink; /* the printed sections go nowhere; opened once */
	cJSON *doc[2];
	enum bn_diff_kind kind[2];
	struct bn_diff_counts counts;
	struct bn_err err = { 0 };
	const char *dir = bn_fuzz_reports_dir();
	char path[300];
	int n;

	bn_fuzz_quiet();
	if (size < 1 || !dir || (!sink && !(sink = fopen("/dev/null", "w"))))
		return 0;
	snprintf(path, sizeof(path), "%s/suite.json", dir);
	n = bn_fuzz_docs_and_reports(data + 1, size - 1, doc, 2, 16);
	if (data[0] & 2)
		for (int i = 0; i < n; i++)
			bn_fuzz_fix_report_hashes(doc[i], dir);
	if (doc[0] && bn_diff_doc_kind(doc[0], "base", &kind[0], &err) == 0) {
		const cJSON *other = n > 1 ? doc[1] : doc[0];
		struct bn_err e2 = { 0 };

		if (other && bn_diff_doc_kind(other, "new", &kind[1], &e2) == 0 &&
		    bn_diff_docs(doc[0], path, other, path, 10.0, sink, &counts, &e2) == 0)
			bn_diff_print_totals(sink, &counts);
	}
	cJSON_Delete(doc[0]);
	cJSON_Delete(doc[1]);
	return 0;
}
