/* Faulty: turns its OTG boost on as the A-device on RID_A (and on a grounded ID)
 * although the ACA already supplies VBUS: it back-feeds the charger.
 * Breaks bc12.otg.no_backfeed (on aca-a). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->otg_despite_vbus = 1;
}

FW_TUNED_VARIANT("otg_backfeed", tune)
