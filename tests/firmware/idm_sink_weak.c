/* Faulty: never switches on its IDM_SINK during primary detection (a
 * firmware can not make the silicon's sink weaker, but it can leave it
 * off: the weakest sink there is). On a DCP the D+/D- short still carries
 * VDP_SRC to D-, so detection succeeds; only the sink current is wrong.
 * Breaks bc12.det.idm_sink.
 *
 * No tunable does this, so a HAL shim drops BCFW_PHY_IDM_SINK from every
 * phy_set before passing it on. */
#include "lib/variant.h"

static void s_phy_set(void *b, uint32_t phy)
{
	struct fw_shim *s = b;

	s->real->phy_set(s->real->bench, phy & ~(uint32_t)BCFW_PHY_IDM_SINK);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct fw_shim *s = ctx;

	fw_shim_setup(s, hal);
	s->hal.phy_set = s_phy_set;
	return fw_shim_start(s, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	fw_shim_wake(ctx, ev);
}

FW_VARIANT_EXPORT("idm_sink_weak", sizeof(struct fw_shim), variant_init, variant_wake)
