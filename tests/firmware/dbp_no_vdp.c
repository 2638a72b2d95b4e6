/* Faulty: under Dead Battery Provision it draws its unit load unconnected
 * but never holds VDP_SRC on D+ (a HAL shim drops the VDP_SRC-only PHY
 * setting the reference uses for DBP). Breaks bc12.dbp.isusp_unless_vdp,
 * and with it bc12.dbp.vdp_src_on (no VDP_SRC at 1 s) and
 * bc12.dbp.vdpsrc_con (primary detection's VDP_SRC goes off and no connect
 * follows for minutes). */
#include "lib/variant.h"

static void s_phy_set(void *b, uint32_t phy)
{
	struct fw_shim *s = b;

	/* VDP_SRC alone (no IDM_SINK): the DBP hold. */
	if ((phy & ~(uint32_t)BCFW_PHY_ID_PULLUP) == BCFW_PHY_VDP_SRC)
		phy &= ~(uint32_t)BCFW_PHY_VDP_SRC;
	s->real->phy_set(s->real->bench, phy);
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

FW_VARIANT_EXPORT("dbp_no_vdp", sizeof(struct fw_shim), variant_init, variant_wake)
