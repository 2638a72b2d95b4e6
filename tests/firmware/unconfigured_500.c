/* Faulty: draws 500 mA connected but unconfigured (iunit_ma = 500).
 * Breaks bc12.host.unconfigured_iunit. */
#include "firmware/ref_fw.h"

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct ref_fw_tunables t = ref_fw_tunables;

	t.iunit_ma = 500;
	return ref_fw_init_with(ctx, hal, decl, &t);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "unconfigured_500",
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
