/* The programmable supply over SCPI: the bn_supply_ops table on the
 * dialect client (hil/scpi.h). bench.conf: supply = scpi:PORT[@BAUD],
 * supply_dialect = NAME (profiles/instruments/NAME.json, kind "supply"). */
#include "hil/backend.h"
#include "hil/scpi.h"

static int psu_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	return bn_scpi_open(priv, o, BN_SCPI_SUPPLY, err);
}

static int psu_set_voltage(void *priv, double volts, struct bn_err *err)
{
	return bn_scpi_command(priv, BN_SCPI_SET_VOLTAGE, volts, err);
}

static int psu_set_current_limit(void *priv, double amps, struct bn_err *err)
{
	return bn_scpi_command(priv, BN_SCPI_SET_CURRENT_LIMIT, amps, err);
}

static int psu_enable(void *priv, bool on, struct bn_err *err)
{
	return bn_scpi_command(priv, on ? BN_SCPI_ON : BN_SCPI_OFF, 0.0, err);
}

static int psu_measure(void *priv, double *volts, double *amps, struct bn_err *err)
{
	struct bn_scpi *c = priv;
	int rc = bn_scpi_query_num(c, &c->d.voltage, volts, err);

	return rc < 0 ? rc : bn_scpi_query_num(c, &c->d.current, amps, err);
}

static int psu_safe(void *priv, struct bn_err *err)
{
	return bn_scpi_safe(priv, err);
}

static void psu_close(void *priv)
{
	bn_scpi_close(priv);
}

const struct bn_supply_ops bn_supply_scpi_ops = {
	.name = "scpi",
	.priv_size = sizeof(struct bn_scpi),
	.open = psu_open,
	.set_voltage = psu_set_voltage,
	.set_current_limit = psu_set_current_limit,
	.enable = psu_enable,
	.measure = psu_measure,
	.identity = bn_scpi_identity,
	.safe = psu_safe,
	.close = psu_close,
};
