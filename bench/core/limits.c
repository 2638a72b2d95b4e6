/* The limits loader: profiles/limits/bc12.json into SI values, with every
 * rule of limits.h checked and errors that name the file and the key. */
#include "core/limits.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/json.h"

#define LIMITS_SCHEMA "bcbench-limits/1"

/* Names bcbench code reads. The spec's naming convention gives each its
 * dimension (V.. voltage, I.. current, R.. resistance, T.. time), which
 * the loader checks so a lab file cannot give VDP_SRC in mA. */
static const char *const required_names[] = {
	"VDP_SRC", "VDM_SRC", "VDAT_REF", "VLGC", "VLGC_HI", "VDAT_LKG",
	"VCHG", "VCHG_OVRSHT", "VCHG_UNDSHT", "VOTG_SESS_VLD", "VDCP_SHTDWN",
	"VBUS_LKG", "VDROOP_DEV", "VGND_OFFSET",
	"IDP_SRC", "IDM_SINK", "IDP_SINK", "IDEV_CHG", "ICDP", "IDCP", "ISUSP",
	"IUNIT", "IUNIT_SS", "ICFG_MAX", "ICFG_MAX_SS",
	"RDCP_DAT", "RDP_DWN", "RDM_DWN", "RDAT_LKG", "RID_GND", "RID_A",
	"RID_B", "RID_C", "RID_FLOAT", "RDP_UP",
	"TDCD_DBNC", "TDCD_TIMEOUT", "TVDPSRC_ON", "TVDMSRC_ON", "TVDMSRC_EN",
	"TVDMSRC_DIS", "TCP_VDM_EN", "TSVLD_CON_PWD", "TSVLD_CON_WKB",
	"TDBP_ATT_VDPSRC", "TDBP_VDPSRC_CON", "TVBUS_AVG", "TVBUS_REAPP",
	"TVLD_VLKG", "TDCP_LD_STP", "TDCP_UNDSHT", "TSHTDWN_REC",
	"TSUSP_IDLE", "TSUSP_ENTER", "TSUSP_AVG", "TSRP_PULSE", "TSECDET_MIN",
	NULL,
};

static const char *const top_keys[] = {
	"schema", "sources", "limits", "description", "comment", NULL,
};

static const char *const limit_keys[] = {
	"name", "min", "typ", "max", "unit", "meaning", "source", "spec",
	"note", "comment", NULL,
};

const char *const *bn_limits_required(void)
{
	return required_names;
}

static enum bn_dim dim_by_name(const char *name)
{
	switch (name[0]) {
	case 'V': return BN_DIM_V;
	case 'I': return BN_DIM_A;
	case 'R': return BN_DIM_OHM;
	case 'T': return BN_DIM_S;
	}
	return BN_DIM_NONE;
}

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static bool is_required(const char *name)
{
	return in_list(required_names, name);
}

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* A malloc'ed copy of the string at key; NULL in *out when absent and
 * optional. */
static int dup_str(const cJSON *obj, const char *key, bool required,
		   char **out, const char *what, struct bn_err *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!it) {
		if (required)
			return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"%s\"",
					  what, key);
		return BN_OK;
	}
	if (!cJSON_IsString(it) || !it->valuestring)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a string",
				  what, key);
	if (required && !it->valuestring[0])
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": empty", what, key);
	*out = strdup(it->valuestring);
	if (!*out)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", what);
	return BN_OK;
}

/* "source" is one short name or several separated by commas; each must be
 * a key of "sources". */
static int check_sources(const char *source, const cJSON *sources,
			 const char *what, struct bn_err *err)
{
	const char *p = source, *end;
	char name[64];
	size_t n;

	for (;;) {
		while (*p == ' ')
			p++;
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		while (n > 0 && p[n - 1] == ' ')
			n--;
		if (n == 0 || n >= sizeof(name))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"source\": bad source list \"%s\" (expected short names from \"sources\", separated by commas)",
					  what, source);
		memcpy(name, p, n);
		name[n] = '\0';
		if (!cJSON_GetObjectItemCaseSensitive(sources, name))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"source\": unknown source \"%s\" (not listed in \"sources\")",
					  what, name);
		if (!*end)
			return BN_OK;
		p = end + 1;
	}
}

