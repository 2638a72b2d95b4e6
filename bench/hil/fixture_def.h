/* A fixture file (fixtures/NAME.json, format in fixtures/README.md): the
 * fixture's switched signals (name, FTDI pin, polarity, the part they
 * switch), its input signals, each port type as the set of signals on,
 * the safe state, and the combinations that must never appear on the
 * wires. A state is a bit set over the output signals (bit i: signal i
 * on), so "legal" is a question about one integer. */
#ifndef BN_HIL_FIXTURE_DEF_H
#define BN_HIL_FIXTURE_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define BN_FX_MAX_SIGNALS 16   /* an FT232H's ADBUS + ACBUS */
#define BN_FX_MAX_INPUTS 8
#define BN_FX_MAX_PORTS 16
#define BN_FX_MAX_RULES 16
#define BN_FX_NAME_LEN 32
#define BN_FX_TEXT_LEN 160
#define BN_FX_PATH_LEN 1024

/* BN_FX_DEVICE: a device-side network ("device_side" in the file): the
 * bench plays the device on the data lines in a port run. */
enum bn_fx_role { BN_FX_DATA, BN_FX_VBUS, BN_FX_LOAD, BN_FX_DEVICE };

/* The device-side networks a fixture may declare, by their BC-1.2 names:
 * the DCD source (and its D- pull-down), primary detection's source and
 * sink, secondary detection's, and the full-speed pull-up. All but
 * rdm_dwn are required when a file has a "device_side" block. */
enum bn_fx_dev_net {
	BN_FX_DEV_IDP_SRC,
	BN_FX_DEV_RDM_DWN,
	BN_FX_DEV_VDP_SRC,
	BN_FX_DEV_IDM_SINK,
	BN_FX_DEV_VDM_SRC,
	BN_FX_DEV_IDP_SINK,
	BN_FX_DEV_DP_PULLUP,
	BN_FX_DEV_COUNT
};
#define BN_FX_DEV_REQUIRED (((1u << BN_FX_DEV_COUNT) - 1u) & ~(1u << BN_FX_DEV_RDM_DWN))

/* "idp_src", ... ("?" out of range); -1 for a name that is none. */
const char *bn_fx_dev_net_name(int net);
int bn_fx_dev_net_parse(const char *name);
/* "vdp_src+idm_sink", "(none)" for 0. */
void bn_fx_dev_nets_str(unsigned nets, char *buf, size_t len);
enum bn_fx_mode { BN_FX_MPSSE, BN_FX_BITBANG };
enum bn_fx_rule_kind { BN_FX_ALL, BN_FX_AT_MOST_ONE };

struct bn_fx_signal {
	char name[BN_FX_NAME_LEN];
	int pin;                 /* 0..7 ADBUS/D, 8..15 ACBUS */
	bool active_high;
	bool undriven_high;      /* the level the board's pull gives a tri-stated pin */
	enum bn_fx_role role;
	double r_ohm;            /* the part switched in; 0: none given */
	double v_src_v;          /* a source's open-circuit voltage; 0: none */
	char what[BN_FX_TEXT_LEN];
	double i_src_a;          /* a current source's or sink's current; 0: none */
	char part[BN_FX_TEXT_LEN]; /* the parts that make it (device side), "" none */
};

struct bn_fx_input {
	char name[BN_FX_NAME_LEN];
	int pin;
	bool active_high;
	int follows;             /* output signal it must equal; -1: none */
	int expect;              /* 1/0: its level whatever the state; -1: none */
	char what[BN_FX_TEXT_LEN];
};

/* BN_CH_COUNT channels: vbus ibus dp dm id (core/channel.h). */
#define BN_FX_CHANNELS 5

struct bn_fx_port {
	char name[BN_FX_NAME_LEN];
	uint32_t on;             /* data signals on */
	/* What `bcbench selftest` should measure on this network with VBUS
	 * on (where the rules allow it) and no device attached: bit ch of
	 * expect_mask set -> [expect_lo, expect_hi] in V or A. */
	unsigned expect_mask;
	double expect_lo[BN_FX_CHANNELS], expect_hi[BN_FX_CHANNELS];
};

