/* The reference charging firmware: does the five tasks of a BC-1.2
 * portable device right (DESIGN.md section 1). Built in as "reference";
 * also built as build/fw/reference.so to prove loading by path. */
#ifndef BN_FIRMWARE_REF_FW_H
#define BN_FIRMWARE_REF_FW_H

#include "firmware/bcfw.h"

const struct bcfw_firmware *ref_fw_get(void);

/* The device designer's timing and current choices, each inside its
 * BC-1.2 limit (tests/unit/test_ref_fw.c checks them against the limits
 * file). A firmware cannot read our limits file: it carries its own. */
struct ref_fw_tunables {
	uint32_t dcd_poll_us;
	uint32_t dcd_dbnc_us;       /* >= TDCD_DBNC min */
	uint32_t dcd_timeout_us;    /* within TDCD_TIMEOUT */
	uint32_t vdpsrc_on_us;      /* >= TVDPSRC_ON min */
	uint32_t vdmsrc_on_us;      /* >= TVDMSRC_ON min */
	uint32_t iunit_ma;          /* <= IUNIT max */
	uint32_t isusp_ma;          /* <= ISUSP max */
	uint32_t idev_chg_ma;       /* <= IDEV_CHG max */
	uint32_t dcp_start_ma;      /* >= IDCP min: the DCP range's minimum */
	uint32_t cdp_start_ma;      /* >= ICDP min */
	uint32_t aca_start_ma;
	uint32_t dbp_attach_us;     /* VDP_SRC on within TDBP_ATT_VDPSRC */
	uint32_t dbp_poll_us;
	uint64_t dbp_give_up_us;    /* < TSVLD_CON_WKB */
	uint32_t id_poll_us;
	uint32_t rid_gnd_max_ohm, rid_c_max_ohm, rid_b_max_ohm, rid_a_max_ohm;
	uint16_t cfg_high_ma, cfg_low_ma; /* advertised bMaxPower */
};

extern const struct ref_fw_tunables ref_fw_tunables;

#endif
