/* The reference charging firmware: does the five tasks of a BC-1.2
 * portable device right (README.md, "Compliance rules"). Built in as "reference";
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
	uint8_t cfg_draw_pct;       /* draw this % of the chosen configuration's bMaxPower (0: 100 %) */
	uint32_t dbp_ma;            /* draw under DBP, <= IUNIT max */
	/* Behaviour knobs for the faulty variants in tests/firmware/, each
	 * breaking one rule; the reference sets none of them. */
	uint8_t no_dcd;             /* skip Data Contact Detect */
	uint8_t no_dbp;             /* no Dead Battery Provision */
	uint8_t ignore_suspend;     /* keep drawing when the bus suspends */
	uint8_t ignore_config;      /* draw the high configuration's current whatever the host chose */
	uint8_t ignore_droop;       /* ramp without watching VBUS */
	uint8_t dcp_drop_dp;        /* let D+ fall on a DCP while charging */
	uint8_t connect_on_aca_b;   /* pull D+ up on ACA-B */
	uint8_t pullup_on_aca_a;    /* pull D+ up on ACA-A as A-device */
	uint8_t otg_despite_vbus;   /* source VBUS as A-device (RID_A, grounded ID) although VBUS is present */
	uint8_t report_cdp_as_dcp;  /* misreport a CDP as a DCP */
};

/* The context a reference-based firmware needs. */
#define REF_FW_CTX_SIZE 1024

/* For variants: start the reference with other tunables. A variant's
 * table uses ctx_size REF_FW_CTX_SIZE, its own init calling this, and
 * ref_fw_wake. */
int ref_fw_init_with(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl,
		     const struct ref_fw_tunables *t);
void ref_fw_wake(void *ctx, uint32_t events);

extern const struct ref_fw_tunables ref_fw_tunables;

#endif
