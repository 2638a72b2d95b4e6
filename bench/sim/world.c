#define BN_LOG_MODULE "sim"
#include "sim/world.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "sim/battery.h"
#include "sim/lines.h"

#define WORLD_MAX_TELEMETRY 32
#define WORLD_DEFAULT_LIVELOCK 10000
/* The system load is declared as a VBUS-side current at nominal VBUS. */
#define WORLD_NOMINAL_VBUS_V 5.0
#define WORLD_DEFAULT_BATTERY_V 3.9
#define WORLD_BACKFEED_A 0.5
#define WORLD_MAX_SLICE_US (BN_US_PER_S / 4)

struct world_telem {
	char key[32];
	char val[64];
};

struct bn_world {
	struct bn_world_cfg cfg;
	const struct bn_dut_phy *phy_hw;
	bn_time_us now;

	/* what touches what */
	bool plugged;      /* VBUS and GND pins in contact */
	bool vbus_switch;  /* the fixture's VBUS switch */
	bool bench_vbus_on;
	bool data_contact_seen;
	bool data_contact; /* D+, D-, ID in contact */
	bn_time_us t_data_toggle;
	int toggles_left;
	double load_a;

	struct bn_charger_state chg;

	/* the device */
	const struct bcfw_firmware *fw;
	void *fw_ctx;
	struct bcfw_hal hal;
	struct bcfw_decl decl;
	uint32_t phy;
	uint32_t ilim_ma;
	bool otg_on;
	bool otg_conflict_seen;
	bool system_on;
	bn_time_us fw_wake_at;
	uint32_t fw_pending;
	bool ic_locked;
	bn_time_us ic_unlock_at;
	bool has_battery;
	struct bn_battery bat;
	struct bcfw_config cfgs[BCFW_MAX_CONFIGS];
	int n_cfgs;

	/* the sim host (port enumeration "host") */
	bool host_attached;
	int host_config;
	bool bus_suspended;
	bool scenario_suspend;
	bn_time_us t_enum;
	bn_time_us t_idle_suspend;

	/* the sim peripheral (port enumeration "device") */
	bool periph_wait;
	bool periph_done;
	bn_time_us t_periph;

	/* the port's VDM responder */
	bool resp_on;
	bn_time_us resp_at;
	bool resp_to;
	bool resp_blocked;        /* while the device is connected */
	bn_time_us resp_block_until;

	/* solved state */
	struct bn_lines_v lines;
	double vbus_v, i_dev_a;
	bool sess_vld;
	bool solved_once;

	/* sampling */
	double rate_hz;
	int64_t next_tick_k;
	struct bn_sample cur;

	struct world_telem telem[WORLD_MAX_TELEMETRY];
	int n_telem;

	long wakes;
	long same_t_wakes;
	bn_time_us last_wake_t;
	struct bn_err fault;
};

static void emit(struct bn_world *w, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct bn_world *w, const char *kind, const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	if (!w->cfg.sink.event)
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	w->cfg.sink.event(w->cfg.sink.user, w->now, kind, detail);
}

static void cev(struct bn_world *w, enum bn_cev_kind kind, int value, double num,
		const char *key, const char *text)
{
	struct bn_cev ev = {
		.kind = kind, .t_us = w->now, .value = value, .num = num, .key = key, .text = text,
	};

	if (w->cfg.sink.cev)
		w->cfg.sink.cev(w->cfg.sink.user, &ev);
}

/* The bench's own view of VBUS: it applied it, or not. */
static void bench_vbus(struct bn_world *w)
{
	bool on = w->plugged && w->vbus_switch && w->cfg.port->vbus == BN_PORT_VBUS_EXTERNAL;

	if (on != w->bench_vbus_on) {
		w->bench_vbus_on = on;
		cev(w, on ? BN_CEV_VBUS_ON : BN_CEV_VBUS_OFF, 0, 0.0, NULL, NULL);
	}
}

static bn_time_us tmin(bn_time_us a, bn_time_us b)
{
	return a < b ? a : b;
}

static bn_time_us tick_time(const struct bn_world *w, int64_t k)
{
	return bn_tick_time(k, w->rate_hz);
}

