/* Faulty: 300 ms after VBUS becomes valid it spins forever inside its
 * wake-up, polling VBUS (a busy-wait on a condition that never comes).
 * Virtual time stands still and no call returns: only the wall-clock
 * watchdog can end the run, as error, exit 3, with the cause. */
#include "lib/variant.h"

struct hang_fw {
	struct fw_shim shim; /* first: the reference's HAL points here */
	int armed;
};

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct hang_fw *f = ctx;

	fw_shim_setup(&f->shim, hal);
	return fw_shim_start(&f->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct hang_fw *f = ctx;
	const struct bcfw_hal *hal = f->shim.real;

	if (!f->armed && (hal->comparators(hal->bench) & BCFW_CMP_SESS_VLD)) {
		f->armed = 1;
		fw_shim_set_timer(&f->shim, fw_shim_now(&f->shim) + 300000);
	}
	if (fw_shim_timer_due(&f->shim)) {
		/* Waits for VBUS to read above 20 V: it never will. */
		while (hal->comparators(hal->bench) != 0xffffffffu)
			;
	}
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("hang_spin", sizeof(struct hang_fw), variant_init, variant_wake)
