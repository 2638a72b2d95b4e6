/* A chargers profile (profiles/chargers/, bench/sim/charger.h) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

#include "sim/charger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_charger p;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&p, 0, sizeof(p));
	bn_charger_load(path, &p, &err);
	return 0;
}
