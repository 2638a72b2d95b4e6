/* Faulty: the reference firmware behind a HAL shim that sets the charger's
 * input limit to 50 mA while Data Contact Detect runs (IDP_SRC on D+), so
 * the device draws while attached and not yet connected: above ISUSP.
 * Breaks bc12.host.unconnected_isusp. */
#include "lib/variant.h"

#define DCD_DRAW_MA 50

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	uint32_t ilim_ma;    /* what the reference asked for */
	bool in_dcd;
};

static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;
	const struct bcfw_hal *real = v->shim.real;
	bool dcd = !!(phy & BCFW_PHY_IDP_SRC);

	real->phy_set(real->bench, phy);
	if (dcd != v->in_dcd) {
		v->in_dcd = dcd;
		real->set_input_limit_ma(real->bench, dcd ? DCD_DRAW_MA : v->ilim_ma);
	}
}

static void s_set_input_limit_ma(void *b, uint32_t ma)
{
	struct variant *v = b;

	v->ilim_ma = ma;
	if (!v->in_dcd)
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
	fw_shim_wake(ctx, ev);
}

FW_VARIANT_EXPORT("draw_unconnected", sizeof(struct variant), variant_init, variant_wake)
