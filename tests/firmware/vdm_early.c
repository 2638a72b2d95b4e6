/* Faulty: samples D- 5 ms after turning VDP_SRC on. A CDP may take
 * up to TVDMSRC_EN max (20 ms) to drive VDM_SRC: on such a (legal, slow)
 * CDP it sees D- low and concludes SDP. Breaks bc12.det.port_type, and with
 * it bc12.det.vdp_src (a 5 ms hold) and bc12.det.vdm_src (no secondary
 * detection although declared). */
#include "firmware/ref_fw.h"

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct ref_fw_tunables t = ref_fw_tunables;

	t.vdpsrc_on_us = 5000;
	return ref_fw_init_with(ctx, hal, decl, &t);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "vdm_early",
	.version = "faulty",
	.ctx_size = REF_FW_CTX_SIZE,
	.init = variant_init,
	.wake = ref_fw_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &variant;
}
