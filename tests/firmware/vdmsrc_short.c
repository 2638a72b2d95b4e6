/* Faulty: VDM_SRC held 20 ms in secondary detection, shorter than
 * TVDMSRC_ON min. Breaks bc12.det.vdm_src. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->vdmsrc_on_us = 20000;
}

FW_TUNED_VARIANT("vdmsrc_short", tune)
