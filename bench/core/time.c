#include "core/time.h"

#include <math.h>

bn_time_us bn_time_from_s(double s)
{
	return (bn_time_us)llround(s * 1e6);
}

double bn_time_to_s(bn_time_us t)
{
	return (double)t / 1e6;
}

double bn_time_to_ms(bn_time_us t)
{
	return (double)t / 1e3;
}
