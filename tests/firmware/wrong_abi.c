/* Faulty: built for another firmware ABI (the bench's version + 1), as a
 * firmware built against an older or newer bcfw.h would be. The loader
 * must refuse it before the run (exit 2, naming both versions), and must
 * read its version before it unloads the library. */
#include "lib/variant.h"

static int wrong_abi_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	return ref_fw_init_with(ctx, hal, decl, &ref_fw_tunables);
}

static const struct bcfw_firmware wrong_abi_table = {
	.abi_version = BCFW_ABI_VERSION + 1,
	.name = "wrong_abi",
	.version = "faulty",
	.ctx_size = REF_FW_CTX_SIZE,
	.init = wrong_abi_init,
	.wake = ref_fw_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);
const struct bcfw_firmware *bcfw_entry(void)
{
	return &wrong_abi_table;
}
