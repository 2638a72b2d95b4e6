/* Faulty: DCD time-out of 1.5 s, beyond TDCD_TIMEOUT max: on a
 * port whose data lines float, primary detection starts too late.
 * Breaks bc12.det.primary_start. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->dcd_timeout_us = 1500000;
}

FW_TUNED_VARIANT("dcd_timeout_long", tune)
