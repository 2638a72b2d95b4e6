/* Faulty: lets D+ fall on a DCP while charging. Breaks
 * bc12.cur.dcp_dp_hold ([PD17]). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->dcp_drop_dp = 1;
}

FW_TUNED_VARIANT("dcp_drop_dp", tune)
