/* Faulty: advertises its high-power configuration at 900 mA (the SuperSpeed
 * value) as a USB 2.0 device.
 * Breaks bc12.adv.max_power (on sdp-root). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->cfg_high_ma = 900;
}

FW_TUNED_VARIANT("adv_high_power", tune)
