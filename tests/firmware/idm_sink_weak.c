/* Faulty: never switches on its IDM_SINK during primary detection (a
 * firmware can not make the silicon's sink weaker, but it can leave it
 * off: the weakest sink there is). On a DCP the D+/D- short still carries
 * VDP_SRC to D-, so detection succeeds; only the sink current is wrong.
 * Breaks bc12.det.idm_sink.
 *
 * No tunable does this, so the variant interposes on the HAL: its context
 * holds the reference's context and a copy of the bench's HAL whose
 * phy_set drops BCFW_PHY_IDM_SINK before passing the call on. */
#include <stddef.h>

#include "firmware/ref_fw.h"

struct shim {
	unsigned char ref[REF_FW_CTX_SIZE]; /* the reference firmware's context, first */
	struct bcfw_hal hal;                /* what the reference sees */
	const struct bcfw_hal *bench_hal;   /* what the bench gave us */
};

_Static_assert(offsetof(struct shim, ref) == 0, "the reference context comes first");

/* Every HAL call passes hal->bench back: point it at the shim. */
static void shim_phy_set(void *bench, uint32_t phy)
{
	struct shim *s = bench;

	s->bench_hal->phy_set(s->bench_hal->bench, phy & ~(uint32_t)BCFW_PHY_IDM_SINK);
}

#define FWD0(ret, name)                                                                   \
	static ret shim_##name(void *bench)                                               \
	{                                                                                 \
		struct shim *s = bench;                                                   \
		return s->bench_hal->name(s->bench_hal->bench);                           \
	}

FWD0(uint64_t, now_us)
FWD0(uint32_t, vbus_mv)
FWD0(uint32_t, battery_mv)
FWD0(uint32_t, id_mv)
FWD0(uint32_t, comparators)
FWD0(int, host_config)
FWD0(int, bus_suspended)

static void shim_wake_at(void *bench, uint64_t t_us)
{
	struct shim *s = bench;

	s->bench_hal->wake_at(s->bench_hal->bench, t_us);
}

static void shim_set_input_limit_ma(void *bench, uint32_t ma)
{
	struct shim *s = bench;

	s->bench_hal->set_input_limit_ma(s->bench_hal->bench, ma);
}

static void shim_source_vbus(void *bench, int on)
{
	struct shim *s = bench;

	s->bench_hal->source_vbus(s->bench_hal->bench, on);
}

static void shim_system_power(void *bench, int on)
{
	struct shim *s = bench;

	s->bench_hal->system_power(s->bench_hal->bench, on);
}

static void shim_advertise(void *bench, const struct bcfw_config *cfg, int n)
{
	struct shim *s = bench;

	s->bench_hal->advertise(s->bench_hal->bench, cfg, n);
}

static void shim_telemetry_str(void *bench, const char *key, const char *value)
{
	struct shim *s = bench;

	s->bench_hal->telemetry_str(s->bench_hal->bench, key, value);
}

static void shim_telemetry_int(void *bench, const char *key, long value)
{
	struct shim *s = bench;

	s->bench_hal->telemetry_int(s->bench_hal->bench, key, value);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct shim *s = ctx;

	s->bench_hal = hal;
	s->hal = (struct bcfw_hal){
		.bench = s,
		.now_us = shim_now_us,
		.wake_at = shim_wake_at,
		.vbus_mv = shim_vbus_mv,
		.battery_mv = shim_battery_mv,
		.id_mv = shim_id_mv,
		.comparators = shim_comparators,
		.phy_set = shim_phy_set,
		.set_input_limit_ma = shim_set_input_limit_ma,
		.source_vbus = shim_source_vbus,
		.system_power = shim_system_power,
		.advertise = shim_advertise,
		.host_config = shim_host_config,
		.bus_suspended = shim_bus_suspended,
		.telemetry_str = shim_telemetry_str,
		.telemetry_int = shim_telemetry_int,
	};
	return ref_fw_init_with(s->ref, &s->hal, decl, &ref_fw_tunables);
}

static void variant_wake(void *ctx, uint32_t events)
{
	ref_fw_wake(((struct shim *)ctx)->ref, events);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "idm_sink_weak",
	.version = "faulty",
	.ctx_size = sizeof(struct shim),
	.init = variant_init,
	.wake = variant_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &variant;
}
