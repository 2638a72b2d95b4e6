/* The rule families (one file each), NULL-terminated tables. */
#ifndef BN_CHECKS_RULES_H
#define BN_CHECKS_RULES_H

#include "checks/check.h"

extern const struct bn_rule *const bn_rules_detection[];
extern const struct bn_rule *const bn_rules_aca_otg[];
extern const struct bn_rule *const bn_rules_advertise[];
extern const struct bn_rule *const bn_rules_host_choice[];
extern const struct bn_rule *const bn_rules_current[];
extern const struct bn_rule *const bn_rules_dbp[];
extern const struct bn_rule *const bn_rules_port[];

#endif
