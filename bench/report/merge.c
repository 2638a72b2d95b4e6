/* Shards of one suite run joined into one suite.json (bcbench merge). */
#include "report/merge.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "report/suite_doc.h"

#define MERGE_PATH_MAX 4096

struct shard {
	int index, count;       /* 0, 0: not sharded */
	const char *sha;        /* suite.sha256 */
};

struct slot {
	const cJSON *entry;
	double index;
	int src;
};

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* Two optional values (absent and null alike) that must be equal. */
static bool same_value(const cJSON *a, const cJSON *b)
{
	bool a_none = !a || cJSON_IsNull(a), b_none = !b || cJSON_IsNull(b);

	if (a_none || b_none)
		return a_none && b_none;
	return cJSON_Compare(a, b, true);
}

static int read_shard(const cJSON *doc, const char *path, struct shard *s, struct bn_err *err)
{
	const cJSON *sh = get(doc, "shard"), *sha = get(get(doc, "suite"), "sha256");
	const cJSON *idx, *cnt;

	if (!cJSON_IsString(sha) || !sha->valuestring[0])
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: no \"suite\": {\"sha256\"}: cannot tell which "
				  "suite it ran",
				  path);
	s->sha = sha->valuestring;
	s->index = s->count = 0;
	if (!sh || cJSON_IsNull(sh))
		return BN_OK;
	idx = get(sh, "index");
	cnt = get(sh, "count");
	if (!cJSON_IsNumber(idx) || !cJSON_IsNumber(cnt) || idx->valuedouble != idx->valueint ||
	    cnt->valuedouble != cnt->valueint || idx->valueint < 1 || idx->valueint > cnt->valueint)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: \"shard\" is not null or {\"index\": K, \"count\": N} with "
				  "1 <= K <= N", path);
	s->index = idx->valueint;
	s->count = cnt->valueint;
	return BN_OK;
}

/* The limits a shard was judged against; NULL for one whose entries
 * wrote no report (its bench was in use, or each crashed first), which
 * names none and agrees with any. */
static const char *limits_sha(const cJSON *doc)
{
	const cJSON *s = get(get(doc, "limits"), "sha256");

	return cJSON_IsString(s) && s->valuestring[0] ? s->valuestring : NULL;
}

/* The first input that names its limits, else 0. */
static int limits_ref(cJSON *const *docs, int n)
{
	for (int i = 0; i < n; i++)
		if (limits_sha(docs[i]))
			return i;
	return 0;
}

/* The inputs are shards of one run of one suite. */
static int check_same_run(cJSON *const *docs, const char *const *paths, int n,
			  const struct shard *sh, struct bn_err *err)
{
	static const char *const same_keys[] = { "filter", "entries_in_suite" };
	int ref = limits_ref(docs, n);

	for (int i = 0; i < n; i++) {
		const char *la = limits_sha(docs[ref]), *lb = limits_sha(docs[i]);

		if (la && lb && strcmp(la, lb))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s and %s were judged against different "
					  "limits (limits.sha256)",
					  paths[ref], paths[i]);
	}
	for (int i = 1; i < n; i++) {
		if (strcmp(sh[0].sha, sh[i].sha))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s and %s ran different suites "
					  "(suite.sha256 %.12s... and %.12s...)",
					  paths[0], paths[i], sh[0].sha, sh[i].sha);
		for (size_t k = 0; k < sizeof(same_keys) / sizeof(same_keys[0]); k++)
			if (!same_value(get(docs[0], same_keys[k]), get(docs[i], same_keys[k])))
				return bn_err_set(err, BN_ERR_DATA,
						  "%s and %s differ in \"%s\": not "
						  "shards of one run",
						  paths[0], paths[i], same_keys[k]);
		if (!sh[0].count != !sh[i].count)
			return bn_err_set(err, BN_ERR_DATA, "%s is %s and %s is %s", paths[0],
					  sh[0].count ? "a shard" : "not sharded", paths[i],
					  sh[i].count ? "a shard" : "not sharded");
		if (sh[0].count != sh[i].count)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s is shard %d/%d and %s is shard %d/%d: "
					  "not one sharding",
					  paths[0], sh[0].index, sh[0].count, paths[i], sh[i].index,
					  sh[i].count);
		for (int j = 0; j < i; j++)
			if (sh[i].count && sh[i].index == sh[j].index)
				return bn_err_set(err, BN_ERR_DATA,
						  "%s and %s are both shard %d/%d", paths[j],
						  paths[i], sh[i].index, sh[i].count);
	}
	return BN_OK;
}

