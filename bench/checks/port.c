/* The charging port's rules (side port): the family table. The rules
 * themselves live in port_*.c, one duty each (checks/port_rules.h). */
#include "checks/port_rules.h"
#include "checks/rules.h"

const struct bn_rule *const bn_rules_port[] = {
	&bn_port_vdm_src,
	&bn_port_tvdmsrc_en,
	&bn_port_tvdmsrc_dis,
	NULL,
};
