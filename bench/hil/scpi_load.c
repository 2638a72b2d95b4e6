/* The electronic load over SCPI: the bn_load_ops table on the dialect
 * client (hil/scpi.h). bench.conf: load = scpi:PORT[@BAUD],
 * load_dialect = NAME (profiles/instruments/NAME.json, kind "load"). */
#include "hil/backend.h"
#include "hil/scpi.h"

static int ld_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	return bn_scpi_open(priv, o, BN_SCPI_LOAD, err);
}

static int ld_set_current(void *priv, double amps, struct bn_err *err)
{
	return bn_scpi_command(priv, BN_SCPI_SET_CURRENT, amps, err);
}

static int ld_enable(void *priv, bool on, struct bn_err *err)
{
	return bn_scpi_command(priv, on ? BN_SCPI_ON : BN_SCPI_OFF, 0.0, err);
}

static int ld_measure(void *priv, double *volts, double *amps, struct bn_err *err)
{
	struct bn_scpi *c = priv;
	int rc = bn_scpi_query_num(c, &c->d.voltage, volts, err);

	return rc < 0 ? rc : bn_scpi_query_num(c, &c->d.current, amps, err);
}

static int ld_safe(void *priv, struct bn_err *err)
{
	return bn_scpi_safe(priv, err);
}

static void ld_close(void *priv)
{
	bn_scpi_close(priv);
}

const struct bn_load_ops bn_load_scpi_ops = {
	.name = "scpi",
	.priv_size = sizeof(struct bn_scpi),
	.open = ld_open,
	.set_current = ld_set_current,
	.enable = ld_enable,
	.measure = ld_measure,
	.identity = bn_scpi_identity,
	.safe = ld_safe,
	.close = ld_close,
};