static void limit_free(struct bn_limit *l)
{
	free(l->meaning);
	free(l->source);
	free(l->spec);
	l->meaning = l->source = l->spec = NULL;
}

/* Parse limits[idx] into *l. path for messages. */
static int parse_limit(const cJSON *o, size_t idx, const cJSON *sources,
		       const char *path, struct bn_limit *l, struct bn_err *err)
{
	char what[sizeof(l->name) + 256];
	double scale, wmin, wmax;
	enum bn_dim want;
	int rc;

	l->min = l->typ = l->max = NAN;
	snprintf(what, sizeof(what), "%s: limits[%zu]", path, idx);
	if (!cJSON_IsObject(o))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
	rc = bn_json_str(o, "name", true, l->name, sizeof(l->name), what, err);
	if (rc != BN_OK)
		return rc;
	if (!name_ok(l->name))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: bad name \"%s\" (letters, digits and _ only)",
				  what, l->name);
	snprintf(what, sizeof(what), "%s: limits[%zu] \"%s\"", path, idx, l->name);

	rc = bn_json_check_keys(o, limit_keys, what, err);
	if (rc != BN_OK)
		return rc;
	rc = bn_json_str(o, "unit", true, l->unit, sizeof(l->unit), what, err);
	if (rc != BN_OK)
		return rc;
	if (bn_unit_lookup(l->unit, &l->dim, &scale) != BN_OK)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: unknown unit \"%s\" (expected V, A, ohm, s, Hz, Ah or F, e.g. mV, uA, kohm, ms, min)",
				  what, l->unit);
	want = dim_by_name(l->name);
	if (is_required(l->name) && l->dim != want)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: unit \"%s\" is %s, expected %s (%s)", what,
				  l->unit, bn_dim_name(l->dim), bn_dim_name(want),
				  bn_dim_unit(want));

	/* Numbers are in the written unit; strings carry their own. */
	rc = bn_json_quantity(o, "min", false, l->dim, scale, &l->min, what, err);
	if (rc == BN_OK)
		rc = bn_json_quantity(o, "typ", false, l->dim, scale, &l->typ, what, err);
	if (rc == BN_OK)
		rc = bn_json_quantity(o, "max", false, l->dim, scale, &l->max, what, err);
	if (rc != BN_OK)
		return rc;
	if (isnan(l->min) && isnan(l->max))
		return bn_err_set(err, BN_ERR_DATA, "%s: needs \"min\" or \"max\"", what);
	wmin = l->min / scale;
	wmax = l->max / scale;
	if (l->min > l->max)
		return bn_err_set(err, BN_ERR_DATA, "%s: min %g > max %g (%s)", what,
				  wmin, wmax, l->unit);
	if (!isnan(l->typ) && (l->typ < l->min || l->typ > l->max)) {
		char lo[40] = "", hi[40] = "";

		if (!isnan(l->min))
			snprintf(lo, sizeof(lo), "min %g", wmin);
		if (!isnan(l->max))
			snprintf(hi, sizeof(hi), "max %g", wmax);
		return bn_err_set(err, BN_ERR_DATA, "%s: typ %g outside [%s%s%s] (%s)",
				  what, l->typ / scale, lo, lo[0] && hi[0] ? ", " : "",
				  hi, l->unit);
	}

	rc = dup_str(o, "meaning", true, &l->meaning, what, err);
	if (rc == BN_OK)
		rc = dup_str(o, "source", true, &l->source, what, err);
	if (rc == BN_OK)
		rc = dup_str(o, "spec", false, &l->spec, what, err);
	if (rc == BN_OK)
		rc = check_sources(l->source, sources, what, err);
	return rc;
}

static int check_header(const cJSON *root, const char *path,
			const cJSON **sources, const cJSON **limits,
			struct bn_err *err)
{
	const cJSON *schema, *it;
	int rc;

