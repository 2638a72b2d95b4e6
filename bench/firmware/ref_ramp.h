/* The reference firmware's input-current ramp: policy only, no HAL.
 * Modelled on ChromeOS EC charge_ramp_sw: start at the range's minimum,
 * step up every RAMP_STEP_INTERVAL while the 250 ms VBUS average stays at
 * or above the device's droop threshold, step back to the last level that
 * held when it sags, then stay there and keep re-checking. An over-current
 * (VBUS lost soon after a step up) caps the next ramp one step below the
 * limit that tripped. */
#ifndef BN_FIRMWARE_REF_RAMP_H
#define BN_FIRMWARE_REF_RAMP_H

#include <stdint.h>

#define RAMP_STEP_MA 64u
#define RAMP_STEP_INTERVAL_US 500000u
#define RAMP_SAMPLE_US 25000u      /* VBUS ADC reads while charging */
#define RAMP_AVG_N 10u             /* 10 x 25 ms: the 250 ms TVBUS_AVG window */
#define RAMP_FLOOR_MA 100u         /* never back off below one unit load */
#define RAMP_TRIP_WINDOW_US 1500000u /* VBUS lost this soon after a step up: over-current */
#define RAMP_TRIP_MEMORY_US 10000000u /* the same charger if VBUS returns within this */

struct ref_ramp {
	uint32_t min_ma, max_ma, ceiling_ma, droop_mv;
	uint32_t ilim_ma;
	uint32_t ring_mv[RAMP_AVG_N];
	unsigned ring_n, ring_i;
	uint64_t t_next_step_us;
	uint64_t t_last_up_us;
	int settled;
	int backoffs;
};

/* ceiling_ma 0: none. */
void ref_ramp_start(struct ref_ramp *r, uint32_t min_ma, uint32_t max_ma, uint32_t ceiling_ma,
		    uint32_t droop_mv, uint64_t now_us);
/* Feed one VBUS reading; returns the input limit to apply. */
uint32_t ref_ramp_sample(struct ref_ramp *r, uint32_t vbus_mv, uint64_t now_us);
/* On VBUS loss: the ceiling to remember (0: not an over-current). */
uint32_t ref_ramp_trip_ceiling(const struct ref_ramp *r, uint64_t now_us);

#endif
