#include "hil/bench_hw.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"

/* As written, else under the data dir. */
static void resolve(const char *path, const char *datadir, char *out, size_t len)
{
	if (!path[0] || path[0] == '/' || access(path, R_OK) == 0 || !datadir)
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "%s/%s", datadir, path);
}

void bn_bench_lock_name(const struct bn_conf *conf, char *buf, size_t len)
{
	if (conf->fixture_file[0])
		bn_json_stem(conf->fixture_file, buf, len);
	else
		snprintf(buf, len, "bench");
}

int bn_bench_hw_open(struct bn_bench_hw *hw, const struct bn_conf *conf, const char *datadir,
		     struct bn_err *err)
{
	struct bn_backend_open bo = {
		.datadir = datadir,
		.timeout_ms = conf->instrument_timeout_ms,
		.retries = conf->instrument_retries,
	};
	char dialect[1200];
	int rc = BN_OK;

	memset(hw, 0, sizeof(*hw));
	hw->guard = (struct bn_guard){ .max_load_a = conf->max_load_a,
				       .max_vbus_v = conf->max_vbus_v,
				       .max_power_w = conf->max_power_w,
				       .origin = conf->path[0] ? conf->path : "bench.conf" };
	resolve(conf->fixture_file, datadir, hw->fixture_file, sizeof(hw->fixture_file));
	bn_bench_lock_name(conf, hw->lock_name, sizeof(hw->lock_name));
	if (strcmp(conf->fixture, "sim")) {
		if (!hw->fixture_file[0])
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: fixture \"%s\" needs fixture_file (the fixture's wiring, "
					  "e.g. fixtures/bcbench-fixture-a.json)",
					  conf->path, conf->fixture);
		bo.file = hw->fixture_file;
		rc = bn_fixture_open(&hw->fixture, conf->fixture, &bo, err);
	}
	if (rc == BN_OK && strcmp(conf->load, "sim")) {
		resolve(conf->load_dialect, datadir, dialect, sizeof(dialect));
		bo.file = dialect[0] ? dialect : NULL;
		rc = bn_load_open(&hw->load, conf->load, &bo, err);
	}
	if (rc == BN_OK && strcmp(conf->supply, "sim")) {
		resolve(conf->supply_dialect, datadir, dialect, sizeof(dialect));
		bo.file = dialect[0] ? dialect : NULL;
		rc = bn_supply_open(&hw->supply, conf->supply, &bo, err);
	}
	if (rc < 0)
		bn_bench_hw_close(hw);
	return rc;
}

void bn_bench_hw_close(struct bn_bench_hw *hw)
{
	/* The load lets go first, then the source, then the switches. */
	bn_load_close(&hw->load);
	bn_supply_close(&hw->supply);
	bn_fixture_close(&hw->fixture);
}

int bn_bench_hw_safe(const struct bn_conf *conf, const char *datadir, struct bn_err *err)
{
	struct bn_bench_hw hw;
	int rc = bn_bench_hw_open(&hw, conf, datadir, err);

	if (rc == BN_OK)
		bn_bench_hw_close(&hw);
	return rc;
}