static bool system_running(const struct bn_world *w)
{
	if (!w->system_on)
		return false;
	return !w->has_battery || !bn_battery_is_dead(&w->bat) || w->i_dev_a > 0.0;
}

/* What the charger IC would draw if its input limit allowed: the system
 * plus the battery's charge current, as VBUS-side current. */
static double device_demand_a(const struct bn_world *w)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double demand = system_running(w) ? d->system_load_a : 0.0;

	if (w->has_battery && !bn_battery_is_full(&w->bat))
		demand += d->battery.max_charge_a * bn_battery_voltage(&w->bat) /
			  (WORLD_NOMINAL_VBUS_V * d->battery.efficiency);
	return demand;
}

static bool external_vbus(const struct bn_world *w)
{
	return w->plugged && w->vbus_switch && w->cfg.port->vbus == BN_PORT_VBUS_EXTERNAL &&
	       w->cfg.charger && !w->chg.off;
}

static void solve_vbus(struct bn_world *w)
{
	const struct bn_dut_decl *d = w->cfg.dut;
	double i_dev = 0.0, v = 0.0;

	if (external_vbus(w)) {
		if (w->ilim_ma > 0 && !w->ic_locked)
			i_dev = fmin(w->ilim_ma / 1000.0, device_demand_a(w));
		v = bn_charger_vbus(w->cfg.charger, &w->chg, i_dev + w->load_a);
		if (i_dev > 0.0 && v < d->uvlo_v) {
			/* The charger IC's input collapses under its own draw:
			 * it locks out and retries after its restart time. */
			w->ic_locked = true;
			w->ic_unlock_at = w->now + d->uvlo_restart_us;
			emit(w, "uvlo", "charger IC input below %.2f V at %.0f mA", d->uvlo_v,
			     i_dev * 1000.0);
			i_dev = 0.0;
			v = bn_charger_vbus(w->cfg.charger, &w->chg, w->load_a);
		}
		if (w->otg_on) {
			/* Two sources on VBUS: the device's boost pushes its
			 * rated current back into the charger. */
			i_dev = -(d->otg_rating_a > 0.0 ? d->otg_rating_a : WORLD_BACKFEED_A);
			if (!w->otg_conflict_seen) {
				w->otg_conflict_seen = true;
				emit(w, "otg_conflict", "device sources VBUS while VBUS is supplied");
			}
		}
	} else if (w->otg_on) {
		const struct bn_dut_phy *p = w->phy_hw;
		double i_out = w->plugged ? w->load_a : 0.0;

		v = p->otg_v - i_out * p->otg_r_ohm;
		if (v < 0.0)
			v = 0.0;
		i_dev = -i_out;
	}
	w->vbus_v = v;
	w->i_dev_a = i_dev;
}

static void update_responder(struct bn_world *w)
{
	const struct bn_port_profile *pp = w->cfg.port;
	bool want;

	if (!pp->has_vdm_responder)
		return;
	if (!w->data_contact || !w->plugged) {
		w->resp_on = false;
		w->resp_at = BN_TIME_NEVER;
		return;
	}
	want = w->lines.dp_v >= pp->resp_dp_low_v && w->lines.dp_v <= pp->resp_dp_high_v &&
	       !w->resp_blocked && w->now >= w->resp_block_until && w->sess_vld;
	if (want == w->resp_on) {
		w->resp_at = BN_TIME_NEVER;
		return;
	}
	if (w->resp_at == BN_TIME_NEVER || w->resp_to != want) {
		w->resp_to = want;
		w->resp_at = w->now + (want ? pp->resp_on_delay_us : pp->resp_off_delay_us);
	}
}

