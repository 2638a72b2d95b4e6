/* Reference firmware: the detection state machine and the USB power
 * policy. The ramp policy is in ref_ramp.c. All plant access goes
 * through the HAL; all state lives in struct ref_fw (no globals). */
#include "firmware/ref_fw.h"

#include <string.h>

#include "firmware/ref_ramp.h"

/* A good product keeps a margin below each limit, so that the part
 * spread, its own current sense and a test bench's measurement error do
 * not put it on the edge: here 10 % below each current limit (IUNIT,
 * a configuration's bMaxPower, the DBP allowance), 60 % below ISUSP (a
 * suspend draw is mostly quiescent current), about 7 % below IDEV_CHG,
 * and 10 ms (25 %) above each detection hold time. */
const struct ref_fw_tunables ref_fw_tunables = {
	.dcd_poll_us = 1000,
	.dcd_dbnc_us = 12000,
	.dcd_timeout_us = 600000,
	.vdpsrc_on_us = 50000,      /* TVDPSRC_ON min 40 ms + 10 ms */
	.vdmsrc_on_us = 50000,      /* TVDMSRC_ON min 40 ms + 10 ms */
	.iunit_ma = 90,             /* IUNIT 100 mA - 10 % */
	.isusp_ma = 1,              /* ISUSP 2.5 mA - 60 % */
	.idev_chg_ma = 1400,        /* IDEV_CHG 1.5 A - 100 mA */
	.dcp_start_ma = 500,
	.cdp_start_ma = 1400,       /* a CDP is rated ICDP >= 1.5 A: start at the device's own ceiling */
	.aca_start_ma = 500,
	.dbp_attach_us = 1000000,
	.dbp_poll_us = 1000000,
	.dbp_give_up_us = UINT64_C(44) * 60 * 1000000,
	.id_poll_us = 20000,
	/* Windows half-way between the RID values, as an ADC-reading PMIC
	 * does: RID_GND < 1k, RID_C 36-37k, RID_B 67-69k, RID_A 122-126k. */
	.rid_gnd_max_ohm = 10000,
	.rid_c_max_ohm = 52000,
	.rid_b_max_ohm = 95000,
	.rid_a_max_ohm = 175000,
	.cfg_high_ma = 500,
	.cfg_low_ma = 100,
	.cfg_draw_pct = 90,         /* draw 90 % of the chosen configuration's bMaxPower */
	.dbp_ma = 90,               /* IUNIT 100 mA - 10 % */
};

enum ref_state {
	ST_OFF,        /* no VBUS */
	ST_DCD,        /* data contact detect */
	ST_ID,         /* lines idle: read ID and D- */
	ST_PRIMARY,
	ST_SECONDARY,
	ST_DBP,        /* dead battery on an SDP */
	ST_SDP,        /* connected to a host port */
	ST_CHARGE,     /* DCP, CDP, ACA-B, ACA-C: ramping */
	ST_AHOST,      /* ACA-A, ACA-Dock: A-device while charging */
	ST_OTG,        /* ID grounded: sourcing VBUS */
};

static const char *const state_names[] = {
	"off", "dcd", "id", "primary", "secondary", "dbp", "sdp", "charge", "a-host", "otg",
};

enum ref_id { ID_FLOAT, ID_GND, ID_A, ID_B, ID_C };

struct ref_fw {
	const struct bcfw_hal *hal;
	struct ref_fw_tunables t;
	struct bcfw_decl decl;
	enum ref_state st;
	uint64_t t_attach, t_state, dcd_low_since;
	int dcd_low;
	const char *port;
	uint32_t phy;
	uint32_t ilim;
	int connected;
	int suspended;
	int config;
	int ramping;
	struct ref_ramp ramp;
	uint32_t trip_ceiling;
	uint64_t t_lost;
	int dbp_quiet;
};

static uint64_t now(const struct ref_fw *f)
{
	return f->hal->now_us(f->hal->bench);
}

static void wake_in(struct ref_fw *f, uint64_t dt_us)
{
	f->hal->wake_at(f->hal->bench, now(f) + dt_us);
}

static void set_phy(struct ref_fw *f, uint32_t phy)
{
	f->phy = phy | BCFW_PHY_ID_PULLUP;
	f->hal->phy_set(f->hal->bench, f->phy);
}

static void set_ilim(struct ref_fw *f, uint32_t ma)
{
	if (ma == f->ilim)
		return;
	f->ilim = ma;
	f->hal->set_input_limit_ma(f->hal->bench, ma);
	f->hal->telemetry_int(f->hal->bench, "ilim_ma", (long)ma);
}

static void set_state(struct ref_fw *f, enum ref_state st)
{
	f->st = st;
	f->t_state = now(f);
	f->hal->telemetry_str(f->hal->bench, "state", state_names[st]);
}

