#include "core/conf.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/chanmap.h"
#include "core/file.h"
#include "core/units.h"

void bn_conf_defaults(struct bn_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->backend, sizeof(c->backend), "sim");
	snprintf(c->out, sizeof(c->out), "reports");
	snprintf(c->fixture, sizeof(c->fixture), "sim");
	snprintf(c->load, sizeof(c->load), "sim");
	snprintf(c->supply, sizeof(c->supply), "sim");
	snprintf(c->supply_mode, sizeof(c->supply_mode), "fixed");
	snprintf(c->lock, sizeof(c->lock), "auto");
	c->instrument_retries = -1;
}

const char *bn_conf_hardware_key(const struct bn_conf *c)
{
	if (strcmp(c->fixture, "sim"))
		return "fixture";
	if (strcmp(c->load, "sim"))
		return "load";
	if (strcmp(c->supply, "sim"))
		return "supply";
	if (c->capture_driver[0])
		return "capture";
	if (c->dut_usb[0])
		return "dut_usb";
	if (c->console[0])
		return "console";
	return NULL;
}

int bn_conf_has_hardware(const struct bn_conf *c)
{
	return bn_conf_hardware_key(c) != NULL;
}

/* "sim" or NAME:SPEC with NAME one of the role's real backends. */
static int parse_role(char *dst, size_t len, const char *key, const char *val, const char *real,
		      const char *example, const char *path, int lineno, struct bn_err *err)
{
	size_t n = strlen(real);

	if (strcmp(val, "sim") && (strncmp(val, real, n) || (val[n] && val[n] != ':')))
		return bn_err_set(err, BN_ERR_DATA, "%s:%d: error: %s \"%s\": expected sim or %s",
				  path, lineno, key, val, example);
	if (!strcmp(key, "load") || !strcmp(key, "supply")) {
		if (strcmp(val, "sim") && (!val[n] || !val[n + 1]))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s:%d: error: %s \"%s\": expected %s (the serial port)",
					  path, lineno, key, val, example);
	}
	if (strlen(val) >= len)
		return bn_err_set(err, BN_ERR_DATA, "%s:%d: error: %s: value too long", path, lineno, key);
	snprintf(dst, len, "%s", val);
	return BN_OK;
}

/* "15W", "15 W", "15000mW", "15". */
static int parse_watts(const char *val, double *out)
{
	char *end;
	double v = strtod(val, &end);

	while (*end == ' ')
		end++;
	if (end == val || !(v > 0))
		return BN_ERR_DATA;
	if (!strcmp(end, "mW"))
		v /= 1000.0;
	else if (*end && strcmp(end, "W"))
		return BN_ERR_DATA;
	*out = v;
	return BN_OK;
}

