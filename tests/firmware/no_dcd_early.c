/* Faulty: no Data Contact Detect: primary detection 1 ms after attach,
 * long before TDCD_TIMEOUT min. Breaks bc12.det.primary_start (the other DCD
 * rules go inconclusive: no DCD phase to judge). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->no_dcd = 1;
}

FW_TUNED_VARIANT("no_dcd_early", tune)
