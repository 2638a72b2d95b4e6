/* The probe: the bench's own device-side networks played as a device's
 * PHY, so the bench (not a device) drives a charging port through its
 * detection sequence while the e-load draws the scenario's steps. Built in
 * as "probe"; a dut profile naming it (profiles/duts/bench-probe.json)
 * makes a run judge the port. */
#ifndef BN_FIRMWARE_PROBE_FW_H
#define BN_FIRMWARE_PROBE_FW_H

#include "firmware/bcfw.h"

const struct bcfw_firmware *probe_fw_get(void);

/* The probe's timing. Each phase is held long enough for the port's
 * answer to be timed from the capture well past its limit (a late answer
 * gets a measured time, not just "none within the limit"). */
struct probe_fw_timing {
	uint32_t poll_us;         /* comparator polling while a phase is open */
	uint32_t idle_us;         /* lines left alone at contact: the port's leakage alone */
	uint32_t dcd_dbnc_us;     /* >= TDCD_DBNC min */
	uint32_t dcd_timeout_us;  /* within TDCD_TIMEOUT */
	uint32_t primary_us;      /* VDP_SRC + IDM_SINK: >= TVDMSRC_EN max + margin */
	uint32_t release_us;      /* nothing on the lines: a CDP's release of D- is seen */
	uint32_t secondary_us;    /* VDM_SRC + IDP_SINK: >= TVDMSRC_ON min */
};

extern const struct probe_fw_timing probe_fw_timing;

/* Telemetry keys the probe reports (what it found):
 *   "state"        idle dcd primary release secondary done off
 *   "dcd"          contact | timeout
 *   "primary"      charging (D- answered above VDAT_REF) | sdp
 *   "vdm_on_us"    primary: first poll with D- above VDAT_REF, after VDP_SRC on
 *   "vdm_off_us"   release: first poll with D- below VDAT_REF, after VDP_SRC off
 *   "port"         dcp | cdp | sdp (the detection result), "none" before
 * A comparator at poll_us resolution: the rules time the answer from the
 * capture; these are the probe's own reading, for the scenario's expects. */

#endif
