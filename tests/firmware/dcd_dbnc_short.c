/* Faulty: DCD debounce of 2 ms, shorter than TDCD_DBNC min.
 * Breaks bc12.dcd.debounce. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->dcd_dbnc_us = 2000;
}

FW_TUNED_VARIANT("dcd_dbnc_short", tune)