static void update_host(struct bn_world *w)
{
	const struct bn_port_profile *pp = w->cfg.port;
	const struct bn_host_profile *h = w->cfg.host;
	bool connected = pp->enumeration == BN_PORT_ENUM_HOST && w->data_contact && w->sess_vld &&
			 (w->phy & BCFW_PHY_RDP_UP) && w->lines.dp_v > w->phy_hw->vlgc_v;

	if (connected && !w->host_attached) {
		w->host_attached = true;
		w->host_config = 0;
		w->bus_suspended = false;
		emit(w, "connect", "host sees D+ pull-up (D+ %.2f V)", w->lines.dp_v);
		cev(w, BN_CEV_CONNECT, 0, 0.0, NULL, NULL);
		if (h->enumerates)
			w->t_enum = w->now + h->enum_delay_us;
		else
			w->t_idle_suspend = w->now + h->idle_suspend_us;
	} else if (!connected && w->host_attached) {
		w->host_attached = false;
		w->host_config = 0;
		w->bus_suspended = false;
		w->t_enum = w->t_idle_suspend = BN_TIME_NEVER;
		emit(w, "disconnect", "D+ pull-up gone");
		cev(w, BN_CEV_DISCONNECT, 0, 0.0, NULL, NULL);
	}
	/* The CDP's responder stays off while a device is connected. */
	if (pp->has_vdm_responder) {
		bool pulled = (w->phy & BCFW_PHY_RDP_UP) && w->data_contact;

		if (pulled && !w->resp_blocked) {
			w->resp_blocked = true;
		} else if (!pulled && w->resp_blocked) {
			w->resp_blocked = false;
			w->resp_block_until = w->now + pp->resp_reenable_us;
		}
	}
}

static void update_peripheral(struct bn_world *w)
{
	bool ready = w->cfg.port->enumeration == BN_PORT_ENUM_DEVICE && w->data_contact &&
		     (w->phy & BCFW_PHY_HOST_PD) && w->vbus_v > w->phy_hw->sess_vld_v;

	if (ready && !w->periph_wait && !w->periph_done) {
		w->periph_wait = true;
		w->t_periph = w->now + w->cfg.host->enum_delay_us;
	} else if (!ready) {
		if (w->periph_done)
			emit(w, "peripheral_gone", "%s", w->cfg.port->peripheral);
		w->periph_wait = w->periph_done = false;
		w->t_periph = BN_TIME_NEVER;
	}
}

static void refresh_sample(struct bn_world *w)
{
	w->cur.v[BN_CH_VBUS] = w->vbus_v;
	w->cur.v[BN_CH_IBUS] = w->i_dev_a;
	w->cur.v[BN_CH_DP] = w->lines.dp_v;
	w->cur.v[BN_CH_DM] = w->lines.dm_v;
	w->cur.v[BN_CH_ID] = w->lines.id_v;
}

/* Solve everything that follows instantly from the present switches. */
static void recompute(struct bn_world *w)
{
	struct bn_lines_state st = {
		.data_contact = w->data_contact && w->plugged,
		.phy = w->phy,
		.responder_on = w->resp_on,
	};
	struct bn_err e = { 0 };
	bool was_vld = w->sess_vld;

	if (bn_lines_solve(w->cfg.port, w->phy_hw, &st, &w->lines, &e) < 0)
		bn_err_set(&w->fault, BN_ERR_BUG, "data-line network: %s", e.msg);
	solve_vbus(w);
	/* The charger's shutdown rule sees every change of the draw. */
	for (int k = 0; w->cfg.charger && k < 3; k++) {
		double i_a = external_vbus(w) ? w->i_dev_a + w->load_a : 0.0;

		if (!bn_charger_update(w->cfg.charger, &w->chg, w->now, i_a))
			break;
		emit(w, w->chg.off ? "charger_shutdown" : "charger_recover", "charger %s at %.0f mA",
		     w->chg.off ? "shuts down" : "recovers", i_a * 1000.0);
		solve_vbus(w);
	}
	w->sess_vld = w->vbus_v > w->phy_hw->sess_vld_v;
	if (w->solved_once && w->sess_vld != was_vld) {
		w->fw_pending |= BCFW_EV_VBUS;
		emit(w, w->sess_vld ? "vbus_valid" : "vbus_lost", "VBUS %.3f V", w->vbus_v);
	}
	w->solved_once = true;
	update_responder(w);
	update_host(w);
	update_peripheral(w);
	refresh_sample(w);
}

/* ---- the HAL the firmware sees ---- */

static uint64_t hal_now_us(void *b)
{
	return (uint64_t)((struct bn_world *)b)->now;
}

