/* A fixture file (fixtures/, bench/hil/fixture_def.c) on any bytes; on a
 * loaded one, what the FTDI backend then asks of it: every port's state
 * judged legal, its levels and its name. */
#include "lib/fuzz.h"

#include <string.h>

#include "hil/fixture_def.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bn_fixture_def d; /* ~15 KiB: off the stack */
	struct bn_err err = { 0 };
	char buf[512];
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path)
		return 0;
	memset(&d, 0, sizeof(d));
	if (bn_fixture_def_load(&d, path, &err) < 0)
		return 0;
	for (int i = 0; i < d.nports; i++) {
		uint32_t st = d.ports[i].on;

		bn_fixture_def_legal(&d, st, buf, sizeof(buf));
		bn_fixture_def_state_str(&d, st, buf, sizeof(buf));
		(void)bn_fixture_def_levels(&d, st);
		(void)bn_fixture_def_port(&d, d.ports[i].name);
	}
	bn_fixture_def_legal(&d, 0xffffffffu, buf, sizeof(buf));
	bn_fixture_def_state_str(&d, 0xffffffffu, buf, sizeof(buf));
	for (int i = 0; i < d.nsignals; i++) {
		(void)bn_fixture_def_signal(&d, d.signals[i].name);
		bn_fixture_def_pin_name(&d, d.signals[i].pin, buf, sizeof(buf));
	}
	return 0;
}
