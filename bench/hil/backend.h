/* The bench's instrument roles as ops tables (README.md, "A real bench"): the
 * fixture (port emulation), the electronic load and the programmable
 * supply. Each role has a simulated backend (the template) and real ones,
 * chosen at run time by name from one static array (bn_backend_find).
 *
 * Contract of every table, as libusb's usbi_os_backend:
 *  - priv_size: the core allocates (zeroed) and frees the private state;
 *    open() fills it, close() releases what open() took.
 *  - Every op returns BN_OK or a negative bn_err_code with one message in
 *    err naming the device and the command.
 *  - An op a backend lacks is NULL; the core answers BN_ERR_NA.
 *  - safe() must work from any state, any number of times, also after an
 *    error of the same backend; close() reaches the safe state first.
 * Hard limits (bench.conf max_load_a, max_vbus_v, max_power_w) are
 * enforced above these tables (hil/guard.h), before a command is sent. */
#ifndef BN_HIL_BACKEND_H
#define BN_HIL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

struct bn_world;

/* What open() gets: the backend's part of bench.conf. */
struct bn_backend_open {
	const char *spec;          /* after "NAME:" in bench.conf, e.g. "0403:6014:FT1234" */
	const char *file;          /* fixture file or instrument dialect file; may be NULL */
	const char *datadir;       /* where profiles/ and fixtures/ live */
	struct bn_world *world;    /* sim backends: the simulated world they act on */
	int timeout_ms;            /* instruments: query time-out (0: default 1000) */
	int retries;               /* instruments: retries after a time-out (< 0: default 2) */
};

/* fixture: switches the port network onto D+/D-/ID, VBUS on and off, and
 * the load path. Port types are names the fixture defines ("sdp", "dcp",
 * "cdp", "aca-a", ...), matching profiles/ports. */
struct bn_fixture_ops {
	const char *name;
	size_t priv_size;
	int (*open)(void *priv, const struct bn_backend_open *o, struct bn_err *err);
	/* Put the named port type's network on the data lines, break before
	 * make: from any other network the data lines open first, and the new
	 * one is made after the fixture's release time. */
	int (*connect)(void *priv, const char *port_type, struct bn_err *err);
	/* Open the data lines (and ID). */
	int (*disconnect)(void *priv, struct bn_err *err);
	int (*vbus)(void *priv, bool on, struct bn_err *err);
	int (*load_path)(void *priv, bool on, struct bn_err *err);
	/* The fixture's input signals, bit i = the i-th input in the fixture
	 * file; NULL when it has none. */
	int (*inputs)(void *priv, unsigned *bits, struct bn_err *err);
	/* VBUS off, load path open, data lines and ID open. */
	int (*safe)(void *priv, struct bn_err *err);
	void (*close)(void *priv);
	/* What the fixture is, for the record ("ftdi 0403:6014:SERIAL, wiring
	 * bcbench-fixture-a"); NULL: the name. */
	void (*identity)(void *priv, char *buf, size_t len);
	/* The device-side networks it has (a port run: the bench plays the
	 * device on the data lines), bits of enum bn_fx_dev_net
	 * (hil/fixture_def.h); NULL or 0: none. */
	unsigned (*device_nets)(void *priv);
	/* Exactly these device-side networks on the data lines (0: none),
	 * the port's network kept, break before make among them. BN_ERR_NA
	 * for a network it lacks. disconnect() and safe() open them too. */
	int (*device_side)(void *priv, unsigned nets, struct bn_err *err);
	/* The wiring's name (the fixture file's "name"); NULL: unknown. */
	const char *(*wiring)(void *priv);
};

/* electronic load: constant-current sink. */
struct bn_load_ops {
	const char *name;
	size_t priv_size;
	int (*open)(void *priv, const struct bn_backend_open *o, struct bn_err *err);
	int (*set_current)(void *priv, double amps, struct bn_err *err);
	int (*enable)(void *priv, bool on, struct bn_err *err);
	int (*measure)(void *priv, double *volts, double *amps, struct bn_err *err);
	/* What the instrument says it is and where it is, for the report
	 * ("RIGOL TECHNOLOGIES,DL3021,... on /dev/ttyUSB0"); NULL: the name. */
	void (*identity)(void *priv, char *buf, size_t len);
	int (*safe)(void *priv, struct bn_err *err);   /* input off */
	void (*close)(void *priv);
};

/* programmable supply: the source behind the port. */
struct bn_supply_ops {
	const char *name;
	size_t priv_size;
	int (*open)(void *priv, const struct bn_backend_open *o, struct bn_err *err);
	int (*set_voltage)(void *priv, double volts, struct bn_err *err);
	int (*set_current_limit)(void *priv, double amps, struct bn_err *err);
	int (*enable)(void *priv, bool on, struct bn_err *err);
	int (*measure)(void *priv, double *volts, double *amps, struct bn_err *err);
	void (*identity)(void *priv, char *buf, size_t len);   /* as the load's */
	int (*safe)(void *priv, struct bn_err *err);   /* output off */
	void (*close)(void *priv);
};

/* One opened instrument: its table and the state the core allocated. */
struct bn_fixture { const struct bn_fixture_ops *ops; void *priv; };
struct bn_load { const struct bn_load_ops *ops; void *priv; };
struct bn_supply { const struct bn_supply_ops *ops; void *priv; };

/* The backends by role and name (hil/backend.c holds the arrays). */
const struct bn_fixture_ops *bn_fixture_backend(const char *name);
const struct bn_load_ops *bn_load_backend(const char *name);
const struct bn_supply_ops *bn_supply_backend(const char *name);
/* Comma-separated names of a role's backends, for error messages. */
const char *bn_fixture_backend_names(void);
const char *bn_load_backend_names(void);
const char *bn_supply_backend_names(void);

/* Open by "NAME[:SPEC]" (the spec goes to open()). On error nothing is
 * left open. */
int bn_fixture_open(struct bn_fixture *fx, const char *name_spec, const struct bn_backend_open *o,
		    struct bn_err *err);
int bn_load_open(struct bn_load *ld, const char *name_spec, const struct bn_backend_open *o,
		 struct bn_err *err);
int bn_supply_open(struct bn_supply *sp, const char *name_spec, const struct bn_backend_open *o,
		   struct bn_err *err);
struct bn_guard;
/* Set the supply to volts with a current limit of ilim_a (0: leave the
 * limit), within the hard limits g (may be NULL), and switch it on. */
int bn_supply_start(struct bn_supply *sp, const struct bn_guard *g, double volts, double ilim_a,
		    struct bn_err *err);

/* Safe state, then release; a zeroed struct is a no-op. */
void bn_fixture_close(struct bn_fixture *fx);
void bn_load_close(struct bn_load *ld);
void bn_supply_close(struct bn_supply *sp);

/* The built-in backends. */
extern const struct bn_fixture_ops bn_fixture_sim_ops;
extern const struct bn_fixture_ops bn_fixture_ftdi_ops;   /* hil/ftdi_fixture.c */
extern const struct bn_load_ops bn_load_sim_ops;
extern const struct bn_load_ops bn_load_scpi_ops;         /* hil/scpi_load.c */
extern const struct bn_supply_ops bn_supply_sim_ops;
extern const struct bn_supply_ops bn_supply_scpi_ops;     /* hil/scpi_supply.c */

#endif
