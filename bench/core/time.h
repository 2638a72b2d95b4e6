/* Virtual time: integer microseconds since the start of a run. */
#ifndef BN_CORE_TIME_H
#define BN_CORE_TIME_H

#include <stdint.h>

typedef int64_t bn_time_us;

#define BN_TIME_NEVER INT64_MAX
#define BN_US_PER_MS INT64_C(1000)
#define BN_US_PER_S INT64_C(1000000)

/* Seconds (double) to microseconds, rounded to nearest. */
bn_time_us bn_time_from_s(double s);
double bn_time_to_s(bn_time_us t);
double bn_time_to_ms(bn_time_us t);

#endif
