/* A suite file (bench/suite/suite.c) on any text, in memory, with the
 * tree as its data dir: the scenarios and profiles it names are resolved
 * and the scenarios parsed, as bcbench suite does. Then the selection
 * (a filter and a shard) over what it expanded to. */
#include "lib/fuzz.h"

#include <stdlib.h>

#include "suite/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_suite s;
	struct bn_suite_opts o = { .datadir = bn_fuzz_root(), .fwdir = "build/fw" };
	struct bn_err err = { 0 };
	char *text;

	bn_fuzz_quiet();
	text = bn_fuzz_text(data, size);
	if (!text)
		return 0;
	if (bn_suite_parse_text("fuzz.suite", text, &o, &s, &err) == 0 && s.n_entries > 0) {
		int *pick = calloc((size_t)s.n_entries, sizeof(*pick));
		int n_matching;

		if (pick) {
			bn_suite_select(&s, "*dcp*,*/sdp*", 1, 2, pick, &n_matching);
			free(pick);
		}
	}
	bn_suite_free(&s);
	free(text);
	return 0;
}
