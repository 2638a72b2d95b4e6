/* Faulty: declares Dead Battery Provision but never uses it: with a dead
 * battery on an SDP it connects at once. Breaks bc12.dbp.vdp_src_on. */
#include "lib/variant.h"

static void tune(struct ref_fw_tunables *t)
{
	t->no_dbp = 1;
}

FW_TUNED_VARIANT("no_dbp", tune)