static int check_all_shards(const char *const *paths, int n, const struct shard *sh,
			    struct bn_err *err)
{
	for (int k = 1; k <= sh[0].count; k++) {
		bool have = false;

		for (int i = 0; i < n && !have; i++)
			have = sh[i].index == k;
		if (!have)
			return bn_err_set(err, BN_ERR_DATA, "shard %d/%d is missing (merging %d "
					  "file%s, the first %s): --partial merges without it", k,
					  sh[0].count, n, n == 1 ? "" : "s", paths[0]);
	}
	return BN_OK;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->src - y->src;
}

/* Lexically normalise an absolute path in place: no "//", ".", "..". */
static void path_normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		char *seg;
		size_t len;

		while (*in == '/')
			in++;
		seg = in;
		while (*in && *in != '/')
			in++;
		len = (size_t)(in - seg);
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, len);
		out += len;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* The absolute directory of file: resolved when it exists, else made
 * absolute lexically. -1 when it does not fit. */
static int abs_dir(const char *file, char *buf, size_t len)
{
	char dir[MERGE_PATH_MAX], cwd[MERGE_PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(file, '/');
	int w;

	if (!slash)
		w = snprintf(dir, sizeof(dir), ".");
	else if (slash == file)
		w = snprintf(dir, sizeof(dir), "/");
	else
		w = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file), file);
	if (w < 0 || (size_t)w >= sizeof(dir))
		return -1;
	if (realpath(dir, real))
		w = snprintf(buf, len, "%s", real);
	else if (dir[0] == '/')
		w = snprintf(buf, len, "%s", dir);
	else if (getcwd(cwd, sizeof(cwd)))
		w = snprintf(buf, len, "%s/%s", cwd, dir);
	else
		return -1;
	if (w < 0 || (size_t)w >= len)
		return -1;
	path_normalize(buf);
	return 0;
}

/* to relative to the directory from (both normalised and absolute). */
static int path_relative(const char *from, const char *to, char *buf, size_t len)
{
	size_t common = 0, i = 0, o = 0;
	const char *rest;

	/* the longest common prefix that ends at a component boundary */
	for (;; i++) {
		bool fe = from[i] == '\0' || from[i] == '/', te = to[i] == '\0' || to[i] == '/';

		if (fe && te)
			common = i;
		if (from[i] != to[i] || !from[i])
			break;
	}
	rest = from + common;
	for (; *rest; rest++)
		if (*rest == '/' && rest[1]) {
			if (o + 3 >= len)
				return -1;
			memcpy(buf + o, o ? "/.." : "..", o ? 3 : 2);
			o += o ? 3 : 2;
		}
	rest = to + common;
	while (*rest == '/')
		rest++;
	if (snprintf(buf + o, len - o, "%s%s", o && *rest ? "/" : "", *rest || o ? rest : ".") >=
	    (int)(len - o))
		return -1;
	return 0;
}

/* obj[key], a path relative to the directory shard_dir, made relative to
 * out_dir (absolute when it does not fit). */
static void rebase_path(cJSON *obj, const char *key, const char *shard_dir, const char *out_dir)
{
	const cJSON *p = get(obj, key);
	char target[MERGE_PATH_MAX], rel[MERGE_PATH_MAX];
	int w;

	if (!cJSON_IsString(p) || !p->valuestring[0] || p->valuestring[0] == '/')
		return;
	w = snprintf(target, sizeof(target), "%s/%s", shard_dir, p->valuestring);
	if (w < 0 || (size_t)w >= sizeof(target))
		return;
	path_normalize(target);
	if (!out_dir || path_relative(out_dir, target, rel, sizeof(rel)) < 0)
		bn_json_set(obj, key, cJSON_CreateString(target));
	else
		bn_json_set(obj, key, cJSON_CreateString(rel));
}

