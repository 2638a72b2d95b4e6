/* The charging port's rules (side port): the family table. The rules
 * themselves live in port_*.c, one duty each (checks/port_rules.h). */
#include "checks/port_rules.h"
#include "checks/rules.h"

const struct bn_rule *const bn_rules_port[] = {
	&bn_port_vchg,
	&bn_port_overshoot,
	&bn_port_undershoot,
	&bn_port_shutdown,
	&bn_port_recovery,
	&bn_port_rdcp_dat,
	&bn_port_leakage,
	&bn_port_vdm_src,
	&bn_port_tvdmsrc_en,
	&bn_port_tvdmsrc_dis,
	&bn_port_rating,
	NULL,
};
