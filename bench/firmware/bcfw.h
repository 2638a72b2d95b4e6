/* bcfw.h: the contract between a device's charging firmware and the bench.
 *
 * A firmware is a table (struct bcfw_firmware) with a context size: the
 * bench allocates the context, so many instances can run in one process.
 * The firmware touches the plant only through struct bcfw_hal. Time is the
 * bench's virtual clock: never sleep, ask for a wake-up instead.
 *
 * The bench calls wake() at time 0 (power-on reset; VBUS may be absent),
 * at the time of the last wake_at() request, and whenever something the
 * firmware would see as an interrupt happens (enum bcfw_event bits).
 * A shared-object firmware exports
 *     const struct bcfw_firmware *bcfw_entry(void);
 * This header is self-contained so it can be used outside the tree. */
#ifndef BN_FIRMWARE_BCFW_H
#define BN_FIRMWARE_BCFW_H

#include <stddef.h>
#include <stdint.h>

#define BCFW_ABI_VERSION 1

/* PHY switches on the device side of the data lines and ID. */
enum bcfw_phy {
	BCFW_PHY_IDP_SRC = 1u << 0,  /* DCD current source on D+ */
	BCFW_PHY_RDM_DWN = 1u << 1,  /* D- pull-down during DCD */
	BCFW_PHY_VDP_SRC = 1u << 2,  /* primary detection (and DBP) source on D+ */
	BCFW_PHY_IDM_SINK = 1u << 3, /* primary detection sink on D- */
	BCFW_PHY_VDM_SRC = 1u << 4,  /* secondary detection source on D- */
	BCFW_PHY_IDP_SINK = 1u << 5, /* secondary detection sink on D+ */
	BCFW_PHY_RDP_UP = 1u << 6,   /* full-speed D+ pull-up: connect */
	BCFW_PHY_ID_PULLUP = 1u << 7,/* ID pull-up, to read the ID resistance */
	BCFW_PHY_HOST_PD = 1u << 8,  /* host-mode 15k pull-downs on D+ and D- (A-device) */
};

/* Comparator outputs (bits of bcfw_hal.comparators()). */
enum bcfw_cmp {
	BCFW_CMP_DP_VDAT_REF = 1u << 0, /* D+ above VDAT_REF */
	BCFW_CMP_DM_VDAT_REF = 1u << 1,
	BCFW_CMP_DP_VLGC = 1u << 2,     /* D+ above VLGC */
	BCFW_CMP_DM_VLGC = 1u << 3,
	BCFW_CMP_SESS_VLD = 1u << 4,    /* VBUS above the session-valid threshold */
};

/* Why wake() was called (bits). */
enum bcfw_event {
	BCFW_EV_RESET = 1u << 0,     /* first call */
	BCFW_EV_TIMER = 1u << 1,     /* the requested wake-up time arrived */
	BCFW_EV_VBUS = 1u << 2,      /* session-valid changed */
	BCFW_EV_CONFIG = 1u << 3,    /* the host chose a configuration (or 0 = unconfigured on bus reset) */
	BCFW_EV_SUSPEND = 1u << 4,   /* bus idle: suspend */
	BCFW_EV_RESUME = 1u << 5,
	BCFW_EV_BUS_RESET = 1u << 6, /* host reset the bus: unconfigured */
	BCFW_EV_PERIPHERAL = 1u << 7,/* as A-device: a peripheral finished enumerating */
};

struct bcfw_config {
	uint8_t value;          /* bConfigurationValue, >= 1 */
	uint16_t max_power_ma;  /* bMaxPower in mA (USB 2.0: units of 2 mA) */
	uint8_t self_powered;
};

#define BCFW_MAX_CONFIGS 4

/* What the device's designers told its firmware (from the declaration). */
struct bcfw_decl {
	int battery_powered;
	uint32_t droop_threshold_mv;
	int dbp;
	int secondary_detection;
	uint32_t otg_rating_ma;
	uint32_t id_pullup_ohm;   /* the firmware's own ID pull-up, to turn a voltage into a resistance */
	uint32_t id_pullup_mv;
	uint32_t battery_dead_mv;  /* below: Dead Battery Provision (if dbp) */
	uint32_t battery_weak_mv;  /* DBP ends once the battery is above this */
};

struct bcfw_hal {
	void *bench; /* passed back as the first argument of every call */
	uint64_t (*now_us)(void *bench);
	/* Ask to be woken at t_us (absolute); the latest request wins. */
	void (*wake_at)(void *bench, uint64_t t_us);
	uint32_t (*vbus_mv)(void *bench);      /* ADC at the receptacle */
	uint32_t (*battery_mv)(void *bench);
	uint32_t (*id_mv)(void *bench);        /* ADC on ID (meaningful with ID_PULLUP on) */
	uint32_t (*comparators)(void *bench);  /* enum bcfw_cmp bits */
	void (*phy_set)(void *bench, uint32_t phy); /* enum bcfw_phy bits: the whole set */
	/* Charger IC input current limit; 0 = input off (draw only leakage). */
	void (*set_input_limit_ma)(void *bench, uint32_t ma);
	void (*source_vbus)(void *bench, int on);   /* OTG boost */
	/* Power the device's system (SoC, display): its declared system load.
	 * On at reset. A dead battery with no input keeps it off (PMIC lockout);
	 * a firmware keeps it off to stay quiet under Dead Battery Provision. */
	void (*system_power)(void *bench, int on);
	void (*advertise)(void *bench, const struct bcfw_config *cfg, int n);
	/* The host's choice: bConfigurationValue, 0 = unconfigured. */
	int (*host_config)(void *bench);
	int (*bus_suspended)(void *bench);
	/* Telemetry, as a real device reports it on its console. Keys used by
	 * the bench: "port" (a port enum name), "state", "ilim_ma", "backoffs". */
	void (*telemetry_str)(void *bench, const char *key, const char *value);
	void (*telemetry_int)(void *bench, const char *key, long value);
};

struct bcfw_firmware {
	int abi_version;         /* BCFW_ABI_VERSION */
	const char *name;
	const char *version;
	size_t ctx_size;
	/* ctx is zeroed by the bench. Return 0, or negative to refuse. */
	int (*init)(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl);
	void (*wake)(void *ctx, uint32_t events);
};

typedef const struct bcfw_firmware *(*bcfw_entry_fn)(void);

#endif
