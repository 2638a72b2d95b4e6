/* Faulty: under Dead Battery Provision it never sees its battery as good
 * (a HAL shim reads the battery below its weak threshold) and never gives
 * up: 45 min after attach it is still unconnected and drawing its unit
 * load. Breaks bc12.dbp.con_wkb. */
#include <stddef.h>

#include "firmware/ref_fw.h"

struct vctx {
	_Alignas(max_align_t) unsigned char ref[REF_FW_CTX_SIZE];
	struct bcfw_hal shim;
	const struct bcfw_hal *hal;   /* the bench's */
	uint32_t weak_mv;
};

static uint64_t s_now_us(void *b)
{
	struct vctx *v = b;

	return v->hal->now_us(v->hal->bench);
}

static void s_wake_at(void *b, uint64_t t)
{
	struct vctx *v = b;

	v->hal->wake_at(v->hal->bench, t);
}

static uint32_t s_vbus_mv(void *b)
{
	struct vctx *v = b;

	return v->hal->vbus_mv(v->hal->bench);
}

static uint32_t s_battery_mv(void *b)
{
	struct vctx *v = b;
	uint32_t mv = v->hal->battery_mv(v->hal->bench);

	/* Never reaches the weak threshold that ends DBP. */
	return v->weak_mv && mv >= v->weak_mv ? v->weak_mv - 1 : mv;
}

static uint32_t s_id_mv(void *b)
{
	struct vctx *v = b;

	return v->hal->id_mv(v->hal->bench);
}

static uint32_t s_comparators(void *b)
{
	struct vctx *v = b;

	return v->hal->comparators(v->hal->bench);
}

static void s_phy_set(void *b, uint32_t phy)
{
	struct vctx *v = b;

	v->hal->phy_set(v->hal->bench, phy);
}

static void s_set_input_limit_ma(void *b, uint32_t ma)
{
	struct vctx *v = b;

	v->hal->set_input_limit_ma(v->hal->bench, ma);
}

static void s_source_vbus(void *b, int on)
{
	struct vctx *v = b;

	v->hal->source_vbus(v->hal->bench, on);
}

static void s_system_power(void *b, int on)
{
	struct vctx *v = b;

	v->hal->system_power(v->hal->bench, on);
}

static void s_advertise(void *b, const struct bcfw_config *cfg, int n)
{
	struct vctx *v = b;

	v->hal->advertise(v->hal->bench, cfg, n);
}

static int s_host_config(void *b)
{
	struct vctx *v = b;

	return v->hal->host_config(v->hal->bench);
}

static int s_bus_suspended(void *b)
{
	struct vctx *v = b;

	return v->hal->bus_suspended(v->hal->bench);
}

static void s_telemetry_str(void *b, const char *key, const char *value)
{
	struct vctx *v = b;

	v->hal->telemetry_str(v->hal->bench, key, value);
}

static void s_telemetry_int(void *b, const char *key, long value)
{
	struct vctx *v = b;

	v->hal->telemetry_int(v->hal->bench, key, value);
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct vctx *v = ctx;
	struct ref_fw_tunables t = ref_fw_tunables;

	t.dbp_give_up_us = UINT64_MAX / 2;
	v->weak_mv = decl->battery_weak_mv;

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
	return ref_fw_init_with(v->ref, &v->shim, decl, &t);
}

static void variant_wake(void *ctx, uint32_t events)
{
	ref_fw_wake(((struct vctx *)ctx)->ref, events);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "dbp_never_done",
	.version = "faulty",
	.ctx_size = sizeof(struct vctx),
	.init = variant_init,
	.wake = variant_wake,
};

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return &variant;
}
