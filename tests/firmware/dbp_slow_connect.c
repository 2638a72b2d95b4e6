/* Faulty: when Dead Battery Provision ends (D+ leaves VDP_SRC for the
 * pull-up) it waits 3 s before connecting, beyond TDBP_VDPSRC_CON (1 s).
 * While it waits, unconnected and without VDP_SRC, it stays at ISUSP, so
 * the only rule it breaks is bc12.dbp.vdpsrc_con.
 *
 * The reference runs unchanged behind a HAL shim: the shim sees the
 * reference ask for RDP_UP right after it held VDP_SRC, drops D+ to nothing
 * instead, caps the input at ISUSP, and applies the request 3 s later. */
#include "lib/variant.h"

#define SLOW_CONNECT_DELAY_US 3000000u
#define SLOW_ISUSP_MA 2u

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	uint32_t phy;        /* what the reference last asked for */
	uint32_t ilim;
	bool delaying;
};

static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;
	const struct bcfw_hal *real = v->shim.real;
	uint32_t prev = v->phy;

	v->phy = phy;
	if (!v->delaying && (prev & BCFW_PHY_VDP_SRC) && (phy & BCFW_PHY_RDP_UP)) {
		/* The end of DBP: hold the connect back. */
		v->delaying = true;
		real->set_input_limit_ma(real->bench, v->ilim < SLOW_ISUSP_MA ? v->ilim : SLOW_ISUSP_MA);
		fw_shim_set_timer(&v->shim, fw_shim_now(&v->shim) + SLOW_CONNECT_DELAY_US);
	}
	if (v->delaying)
		phy &= ~(uint32_t)(BCFW_PHY_RDP_UP | BCFW_PHY_VDP_SRC);
	real->phy_set(real->bench, phy);
}

static void s_set_input_limit_ma(void *b, uint32_t ma)
{
	struct variant *v = b;

	v->ilim = ma;
	if (v->delaying && ma > SLOW_ISUSP_MA)
		ma = SLOW_ISUSP_MA;
	v->shim.real->set_input_limit_ma(v->shim.real->bench, ma);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	fw_shim_setup(&v->shim, hal);
	v->shim.hal.phy_set = s_phy_set;
	v->shim.hal.set_input_limit_ma = s_set_input_limit_ma;
	return fw_shim_start(&v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct variant *v = ctx;
	const struct bcfw_hal *real = v->shim.real;

	if (fw_shim_timer_due(&v->shim) && v->delaying) {
		v->delaying = false;
		real->phy_set(real->bench, v->phy);
		real->set_input_limit_ma(real->bench, v->ilim);
	}
	fw_shim_wake(&v->shim, ev);
}

FW_VARIANT_EXPORT("dbp_slow_connect", sizeof(struct variant), variant_init, variant_wake)