static void set_port(struct ref_fw *f, const char *port)
{
	f->port = port;
	f->hal->telemetry_str(f->hal->bench, "port", port);
}

static uint32_t cmp(const struct ref_fw *f)
{
	return f->hal->comparators(f->hal->bench);
}

static enum ref_id read_id(const struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;
	uint64_t v = f->hal->id_mv(f->hal->bench), vpu = f->decl.id_pullup_mv, r;

	if (!vpu || v >= vpu)
		return ID_FLOAT;
	/* The pull-up and the ID resistance form a divider. */
	r = (uint64_t)f->decl.id_pullup_ohm * v / (vpu - v);
	if (r < t->rid_gnd_max_ohm)
		return ID_GND;
	if (r < t->rid_c_max_ohm)
		return ID_C;
	if (r < t->rid_b_max_ohm)
		return ID_B;
	if (r < t->rid_a_max_ohm)
		return ID_A;
	return ID_FLOAT;
}

static int battery_dead(const struct ref_fw *f)
{
	return f->decl.battery_powered && f->decl.battery_dead_mv &&
	       f->hal->battery_mv(f->hal->bench) < f->decl.battery_dead_mv;
}

static void go_off(struct ref_fw *f)
{
	f->ramping = 0;
	f->connected = 0;
	f->config = 0;
	f->suspended = 0;
	set_phy(f, 0);
	set_ilim(f, 0);
	f->hal->source_vbus(f->hal->bench, 0);
	f->hal->system_power(f->hal->bench, 1);
	set_port(f, "none");
	set_state(f, ST_OFF);
	wake_in(f, f->t.id_poll_us);
}

static void start_charging(struct ref_fw *f, const char *port, uint32_t phy, uint32_t start_ma,
			   enum ref_state st)
{
	uint32_t ceiling = 0;

	set_port(f, port);
	set_phy(f, phy);
	f->connected = !!(phy & BCFW_PHY_RDP_UP);
	if (f->trip_ceiling && now(f) - f->t_lost < RAMP_TRIP_MEMORY_US)
		ceiling = f->trip_ceiling;
	ref_ramp_start(&f->ramp, start_ma, f->t.idev_chg_ma, ceiling,
		       f->t.ignore_droop ? 0 : f->decl.droop_threshold_mv, now(f));
	f->ramping = 1;
	set_ilim(f, f->ramp.ilim_ma);
	set_state(f, st);
	wake_in(f, RAMP_SAMPLE_US);
}

/* What the device draws in a configuration of bMaxPower max_ma. */
static uint32_t cfg_draw(const struct ref_fw_tunables *t, uint32_t max_ma)
{
	return t->cfg_draw_pct ? max_ma * t->cfg_draw_pct / 100u : max_ma;
}

/* SDP (and the end of DBP): connect, draw by the host's choice. */
static uint32_t sdp_allowance(const struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;

	if (f->suspended && !t->ignore_suspend)
		return t->isusp_ma;
	if (t->ignore_config && f->config)
		return cfg_draw(t, t->cfg_high_ma);
	if (f->config == 1)
		return cfg_draw(t, t->cfg_high_ma);
	if (f->config == 2)
		return cfg_draw(t, t->cfg_low_ma);
	return t->iunit_ma;
}

static void start_sdp(struct ref_fw *f)
{
	set_port(f, "sdp");
	set_phy(f, BCFW_PHY_RDP_UP);
	f->connected = 1;
	f->config = 0;
	f->suspended = 0;
	set_ilim(f, sdp_allowance(f));
	set_state(f, ST_SDP);
}

static void after_id(struct ref_fw *f)
{
	enum ref_id id = read_id(f);
	const struct ref_fw_tunables *t = &f->t;

	switch (id) {
	case ID_A:
		if (t->otg_despite_vbus)
			f->hal->source_vbus(f->hal->bench, 1);
		/* ACA-Dock drives VDM_SRC on D- while the lines are idle. */
		if (cmp(f) & BCFW_CMP_DM_VDAT_REF)
			start_charging(f, "aca-dock", BCFW_PHY_HOST_PD, t->cdp_start_ma, ST_AHOST);
		else
			start_charging(f, "aca-a",
				       BCFW_PHY_HOST_PD | (t->pullup_on_aca_a ? BCFW_PHY_RDP_UP : 0),
				       t->aca_start_ma, ST_AHOST);
		return;
	case ID_B:
		start_charging(f, "aca-b", t->connect_on_aca_b ? BCFW_PHY_RDP_UP : 0, t->aca_start_ma,
			       ST_CHARGE);
		return;
	case ID_C:
		start_charging(f, "aca-c", BCFW_PHY_RDP_UP, t->aca_start_ma, ST_CHARGE);
		return;
	case ID_GND:  /* grounded ID with VBUS from outside: never source; treat as B-device */
		if (t->otg_despite_vbus)
			f->hal->source_vbus(f->hal->bench, 1);
		break;
	case ID_FLOAT:
		break;
	}
	set_phy(f, BCFW_PHY_VDP_SRC | BCFW_PHY_IDM_SINK);
	set_state(f, ST_PRIMARY);
	wake_in(f, t->vdpsrc_on_us);
}