/* An entry's "dir" and its report's "path" follow the merged file. */
static void rebase_entry(cJSON *entry, const char *shard_dir, const char *out_dir)
{
	cJSON *ref = cJSON_GetObjectItemCaseSensitive(entry, "report");

	rebase_path(entry, "dir", shard_dir, out_dir);
	if (cJSON_IsObject(ref))
		rebase_path(ref, "path", shard_dir, out_dir);
}

static void set_num(cJSON *obj, const char *key, double v)
{
	bn_json_set(obj, key, cJSON_CreateNumber(v));
}

static void set_item(cJSON *obj, const char *key, cJSON *item)
{
	bn_json_set(obj, key, item);
}

/* The merged entries, each copied with its dir and report path rebased. */
static cJSON *merged_entries(const struct slot *slots, int n_slots, const char *const *paths,
			     const char *out_path, struct bn_err *err)
{
	char out_dir[MERGE_PATH_MAX], shard_dir[MERGE_PATH_MAX];
	bool have_out = out_path && abs_dir(out_path, out_dir, sizeof(out_dir)) == 0;
	cJSON *arr = cJSON_CreateArray();
	int src = -1;

	if (!arr)
		goto nomem;
	for (int i = 0; i < n_slots; i++) {
		cJSON *e = cJSON_Duplicate(slots[i].entry, true);

		if (!e)
			goto nomem;
		cJSON_AddItemToArray(arr, e);
		if (!out_path)
			continue;
		if (slots[i].src != src) {
			src = slots[i].src;
			if (abs_dir(paths[src], shard_dir, sizeof(shard_dir)) < 0)
				src = -1;
		}
		if (src >= 0)
			rebase_entry(e, shard_dir, have_out ? out_dir : NULL);
	}
	return arr;
nomem:
	cJSON_Delete(arr);
	bn_err_set(err, BN_ERR_NOMEM, "merge: out of memory");
	return NULL;
}

/* doc with "entries" null (the merge's replace them): copying them too
 * would hold one more copy of every entry for nothing. */
static cJSON *copy_but_entries(const cJSON *doc)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *it;

	cJSON_ArrayForEach(it, doc) {
		cJSON *c;

		/* a placeholder keeps the key's place */
		c = strcmp(it->string, "entries") ? cJSON_Duplicate(it, true) : cJSON_CreateNull();
		if (!c) {
			cJSON_Delete(out);
			return NULL;
		}
		cJSON_AddItemToObject(out, it->string, c);
	}
	return out;
}

