/* JSON files through cJSON: parse errors as FILE:LINE:COL, typed getters
 * whose errors name the key. */
#include "core/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/text.h"

#define JSON_NEAR_CHARS 24

/* 1-based line and column (in bytes) of offset in text. */
static void offset_to_line_col(const char *text, size_t off, unsigned *line,
			       unsigned *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* A printable excerpt of text at p, up to the end of the line. */
static void near_text(const char *p, char *buf, size_t len)
{
	size_t i, o = 0;

	for (i = 0; p[i] && p[i] != '\n' && p[i] != '\r' &&
		    i < JSON_NEAR_CHARS && o + 5 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\t')
			buf[o++] = ' ';
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
}

int bn_json_load(const char *path, cJSON **out, struct bn_err *err)
{
	return bn_json_load_sha(path, out, NULL, err);
}

int bn_json_load_sha(const char *path, cJSON **out, char sha256[65], struct bn_err *err)
{
	const char *end = NULL;
	char *text = NULL;
	char near[JSON_NEAR_CHARS * 4 + 8];
	size_t len = 0, off;
	unsigned line, col;
	cJSON *root;
	int rc;

	if (!path || !out)
		return bn_err_set(err, BN_ERR_ARG, "json: bad arguments");
	*out = NULL;
	rc = bn_file_read(path, &text, &len, err);
	if (rc != BN_OK)
		return rc;
	if (sha256)
		bn_sha256_hex(text, len, sha256);
	if (strlen(text) != len) {
		off = strlen(text);
		offset_to_line_col(text, off, &line, &col);
		free(text);
		return bn_err_set(err, BN_ERR_DATA,
				  "%s:%u:%u: error: invalid JSON: NUL byte in file",
				  path, line, col);
	}
	root = cJSON_ParseWithOpts(text, &end, 1);
	if (!root) {
		/* cJSON points at the byte where parsing stopped, or at the
		 * last byte when it ran off the end. */
		off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
		offset_to_line_col(text, off, &line, &col);
		near_text(text + off, near, sizeof(near));
		if (len == 0 || text[off] == '\0')
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s:%u:%u: error: invalid JSON near end of file",
					path, line, col);
		else
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s:%u:%u: error: invalid JSON near '%s'",
					path, line, col, near);
		free(text);
		return rc;
	}
	free(text);
	*out = root;
	return BN_OK;
}

/* "a string", "an object", ... for "expected X, got Y". */
static const char *json_kind(const cJSON *it)
{
	if (cJSON_IsNumber(it))
		return "a number";
	if (cJSON_IsString(it))
		return "a string";
	if (cJSON_IsBool(it))
		return "a boolean";
	if (cJSON_IsNull(it))
		return "null";
	if (cJSON_IsArray(it))
		return "an array";
	if (cJSON_IsObject(it))
		return "an object";
	return "an invalid value";
}

/* The item for key, or NULL with *rc set: BN_OK when absent and optional,
 * BN_ERR_DATA when absent and required or when obj is not an object. */
static const cJSON *get_item(const cJSON *obj, const char *key, bool required,
			     const char *what, struct bn_err *err, int *rc)
{
	const cJSON *it;

	*rc = BN_OK;
	if (!what)
		what = "JSON";
	if (!key) {
		*rc = bn_err_set(err, BN_ERR_ARG, "%s: no key given", what);
		return NULL;
	}
	if (!cJSON_IsObject(obj)) {
		*rc = bn_err_set(err, BN_ERR_DATA, "%s: expected an object, got %s",
				 what, obj ? json_kind(obj) : "nothing");
		return NULL;
	}
	it = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!it && required)
		*rc = bn_err_set(err, BN_ERR_DATA, "%s: missing key \"%s\"", what, key);
	return it;
}

static int number_of(const cJSON *it, const char *key, double *out,
		     const char *what, struct bn_err *err)
{
	if (!cJSON_IsNumber(it))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": expected a number, got %s",
				  what, key, json_kind(it));
	if (!isfinite(it->valuedouble))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": number out of range", what, key);
	*out = it->valuedouble;
	return BN_OK;
}