	if (!cJSON_IsObject(root))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected a JSON object", path);
	rc = bn_json_check_keys(root, top_keys, path, err);
	if (rc != BN_OK)
		return rc;
	schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, LIMITS_SCHEMA) != 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"schema\": expected \"%s\"", path,
				  LIMITS_SCHEMA);
	*sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
	if (!cJSON_IsObject(*sources))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"sources\": expected an object of short name: description",
				  path);
	cJSON_ArrayForEach(it, *sources) {
		if (!cJSON_IsString(it))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: sources \"%s\": expected a string describing the source",
					  path, it->string);
	}
	*limits = cJSON_GetObjectItemCaseSensitive(root, "limits");
	if (!cJSON_IsArray(*limits))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"limits\": expected an array", path);
	return BN_OK;
}

static int check_required(const struct bn_limits *lim, const char *path,
			  struct bn_err *err)
{
	const char *first = NULL;
	size_t i, missing = 0;

	for (i = 0; required_names[i]; i++) {
		if (!bn_limits_find(lim, required_names[i])) {
			if (!first)
				first = required_names[i];
			missing++;
		}
	}
	if (!first)
		return BN_OK;
	if (missing == 1)
		return bn_err_set(err, BN_ERR_DATA, "%s: missing limit \"%s\"",
				  path, first);
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: missing limit \"%s\" (and %zu more required limits)",
			  path, first, missing - 1);
}

int bn_limits_load(const char *path, struct bn_limits *out, struct bn_err *err)
{
	struct bn_limits lim = { 0 };
	const cJSON *sources = NULL, *limits = NULL, *o;
	cJSON *root = NULL;
	size_t i, j, n;
	int rc;

	if (!path || !out)
		return bn_err_set(err, BN_ERR_ARG, "limits: bad arguments");
	memset(out, 0, sizeof(*out));
	/* The digest is of the very bytes parsed: the file is read once. */
	rc = bn_json_load_sha(path, &root, lim.sha256, err);
	if (rc != BN_OK)
		return rc;
	rc = check_header(root, path, &sources, &limits, err);
	if (rc != BN_OK)
		goto out;

	n = (size_t)cJSON_GetArraySize(limits);
	lim.path = strdup(path);
	lim.v = calloc(n ? n : 1, sizeof(*lim.v));
	if (!lim.path || !lim.v) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	i = 0;
	cJSON_ArrayForEach(o, limits) {
		lim.n = i + 1; /* so a failure frees this entry's strings */
		rc = parse_limit(o, i, sources, path, &lim.v[i], err);
		if (rc != BN_OK)
			goto out;
		for (j = 0; j < i; j++) {
			if (strcmp(lim.v[j].name, lim.v[i].name) == 0) {
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: limits[%zu]: duplicate name \"%s\" (first at limits[%zu])",
						path, i, lim.v[i].name, j);
				goto out;
			}
		}
		i++;
	}
	lim.n = i;
	rc = check_required(&lim, path, err);

out:
	cJSON_Delete(root);
	if (rc != BN_OK) {
		bn_limits_free(&lim);
		return rc;
	}
	*out = lim;
	return BN_OK;
}

void bn_limits_free(struct bn_limits *lim)
{
	size_t i;

	if (!lim)
		return;
	for (i = 0; i < lim->n && lim->v; i++)
		limit_free(&lim->v[i]);
	free(lim->v);
	free(lim->path);
	memset(lim, 0, sizeof(*lim));
}

const struct bn_limit *bn_limits_find(const struct bn_limits *lim, const char *name)
{
	size_t i;

	if (!lim || !name)
		return NULL;
	for (i = 0; i < lim->n; i++)
		if (strcmp(lim->v[i].name, name) == 0)
			return &lim->v[i];
	return NULL;
}

double bn_limits_min(const struct bn_limits *lim, const char *name)
{
	const struct bn_limit *l = bn_limits_find(lim, name);

	return l ? l->min : NAN;
}

double bn_limits_max(const struct bn_limits *lim, const char *name)
{
	const struct bn_limit *l = bn_limits_find(lim, name);

	return l ? l->max : NAN;
}

double bn_limits_typ(const struct bn_limits *lim, const char *name)
{
	const struct bn_limit *l = bn_limits_find(lim, name);

	if (!l)
		return NAN;
	if (!isnan(l->typ))
		return l->typ;
	if (!isnan(l->min) && !isnan(l->max))
		return (l->min + l->max) / 2.0;
	return isnan(l->min) ? l->max : l->min;
}
