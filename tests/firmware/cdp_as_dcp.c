/* Faulty: detects a CDP correctly but reports (and treats) it as a DCP.
 * Breaks bc12.det.port_type. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->report_cdp_as_dcp = 1;
}

FW_TUNED_VARIANT("cdp_as_dcp", tune)
