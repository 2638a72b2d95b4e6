/* Faulty: pulls D+ up on ACA-B (RID_B), where a B-device must not connect.
 * Breaks bc12.aca.b_no_connect (on aca-b). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->connect_on_aca_b = 1;
}

FW_TUNED_VARIANT("aca_b_connect", tune)
