/* Faulty: draws 300 mA under Dead Battery Provision, above IUNIT.
 * Breaks bc12.dbp.iunit. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->dbp_ma = 300;
}

FW_TUNED_VARIANT("dbp_300ma", tune)
