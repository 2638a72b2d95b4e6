/* The charging port's rules (side port), one duty a file: port_output.c
 * (VBUS under load), port_lines.c (the DCP's data lines), port_cdp.c (the
 * CDP's handshake), port_rating.c (the declared rating). port.c lists
 * them in report order. */
#ifndef BN_CHECKS_PORT_RULES_H
#define BN_CHECKS_PORT_RULES_H

#include "checks/check.h"

extern const struct bn_rule bn_port_vdm_src, bn_port_tvdmsrc_en, bn_port_tvdmsrc_dis;

#endif