static void hal_wake_at(void *b, uint64_t t_us)
{
	struct bn_world *w = b;
	bn_time_us t = t_us > (uint64_t)INT64_MAX ? BN_TIME_NEVER : (bn_time_us)t_us;

	w->fw_wake_at = t < w->now ? w->now : t;
}

static uint32_t hal_vbus_mv(void *b)
{
	struct bn_world *w = b;

	return (uint32_t)lround(fmax(w->vbus_v, 0.0) * 1000.0);
}

static uint32_t hal_battery_mv(void *b)
{
	struct bn_world *w = b;

	return w->has_battery ? (uint32_t)lround(bn_battery_voltage(&w->bat) * 1000.0) : 0;
}

static uint32_t hal_id_mv(void *b)
{
	struct bn_world *w = b;

	return (uint32_t)lround(fmax(w->lines.id_v, 0.0) * 1000.0);
}

static uint32_t hal_comparators(void *b)
{
	struct bn_world *w = b;
	const struct bn_dut_phy *p = w->phy_hw;
	uint32_t c = 0;

	if (w->lines.dp_v > p->vdat_ref_v)
		c |= BCFW_CMP_DP_VDAT_REF;
	if (w->lines.dm_v > p->vdat_ref_v)
		c |= BCFW_CMP_DM_VDAT_REF;
	if (w->lines.dp_v > p->vlgc_v)
		c |= BCFW_CMP_DP_VLGC;
	if (w->lines.dm_v > p->vlgc_v)
		c |= BCFW_CMP_DM_VLGC;
	if (w->sess_vld)
		c |= BCFW_CMP_SESS_VLD;
	return c;
}

static void hal_phy_set(void *b, uint32_t phy)
{
	struct bn_world *w = b;

	if (phy == w->phy)
		return;
	w->phy = phy;
	recompute(w);
}

static void hal_set_input_limit_ma(void *b, uint32_t ma)
{
	struct bn_world *w = b;

	if (ma == w->ilim_ma)
		return;
	w->ilim_ma = ma;
	recompute(w);
}

static void hal_source_vbus(void *b, int on)
{
	struct bn_world *w = b;

	if (!!on == w->otg_on)
		return;
	w->otg_on = !!on;
	emit(w, on ? "otg_on" : "otg_off", "device %s VBUS", on ? "sources" : "stops sourcing");
	recompute(w);
}

static void hal_advertise(void *b, const struct bcfw_config *cfg, int n)
{
	struct bn_world *w = b;

	if (n < 0)
		n = 0;
	if (n > BCFW_MAX_CONFIGS)
		n = BCFW_MAX_CONFIGS;
	memcpy(w->cfgs, cfg, sizeof(*cfg) * (size_t)n);
	w->n_cfgs = n;
}

static void hal_system_power(void *b, int on)
{
	struct bn_world *w = b;

	if (!!on == w->system_on)
		return;
	w->system_on = !!on;
	emit(w, "system", "device system power %s", on ? "on" : "off");
	recompute(w);
}

static int hal_host_config(void *b)
{
	return ((struct bn_world *)b)->host_config;
}

static int hal_bus_suspended(void *b)
{
	return ((struct bn_world *)b)->bus_suspended;
}

static void telem_set(struct bn_world *w, const char *key, const char *val)
{
	int i;

	for (i = 0; i < w->n_telem; i++)
		if (!strcmp(w->telem[i].key, key))
			break;
	if (i == w->n_telem) {
		if (w->n_telem == WORLD_MAX_TELEMETRY)
			return;
		w->n_telem++;
		snprintf(w->telem[i].key, sizeof(w->telem[i].key), "%s", key);
		w->telem[i].val[0] = '\0';
	} else if (!strcmp(w->telem[i].val, val)) {
		return;
	}
	snprintf(w->telem[i].val, sizeof(w->telem[i].val), "%s", val);
	emit(w, "telemetry", "%s=%s", key, val);
	cev(w, BN_CEV_TELEMETRY, 0, 0.0, w->telem[i].key, w->telem[i].val);
}

static void hal_telemetry_str(void *b, const char *key, const char *value)
{
	if (key && value)
		telem_set(b, key, value);
}

