/* The measured channels, their names and units. VBUS is measured at the
 * device's receptacle; IBUS is the device's own current, signed (negative
 * when it sources VBUS); DP, DM, ID are the line voltages. */
#ifndef BN_CORE_CHANNEL_H
#define BN_CORE_CHANNEL_H

enum bn_chan { BN_CH_VBUS = 0, BN_CH_IBUS, BN_CH_DP, BN_CH_DM, BN_CH_ID, BN_CH_COUNT };

#define BN_CH_ALL ((1u << BN_CH_COUNT) - 1u)

/* "vbus", "ibus", "dp", "dm", "id" (lower case, as scenarios write them). */
const char *bn_chan_name(enum bn_chan ch);
/* "VBUS", "IBUS", "DP", "DM", "ID": as in .sr files. */
const char *bn_chan_label(enum bn_chan ch);
/* "V" or "A" */
const char *bn_chan_unit(enum bn_chan ch);
/* -1 when unknown; accepts either spelling, case-insensitive. */
int bn_chan_from_name(const char *name);

struct bn_sample {
	double v[BN_CH_COUNT];
};

#endif
