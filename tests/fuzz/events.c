/* events.json, the capture's sidecar (bench/capture/events.c reader), on
 * any bytes: load, then free. */
#include "lib/fuzz.h"

#include <string.h>

#include "capture/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_evrec r;
	struct bn_err err = { 0 };
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&r, 0, sizeof(r));
	if (bn_evrec_load(path, &r, &err) == 0)
		bn_evrec_free(&r);
	return 0;
}
