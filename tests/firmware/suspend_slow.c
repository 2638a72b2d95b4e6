/* Faulty: the reference firmware behind a HAL shim that hands it the bus's
 * suspend 15 ms late, so the device keeps its draw for 15 ms of bus idle:
 * past TSUSP_ENTER (10 ms, USB 2.0 7.1.7.6). On a host that never
 * enumerates (90 mA unconfigured) the 1 s TSUSP_AVG average from
 * TSUSP_ENTER stays below ISUSP (5 ms of 90 mA over about 0.9 s: 0.5 mA),
 * so only bc12.host.suspend_entry, which measures the time, catches it.
 * A resume before the suspend is handed over cancels it. */
#include "lib/variant.h"

#define SUSPEND_DELAY_US UINT64_C(15000)

struct variant {
	struct fw_shim shim; /* first: the HAL's bench pointer is the variant */
	bool holding;        /* a suspend is held back */
};

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	fw_shim_setup(&v->shim, hal);
	return fw_shim_start(&v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct variant *v = ctx;

	if (ev & BCFW_EV_SUSPEND) {
		ev &= ~(uint32_t)BCFW_EV_SUSPEND;
		v->holding = true;
		fw_shim_set_timer(&v->shim, fw_shim_now(&v->shim) + SUSPEND_DELAY_US);
	}
	if (ev & (BCFW_EV_RESUME | BCFW_EV_BUS_RESET | BCFW_EV_VBUS)) {
		if (v->holding)
			v->shim.own_wake_at = FW_NEVER;
		v->holding = false;
	}
	if (fw_shim_timer_due(&v->shim) && v->holding) {
		v->holding = false;
		ev |= BCFW_EV_SUSPEND;
	}
	fw_shim_wake(&v->shim, ev);
}

FW_VARIANT_EXPORT("suspend_slow", sizeof(struct variant), variant_init, variant_wake)
