/* What a bench knows besides the samples: the events of a run, as the
 * checks see them. Every source of samples (the simulator, a sigrok
 * device, a replayed file) produces these, or says which it cannot. */
#ifndef BN_CORE_EVENT_H
#define BN_CORE_EVENT_H

#include <stdbool.h>

#include "core/time.h"

enum bn_cev_kind {
	BN_CEV_VBUS_ON = 0,   /* the bench applies VBUS (attach) */
	BN_CEV_VBUS_OFF,      /* the bench removes VBUS (or the plug) */
	BN_CEV_DATA_CONTACT,  /* the data lines make contact (num: 1 made, 0 open) */
	BN_CEV_CONNECT,       /* the host saw the device's D+ pull-up */
	BN_CEV_DISCONNECT,
	BN_CEV_CONFIG,        /* the host set a configuration: value, max_power_a (0/0: unconfigured) */
	BN_CEV_SUSPEND,       /* bus idle starts */
	BN_CEV_RESUME,
	BN_CEV_PERIPHERAL,    /* as A-device, the device enumerated the accessory or dock */
	BN_CEV_LOAD,          /* e-load setpoint: num in A */
	BN_CEV_TELEMETRY,     /* the device's console: key, value */
	BN_CEV_MARK,          /* a scenario mark: value */
	BN_CEV_COUNT
};

#define BN_CEV_BIT(k) (1u << (k))
#define BN_CEV_ALL ((1u << BN_CEV_COUNT) - 1u)

struct bn_cev {
	enum bn_cev_kind kind;
	bn_time_us t_us;
	int value;            /* CONFIG: bConfigurationValue */
	double num;           /* CONFIG: max_power in A; LOAD: A; DATA_CONTACT: 1/0 */
	/* A moment a real host knows only within a window of this width (s):
	 * it sees the device only once enumerated (CONNECT), a configuration
	 * only when sysfs shows it (CONFIG): in [t_us - win_s, t_us]; it
	 * knows when it asked and when it saw the state, not when the bus
	 * changed (SUSPEND, RESUME): in [t_us, t_us + win_s]. 0: exact. */
	double win_s;
	const char *key;      /* TELEMETRY */
	const char *text;     /* TELEMETRY value, MARK text */
	/* Inferred from the samples (a replay without its events), not
	 * reported by the bench: no rule may pass on it (the engine turns
	 * such a pass into inconclusive, naming the event). */
	bool inferred;
};

const char *bn_cev_name(enum bn_cev_kind k);
/* "vbus_on" -> kind; -1 if unknown. */
int bn_cev_from_name(const char *name);

#endif