static void hal_telemetry_int(void *b, const char *key, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	if (key)
		telem_set(b, key, buf);
}

/* ---- life cycle ---- */

int bn_world_new(const struct bn_world_cfg *cfg, struct bn_world **out, struct bn_err *err)
{
	struct bn_world *w;
	const struct bn_dut_decl *d = cfg->dut;

	if (!cfg->lim || !cfg->port || !cfg->host || !d || !cfg->fw || cfg->sample_rate_hz <= 0)
		return bn_err_set(err, BN_ERR_ARG, "world: incomplete configuration");
	if (cfg->fw->abi_version != BCFW_ABI_VERSION)
		return bn_err_set(err, BN_ERR_DATA, "firmware \"%s\": ABI version %d, bench speaks %d",
				  cfg->fw->name, cfg->fw->abi_version, BCFW_ABI_VERSION);
	if (cfg->port->vbus == BN_PORT_VBUS_EXTERNAL && !cfg->charger)
		return bn_err_set(err, BN_ERR_ARG, "port %s supplies VBUS but no charger is given",
				  cfg->port->name);
	w = calloc(1, sizeof(*w));
	if (!w)
		return bn_err_set(err, BN_ERR_NOMEM, "world: out of memory");
	w->cfg = *cfg;
	if (w->cfg.livelock_wakes <= 0)
		w->cfg.livelock_wakes = WORLD_DEFAULT_LIVELOCK;
	w->phy_hw = &d->phy;
	w->rate_hz = cfg->sample_rate_hz;
	w->vbus_switch = true;
	w->system_on = true;
	w->t_data_toggle = BN_TIME_NEVER;
	w->fw_wake_at = BN_TIME_NEVER;
	w->t_enum = w->t_idle_suspend = w->t_periph = BN_TIME_NEVER;
	w->resp_at = BN_TIME_NEVER;
	w->ic_unlock_at = BN_TIME_NEVER;
	w->last_wake_t = -1;
	bn_charger_state_init(&w->chg);
	w->has_battery = d->has_battery;
	if (w->has_battery) {
		bn_battery_init(&w->bat, &d->battery, 1.0);
		bn_battery_set_voltage(&w->bat, isnan(cfg->battery_v) ? WORLD_DEFAULT_BATTERY_V
								      : cfg->battery_v);
	}

	w->decl.battery_powered = d->battery_powered;
	w->decl.droop_threshold_mv = (uint32_t)lround(d->droop_threshold_v * 1000.0);
	w->decl.dbp = d->dbp;
	w->decl.secondary_detection = d->secondary_detection;
	w->decl.otg_rating_ma = (uint32_t)lround(d->otg_rating_a * 1000.0);
	w->decl.id_pullup_ohm = (uint32_t)lround(d->phy.id_pullup_ohm);
	w->decl.id_pullup_mv = (uint32_t)lround(d->phy.id_pullup_v * 1000.0);
	if (d->has_battery) {
		w->decl.battery_dead_mv = (uint32_t)lround(d->battery.dead_v * 1000.0);
		w->decl.battery_weak_mv = (uint32_t)lround(d->battery.weak_v * 1000.0);
	}

	w->hal = (struct bcfw_hal){
		.bench = w,
		.now_us = hal_now_us,
		.wake_at = hal_wake_at,
		.vbus_mv = hal_vbus_mv,
		.battery_mv = hal_battery_mv,
		.id_mv = hal_id_mv,
		.comparators = hal_comparators,
		.phy_set = hal_phy_set,
		.set_input_limit_ma = hal_set_input_limit_ma,
		.source_vbus = hal_source_vbus,
		.system_power = hal_system_power,
		.advertise = hal_advertise,
		.host_config = hal_host_config,
		.bus_suspended = hal_bus_suspended,
		.telemetry_str = hal_telemetry_str,
		.telemetry_int = hal_telemetry_int,
	};
	w->fw = cfg->fw;
	w->fw_ctx = calloc(1, cfg->fw->ctx_size ? cfg->fw->ctx_size : 1);
	if (!w->fw_ctx) {
		free(w);
		return bn_err_set(err, BN_ERR_NOMEM, "world: out of memory");
	}
	recompute(w);
	if (w->fault.code) {
		bn_err_set(err, w->fault.code, "%s", w->fault.msg);
		bn_world_free(w);
		return err ? err->code : BN_ERR_BUG;
	}
	if (w->fw->init(w->fw_ctx, &w->hal, &w->decl) < 0) {
		bn_err_set(err, BN_ERR_FAULT, "firmware \"%s\" refused to start", w->fw->name);
		bn_world_free(w);
		return BN_ERR_FAULT;
	}
	w->fw_pending = BCFW_EV_RESET;
	*out = w;
	return BN_OK;
}