int bn_suite_merge(cJSON *const *docs, const char *const *paths, int n,
		   const struct bn_merge_opts *opts, cJSON **out, struct bn_err *err)
{
	static const struct bn_merge_opts no_opts = { 0 };
	struct shard *sh = NULL;
	struct slot *slots = NULL;
	const cJSON *eis;
	cJSON *doc = NULL, *from, *timing, *entries;
	double wall_s = 0, entries_wall_s = 0;
	bool have_wall = false, have_ewall = false;
	int n_slots = 0, first = 0, rc;

	*out = NULL;
	if (!opts)
		opts = &no_opts;
	if (n < 1 || !docs || !paths)
		return bn_err_set(err, BN_ERR_ARG, "merge: no suite records given");
	sh = calloc((size_t)n, sizeof(*sh));
	if (!sh)
		return bn_err_set(err, BN_ERR_NOMEM, "merge: out of memory");
	for (int i = 0; i < n; i++) {
		rc = bn_suite_doc_check(docs[i], paths[i], err);
		if (rc == BN_OK)
			rc = read_shard(docs[i], paths[i], &sh[i], err);
		if (rc < 0)
			goto out;
		n_slots += cJSON_GetArraySize(get(docs[i], "entries"));
		if (sh[i].index && sh[i].index < sh[first].index)
			first = i;
	}
	rc = check_same_run(docs, paths, n, sh, err);
	if (rc == BN_OK && sh[0].count && !opts->partial)
		rc = check_all_shards(paths, n, sh, err);
	if (rc < 0)
		goto out;

	slots = calloc((size_t)n_slots + 1, sizeof(*slots));
	if (!slots) {
		rc = bn_err_set(err, BN_ERR_NOMEM, "merge: out of memory");
		goto out;
	}
	n_slots = 0;
	for (int i = 0; i < n; i++) {
		const cJSON *e;

		cJSON_ArrayForEach(e, get(docs[i], "entries")) {
			slots[n_slots].entry = e;
			slots[n_slots].index = get(e, "index")->valuedouble;
			slots[n_slots].src = i;
			n_slots++;
		}
	}
	qsort(slots, (size_t)n_slots, sizeof(*slots), slot_cmp);
	for (int i = 1; i < n_slots; i++) {
		if (slots[i].index != slots[i - 1].index)
			continue;
		if (slots[i].src == slots[i - 1].src)
			rc = bn_err_set(err, BN_ERR_DATA, "%s: entry index %g is there twice",
					paths[slots[i].src], slots[i].index);
		else
			rc = bn_err_set(err, BN_ERR_DATA, "entry index %g is in both %s and %s",
					slots[i].index, paths[slots[i - 1].src],
					paths[slots[i].src]);
		goto out;
	}
	eis = get(docs[0], "entries_in_suite");
	if (cJSON_IsNumber(eis) && n_slots > eis->valuedouble) {
		rc = bn_err_set(err, BN_ERR_DATA, "%d entries merged, but the suite has %g "
				"(entries_in_suite)", n_slots, eis->valuedouble);
		goto out;
	}
	if (cJSON_IsNumber(eis) && n_slots < eis->valuedouble && !opts->partial) {
		rc = bn_err_set(err, BN_ERR_DATA, "%d entries merged of the suite's %g "
				"(entries_in_suite): entries are missing; --partial merges without "
				"them", n_slots, eis->valuedouble);
		goto out;
	}

	doc = copy_but_entries(docs[first]);
	entries = merged_entries(slots, n_slots, paths, opts->out_path, err);
	from = cJSON_CreateArray();
	if (!doc || !entries || !from) {
		cJSON_Delete(entries);
		cJSON_Delete(from);
		rc = bn_err_set(err, BN_ERR_NOMEM, "merge: out of memory");
		goto out;
	}
	set_item(doc, "entries", entries);
	set_item(doc, "shard", cJSON_CreateNull());
	if (!limits_sha(docs[first]) && limits_sha(docs[limits_ref(docs, n)]))
		set_item(doc, "limits", cJSON_Duplicate(get(docs[limits_ref(docs, n)], "limits"), true));
	for (int i = 0; i < n; i++) {
		cJSON *m = cJSON_CreateObject();
		const cJSON *s = get(docs[i], "shard");
		const cJSON *t = get(docs[i], "timing");

		cJSON_AddStringToObject(m, "path", paths[i]);
		cJSON_AddItemToObject(m, "shard",
				      s ? cJSON_Duplicate(s, true) : cJSON_CreateNull());
		cJSON_AddItemToArray(from, m);
		if (cJSON_IsNumber(get(t, "wall_s"))) {
			wall_s = fmax(wall_s, get(t, "wall_s")->valuedouble);
			have_wall = true;
		}
		if (cJSON_IsNumber(get(t, "entries_wall_s"))) {
			entries_wall_s += get(t, "entries_wall_s")->valuedouble;
			have_ewall = true;
		}
	}
	set_item(doc, "merged_from", from);
	timing = cJSON_GetObjectItemCaseSensitive(doc, "timing");
	if (!cJSON_IsObject(timing)) {
		timing = cJSON_CreateObject();
		set_item(doc, "timing", timing);
	}
	if (have_wall)
		set_num(timing, "wall_s", wall_s);
	if (have_ewall)
		set_num(timing, "entries_wall_s", entries_wall_s);
	rc = bn_suite_doc_totals(doc, err);
	if (rc == BN_OK) {
		*out = doc;
		doc = NULL;
	}
out:
	cJSON_Delete(doc);
	free(slots);
	free(sh);
	return rc;
}
