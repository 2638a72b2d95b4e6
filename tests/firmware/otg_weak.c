/* Faulty: sources VBUS on a grounded ID, but a badly set boost
 * under-voltage guard turns the boost off (and keeps it off until the
 * A-device session ends) as soon as VBUS sags below 4.95 V: at any real
 * load its output folds. The shim reads VBUS after each wake of the
 * reference, as the firmware's own ADC poll would.
 * Breaks bc12.otg.sources_vbus (on otg, at the 500 mA rated load). */
#include "lib/variant.h"

#define WEAK_GUARD_MV 4950u

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	bool sourcing;       /* the reference asked for the boost */
	bool folded;         /* the guard tripped */
};

static void s_source_vbus(void *b, int on)
{
	struct variant *v = b;

	v->sourcing = !!on;
	if (!on)
		v->folded = false;
	if (!v->folded)
		v->shim.real->source_vbus(v->shim.real->bench, on);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	fw_shim_setup(&v->shim, hal);
	v->shim.hal.source_vbus = s_source_vbus;
	return fw_shim_start(&v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct variant *v = ctx;
	const struct bcfw_hal *real = v->shim.real;

	fw_shim_wake(&v->shim, ev);
	if (v->sourcing && !v->folded && real->vbus_mv(real->bench) < WEAK_GUARD_MV) {
		v->folded = true;
		real->source_vbus(real->bench, 0);
		real->telemetry_str(real->bench, "otg_guard", "tripped");
	}
}

FW_VARIANT_EXPORT("otg_weak", sizeof(struct variant), variant_init, variant_wake)