void bn_world_free(struct bn_world *w)
{
	if (!w)
		return;
	free(w->fw_ctx);
	free(w);
}

/* ---- scenario actions ---- */

void bn_world_plug(struct bn_world *w)
{
	bn_time_us delay = w->cfg.data_delay_us >= 0 ? w->cfg.data_delay_us
						     : w->cfg.dut->data_contact_delay_us;

	if (w->plugged)
		return;
	w->plugged = true;
	w->data_contact = false;
	w->toggles_left = 1 + 2 * (w->cfg.bounce_n > 0 ? w->cfg.bounce_n : 0);
	w->t_data_toggle = w->now + delay;
	bn_charger_state_init(&w->chg);
	emit(w, "attach", "VBUS contact; data lines in %.1f ms", delay / 1000.0);
	bench_vbus(w);
	recompute(w);
}

void bn_world_unplug(struct bn_world *w)
{
	if (!w->plugged)
		return;
	w->plugged = false;
	w->data_contact = false;
	w->t_data_toggle = BN_TIME_NEVER;
	w->periph_done = false;
	emit(w, "detach", "plug removed");
	if (w->data_contact_seen)
		cev(w, BN_CEV_DATA_CONTACT, 0, 0.0, NULL, NULL);
	w->data_contact_seen = false;
	bench_vbus(w);
	recompute(w);
}

void bn_world_vbus(struct bn_world *w, bool on)
{
	if (on && !w->plugged) {
		w->vbus_switch = true;
		bn_world_plug(w);
		return;
	}
	if (on == w->vbus_switch)
		return;
	w->vbus_switch = on;
	emit(w, on ? "vbus_on" : "vbus_off", "fixture VBUS switch %s", on ? "closed" : "open");
	bench_vbus(w);
	recompute(w);
}

void bn_world_load(struct bn_world *w, double load_a)
{
	w->load_a = load_a > 0.0 ? load_a : 0.0;
	emit(w, "load", "%.1f mA", w->load_a * 1000.0);
	cev(w, BN_CEV_LOAD, 0, w->load_a, NULL, NULL);
	recompute(w);
}

void bn_world_bus_suspend(struct bn_world *w, bool suspended)
{
	w->scenario_suspend = suspended;
	if (!w->host_attached) {
		emit(w, suspended ? "suspend" : "resume", "no device connected: nothing to %s",
		     suspended ? "suspend" : "resume");
		return;
	}
	if (suspended == w->bus_suspended)
		return;
	w->bus_suspended = suspended;
	w->fw_pending |= suspended ? BCFW_EV_SUSPEND : BCFW_EV_RESUME;
	emit(w, suspended ? "suspend" : "resume", "host %s the bus",
	     suspended ? "suspends" : "resumes");
	cev(w, suspended ? BN_CEV_SUSPEND : BN_CEV_RESUME, 0, 0.0, NULL, NULL);
}

void bn_world_safe_state(struct bn_world *w)
{
	w->vbus_switch = false;
	w->load_a = 0.0;
	w->plugged = false;
	w->data_contact = false;
	w->t_data_toggle = BN_TIME_NEVER;
	emit(w, "safe_state", "VBUS off, load off, data lines open");
	if (w->data_contact_seen)
		cev(w, BN_CEV_DATA_CONTACT, 0, 0.0, NULL, NULL);
	w->data_contact_seen = false;
	bench_vbus(w);
	recompute(w);
}

/* ---- the event loop ---- */

