/* The probe firmware: the bench's device-side networks (see probe_fw.h).
 * It never draws: the input limit stays 0 and the system stays off, so
 * IBUS carries nothing of its own and the port's current is the e-load's. */
#include "firmware/probe_fw.h"

#include <string.h>

/* Each phase is timed from the limits' maxima with room to measure a port
 * that misses them: a CDP answering or releasing up to 80 ms late still
 * gets a measured time inside the phase. */
const struct probe_fw_timing probe_fw_timing = {
	.poll_us = 1000,
	.idle_us = 50000,          /* 50 ms of idle lines: a leakage settles within it */
	.dcd_dbnc_us = 12000,      /* TDCD_DBNC min 10 ms + 2 ms */
	.dcd_timeout_us = 600000,  /* inside TDCD_TIMEOUT 300-900 ms */
	.primary_us = 100000,      /* TVDMSRC_EN max 20 ms + 80 ms */
	.release_us = 100000,      /* TVDMSRC_DIS max 20 ms + 80 ms */
	.secondary_us = 50000,     /* TVDMSRC_ON min 40 ms + 10 ms */
};

enum probe_state { PS_OFF, PS_IDLE, PS_DCD, PS_PRIMARY, PS_RELEASE, PS_SECONDARY, PS_DONE };

static const char *const state_names[] = {
	"off", "idle", "dcd", "primary", "release", "secondary", "done",
};

struct probe_fw {
	const struct bcfw_hal *hal;
	struct probe_fw_timing t;
	enum probe_state st;
	uint64_t t_state, dcd_low_since;
	int dcd_low;
	int answered, released;
};

static uint64_t now(const struct probe_fw *p)
{
	return p->hal->now_us(p->hal->bench);
}

static uint32_t cmp(const struct probe_fw *p)
{
	return p->hal->comparators(p->hal->bench);
}

static void wake_in(struct probe_fw *p, uint64_t dt_us)
{
	p->hal->wake_at(p->hal->bench, now(p) + dt_us);
}

static void tel(struct probe_fw *p, const char *key, const char *value)
{
	p->hal->telemetry_str(p->hal->bench, key, value);
}

static void enter(struct probe_fw *p, enum probe_state st, uint32_t phy)
{
	p->st = st;
	p->t_state = now(p);
	p->hal->phy_set(p->hal->bench, phy);
	tel(p, "state", state_names[st]);
	wake_in(p, p->t.poll_us);
}

static uint64_t in_state(const struct probe_fw *p)
{
	return now(p) - p->t_state;
}

static void go_off(struct probe_fw *p)
{
	p->dcd_low = 0;
	p->answered = p->released = 0;
	tel(p, "port", "none");
	enter(p, PS_OFF, 0);
}

static void step_dcd(struct probe_fw *p)
{
	if (!(cmp(p) & BCFW_CMP_DP_VLGC)) {
		if (!p->dcd_low) {
			p->dcd_low = 1;
			p->dcd_low_since = now(p);
		}
		if (now(p) - p->dcd_low_since >= p->t.dcd_dbnc_us) {
			tel(p, "dcd", "contact");
			enter(p, PS_PRIMARY, BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK);
			return;
		}
	} else {
		p->dcd_low = 0;
	}
	if (in_state(p) >= p->t.dcd_timeout_us) {
		tel(p, "dcd", "timeout");
		enter(p, PS_PRIMARY, BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK);
		return;
	}
	wake_in(p, p->t.poll_us);
}

/* Primary detection held its full time whatever D- does, so a late
 * answer is captured too. */
static void step_primary(struct probe_fw *p)
{
	if (!p->answered && (cmp(p) & BCFW_CMP_DM_VDAT_REF)) {
		p->answered = 1;
		p->hal->telemetry_int(p->hal->bench, "vdm_on_us", (long)in_state(p));
	}
	if (in_state(p) < p->t.primary_us) {
		wake_in(p, p->t.poll_us);
		return;
	}
	tel(p, "primary", p->answered ? "charging" : "sdp");
	if (!p->answered) {
		tel(p, "port", "sdp");
		enter(p, PS_DONE, BCFW_PHY_RDP_UP);
		return;
	}
	/* Nothing of the probe's on the lines: what stays on D- is the port's. */
	enter(p, PS_RELEASE, 0);
}

static void step_release(struct probe_fw *p)
{
	if (!p->released && !(cmp(p) & BCFW_CMP_DM_VDAT_REF)) {
		p->released = 1;
		p->hal->telemetry_int(p->hal->bench, "vdm_off_us", (long)in_state(p));
	}
	if (in_state(p) < p->t.release_us) {
		wake_in(p, p->t.poll_us);
		return;
	}
	enter(p, PS_SECONDARY, BCFW_PHY_VDM_SRC | BCFW_PHY_IDP_SINK);
}

static void step_secondary(struct probe_fw *p)
{
	if (in_state(p) < p->t.secondary_us) {
		wake_in(p, p->t.poll_us);
		return;
	}
	if (cmp(p) & BCFW_CMP_DP_VDAT_REF) {
		tel(p, "port", "dcp");
		enter(p, PS_DONE, 0);
	} else {
		/* A CDP sees the pull-up and stops answering: what a device
		 * connecting after detection does. */
		tel(p, "port", "cdp");
		enter(p, PS_DONE, BCFW_PHY_RDP_UP);
	}
}

_Static_assert(sizeof(struct probe_fw) <= 256, "probe context size");

static int probe_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct probe_fw *p = ctx;

	(void)decl;
	p->hal = hal;
	/* No configurations advertised: the probe is the bench, it asks
	 * nothing of a host. */
	p->t = probe_fw_timing;
	return 0;
}

static void probe_wake(void *ctx, uint32_t ev)
{
	struct probe_fw *p = ctx;
	int vbus = !!(cmp(p) & BCFW_CMP_SESS_VLD);

	if (ev & BCFW_EV_RESET) {
		p->hal->set_input_limit_ma(p->hal->bench, 0);
		p->hal->system_power(p->hal->bench, 0);
		go_off(p);
	}
	if (p->st != PS_OFF && !vbus) {
		go_off(p);
		return;
	}
	if (p->st == PS_OFF) {
		if (vbus)
			enter(p, PS_IDLE, 0);
		return;
	}
	if (!(ev & BCFW_EV_TIMER))
		return;
	switch (p->st) {
	case PS_IDLE:
		if (in_state(p) >= p->t.idle_us)
			enter(p, PS_DCD, BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN);
		else
			wake_in(p, p->t.poll_us);
		break;
	case PS_DCD: step_dcd(p); break;
	case PS_PRIMARY: step_primary(p); break;
	case PS_RELEASE: step_release(p); break;
	case PS_SECONDARY: step_secondary(p); break;
	case PS_OFF:
	case PS_DONE: break;
	}
}

static const struct bcfw_firmware probe_fw = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "probe",
	.version = "1.0",
	.ctx_size = 256,
	.init = probe_init,
	.wake = probe_wake,
};

const struct bcfw_firmware *probe_fw_get(void)
{
	return &probe_fw;
}
