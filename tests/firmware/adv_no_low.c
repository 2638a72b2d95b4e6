/* Faulty: advertises only the high-power configuration (both configurations at
 * cfg_high_ma): a unit-load host cannot configure it.
 * Breaks bc12.adv.low_power_config, a warning (on sdp-root). */
#include "firmware/ref_fw.h"

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct ref_fw_tunables t = ref_fw_tunables;

	t.cfg_low_ma = t.cfg_high_ma;
	return ref_fw_init_with(ctx, hal, decl, &t);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "adv_no_low",
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
