/* Faulty: DCD time-out of 1.5 s, beyond TDCD_TIMEOUT max: on a
 * port whose data lines float, primary detection starts too late.
 * Breaks bc12.det.primary_start. */
#include "firmware/ref_fw.h"

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct ref_fw_tunables t = ref_fw_tunables;

	t.dcd_timeout_us = 1500000;
	return ref_fw_init_with(ctx, hal, decl, &t);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "dcd_timeout_long",
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
