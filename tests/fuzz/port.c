/* A ports profile (profiles/ports/, bench/sim/port.h) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

#include "sim/port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_port_profile p;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&p, 0, sizeof(p));
	bn_port_load(path, bn_fuzz_limits(), &p, &err);
	return 0;
}
