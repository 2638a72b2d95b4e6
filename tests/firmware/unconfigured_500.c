/* Faulty: draws 500 mA connected but unconfigured (iunit_ma = 500).
 * Breaks bc12.host.unconfigured_iunit. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->iunit_ma = 500;
}

FW_TUNED_VARIANT("unconfigured_500", tune)
