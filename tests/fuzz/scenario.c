/* The scenario language (bench/scenario/lexer.c + parser.c) on any text,
 * in memory: parse, then free. */
#include "lib/fuzz.h"

#include <stdlib.h>

#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	char *text;

	bn_fuzz_quiet();
	text = bn_fuzz_text(data, size);
	if (!text)
		return 0;
	bn_scenario_parse_text("fuzz.scn", text, &scn, &err);
	bn_scenario_free(&scn);
	free(text);
	return 0;
}
