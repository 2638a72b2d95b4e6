/* Faulty: the reference firmware behind a HAL shim that holds back the
 * D+ pull-up (RDP_UP) for 1.5 s after the firmware asks for it, so the
 * device connects 1.5 s after its detection ends: past TSVLD_CON_PWD.
 * Breaks bc12.host.connect_time; and since the firmware believes itself
 * connected, it draws IUNIT while the host cannot see it, which also
 * breaks bc12.host.unconnected_isusp. */
#include "lib/variant.h"

#define CONNECT_DELAY_US UINT64_C(1500000)

struct variant {
	struct fw_shim shim;  /* first: the HAL's bench pointer is the variant */
	bool holding;         /* a pull-up request is held back */
	uint32_t phy;         /* what the reference asked for */
};

static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;

	v->phy = phy;
	if (!(phy & BCFW_PHY_RDP_UP)) {
		v->holding = false;
		v->shim.own_wake_at = FW_NEVER;
	} else if (!v->holding) {
		v->holding = true;
		fw_shim_set_timer(&v->shim, fw_shim_now(&v->shim) + CONNECT_DELAY_US);
	}
	if (v->holding)
		phy &= ~(uint32_t)BCFW_PHY_RDP_UP;
	v->shim.real->phy_set(v->shim.real->bench, phy);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	fw_shim_setup(&v->shim, hal);
	v->shim.hal.phy_set = s_phy_set;
	return fw_shim_start(&v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct variant *v = ctx;

	if (fw_shim_timer_due(&v->shim) && v->holding) {
		v->holding = false;
		v->shim.real->phy_set(v->shim.real->bench, v->phy);
	}
	fw_shim_wake(&v->shim, ev);
}

FW_VARIANT_EXPORT("connect_late", sizeof(struct variant), variant_init, variant_wake)
