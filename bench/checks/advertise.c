/* Rules of this family: see check.h for the interface. */
#include "checks/check.h"
#include "checks/rules.h"

const struct bn_rule *const bn_rules_advertise[] = {
	NULL,
};
