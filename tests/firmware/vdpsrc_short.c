/* Faulty: VDP_SRC held 20 ms in primary detection, shorter than
 * TVDPSRC_ON min. Breaks bc12.det.vdp_src. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->vdpsrc_on_us = 20000;
}

FW_TUNED_VARIANT("vdpsrc_short", tune)
