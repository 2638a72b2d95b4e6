/* Faulty: ramps its input limit up to 2 A, past IDEV_CHG (1.5 A).
 * On a strong DCP (dcp-strong) breaks bc12.cur.idev_chg. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->idev_chg_ma = 2000;
}

FW_TUNED_VARIANT("ramp_past_idev", tune)
