/* A real bench without a capture device: the supply's and the load's own
 * readings (their SCPI MEASure of voltage and current) polled into the
 * capture, so every channel a real run judges comes from a measurement.
 *
 *   VBUS  the supply's voltage reading (at its terminals: the cable's drop
 *         to the device is not seen), else the load's;
 *   IBUS  the supply's current reading, less the load's current reading
 *         while the load's input is on (both read in the same cycle): the
 *         device's own current as channel.h defines it. Without a supply
 *         nothing measures the device's current: IBUS is not captured.
 *   D+, D-, ID  not measured (no instrument reads them).
 *
 * One poll cycle reads every source once; cycles run on a fixed grid
 * whose period is set at open from the cycles' measured duration (1.5x
 * the slowest of three, rounded up to 10 ms, within [1 / max_rate, 1 s],
 * then up to a whole number of Hz: 10, 20, 40, 50, 100, 200, 250, 500 or
 * 1000 ms), so the capture has a stated rate its file can store. A cycle that starts more than a
 * period late is counted (late_polls) and its frame is still dated on the
 * grid: the report states both. */
#ifndef BN_HIL_POLL_CAP_H
#define BN_HIL_POLL_CAP_H

#include <stdbool.h>

#include "core/channel.h"
#include "core/err.h"
#include "hil/backend.h"

#define BN_POLL_MAX_RATE_HZ 50.0
#define BN_POLL_SRC_LEN 240

struct bn_poll_cap {
	struct bn_supply *sp;      /* NULL: no supply to read */
	struct bn_load *ld;        /* NULL: no load to read */
	unsigned channels;         /* bits of enum bn_chan */
	double period_s;
	double cycle_s;            /* the slowest probe cycle */
	long polls, late_polls;
	double max_cycle_s;        /* the slowest cycle of the run */
	bool load_on;              /* the load's input is on */
	char src[BN_CH_COUNT][BN_POLL_SRC_LEN]; /* what measures each channel; "" none */
};

/* Take the real supply and load (either may be NULL), probe three cycles
 * and choose the period. No instrument to read: BN_ERR_ARG. An instrument
 * failing: its error (the caller makes it a bench fault). */
int bn_poll_cap_open(struct bn_poll_cap *p, struct bn_supply *sp, struct bn_load *ld,
		     double max_rate_hz, struct bn_err *err);
static inline double bn_poll_cap_rate(const struct bn_poll_cap *p)
{
	return 1.0 / p->period_s;
}
/* One cycle: VBUS and IBUS as above, NAN for the rest. */
int bn_poll_cap_read(struct bn_poll_cap *p, struct bn_sample *s, struct bn_err *err);
/* The bench switched the load's input (its current is then taken from
 * the supply's). */
static inline void bn_poll_cap_load(struct bn_poll_cap *p, bool on)
{
	p->load_on = on;
}

#endif
