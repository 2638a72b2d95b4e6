#include "core/conf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/chanmap.h"
#include "core/file.h"
#include "core/units.h"

void bn_conf_defaults(struct bn_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->backend, sizeof(c->backend), "sim");
	snprintf(c->out, sizeof(c->out), "reports");
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
			snprintf(c->datadir, sizeof(c->datadir), "%s", val);
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
		} else {
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s:%d: error: unknown key \"%s\" (expected backend, limits, datadir, out, "
					"capture, capture_map, capture_rate)",
					path, lineno, key);
		}
	}
	free(text);
	return rc;
}
