/* Faulty: ramps without watching VBUS. On a weak DCP (dcp-weak)
 * it holds VBUS under its 4.5 V droop threshold: breaks bc12.cur.droop. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->ignore_droop = 1;
}

FW_TUNED_VARIANT("ignore_droop", tune)
