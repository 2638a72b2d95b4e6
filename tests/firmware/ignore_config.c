/* Faulty: draws the high configuration's 500 mA whatever configuration the
 * host chose (ignore_config). Breaks bc12.host.configured_bmaxpower on a
 * 100 mA hub port. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->ignore_config = 1;
}

FW_TUNED_VARIANT("ignore_config", tune)