static void on_attach(struct ref_fw *f)
{
	f->t_attach = now(f);
	f->dcd_low = 0;
	if (f->t.no_dcd) {
		/* Straight to the ID check and primary detection. */
		set_phy(f, 0);
		set_state(f, ST_ID);
		wake_in(f, f->t.dcd_poll_us);
		return;
	}
	set_phy(f, BCFW_PHY_IDP_SRC | BCFW_PHY_RDM_DWN);
	set_state(f, ST_DCD);
	wake_in(f, f->t.dcd_poll_us);
}

static void step_dcd(struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;
	uint64_t tn = now(f);

	if (!(cmp(f) & BCFW_CMP_DP_VLGC)) {
		if (!f->dcd_low) {
			f->dcd_low = 1;
			f->dcd_low_since = tn;
		}
		if (tn - f->dcd_low_since >= t->dcd_dbnc_us) {
			f->hal->telemetry_str(f->hal->bench, "dcd", "contact");
			goto done;
		}
	} else {
		f->dcd_low = 0;
	}
	if (tn - f->t_attach >= t->dcd_timeout_us) {
		f->hal->telemetry_str(f->hal->bench, "dcd", "timeout");
		goto done;
	}
	wake_in(f, t->dcd_poll_us);
	return;
done:
	set_phy(f, 0);
	set_state(f, ST_ID);
	wake_in(f, t->dcd_poll_us);
}

static void after_primary(struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;

	if (cmp(f) & BCFW_CMP_DM_VDAT_REF) {
		if (f->decl.secondary_detection) {
			set_phy(f, BCFW_PHY_VDM_SRC | BCFW_PHY_IDP_SINK);
			set_state(f, ST_SECONDARY);
			wake_in(f, t->vdmsrc_on_us);
			return;
		}
		/* Without secondary detection a charging port is taken as a DCP. */
		start_charging(f, "dcp", BCFW_PHY_VDP_SRC, t->dcp_start_ma, ST_CHARGE);
		return;
	}
	if (f->decl.dbp && battery_dead(f) && !t->no_dbp) {
		/* Dead Battery Provision: hold D+ at VDP_SRC, draw a unit load
		 * unconnected until the battery can run the system. */
		set_port(f, "sdp");
		f->hal->system_power(f->hal->bench, 0);
		set_phy(f, BCFW_PHY_VDP_SRC);
		set_ilim(f, t->dbp_ma);
		f->dbp_quiet = 0;
		set_state(f, ST_DBP);
		wake_in(f, t->dbp_poll_us);
		return;
	}
	start_sdp(f);
}

static void after_secondary(struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;

	if (cmp(f) & BCFW_CMP_DP_VDAT_REF)
		/* A DCP: keep D+ at VDP_SRC while drawing more than ISUSP. */
		start_charging(f, "dcp", t->dcp_drop_dp ? 0 : BCFW_PHY_VDP_SRC, t->dcp_start_ma,
			       ST_CHARGE);
	else
		start_charging(f, t->report_cdp_as_dcp ? "dcp" : "cdp", BCFW_PHY_RDP_UP,
			       t->cdp_start_ma, ST_CHARGE);
}

static void step_dbp(struct ref_fw *f)
{
	const struct ref_fw_tunables *t = &f->t;

	if (f->dbp_quiet) {
		wake_in(f, t->dbp_poll_us);
		return;
	}
	if (!battery_dead(f) &&
	    f->hal->battery_mv(f->hal->bench) >= f->decl.battery_weak_mv) {
		f->hal->telemetry_str(f->hal->bench, "dbp", "battery good");
		f->hal->system_power(f->hal->bench, 1);
		start_sdp(f);
		return;
	}
	if (now(f) - f->t_attach >= t->dbp_give_up_us) {
		/* Could not charge enough in time: go quiet. */
		f->dbp_quiet = 1;
		set_phy(f, 0);
		set_ilim(f, t->isusp_ma);
		f->hal->telemetry_str(f->hal->bench, "dbp", "gave up");
	}
	wake_in(f, t->dbp_poll_us);
}

