#include "core/channel.h"

#include <strings.h>

static const char *const chan_names[BN_CH_COUNT] = { "vbus", "ibus", "dp", "dm", "id" };
static const char *const chan_labels[BN_CH_COUNT] = { "VBUS", "IBUS", "DP", "DM", "ID" };

const char *bn_chan_name(enum bn_chan ch)
{
	return (unsigned)ch < BN_CH_COUNT ? chan_names[ch] : "?";
}

const char *bn_chan_label(enum bn_chan ch)
{
	return (unsigned)ch < BN_CH_COUNT ? chan_labels[ch] : "?";
}

const char *bn_chan_unit(enum bn_chan ch)
{
	return ch == BN_CH_IBUS ? "A" : "V";
}

int bn_chan_from_name(const char *name)
{
	for (int i = 0; i < BN_CH_COUNT; i++)
		if (!strcasecmp(name, chan_names[i]))
			return i;
	return -1;
}
