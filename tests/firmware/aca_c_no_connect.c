/* Faulty: detects ACA-C (RID_C) and charges, but never connects there:
 * the HAL shim learns the port from the reference's own "port" telemetry
 * and masks the D+ pull-up (BCFW_PHY_RDP_UP) while it is aca-c.
 * Breaks bc12.aca.c_connect (on aca-c). */
#include <string.h>

#include "lib/variant.h"

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	bool on_aca_c;
};

static void s_telemetry_str(void *b, const char *k, const char *val)
{
	struct variant *v = b;

	if (!strcmp(k, "port"))
		v->on_aca_c = !strcmp(val, "aca-c");
	v->shim.real->telemetry_str(v->shim.real->bench, k, val);
}

/* The fault: no pull-up on ACA-C. */
static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;

	if (v->on_aca_c)
		phy &= ~(uint32_t)BCFW_PHY_RDP_UP;
	v->shim.real->phy_set(v->shim.real->bench, phy);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	fw_shim_setup(&v->shim, hal);
	v->shim.hal.telemetry_str = s_telemetry_str;
	v->shim.hal.phy_set = s_phy_set;
	return fw_shim_start(&v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	fw_shim_wake(ctx, ev);
}

FW_VARIANT_EXPORT("aca_c_no_connect", sizeof(struct variant), variant_init, variant_wake)
