/* bcbench without the hardware libraries hands a command that needs them
 * to bcbench-hw (docs/design.md, "Two binaries"): the same command line
 * and environment (LD_PRELOAD included), exec'd in place, before the
 * command takes a lock or writes anything. */
#ifndef BN_CLI_HW_EXEC_H
#define BN_CLI_HW_EXEC_H

#include <stdbool.h>

#include "core/conf.h"

/* The hidden override, for tests and measurements: "always" hands every
 * command that calls bn_cli_hw_exec over, "never" none (a hardware
 * command then meets hil/absent.c's errors). Unset or anything else: as
 * the command needs. */
#define BN_HW_ENV "BN_HW"

/* Hand over when this binary lacks the hardware and the command needs it:
 * always (it lists or tests hardware), or conf names a real instrument
 * (bn_conf_hardware_key). Returns 0 to go on in this process; does not
 * return when bcbench-hw starts; else prints why, naming the places it
 * looked, and returns exit code 6 (environment). who: "bcbench run". */
int bn_cli_hw_exec(const char *who, const struct bn_conf *conf, bool always);

#endif
