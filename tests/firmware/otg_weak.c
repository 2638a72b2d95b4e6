/* Faulty: sources VBUS on a grounded ID, but a badly set boost
 * under-voltage guard turns the boost off (and keeps it off until the
 * A-device session ends) as soon as VBUS sags below 4.95 V: at any real
 * load its output folds. The shim reads VBUS after each wake of the
 * reference, as the firmware's own ADC poll would.
 * Breaks bc12.otg.sources_vbus (on otg, at the 500 mA rated load). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "firmware/ref_fw.h"

/* The variant's context: the reference's area, then the shim. */
struct shim {
	_Alignas(max_align_t) unsigned char ref[REF_FW_CTX_SIZE];
	struct bcfw_hal hal;          /* what the reference sees */
	const struct bcfw_hal *real;  /* the bench's */
	int sourcing;  /* the reference asked for the boost */
	int folded;    /* the guard tripped */
};

#define REAL(s) ((struct shim *)(s))->real
#define B(s) REAL(s)->bench

static uint64_t sh_now_us(void *s) { return REAL(s)->now_us(B(s)); }
static void sh_wake_at(void *s, uint64_t t) { REAL(s)->wake_at(B(s), t); }
static uint32_t sh_vbus_mv(void *s) { return REAL(s)->vbus_mv(B(s)); }
static uint32_t sh_battery_mv(void *s) { return REAL(s)->battery_mv(B(s)); }
static uint32_t sh_id_mv(void *s) { return REAL(s)->id_mv(B(s)); }
static uint32_t sh_comparators(void *s) { return REAL(s)->comparators(B(s)); }
static void sh_set_input_limit_ma(void *s, uint32_t ma) { REAL(s)->set_input_limit_ma(B(s), ma); }
static void sh_system_power(void *s, int on) { REAL(s)->system_power(B(s), on); }
static void sh_advertise(void *s, const struct bcfw_config *c, int n) { REAL(s)->advertise(B(s), c, n); }
static int sh_host_config(void *s) { return REAL(s)->host_config(B(s)); }
static int sh_bus_suspended(void *s) { return REAL(s)->bus_suspended(B(s)); }
static void sh_telemetry_int(void *s, const char *k, long v) { REAL(s)->telemetry_int(B(s), k, v); }

#define WEAK_GUARD_MV 4950u

static void sh_phy_set(void *s, uint32_t phy) { REAL(s)->phy_set(B(s), phy); }
static void sh_telemetry_str(void *s, const char *k, const char *v) { REAL(s)->telemetry_str(B(s), k, v); }

static void sh_source_vbus(void *vs, int on)
{
	struct shim *s = vs;

	s->sourcing = !!on;
	if (!on)
		s->folded = 0;
	if (!s->folded)
		s->real->source_vbus(s->real->bench, on);
}

static void variant_wake(void *ctx, uint32_t events)
{
	struct shim *s = ctx;

	ref_fw_wake(s->ref, events);
	if (s->sourcing && !s->folded && s->real->vbus_mv(s->real->bench) < WEAK_GUARD_MV) {
		s->folded = 1;
		s->real->source_vbus(s->real->bench, 0);
		s->real->telemetry_str(s->real->bench, "otg_guard", "tripped");
	}
}

static int variant_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct shim *s = ctx;

	s->real = hal;
	s->hal = (struct bcfw_hal){
		.bench = s,
		.now_us = sh_now_us,
		.wake_at = sh_wake_at,
		.vbus_mv = sh_vbus_mv,
		.battery_mv = sh_battery_mv,
		.id_mv = sh_id_mv,
		.comparators = sh_comparators,
		.phy_set = sh_phy_set,
		.set_input_limit_ma = sh_set_input_limit_ma,
		.source_vbus = sh_source_vbus,
		.system_power = sh_system_power,
		.advertise = sh_advertise,
		.host_config = sh_host_config,
		.bus_suspended = sh_bus_suspended,
		.telemetry_str = sh_telemetry_str,
		.telemetry_int = sh_telemetry_int,
	};
	return ref_fw_init_with(s->ref, &s->hal, decl, &ref_fw_tunables);
}

static const struct bcfw_firmware variant = {
	.abi_version = BCFW_ABI_VERSION,
	.name = "otg_weak",
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
