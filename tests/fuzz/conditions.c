/* A conditions profile (profiles/conditions/, bench/core/conditions.h) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

#include "core/conditions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_conditions p;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&p, 0, sizeof(p));
	bn_conditions_init(&p);
	bn_conditions_load(path, &p, &err);
	return 0;
}
