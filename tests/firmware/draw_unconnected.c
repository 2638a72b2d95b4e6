/* Faulty: the reference firmware behind a HAL shim that sets the charger's
 * input limit to 50 mA while Data Contact Detect runs (IDP_SRC on D+), so
 * the device draws while attached and not yet connected: above ISUSP.
 * Breaks bc12.host.unconnected_isusp. */
#include "firmware/ref_fw.h"

#define DCD_DRAW_MA 50

struct variant {
	_Alignas(16) unsigned char ref[REF_FW_CTX_SIZE]; /* the reference's context */
	const struct bcfw_hal *real;
	struct bcfw_hal shim;
	uint32_t ilim_ma;      /* what the reference asked for */
	int in_dcd;
};

static uint64_t s_now_us(void *b)
{
	struct variant *v = b;

	return v->real->now_us(v->real->bench);
}

static void s_wake_at(void *b, uint64_t t)
{
	struct variant *v = b;

	v->real->wake_at(v->real->bench, t);
}

static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;
	int dcd = !!(phy & BCFW_PHY_IDP_SRC);

	v->real->phy_set(v->real->bench, phy);
	if (dcd != v->in_dcd) {
		v->in_dcd = dcd;
		v->real->set_input_limit_ma(v->real->bench, dcd ? DCD_DRAW_MA : v->ilim_ma);
	}
}

/* Pass-throughs. */
#define PASS0(ret, name)                                  \
	static ret s_##name(void *b)                      \
	{                                                 \
		struct variant *v = b;                    \
		return v->real->name(v->real->bench);     \
	}
PASS0(uint32_t, vbus_mv)
PASS0(uint32_t, battery_mv)
PASS0(uint32_t, id_mv)
PASS0(uint32_t, comparators)
PASS0(int, host_config)
PASS0(int, bus_suspended)

static void s_set_input_limit_ma(void *b, uint32_t ma)
{
	struct variant *v = b;

	v->ilim_ma = ma;
	if (!v->in_dcd)
		v->real->set_input_limit_ma(v->real->bench, ma);
}

static void s_source_vbus(void *b, int on)
{
	struct variant *v = b;

	v->real->source_vbus(v->real->bench, on);
}

static void s_system_power(void *b, int on)
{
	struct variant *v = b;

	v->real->system_power(v->real->bench, on);
}

static void s_advertise(void *b, const struct bcfw_config *cfg, int n)
{
	struct variant *v = b;

	v->real->advertise(v->real->bench, cfg, n);
}

static void s_telemetry_str(void *b, const char *key, const char *value)
{
	struct variant *v = b;

	v->real->telemetry_str(v->real->bench, key, value);
}

static void s_telemetry_int(void *b, const char *key, long value)
{
	struct variant *v = b;

	v->real->telemetry_int(v->real->bench, key, value);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct variant *v = ctx;

	v->real = hal;
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

static void variant_wake(void *ctx, uint32_t ev)
{
	ref_fw_wake(((struct variant *)ctx)->ref, ev);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "draw_unconnected",
	.version = "faulty",
	.ctx_size = sizeof(struct variant),
	.init = variant_init,
	.wake = variant_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &variant;
}
