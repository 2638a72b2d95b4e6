/* The charging port's rules (side port): the family table. The rules
 * themselves live in port_*.c, one duty each. */
#include "checks/rules.h"

const struct bn_rule *const bn_rules_port[] = {
	NULL,
};
