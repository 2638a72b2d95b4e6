/* Faulty: under Dead Battery Provision it never sees its battery as good
 * (a HAL shim reads the battery below its weak threshold) and never gives
 * up: 45 min after attach it is still unconnected and drawing its unit
 * load. Breaks bc12.dbp.con_wkb. */
#include "lib/variant.h"

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	uint32_t weak_mv;
};

static uint32_t s_battery_mv(void *b)
{
	struct variant *v = b;
	uint32_t mv = v->shim.real->battery_mv(v->shim.real->bench);

	/* Never reaches the weak threshold that ends DBP. */
	return v->weak_mv && mv >= v->weak_mv ? v->weak_mv - 1 : mv;
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;
	struct ref_fw_tunables t = ref_fw_tunables;

	t.dbp_give_up_us = UINT64_MAX / 2;
	v->weak_mv = decl->battery_weak_mv;
	fw_shim_setup(&v->shim, hal);
	v->shim.hal.battery_mv = s_battery_mv;
	return fw_shim_start(&v->shim, decl, &t);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	fw_shim_wake(ctx, ev);
}

FW_VARIANT_EXPORT("dbp_never_done", sizeof(struct variant), variant_init, variant_wake)
