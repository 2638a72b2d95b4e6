/* A hosts profile (profiles/hosts/, bench/sim/host.h) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

#include "sim/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_host_profile p;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&p, 0, sizeof(p));
	bn_host_load(path, bn_fuzz_limits(), &p, &err);
	return 0;
}
