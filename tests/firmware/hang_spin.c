/* Faulty: 300 ms after VBUS becomes valid it spins forever inside its
 * wake-up, polling the comparators for a state that never comes (a
 * busy-wait). Virtual time stands still and no call returns: only the
 * wall-clock watchdog can end the run, as error, exit 3, with the cause. */
#include "lib/variant.h"

static void variant_wake(void *ctx, uint32_t ev)
{
	struct fw_fault *f = ctx;
	const struct bcfw_hal *hal = f->shim.real;

	if (fw_fault_due(f, 300000))
		while (hal->comparators(hal->bench) != 0xffffffffu)
			;
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("hang_spin", sizeof(struct fw_fault), fw_fault_init, variant_wake)
