/* Task 1, accessory and OTG rules: ACA by ID resistance, the device as
 * A-device, and sourcing VBUS on a grounded ID. */
#include "checks/check.h"
#include "checks/rules.h"

const struct bn_rule *const bn_rules_aca_otg[] = {
	NULL,
};
