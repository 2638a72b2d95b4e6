/* Faulty: 300 ms after VBUS becomes valid it writes into page zero
 * (SIGSEGV). The run must not take bcbench (or a suite) with it:
 * it ends as error, exit 3, with the signal and the time in its report. */
#include "lib/variant.h"

struct crash_fw {
	struct fw_shim shim; /* first: the reference's HAL points here */
	int armed;
};

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct crash_fw *f = ctx;

	fw_shim_setup(&f->shim, hal);
	return fw_shim_start(&f->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct crash_fw *f = ctx;
	const struct bcfw_hal *hal = f->shim.real;

	if (!f->armed && (hal->comparators(hal->bench) & BCFW_CMP_SESS_VLD)) {
		f->armed = 1;
		fw_shim_set_timer(&f->shim, fw_shim_now(&f->shim) + 300000);
	}
	if (fw_shim_timer_due(&f->shim)) {
		/* Not NULL itself: UBSan would report a null store and exit(1)
		 * first; page zero faults all the same. */
		volatile uintptr_t page_zero = 16;

		*(volatile int *)page_zero = 1;
	}
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("crash_segv", sizeof(struct crash_fw), variant_init, variant_wake)
