#include "core/conf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"

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
		} else {
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s:%d: error: unknown key \"%s\" (expected backend, limits, datadir, out)",
					path, lineno, key);
		}
	}
	free(text);
	return rc;
}
