/* A instruments profile (profiles/instruments/, bench/hil/scpi.h) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

#include "hil/scpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_scpi_dialect p;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&p, 0, sizeof(p));
	bn_scpi_dialect_load(path, &p, &err);
	return 0;
}
