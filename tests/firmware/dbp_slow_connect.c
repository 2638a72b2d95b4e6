/* Faulty: when Dead Battery Provision ends (D+ leaves VDP_SRC for the
 * pull-up) it waits 3 s before connecting, beyond TDBP_VDPSRC_CON (1 s).
 * While it waits, unconnected and without VDP_SRC, it stays at ISUSP, so
 * the only rule it breaks is bc12.dbp.vdpsrc_con.
 *
 * The reference runs unchanged behind a HAL shim: the shim sees the
 * reference ask for RDP_UP right after it held VDP_SRC, drops D+ to nothing
 * instead, caps the input at ISUSP, and applies the request 3 s later. */
#include <stddef.h>

#include "firmware/ref_fw.h"

#define SLOW_CONNECT_DELAY_US 3000000u
#define SLOW_ISUSP_MA 2u

struct slow_ctx {
	_Alignas(max_align_t) unsigned char ref[REF_FW_CTX_SIZE];
	struct bcfw_hal shim;
	const struct bcfw_hal *hal;   /* the bench's */
	uint32_t phy;                 /* what the reference last asked for */
	uint32_t ilim;
	int delaying;
	uint64_t due_us;
	uint64_t ref_wake_us;         /* the reference's own wake request */
};

static void real_wake_at(struct slow_ctx *v)
{
	uint64_t t = v->ref_wake_us;

	if (v->delaying && (!t || v->due_us < t))
		t = v->due_us;
	if (t)
		v->hal->wake_at(v->hal->bench, t);
}

static uint64_t s_now_us(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->now_us(v->hal->bench);
}

static void s_wake_at(void *b, uint64_t t)
{
	struct slow_ctx *v = b;

	v->ref_wake_us = t;
	real_wake_at(v);
}

static uint32_t s_vbus_mv(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->vbus_mv(v->hal->bench);
}

static uint32_t s_battery_mv(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->battery_mv(v->hal->bench);
}

static uint32_t s_id_mv(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->id_mv(v->hal->bench);
}

static uint32_t s_comparators(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->comparators(v->hal->bench);
}

static void s_phy_set(void *b, uint32_t phy)
{
	struct slow_ctx *v = b;
	uint32_t prev = v->phy;

	v->phy = phy;
	if (!v->delaying && (prev & BCFW_PHY_VDP_SRC) && (phy & BCFW_PHY_RDP_UP)) {
		/* The end of DBP: hold the connect back. */
		v->delaying = 1;
		v->due_us = s_now_us(v) + SLOW_CONNECT_DELAY_US;
		v->hal->set_input_limit_ma(v->hal->bench,
					   v->ilim < SLOW_ISUSP_MA ? v->ilim : SLOW_ISUSP_MA);
		real_wake_at(v);
	}
	if (v->delaying)
		phy &= ~(uint32_t)(BCFW_PHY_RDP_UP | BCFW_PHY_VDP_SRC);
	v->hal->phy_set(v->hal->bench, phy);
}

static void s_set_input_limit_ma(void *b, uint32_t ma)
{
	struct slow_ctx *v = b;

	v->ilim = ma;
	if (v->delaying && ma > SLOW_ISUSP_MA)
		ma = SLOW_ISUSP_MA;
	v->hal->set_input_limit_ma(v->hal->bench, ma);
}

static void s_source_vbus(void *b, int on)
{
	struct slow_ctx *v = b;

	v->hal->source_vbus(v->hal->bench, on);
}

static void s_system_power(void *b, int on)
{
	struct slow_ctx *v = b;

	v->hal->system_power(v->hal->bench, on);
}

static void s_advertise(void *b, const struct bcfw_config *cfg, int n)
{
	struct slow_ctx *v = b;

	v->hal->advertise(v->hal->bench, cfg, n);
}

static int s_host_config(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->host_config(v->hal->bench);
}

static int s_bus_suspended(void *b)
{
	struct slow_ctx *v = b;

	return v->hal->bus_suspended(v->hal->bench);
}

static void s_telemetry_str(void *b, const char *key, const char *value)
{
	struct slow_ctx *v = b;

	v->hal->telemetry_str(v->hal->bench, key, value);
}

static void s_telemetry_int(void *b, const char *key, long value)
{
	struct slow_ctx *v = b;

	v->hal->telemetry_int(v->hal->bench, key, value);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct slow_ctx *v = ctx;

	v->hal = hal;
	v->shim = (struct bcfw_hal){
		.bench = v,
		.now_us = s_now_us,
		.wake_at = s_wake_at,
		.vbus_mv = s_vbus_mv,
		.battery_mv = s_battery_mv,
		.id_mv = s_id_mv,
		.comparators = s_comparators,
		.phy_set = s_phy_set,
		.set_input_limit_ma = s_set_input_limit_ma,
		.source_vbus = s_source_vbus,
		.system_power = s_system_power,
		.advertise = s_advertise,
		.host_config = s_host_config,
		.bus_suspended = s_bus_suspended,
		.telemetry_str = s_telemetry_str,
		.telemetry_int = s_telemetry_int,
	};
	return ref_fw_init_with(v->ref, &v->shim, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t events)
{
	struct slow_ctx *v = ctx;
	uint64_t t = s_now_us(v);

	if (v->delaying && t >= v->due_us) {
		v->delaying = 0;
		v->hal->phy_set(v->hal->bench, v->phy);
		v->hal->set_input_limit_ma(v->hal->bench, v->ilim);
	}
	if (v->ref_wake_us && t >= v->ref_wake_us)
		v->ref_wake_us = 0;
	else if (events == BCFW_EV_TIMER)
		return;  /* our own wake-up, not the reference's */
	ref_fw_wake(v->ref, events);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "dbp_slow_connect",
	.version = "faulty",
	.ctx_size = sizeof(struct slow_ctx),
	.init = variant_init,
	.wake = variant_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &variant;
}