struct bn_fx_rule {
	enum bn_fx_rule_kind kind;
	uint32_t set;
	char why[BN_FX_TEXT_LEN];
};

struct bn_fixture_def {
	char path[BN_FX_PATH_LEN];
	char name[BN_FX_NAME_LEN];
	enum bn_fx_mode mode;
	int vid, pid;            /* default USB ids; 0: none given */
	char usb_description[64];
	char usb_serial[64];
	int interface;           /* 0: any, 1..4: A..D */
	/* Pins the chip drives before bcbench takes it: in UART mode (at
	 * power-up with the default EEPROM, after BITMODE_RESET) TXD, RTS#
	 * and DTR# (bits 0, 2, 4) are outputs. No signal may sit on them
	 * unless the file says the board makes every pin an input at
	 * power-up ("power_up": "inputs"). */
	uint16_t uart_out_pins;
	int release_ms;          /* relay release time before a make */
	int settle_ms;           /* selftest: after switching, before reading (default 100) */
	int nsignals, ninputs, nports, nrules;
	struct bn_fx_signal signals[BN_FX_MAX_SIGNALS];
	struct bn_fx_input inputs[BN_FX_MAX_INPUTS];
	struct bn_fx_port ports[BN_FX_MAX_PORTS];
	struct bn_fx_rule rules[BN_FX_MAX_RULES];
	uint32_t safe;           /* data signals on in the safe state (usually none) */
	int vbus_signal;         /* index of the role "vbus" signal */
	int load_signal;         /* index of the role "load" signal; -1: none */
	uint32_t data_mask;      /* the role "data" signals */
	uint16_t out_pins;       /* pins driven (the direction mask) */
	/* The device-side networks ("device_side"): each one's signal
	 * (role BN_FX_DEVICE), -1 where the file has none. */
	int dev_signal[BN_FX_DEV_COUNT];
	unsigned dev_nets;       /* bits of enum bn_fx_dev_net declared; 0: none */
	uint32_t dev_mask;       /* their signals */
};

/* The signals that put device-side networks nets on the lines. */
uint32_t bn_fixture_def_dev_state(const struct bn_fixture_def *d, unsigned nets);

/* Load and check a fixture file: every name known, pins unique and
 * possible in the mode, each port and the safe state legal, every
 * signal off while the FTDI is in reset (its pin undriven). Errors name
 * the file and the key ("F: ports.cdp: unknown signal \"X\""). An
 * optional "device_side" block ({"networks": {"idp_src": {signal}, ...}})
 * adds a signal per network, role device, never in a port type or the
 * safe state; it must declare every required network. */
int bn_fixture_def_load(struct bn_fixture_def *d, const char *path, struct bn_err *err);

/* BN_OK when the state breaks no rule; else BN_ERR_ARG, and why (when
 * not NULL) says which signals and the rule's reason. */
int bn_fixture_def_legal(const struct bn_fixture_def *d, uint32_t state, char *why, size_t len);

const struct bn_fx_port *bn_fixture_def_port(const struct bn_fixture_def *d, const char *name);
int bn_fixture_def_signal(const struct bn_fixture_def *d, const char *name);
/* "DP_PULLDOWN+DM_PULLDOWN", "(none)" for 0. */
void bn_fixture_def_state_str(const struct bn_fixture_def *d, uint32_t state, char *buf, size_t len);
/* The pin levels that put state on the wires (outputs only). */
uint16_t bn_fixture_def_levels(const struct bn_fixture_def *d, uint32_t state);
/* "ADBUS3", "ACBUS6" or (bitbang) "D3". */
void bn_fixture_def_pin_name(const struct bn_fixture_def *d, int pin, char *buf, size_t len);

#endif
