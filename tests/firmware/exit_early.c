/* Faulty: 300 ms after VBUS becomes valid it calls exit(0), as firmware
 * ported from a bare-metal main() might. The process ends "normally", but
 * the run did not: it must end as error (exit 3), never as a pass. */
#include <stdlib.h>

#include "lib/variant.h"

static void variant_wake(void *ctx, uint32_t ev)
{
	struct fw_fault *f = ctx;

	if (fw_fault_due(f, 300000))
		exit(0);
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("exit_early", sizeof(struct fw_fault), fw_fault_init, variant_wake)
