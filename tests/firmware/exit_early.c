/* Faulty: 300 ms after VBUS becomes valid it calls exit(0), as firmware
 * ported from a bare-metal main() might. The process ends "normally", but
 * the run did not: it must end as error (exit 3), never as a pass. */
#include <stdlib.h>

#include "lib/variant.h"

struct exit_fw {
	struct fw_shim shim; /* first: the reference's HAL points here */
	int armed;
};

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct exit_fw *f = ctx;

	fw_shim_setup(&f->shim, hal);
	return fw_shim_start(&f->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t ev)
{
	struct exit_fw *f = ctx;
	const struct bcfw_hal *hal = f->shim.real;

	if (!f->armed && (hal->comparators(hal->bench) & BCFW_CMP_SESS_VLD)) {
		f->armed = 1;
		fw_shim_set_timer(&f->shim, fw_shim_now(&f->shim) + 300000);
	}
	if (fw_shim_timer_due(&f->shim))
		exit(0);
	fw_shim_wake(&f->shim, ev);
}

FW_VARIANT_EXPORT("exit_early", sizeof(struct exit_fw), variant_init, variant_wake)