static void step_ramp(struct ref_fw *f)
{
	uint32_t ilim = ref_ramp_sample(&f->ramp, f->hal->vbus_mv(f->hal->bench), now(f));

	set_ilim(f, ilim);
	f->hal->telemetry_int(f->hal->bench, "backoffs", f->ramp.backoffs);
	f->hal->telemetry_str(f->hal->bench, "ramp", f->ramp.settled ? "settled" : "ramping");
	wake_in(f, RAMP_SAMPLE_US);
}

static void step_off(struct ref_fw *f)
{
	/* No VBUS: a grounded ID makes the device the A-device. */
	if (read_id(f) == ID_GND && !(cmp(f) & BCFW_CMP_SESS_VLD)) {
		set_port(f, "otg");
		set_phy(f, BCFW_PHY_HOST_PD);
		f->hal->source_vbus(f->hal->bench, 1);
		set_state(f, ST_OTG);
	}
	wake_in(f, f->t.id_poll_us);
}

static void step_otg(struct ref_fw *f)
{
	if (read_id(f) != ID_GND) {
		go_off(f);
		return;
	}
	wake_in(f, f->t.id_poll_us);
}

static void on_vbus_lost(struct ref_fw *f)
{
	uint32_t ceiling = f->ramping ? ref_ramp_trip_ceiling(&f->ramp, now(f)) : 0;

	f->t_lost = now(f);
	if (ceiling) {
		f->trip_ceiling = ceiling;
		f->hal->telemetry_int(f->hal->bench, "trip_ceiling_ma", (long)ceiling);
	}
	go_off(f);
}

_Static_assert(sizeof(struct ref_fw) <= REF_FW_CTX_SIZE, "REF_FW_CTX_SIZE too small");

int ref_fw_init_with(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl,
		     const struct ref_fw_tunables *t)
{
	struct ref_fw *f = ctx;
	const struct bcfw_config cfgs[] = {
		{ .value = 1, .max_power_ma = t->cfg_high_ma },
		{ .value = 2, .max_power_ma = t->cfg_low_ma },
	};

	f->hal = hal;
	f->t = *t;
	f->decl = *decl;
	hal->advertise(hal->bench, cfgs, (int)(sizeof(cfgs) / sizeof(cfgs[0])));
	return 0;
}

static void usb_events(struct ref_fw *f, uint32_t ev)
{
	if (ev & BCFW_EV_BUS_RESET)
		f->config = 0;
	if (ev & BCFW_EV_CONFIG) {
		f->config = f->hal->host_config(f->hal->bench);
		f->hal->telemetry_int(f->hal->bench, "config", f->config);
	}
	if (ev & BCFW_EV_SUSPEND)
		f->suspended = 1;
	if (ev & BCFW_EV_RESUME)
		f->suspended = 0;
	if (ev & BCFW_EV_PERIPHERAL)
		f->hal->telemetry_str(f->hal->bench, "peripheral", "enumerated");
	if (f->st == ST_SDP)
		set_ilim(f, sdp_allowance(f));
	if (ev & (BCFW_EV_SUSPEND | BCFW_EV_RESUME))
		f->hal->telemetry_str(f->hal->bench, "bus", f->suspended ? "suspended" : "active");
}

static int ref_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	return ref_fw_init_with(ctx, hal, decl, &ref_fw_tunables);
}

void ref_fw_wake(void *ctx, uint32_t ev)
{
	struct ref_fw *f = ctx;
	int vbus = !!(cmp(f) & BCFW_CMP_SESS_VLD);

	if (ev & BCFW_EV_RESET) {
		go_off(f);
		if (vbus)
			on_attach(f);
		return;
	}
	usb_events(f, ev);
	if (f->st == ST_OTG) {
		if (ev & BCFW_EV_TIMER)
			step_otg(f);
		return;
	}
	if (f->st != ST_OFF && !vbus) {
		on_vbus_lost(f);
		return;
	}
	if (f->st == ST_OFF && vbus) {
		on_attach(f);
		return;
	}
	if (!(ev & BCFW_EV_TIMER))
		return;
	switch (f->st) {
	case ST_OFF: step_off(f); break;
	case ST_DCD: step_dcd(f); break;
	case ST_ID: after_id(f); break;
	case ST_PRIMARY: after_primary(f); break;
	case ST_SECONDARY: after_secondary(f); break;
	case ST_DBP: step_dbp(f); break;
	case ST_SDP: break;
	case ST_CHARGE:
	case ST_AHOST: step_ramp(f); break;
	case ST_OTG: break;
	}
}

static const struct bcfw_firmware ref_fw = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "reference",
	.version = "1.0",
	.ctx_size = REF_FW_CTX_SIZE,
	.init = ref_init,
	.wake = ref_fw_wake,
};

const struct bcfw_firmware *ref_fw_get(void)
{
	return &ref_fw;
}
