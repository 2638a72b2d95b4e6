/* Faulty: samples D- 5 ms after turning VDP_SRC on. A CDP may take
 * up to TVDMSRC_EN max (20 ms) to drive VDM_SRC: on such a (legal, slow)
 * CDP it sees D- low and concludes SDP. Breaks bc12.det.port_type, and with
 * it bc12.det.vdp_src (a 5 ms hold) and bc12.det.vdm_src (no secondary
 * detection although declared). */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->vdpsrc_on_us = 5000;
}

FW_TUNED_VARIANT("vdm_early", tune)
