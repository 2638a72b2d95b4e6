/* Faulty firmware: after attach it keeps asking to be woken at the same
 * instant. The bench must stop it and report a livelock (exit 3). */
#include "firmware/bcfw.h"

struct livelock_fw {
	const struct bcfw_hal *hal;
};

static int ll_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	(void)decl;
	((struct livelock_fw *)ctx)->hal = hal;
	return 0;
}

static void ll_wake(void *ctx, uint32_t ev)
{
	const struct bcfw_hal *hal = ((struct livelock_fw *)ctx)->hal;

	(void)ev;
	if (hal->comparators(hal->bench) & BCFW_CMP_SESS_VLD)
		hal->wake_at(hal->bench, hal->now_us(hal->bench));
	else
		hal->wake_at(hal->bench, hal->now_us(hal->bench) + 1000);
}

static const struct bcfw_firmware livelock_fw = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "livelock",
	.version = "test",
	.ctx_size = sizeof(struct livelock_fw),
	.init = ll_init,
	.wake = ll_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &livelock_fw;
}