static void process_timers(struct bn_world *w)
{
	bn_time_us t = w->now;

	if (t >= w->t_data_toggle) {
		w->data_contact = !w->data_contact;
		w->toggles_left--;
		w->t_data_toggle = w->toggles_left > 0 ? t + w->cfg.bounce_us : BN_TIME_NEVER;
		emit(w, w->data_contact ? "data_contact" : "data_break", "data lines %s",
		     w->data_contact ? "make contact" : "bounce open");
		w->data_contact_seen = w->data_contact;
		cev(w, BN_CEV_DATA_CONTACT, 0, w->data_contact ? 1.0 : 0.0, NULL, NULL);
	}
	if (t >= w->resp_at) {
		w->resp_on = w->resp_to;
		w->resp_at = BN_TIME_NEVER;
		emit(w, w->resp_on ? "port_vdm_src_on" : "port_vdm_src_off", "port VDM_SRC on D- %s",
		     w->resp_on ? "on" : "off");
	}
	if (t >= w->ic_unlock_at) {
		w->ic_locked = false;
		w->ic_unlock_at = BN_TIME_NEVER;
	}
	if (t >= w->t_enum) {
		const struct bcfw_config *best = NULL;

		w->t_enum = BN_TIME_NEVER;
		for (int i = 0; i < w->n_cfgs; i++)
			if (w->cfgs[i].max_power_ma <= lround(w->cfg.host->budget_a * 1000.0) &&
			    (!best || w->cfgs[i].max_power_ma > best->max_power_ma))
				best = &w->cfgs[i];
		w->host_config = best ? best->value : 0;
		cev(w, BN_CEV_CONFIG, w->host_config, best ? best->max_power_ma / 1000.0 : 0.0, NULL,
		    NULL);
		w->fw_pending |= BCFW_EV_BUS_RESET | BCFW_EV_CONFIG;
		if (best)
			emit(w, "config", "host (budget %.0f mA) sets configuration %d (%u mA)",
			     w->cfg.host->budget_a * 1000.0, best->value, best->max_power_ma);
		else
			emit(w, "config", "host (budget %.0f mA): no configuration fits, unconfigured",
			     w->cfg.host->budget_a * 1000.0);
		if (w->scenario_suspend)
			bn_world_bus_suspend(w, true);
	}
	if (t >= w->t_idle_suspend) {
		w->t_idle_suspend = BN_TIME_NEVER;
		w->bus_suspended = true;
		w->fw_pending |= BCFW_EV_SUSPEND;
		emit(w, "suspend", "no enumeration: port suspends");
		cev(w, BN_CEV_SUSPEND, 0, 0.0, NULL, NULL);
	}
	if (t >= w->t_periph) {
		w->t_periph = BN_TIME_NEVER;
		w->periph_wait = false;
		w->periph_done = true;
		w->fw_pending |= BCFW_EV_PERIPHERAL;
		cev(w, BN_CEV_PERIPHERAL, 0, 0.0, NULL, NULL);
		emit(w, "peripheral", "%s enumerated by the device",
		     w->cfg.port->peripheral[0] ? w->cfg.port->peripheral : "peripheral");
	}
	if (t >= w->fw_wake_at) {
		w->fw_wake_at = BN_TIME_NEVER;
		w->fw_pending |= BCFW_EV_TIMER;
	}
}

static bn_time_us next_event(const struct bn_world *w)
{
	bn_time_us t = w->fw_wake_at;

	if (w->fw_pending)
		return w->now;
	t = tmin(t, w->t_data_toggle);
	t = tmin(t, w->resp_at);
	t = tmin(t, w->ic_unlock_at);
	t = tmin(t, w->t_enum);
	t = tmin(t, w->t_idle_suspend);
	t = tmin(t, w->t_periph);
	if (w->cfg.charger)
		t = tmin(t, bn_charger_next_event(w->cfg.charger, &w->chg,
						  external_vbus(w) ? w->i_dev_a + w->load_a : 0.0));
	return t < w->now ? w->now : t;
}

static void integrate(struct bn_world *w, bn_time_us t_to)
{
	double dt_s = (double)(t_to - w->now) / 1e6;
	double p_in = 0.0;

	if (!w->has_battery || dt_s <= 0.0)
		return;
	if (w->i_dev_a > 0.0)
		p_in = w->vbus_v * w->i_dev_a;
	bn_battery_integrate(&w->bat, p_in,
			     system_running(w) ? w->cfg.dut->system_load_a * WORLD_NOMINAL_VBUS_V : 0.0,
			     dt_s);
}

