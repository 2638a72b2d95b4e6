/* bench.conf (bench/core/conf.c) on any bytes. */
#include "lib/fuzz.h"

#include "core/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_conf c;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	bn_conf_defaults(&c);
	if (bn_conf_load(path, &c, &err) == 0)
		(void)bn_conf_has_hardware(&c);
	return 0;
}
