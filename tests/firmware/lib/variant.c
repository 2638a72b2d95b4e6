#include "variant.h"

#define SHIM(b) ((struct fw_shim *)(b))
#define REAL(b) (SHIM(b)->real)
#define BENCH(b) (REAL(b)->bench)

static void arm(struct fw_shim *s)
{
	uint64_t t = s->ref_wake_at < s->own_wake_at ? s->ref_wake_at : s->own_wake_at;

	if (t != FW_NEVER)
		s->real->wake_at(s->real->bench, t);
}

static uint64_t p_now_us(void *b) { return REAL(b)->now_us(BENCH(b)); }
static uint32_t p_vbus_mv(void *b) { return REAL(b)->vbus_mv(BENCH(b)); }
static uint32_t p_battery_mv(void *b) { return REAL(b)->battery_mv(BENCH(b)); }
static uint32_t p_id_mv(void *b) { return REAL(b)->id_mv(BENCH(b)); }
static uint32_t p_comparators(void *b) { return REAL(b)->comparators(BENCH(b)); }
static void p_phy_set(void *b, uint32_t phy) { REAL(b)->phy_set(BENCH(b), phy); }
static void p_set_input_limit_ma(void *b, uint32_t ma) { REAL(b)->set_input_limit_ma(BENCH(b), ma); }
static void p_source_vbus(void *b, int on) { REAL(b)->source_vbus(BENCH(b), on); }
static void p_system_power(void *b, int on) { REAL(b)->system_power(BENCH(b), on); }
static void p_advertise(void *b, const struct bcfw_config *c, int n) { REAL(b)->advertise(BENCH(b), c, n); }
static int p_host_config(void *b) { return REAL(b)->host_config(BENCH(b)); }
static int p_bus_suspended(void *b) { return REAL(b)->bus_suspended(BENCH(b)); }
static void p_telemetry_str(void *b, const char *k, const char *v) { REAL(b)->telemetry_str(BENCH(b), k, v); }
static void p_telemetry_int(void *b, const char *k, long v) { REAL(b)->telemetry_int(BENCH(b), k, v); }

static void p_wake_at(void *b, uint64_t t)
{
	SHIM(b)->ref_wake_at = t;
	arm(SHIM(b));
}

void fw_shim_setup(struct fw_shim *s, const struct bcfw_hal *real)
{
	s->real = real;
	s->ref_wake_at = s->own_wake_at = FW_NEVER;
	s->hal = (struct bcfw_hal){
		.bench = s,
		.now_us = p_now_us,
		.wake_at = p_wake_at,
		.vbus_mv = p_vbus_mv,
		.battery_mv = p_battery_mv,
		.id_mv = p_id_mv,
		.comparators = p_comparators,
		.phy_set = p_phy_set,
		.set_input_limit_ma = p_set_input_limit_ma,
		.source_vbus = p_source_vbus,
		.system_power = p_system_power,
		.advertise = p_advertise,
		.host_config = p_host_config,
		.bus_suspended = p_bus_suspended,
		.telemetry_str = p_telemetry_str,
		.telemetry_int = p_telemetry_int,
	};
}

int fw_shim_start(struct fw_shim *s, const struct bcfw_decl *decl, const struct ref_fw_tunables *t)
{
	return ref_fw_init_with(s->ref, &s->hal, decl, t);
}

uint64_t fw_shim_now(const struct fw_shim *s)
{
	return s->real->now_us(s->real->bench);
}

void fw_shim_set_timer(struct fw_shim *s, uint64_t t_us)
{
	s->own_wake_at = t_us;
	arm(s);
}

bool fw_shim_timer_due(struct fw_shim *s)
{
	if (s->own_wake_at == FW_NEVER || fw_shim_now(s) < s->own_wake_at)
		return false;
	s->own_wake_at = FW_NEVER;
	return true;
}

void fw_shim_wake(struct fw_shim *s, uint32_t ev)
{
	if (ev & BCFW_EV_TIMER) {
		if (fw_shim_now(s) >= s->ref_wake_at)
			s->ref_wake_at = FW_NEVER;
		else
			ev &= ~(uint32_t)BCFW_EV_TIMER; /* the variant's own timer */
	}
	if (ev)
		ref_fw_wake(s->ref, ev);
	arm(s);
}

int fw_fault_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct fw_fault *f = ctx;

	fw_shim_setup(&f->shim, hal);
	return fw_shim_start(&f->shim, decl, &ref_fw_tunables);
}

bool fw_fault_due(struct fw_fault *f, uint64_t delay_us)
{
	const struct bcfw_hal *hal = f->shim.real;

	if (!f->armed && (hal->comparators(hal->bench) & BCFW_CMP_SESS_VLD)) {
		f->armed = 1;
		fw_shim_set_timer(&f->shim, fw_shim_now(&f->shim) + delay_us);
	}
	return fw_shim_timer_due(&f->shim);
}