int bn_json_num(const cJSON *obj, const char *key, bool required, double *out,
		const char *what, struct bn_err *err)
{
	const cJSON *it;
	int rc;

	it = get_item(obj, key, required, what, err, &rc);
	if (!it)
		return rc;
	return number_of(it, key, out, what ? what : "JSON", err);
}

int bn_json_bool(const cJSON *obj, const char *key, bool required, bool *out,
		 const char *what, struct bn_err *err)
{
	const cJSON *it;
	int rc;

	it = get_item(obj, key, required, what, err, &rc);
	if (!it)
		return rc;
	if (!cJSON_IsBool(it))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": expected true or false, got %s",
				  what ? what : "JSON", key, json_kind(it));
	*out = cJSON_IsTrue(it);
	return BN_OK;
}

int bn_json_str(const cJSON *obj, const char *key, bool required, char *buf,
		size_t len, const char *what, struct bn_err *err)
{
	const cJSON *it;
	size_t n;
	int rc;

	if (!buf || len == 0)
		return bn_err_set(err, BN_ERR_ARG, "%s: key \"%s\": no buffer",
				  what ? what : "JSON", key ? key : "");
	it = get_item(obj, key, required, what, err, &rc);
	if (!it)
		return rc;
	if (!cJSON_IsString(it) || !it->valuestring)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": expected a string, got %s",
				  what ? what : "JSON", key, json_kind(it));
	n = strlen(it->valuestring);
	if (!bn_utf8_valid(it->valuestring, n)) {
		/* names read here end up in reports: repaired once, at the
		 * door, so every copy and every length check sees the text
		 * that will be written */
		char *fixed = bn_utf8_sanitize(it->valuestring, n);

		if (!fixed)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: key \"%s\": out of memory",
					  what ? what : "JSON", key);
		n = strlen(fixed);
		if (n < len)
			memcpy(buf, fixed, n + 1);
		free(fixed);
	} else if (n < len) {
		memcpy(buf, it->valuestring, n + 1);
	}
	if (n >= len)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"%s\": string too long (%zu bytes, at most %zu)",
				  what ? what : "JSON", key, n, len - 1);
	return BN_OK;
}

/* v * scale, dividing for fractional scales so 100 * 1e-3 is exactly the
 * double 0.1 (as units.c does for "100mA"). */
static double apply_scale(double v, double scale)
{
	if (scale > 0.0 && scale < 1.0) {
		double inv = nearbyint(1.0 / scale);

		if (fabs(inv * scale - 1.0) < 1e-12)
			return v / inv;
	}
	return v * scale;
}

int bn_json_quantity(const cJSON *obj, const char *key, bool required,
		     enum bn_dim dim, double scale, double *out,
		     const char *what, struct bn_err *err)
{
	const cJSON *it;
	char why[200];
	double v;
	int rc;

	it = get_item(obj, key, required, what, err, &rc);
	if (!it)
		return rc;
	if (!what)
		what = "JSON";
	if (cJSON_IsNumber(it)) {
		rc = number_of(it, key, &v, what, err);
		if (rc != BN_OK)
			return rc;
		v = apply_scale(v, scale);
		if (!isfinite(v))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"%s\": number out of range", what, key);
		*out = v;
		return BN_OK;
	}
	if (cJSON_IsString(it) && it->valuestring) {
		if (bn_quantity_parse(it->valuestring, dim, &v, why, sizeof(why)) != BN_OK)
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": %s",
					  what, key, why);
		*out = v;
		return BN_OK;
	}
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: key \"%s\": expected a number or %s such as \"%s%s\", got %s",
			  what, key, bn_dim_name(dim), dim == BN_DIM_NONE ? "42" : "1",
			  bn_dim_unit(dim), json_kind(it));
}

int bn_json_check_keys(const cJSON *obj, const char *const *known, const char *what,
		       struct bn_err *err)
{
	const cJSON *it;

