/* Faulty: turns its OTG boost on as the A-device on RID_A (and on a grounded ID)
 * although the ACA already supplies VBUS: it back-feeds the charger.
 * Breaks bc12.otg.no_backfeed (on aca-a). */
#include "firmware/ref_fw.h"

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct ref_fw_tunables t = ref_fw_tunables;

	t.otg_despite_vbus = 1;
	return ref_fw_init_with(ctx, hal, decl, &t);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "otg_backfeed",
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