static int parse_limit(double *dst, const char *key, const char *val, enum bn_dim dim,
		       const char *example, const char *path, int lineno, struct bn_err *err)
{
	char why[160] = "";
	double v = 0;
	int rc = dim == BN_DIM_NONE ? parse_watts(val, &v)
				    : bn_quantity_parse(val, dim, &v, why, sizeof(why));

	if (rc < 0 || !(v > 0))
		return bn_err_set(err, BN_ERR_DATA, "%s:%d: error: %s \"%s\": expected a positive %s",
				  path, lineno, key, val, example);
	*dst = v;
	return BN_OK;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "sim" or "sigrok:DRIVER[:conn=SPEC]". */
static int parse_capture(struct bn_conf *c, const char *val, const char *path, int lineno,
			 struct bn_err *err)
{
	const char *drv, *colon;

	if (!strcmp(val, "sim")) {
		c->capture_driver[0] = '\0';
		return BN_OK;
	}
	if (strncmp(val, "sigrok:", 7) || !val[7] || val[7] == ':')
		return bn_err_set(err, BN_ERR_DATA,
				  "%s:%d: error: capture \"%s\": expected sim or sigrok:DRIVER[:conn=SPEC]",
				  path, lineno, val);
	drv = val + 7;
	colon = strchr(drv, ':');
	snprintf(c->capture_driver, sizeof(c->capture_driver), "%.*s",
		 (int)(colon ? (size_t)(colon - drv) : strlen(drv)), drv);
	c->capture_conn[0] = '\0';
	if (colon) {
		if (strncmp(colon + 1, "conn=", 5) || !colon[6])
			return bn_err_set(err, BN_ERR_DATA,
					  "%s:%d: error: capture \"%s\": after the driver, expected "
					  ":conn=SPEC (e.g. sigrok:rigol-ds:conn=tcp-raw/192.168.1.5/5555)",
					  path, lineno, val);
		snprintf(c->capture_conn, sizeof(c->capture_conn), "%s", colon + 6);
	}
	return BN_OK;
}

/* A relative datadir is the conf's folder's: the same conf works from
 * any working directory. */
static int set_datadir(struct bn_conf *c, const char *val, const char *path, int lineno,
		       struct bn_err *err)
{
	char dir[sizeof(c->path)];
	int n;

	snprintf(dir, sizeof(dir), "%s", path);
	if (val[0] == '/')
		n = snprintf(c->datadir, sizeof(c->datadir), "%s", val);
	else
		n = snprintf(c->datadir, sizeof(c->datadir), "%s/%s", dirname(dir), val);
	if (n < 0 || (size_t)n >= sizeof(c->datadir))
		return bn_err_set(err, BN_ERR_DATA, "%s:%d: error: datadir \"%s\" is too long "
				  "(expected at most %zu characters with the conf's folder)",
				  path, lineno, val, sizeof(c->datadir) - 1);
	c->datadir_line = lineno;
	return BN_OK;
}

/* meas_<ch>: the channel's index in capture order, -1 if none. */
static int meas_index(const char *ch)
{
	static const char *const names[BN_CONF_MEAS_N] = { "vbus", "ibus", "dp", "dm", "id" };

	for (int i = 0; i < BN_CONF_MEAS_N; i++)
		if (!strcmp(ch, names[i]))
			return i;
	return -1;
}

int bn_conf_load(const char *path, struct bn_conf *c, struct bn_err *err)
{
	char *text, *line, *save = NULL;
	size_t len;
	int lineno = 0, rc = BN_OK;

	if (bn_file_read(path, &text, &len, err) < 0)
		return BN_ERR_IO;
	snprintf(c->path, sizeof(c->path), "%s", path);
	/* strtok_r would merge empty lines and break line numbers. */
	for (line = text; line && rc == BN_OK; line = save) {
		char *nl = strchr(line, '\n'), *eq, *key, *val, *hash;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s:%d: error: expected \"key = value\", got \"%s\"",
					path, lineno, key);
			break;
		}
		*eq = '\0';
		val = trim(eq + 1);
		key = trim(key);
		if (!*val) {
			rc = bn_err_set(err, BN_ERR_DATA, "%s:%d: error: \"%s\" has no value", path, lineno, key);
		} else if (!strcmp(key, "backend")) {
			if (strcmp(val, "sim"))
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: backend \"%s\" is not available in this build "
						"(expected sim)",
						path, lineno, val);
			else
				snprintf(c->backend, sizeof(c->backend), "%s", val);
		} else if (!strcmp(key, "limits")) {
			snprintf(c->limits, sizeof(c->limits), "%s", val);
		} else if (!strcmp(key, "datadir")) {
			rc = set_datadir(c, val, path, lineno, err);
		} else if (!strcmp(key, "out")) {
			snprintf(c->out, sizeof(c->out), "%s", val);
		} else if (!strcmp(key, "capture")) {
			rc = parse_capture(c, val, path, lineno, err);
		} else if (!strcmp(key, "capture_map")) {
			struct bn_chanmap m;
			char what[600];

			snprintf(what, sizeof(what), "%s:%d: error: capture_map", path, lineno);
			bn_chanmap_default(&m);
			rc = bn_chanmap_parse(val, &m, what, err);
			snprintf(c->capture_map, sizeof(c->capture_map), "%s", val);
			c->capture_map_line = lineno;
		} else if (!strcmp(key, "capture_rate")) {
			char why[160] = "";
			double hz = 0;

			if (bn_quantity_parse(val, BN_DIM_HZ, &hz, why, sizeof(why)) < 0 || !(hz > 0))
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: capture_rate \"%s\": expected a rate such as 20kHz",
						path, lineno, val);
			else
				c->capture_rate_hz = hz;
		} else if (!strcmp(key, "fixture")) {
			rc = parse_role(c->fixture, sizeof(c->fixture), key, val, "ftdi",
					"ftdi[:VID:PID[:SERIAL]], ftdi:desc=TEXT or ftdi:serial=TEXT", path, lineno, err);
		} else if (!strcmp(key, "load")) {
			rc = parse_role(c->load, sizeof(c->load), key, val, "scpi", "scpi:PORT[@BAUD]",
					path, lineno, err);
		} else if (!strcmp(key, "supply")) {
			rc = parse_role(c->supply, sizeof(c->supply), key, val, "scpi", "scpi:PORT[@BAUD]",
					path, lineno, err);
		} else if (!strcmp(key, "fixture_file")) {
			snprintf(c->fixture_file, sizeof(c->fixture_file), "%s", val);
		} else if (!strcmp(key, "load_dialect")) {
			snprintf(c->load_dialect, sizeof(c->load_dialect), "%s", val);
		} else if (!strcmp(key, "supply_dialect")) {
			snprintf(c->supply_dialect, sizeof(c->supply_dialect), "%s", val);
		} else if (!strcmp(key, "supply_mode")) {
			if (strcmp(val, "fixed") && strcmp(val, "follow"))
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: supply_mode \"%s\": expected fixed (the "
						"curve's open-circuit voltage) or follow (the curve at the "
						"current read)", path, lineno, val);
			else
				snprintf(c->supply_mode, sizeof(c->supply_mode), "%s", val);
		} else if (!strcmp(key, "dut_usb")) {
			snprintf(c->dut_usb, sizeof(c->dut_usb), "%s", val);
		} else if (!strcmp(key, "console")) {
			snprintf(c->console, sizeof(c->console), "%s", val);
		} else if (!strncmp(key, "meas_", 5) && meas_index(key + 5) >= 0) {
			int ch = meas_index(key + 5);
			char why[200];

			if (bn_meas_parse(val, ch == 1 ? BN_DIM_A : BN_DIM_V, &c->meas[ch], why, sizeof(why)) < 0)
				rc = bn_err_set(err, BN_ERR_DATA, "%s:%d: error: %s \"%s\": %s", path, lineno,
						key, val, why);
			else if (c->meas_set & (1u << ch))
				rc = bn_err_set(err, BN_ERR_DATA, "%s:%d: error: %s given twice (first at line %d)",
						path, lineno, key, c->meas_line[ch]);
			c->meas_set |= 1u << ch;
			c->meas_line[ch] = lineno;
		} else if (!strcmp(key, "lock_dir")) {
			snprintf(c->lock_dir, sizeof(c->lock_dir), "%s", val);
		} else if (!strcmp(key, "lock")) {
			if (strcmp(val, "auto") && strcmp(val, "yes") && strcmp(val, "no"))
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: lock \"%s\": expected auto, yes or no", path,
						lineno, val);
			else
				snprintf(c->lock, sizeof(c->lock), "%s", val);
		} else if (!strcmp(key, "max_load")) {
			rc = parse_limit(&c->max_load_a, key, val, BN_DIM_A, "current such as 3A", path,
					 lineno, err);
		} else if (!strcmp(key, "max_vbus")) {
			rc = parse_limit(&c->max_vbus_v, key, val, BN_DIM_V, "voltage such as 5.5V", path,
					 lineno, err);
		} else if (!strcmp(key, "max_power")) {
			rc = parse_limit(&c->max_power_w, key, val, BN_DIM_NONE, "power such as 15W", path,
					 lineno, err);
		} else if (!strcmp(key, "instrument_timeout")) {
			double s_ = 0;
			char why[160] = "";

			if (bn_quantity_parse(val, BN_DIM_S, &s_, why, sizeof(why)) < 0 || !(s_ > 0) ||
			    s_ > 600)
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: instrument_timeout \"%s\": expected a time "
						"such as 500ms (at most 600s)",
						path, lineno, val);
			else
				c->instrument_timeout_ms = (int)(s_ * 1000.0 + 0.5);
		} else if (!strcmp(key, "instrument_retries")) {
			char *end;
			long n = strtol(val, &end, 10);

			if (*end || n < 0 || n > 10)
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s:%d: error: instrument_retries \"%s\": expected 0 to 10",
						path, lineno, val);
			else
				c->instrument_retries = (int)n;
		} else {
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s:%d: error: unknown key \"%s\" (expected backend, limits, datadir, out, "
					"capture, capture_map, capture_rate, fixture, fixture_file, load, "
					"load_dialect, supply, supply_dialect, supply_mode, instrument_timeout, "
					"instrument_retries, max_load, max_vbus, max_power, dut_usb, console, "
					"lock, lock_dir, meas_vbus, meas_ibus, meas_dp, meas_dm, meas_id)",
					path, lineno, key);
		}
	}
	free(text);
	return rc;
}
