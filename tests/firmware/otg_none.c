/* Faulty: on a grounded ID (the OTG port) it takes the A-device role but
 * never turns its boost on: the HAL shim drops every source_vbus(1).
 * Breaks bc12.otg.sources_vbus (on otg). */
#include "lib/variant.h"

/* The fault: the boost is never enabled. */
static void s_source_vbus(void *b, int on)
{
	struct fw_shim *s = b;

	if (!on)
		s->real->source_vbus(s->real->bench, 0);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct fw_shim *s = ctx;

	fw_shim_setup(s, hal);
	s->hal.source_vbus = s_source_vbus;
	return fw_shim_start(s, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	fw_shim_wake(ctx, ev);
}

FW_VARIANT_EXPORT("otg_none", sizeof(struct fw_shim), variant_init, variant_wake)