	if (!cJSON_IsObject(obj))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected an object", what);
	cJSON_ArrayForEach(it, obj) {
		bool ok = false;

		for (int i = 0; known[i] && !ok; i++)
			ok = it->string && !strcmp(it->string, known[i]);
		if (!ok)
			return bn_err_set(err, BN_ERR_DATA, "%s: unknown key \"%s\"", what,
					  it->string ? it->string : "");
		/* cJSON keeps both and answers with the first: the file would
		 * not mean what its last line says. */
		for (const cJSON *dup = it->next; dup; dup = dup->next)
			if (dup->string && !strcmp(dup->string, it->string))
				return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\" given twice", what,
						  it->string);
	}
	return BN_OK;
}

void bn_json_stem(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	if (n >= len)
		n = len - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
}

int bn_json_load_schema(const char *path, const char *const *known, const char *schema,
			cJSON **out, struct bn_err *err)
{
	cJSON *root = NULL;
	char have[64] = "";
	int rc = bn_json_load(path, &root, err);

	if (rc < 0)
		return rc;
	if ((rc = bn_json_check_keys(root, known, path, err)) < 0 ||
	    (rc = bn_json_str(root, "schema", true, have, sizeof(have), path, err)) < 0) {
		cJSON_Delete(root);
		return rc;
	}
	if (strcmp(have, schema)) {
		cJSON_Delete(root);
		return bn_err_set(err, BN_ERR_DATA, "%s: schema \"%s\" (expected \"%s\")", path, have,
				  schema);
	}
	*out = root;
	return BN_OK;
}

void bn_json_set(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return;
	if (!cJSON_IsObject(obj)) {
		cJSON_Delete(item);
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(obj, key)) {
		if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item))
			cJSON_Delete(item);
	} else {
		cJSON_AddItemToObject(obj, key, item);
	}
}

/* *slot made valid UTF-8. *changed tells whether it was replaced; the
 * old string is freed only when cJSON owns it (not cJSON_StringIsConst). */
static bool sanitize_str(char **slot, bool owned, bool *changed)
{
	size_t n;
	char *fixed, *copy;

	*changed = false;
	if (!*slot)
		return true;
	n = strlen(*slot);
	if (bn_utf8_valid(*slot, n))
		return true;
	fixed = bn_utf8_sanitize(*slot, n);
	if (!fixed)
		return false;
	n = strlen(fixed);
	copy = cJSON_malloc(n + 1);
	if (copy)
		memcpy(copy, fixed, n + 1);
	free(fixed);
	if (!copy)
		return false;
	if (owned)
		cJSON_free(*slot);
	*slot = copy;
	*changed = true;
	return true;
}

bool bn_json_sanitize(cJSON *root)
{
	bool ok = true, changed;

	if (!root)
		return true;
	if (!sanitize_str(&root->string, !(root->type & cJSON_StringIsConst), &changed))
		ok = false;
	else if (changed)
		root->type &= ~cJSON_StringIsConst; /* the copy is cJSON's now */
	if (cJSON_IsString(root) && !sanitize_str(&root->valuestring, true, &changed))
		ok = false;
	for (cJSON *it = root->child; it; it = it->next)
		if (!bn_json_sanitize(it))
			ok = false;
	return ok;
}

char *bn_json_print(cJSON *root)
{
	if (!root || !bn_json_sanitize(root))
		return NULL;
	return cJSON_Print(root);
}

char *bn_json_print_line(cJSON *root)
{
	if (!root || !bn_json_sanitize(root))
		return NULL;
	return cJSON_PrintUnformatted(root);
}

const cJSON *bn_jget(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

const char *bn_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = bn_jget(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double bn_jnum(const cJSON *o, const char *key)
{
	const cJSON *v = bn_jget(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int write_json(const char *path, cJSON *root, bool sync, struct bn_err *err)
{
	char *text = root ? bn_json_print(root) : NULL;
	int rc;

	cJSON_Delete(root);
	if (!text)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", path);
	rc = sync ? bn_file_write_atomic(path, text, strlen(text), err)
		  : bn_file_write_atomic_nosync(path, text, strlen(text), err);
	free(text);
	return rc;
}

int bn_json_write_atomic(const char *path, cJSON *root, struct bn_err *err)
{
	return write_json(path, root, true, err);
}

int bn_json_write_atomic_nosync(const char *path, cJSON *root, struct bn_err *err)
{
	return write_json(path, root, false, err);
}
