/* Faulty: keeps its D+ pull-up on as the A-device on ACA-A (RID_A).
 * Breaks bc12.aca.a_no_pullup (on aca-a). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->pullup_on_aca_a = 1;
}

FW_TUNED_VARIANT("aca_a_pullup", tune)