static void emit_samples(struct bn_world *w, bn_time_us before)
{
	bn_time_us tk;

	if (!w->cfg.sink.sample) {
		while (tick_time(w, w->next_tick_k) < before)
			w->next_tick_k++;
		return;
	}
	while ((tk = tick_time(w, w->next_tick_k)) < before) {
		w->cfg.sink.sample(w->cfg.sink.user, tk, &w->cur);
		w->next_tick_k++;
	}
}

static int run_firmware(struct bn_world *w, struct bn_err *err)
{
	while (w->fw_pending) {
		uint32_t ev = w->fw_pending;

		w->fw_pending = 0;
		if (w->now == w->last_wake_t) {
			if (++w->same_t_wakes > w->cfg.livelock_wakes)
				return bn_err_set(err, BN_ERR_FAULT,
						  "firmware \"%s\" livelocked virtual time: woken %ld times at "
						  "t=%.6f s without time advancing",
						  w->fw->name, w->same_t_wakes, bn_time_to_s(w->now));
		} else {
			w->last_wake_t = w->now;
			w->same_t_wakes = 1;
		}
		w->wakes++;
		w->fw->wake(w->fw_ctx, ev);
		recompute(w);
		if (w->fault.code)
			return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
		/* A wake-up requested for now is a new wake at the same instant. */
		if (w->fw_wake_at <= w->now) {
			w->fw_wake_at = BN_TIME_NEVER;
			w->fw_pending |= BCFW_EV_TIMER;
		}
	}
	return BN_OK;
}

int bn_world_run_until(struct bn_world *w, bn_time_us t_end, struct bn_err *err)
{
	int rc;

	if (w->fault.code)
		return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
	for (;;) {
		bn_time_us next;

		if (w->cfg.stop_flag && *w->cfg.stop_flag)
			return bn_err_set(err, BN_ERR_INTR, "interrupted at t=%.6f s",
					  bn_time_to_s(w->now));
		rc = run_firmware(w, err);
		if (rc < 0)
			return rc;
		next = next_event(w);
		/* Long quiet stretches go in slices, so a stop request is seen
		 * and slow dynamics (the battery) are integrated finely. */
		if (next - w->now > WORLD_MAX_SLICE_US && w->now + WORLD_MAX_SLICE_US < t_end) {
			bn_time_us t = w->now + WORLD_MAX_SLICE_US;

			emit_samples(w, t);
			integrate(w, t);
			w->now = t;
			recompute(w);
			continue;
		}
		if (next >= t_end) {
			emit_samples(w, t_end);
			integrate(w, t_end);
			w->now = t_end;
			return BN_OK;
		}
		emit_samples(w, next);
		integrate(w, next);
		w->now = next;
		process_timers(w);
		recompute(w);
		if (w->fault.code)
			return bn_err_set(err, w->fault.code, "%s", w->fault.msg);
	}
}

const struct bn_port_profile *bn_world_port(const struct bn_world *w)
{
	return w->cfg.port;
}

const struct bn_sample *bn_world_sample_now(const struct bn_world *w)
{
	return &w->cur;
}

double bn_world_load_a(const struct bn_world *w)
{
	return w->load_a;
}

bool bn_world_plugged(const struct bn_world *w)
{
	return w->plugged;
}

bool bn_world_vbus_switch(const struct bn_world *w)
{
	return w->vbus_switch;
}

bn_time_us bn_world_now(const struct bn_world *w)
{
	return w->now;
}

const char *bn_world_telemetry(const struct bn_world *w, const char *key)
{
	for (int i = 0; i < w->n_telem; i++)
		if (!strcmp(w->telem[i].key, key))
			return w->telem[i].val;
	return NULL;
}

long bn_world_wakes(const struct bn_world *w)
{
	return w->wakes;
}

int bn_world_configs(const struct bn_world *w, const struct bcfw_config **cfg)
{
	*cfg = w->cfgs;
	return w->n_cfgs;
}
