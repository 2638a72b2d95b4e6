/* Faulty: 300 ms after VBUS becomes valid it writes into page zero
 * (SIGSEGV). The run must not take bcbench (or a suite) with it:
 * it ends as error, exit 3, with the signal and the time in its report. */
#include "lib/variant.h"

static void variant_wake(void *ctx, uint32_t ev)
{
	struct fw_fault *f = ctx;

	if (fw_fault_due(f, 300000)) {
		/* Not NULL itself: UBSan would report a null store and exit(1)
		 * first; page zero faults all the same. */
		volatile uintptr_t page_zero = 16;

		*(volatile int *)page_zero = 1;
	}
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("crash_segv", sizeof(struct fw_fault), fw_fault_init, variant_wake)
