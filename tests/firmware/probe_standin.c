/* Not faulty: the reference firmware under the name "probe", so a test
 * can run a port run's bench side (the fixture's device-side networks
 * playing the probe's detection, tests/unit/test_fixture_device_side.c)
 * with a device that does BC-1.2 detection, until the built-in probe
 * exists. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	(void)t;
}

FW_TUNED_VARIANT("probe", tune)
