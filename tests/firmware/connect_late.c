/* Faulty: the reference firmware behind a HAL shim that holds back the
 * D+ pull-up (RDP_UP) for 1.5 s after the firmware asks for it, so the
 * device connects 1.5 s after its detection ends: past TSVLD_CON_PWD.
 * Breaks bc12.host.connect_time; and since the firmware believes itself
 * connected, it draws IUNIT while the host cannot see it, which also
 * breaks bc12.host.unconnected_isusp. */
#include "firmware/ref_fw.h"

#define CONNECT_DELAY_US UINT64_C(1500000)
#define NEVER UINT64_MAX

struct variant {
	_Alignas(16) unsigned char ref[REF_FW_CTX_SIZE]; /* the reference's context */
	const struct bcfw_hal *real;
	struct bcfw_hal shim;
	uint64_t ref_wake_at;  /* the reference's own wake-up request */
	uint64_t connect_at;   /* when the held-back pull-up goes on; NEVER: none held */
	uint32_t phy;          /* what the reference asked for */
};

static uint64_t v_now(struct variant *v)
{
	return v->real->now_us(v->real->bench);
}

static void v_arm(struct variant *v)
{
	uint64_t t = v->ref_wake_at < v->connect_at ? v->ref_wake_at : v->connect_at;

	if (t != NEVER)
		v->real->wake_at(v->real->bench, t);
}

static uint64_t s_now_us(void *b)
{
	return v_now(b);
}

static void s_wake_at(void *b, uint64_t t)
{
	struct variant *v = b;

	v->ref_wake_at = t;
	v_arm(v);
}

static void s_phy_set(void *b, uint32_t phy)
{
	struct variant *v = b;

	v->phy = phy;
	if (!(phy & BCFW_PHY_RDP_UP)) {
		v->connect_at = NEVER;
	} else if (v->connect_at == NEVER) {
		v->connect_at = v_now(v) + CONNECT_DELAY_US;
		v_arm(v);
	}
	if (v->connect_at != NEVER)
		phy &= ~(uint32_t)BCFW_PHY_RDP_UP;
	v->real->phy_set(v->real->bench, phy);
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
	v->ref_wake_at = v->connect_at = NEVER;
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
	struct variant *v = ctx;
	uint64_t t = v_now(v);

	if (v->connect_at != NEVER && t >= v->connect_at) {
		v->connect_at = NEVER;
		v->real->phy_set(v->real->bench, v->phy);
	}
	/* A timer the shim asked for is not the reference's. */
	if (ev & BCFW_EV_TIMER) {
		if (t >= v->ref_wake_at)
			v->ref_wake_at = NEVER;
		else
			ev &= ~(uint32_t)BCFW_EV_TIMER;
	}
	if (ev)
		ref_fw_wake(v->ref, ev);
	v_arm(v);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "connect_late",
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
