/* JSON files through cJSON, with errors that name the file, the line and
 * column (parse errors) or the key (type errors). */
#ifndef BN_CORE_JSON_H
#define BN_CORE_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/err.h"
#include "core/units.h"

/* Read and parse a file. On a syntax error: BN_ERR_DATA,
 * "FILE:LINE:COL: error: invalid JSON". Missing file: BN_ERR_IO naming it. */
int bn_json_load(const char *path, cJSON **out, struct bn_err *err);
/* The same, with the SHA-256 (hex) of the very bytes parsed, so a record
 * that names the file and its digest reads it once. */
int bn_json_load_sha(const char *path, cJSON **out, char sha256[65], struct bn_err *err);

/* Typed getters. 'what' names the object in messages (usually the file
 * path plus a key path, e.g. "profiles/ports/sdp.json: network").
 * required=false: absent keys leave *out untouched and return BN_OK.
 * Wrong type: BN_ERR_DATA "WHAT: key \"k\": expected a number". */
int bn_json_num(const cJSON *obj, const char *key, bool required, double *out,
		const char *what, struct bn_err *err);
int bn_json_bool(const cJSON *obj, const char *key, bool required, bool *out,
		 const char *what, struct bn_err *err);
/* Copies into buf (truncation is an error), broken UTF-8 repaired first
 * (U+FFFD): the length checked is that of the text kept. */
int bn_json_str(const cJSON *obj, const char *key, bool required, char *buf,
		size_t len, const char *what, struct bn_err *err);
/* A number in SI units, given either as a number in the key's implied
 * unit (scale applied, e.g. key "r_ohm" scale 1) or as a string with a
 * written unit ("15kohm") of dimension dim. */
int bn_json_quantity(const cJSON *obj, const char *key, bool required,
		     enum bn_dim dim, double scale, double *out,
		     const char *what, struct bn_err *err);

/* Refuse keys not in the NULL-terminated list known, a key given twice,
 * and a non-object: BN_ERR_DATA "WHAT: unknown key \"k\"". */
int bn_json_check_keys(const cJSON *obj, const char *const *known, const char *what,
		       struct bn_err *err);
/* Load a versioned file: parse it, refuse keys not in known, and require
 * "schema" to be schema ("FILE: schema \"x\" (expected \"y\")"). */
int bn_json_load_schema(const char *path, const char *const *known, const char *schema,
			cJSON **out, struct bn_err *err);
/* "profiles/ports/sdp.json" -> "sdp": a profile's default name. */
void bn_json_stem(const char *path, char *buf, size_t len);

/* obj[key] = item, replacing the member of exactly that name or adding
 * one. Keys are case-sensitive everywhere in this project (cJSON's plain
 * getters are not: a document with "Status" and "status" would otherwise
 * have one found and the other replaced). Takes item; frees it if obj is
 * not an object. */
void bn_json_set(cJSON *obj, const char *key, cJSON *item);

/* Lenient reading of a record for display (a renderer shows what is
 * there): the member of exactly that key, its string (NULL when it is
 * not one), its number (NAN when it is not one). What is not an object
 * (NULL too) gives NULL and NAN. */
const cJSON *bn_jget(const cJSON *o, const char *key);
const char *bn_jstr(const cJSON *o, const char *key);
double bn_jnum(const cJSON *o, const char *key);

/* Every key and string value of the tree made valid UTF-8 in place
 * (invalid bytes become U+FFFD): names and telemetry come from outside
 * and a JSON file must stay UTF-8 (RFC 8259). False when out of memory
 * (the strings not repaired are left as they were). */
bool bn_json_sanitize(cJSON *root);
/* cJSON_Print / cJSON_PrintUnformatted of the sanitized tree: every JSON
 * file the tool writes goes through here. NULL when out of memory. */
char *bn_json_print(cJSON *root);
char *bn_json_print_line(cJSON *root);
/* root printed (bn_json_print) and written to path atomically
 * (core/file.h), then deleted whatever happens: the way every JSON file
 * the tool writes reaches the disk. BN_ERR_NOMEM naming path when it
 * cannot be printed. */
int bn_json_write_atomic(const char *path, cJSON *root, struct bn_err *err);
/* The same without an fsync (bn_file_write_atomic_nosync). */
int bn_json_write_atomic_nosync(const char *path, cJSON *root, struct bn_err *err);

#endif
