/* Faulty: keeps drawing its configured (or unconfigured) current when the
 * bus suspends (ignore_suspend). Breaks bc12.host.suspend_isusp. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->ignore_suspend = 1;
}

FW_TUNED_VARIANT("ignore_suspend", tune)
