/* Faulty: advertises only the high-power configuration (both configurations at
 * cfg_high_ma): a unit-load host cannot configure it.
 * Breaks bc12.adv.low_power_config, a warning (on sdp-root). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->cfg_low_ma = t->cfg_high_ma;
}

FW_TUNED_VARIANT("adv_no_low", tune)
