/* A limits file (bench/core/limits.c) on any bytes. */
#include "lib/fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_limits lim;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&lim, 0, sizeof(lim));
	if (bn_limits_load(path, &lim, &err) == 0) {
		/* The getters on what was loaded, as the checks use them. */
		for (const char *const *n = bn_limits_required(); *n; n++) {
			(void)bn_limits_min(&lim, *n);
			(void)bn_limits_typ(&lim, *n);
			(void)bn_limits_max(&lim, *n);
		}
		bn_limits_free(&lim);
	}
	return 0;
}
