#include "firmware/ref_ramp.h"

#include <string.h>

void ref_ramp_start(struct ref_ramp *r, uint32_t min_ma, uint32_t max_ma, uint32_t ceiling_ma,
		    uint32_t droop_mv, uint64_t now_us)
{
	memset(r, 0, sizeof(*r));
	r->min_ma = min_ma;
	r->max_ma = max_ma;
	r->ceiling_ma = ceiling_ma ? ceiling_ma : max_ma;
	if (r->ceiling_ma > max_ma)
		r->ceiling_ma = max_ma;
	r->droop_mv = droop_mv;
	r->ilim_ma = min_ma < r->ceiling_ma ? min_ma : r->ceiling_ma;
	r->t_next_step_us = now_us + RAMP_STEP_INTERVAL_US;
}

static uint32_t ring_avg(const struct ref_ramp *r)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < r->ring_n; i++)
		sum += r->ring_mv[i];
	return (uint32_t)(sum / r->ring_n);
}

static void ring_clear(struct ref_ramp *r)
{
	r->ring_n = r->ring_i = 0;
}

uint32_t ref_ramp_sample(struct ref_ramp *r, uint32_t vbus_mv, uint64_t now_us)
{
	r->ring_mv[r->ring_i] = vbus_mv;
	r->ring_i = (r->ring_i + 1) % RAMP_AVG_N;
	if (r->ring_n < RAMP_AVG_N)
		r->ring_n++;
	if (r->ring_n < RAMP_AVG_N)
		return r->ilim_ma;

	if (ring_avg(r) < r->droop_mv) {
		/* Back to the last level that held, and stay there. */
		if (r->ilim_ma >= RAMP_FLOOR_MA + RAMP_STEP_MA)
			r->ilim_ma -= RAMP_STEP_MA;
		else
			r->ilim_ma = RAMP_FLOOR_MA;
		r->ceiling_ma = r->ilim_ma;
		r->settled = 1;
		r->backoffs++;
		ring_clear(r);
		return r->ilim_ma;
	}
	if (!r->settled && now_us >= r->t_next_step_us) {
		if (r->ilim_ma + RAMP_STEP_MA <= r->ceiling_ma) {
			r->ilim_ma += RAMP_STEP_MA;
			r->t_last_up_us = now_us;
			r->t_next_step_us = now_us + RAMP_STEP_INTERVAL_US;
			ring_clear(r);
		} else {
			r->settled = 1;
		}
	}
	return r->ilim_ma;
}

uint32_t ref_ramp_trip_ceiling(const struct ref_ramp *r, uint64_t now_us)
{
	if (!r->t_last_up_us || now_us - r->t_last_up_us > RAMP_TRIP_WINDOW_US)
		return 0;
	return r->ilim_ma > RAMP_FLOOR_MA + RAMP_STEP_MA ? r->ilim_ma - RAMP_STEP_MA : RAMP_FLOOR_MA;
}
