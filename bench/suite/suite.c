#include "suite/suite.h"

#include <ctype.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/check.h"
#include "core/suggest.h"
#include "core/datadir.h"
#include "core/file.h"
#include "firmware/fw_load.h"
#include "scenario/lexer.h"
#include "scenario/scenario.h"

#define LINE_MAX_TOKS 64

static const char *const axis_names[BN_AXIS_COUNT] = { "port", "charger", "host", "dut",
						       "conditions", "firmware" };
/* profiles/<kind>/ for bare names */
static const char *const axis_kinds[BN_AXIS_COUNT] = { "ports", "chargers", "hosts", "duts",
						       "conditions", NULL };

const char *bn_suite_axis_name(enum bn_suite_axis a)
{
	return (unsigned)a < BN_AXIS_COUNT ? axis_names[a] : "?";
}

/* A firmware value of a block, with what it must do. */
struct fw_value {
	char name[128], path[BN_SUITE_PATH_LEN];
	int line;
	enum bn_suite_expect expect;
	int n_rules;
	char rules[BN_SUITE_MAX_RULES][48];
};

struct value {
	char name[128], path[BN_SUITE_PATH_LEN];
};

#define MAX_VALUES 32

struct block {
	int line;
	char scenario[BN_SUITE_PATH_LEN], stem[96];
	double cost;
	int n[BN_AXIS_COUNT - 1];
	struct value v[BN_AXIS_COUNT - 1][MAX_VALUES];
	int n_fw;
	struct fw_value fw[MAX_VALUES];
	int n_rules;               /* the block's own xfail */
	char rules[BN_SUITE_MAX_RULES][48];
	int xfail_line;
};

struct sp {
	const char *name;
	char dir[BN_SUITE_PATH_LEN];
	const struct bn_suite_opts *o;
	struct bn_suite *s;
	struct bn_err *err;
	struct block *b;           /* the open block, NULL before the first */
	bool fwdir_set;
	char fwdir_from[BN_SUITE_PATH_LEN + 40]; /* for messages: who chose s->fwdir */
	char tried[3 * BN_SUITE_PATH_LEN + 64];  /* find_file's places, in order */
	struct bn_token toks[LINE_MAX_TOKS];
	int n;
};

/* snprintf that may cut: paths and names longer than their fields are
 * refused where they are read; here a cut is only a shorter message. */
static void fit(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fit(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int perr(struct sp *p, const struct bn_token *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct sp *p, const struct bn_token *t, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bn_err_set(p->err, BN_ERR_DATA, "%s:%d:%d: error: %s", p->name, t->line, t->col, msg);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* As written, beside the suite file, under the data dir; p->tried lists
 * the places in that order for a message. */
static bool find_file(struct sp *p, const char *spec, char *out, size_t len)
{
	const char *dd = p->o && p->o->datadir ? p->o->datadir : ".";
	char beside[BN_SUITE_PATH_LEN];

	fit(out, len, "%s", spec);
	fit(p->tried, sizeof(p->tried), "%s", spec);
	if (readable(out) || spec[0] == '/')
		return readable(out);
	fit(beside, sizeof(beside), "%s/%s", p->dir, spec);
	fit(p->tried, sizeof(p->tried), "%s (from the working directory), %s, %s/%s", spec, beside,
	    dd, spec);
	fit(out, len, "%s", beside);
	if (readable(out))
		return true;
	fit(out, len, "%s/%s", dd, spec);
	return readable(out);
}

static int resolve_value(struct sp *p, enum bn_suite_axis a, const struct bn_token *t, char *out,
			 size_t len)
{
	const char *dd = p->o && p->o->datadir ? p->o->datadir : ".";
	bool bare = !strchr(t->text, '/') && !strstr(t->text, ".json") && !strstr(t->text, ".so");

	if (a == BN_AXIS_FIRMWARE) {
		if (bn_fw_is_builtin(t->text)) {
			fit(out, len, "%s", t->text);
			return BN_OK;
		}
		if (bare)
			fit(out, len, "%s/%s.so", p->s->fwdir, t->text);
		else if (!find_file(p, t->text, out, len))
			fit(out, len, "%s", t->text);
		if (!readable(out))
			return perr(p, t, "no firmware \"%s\" (looked for %s; the firmware dir %s is %s: "
					  "%s)", t->text, bare ? out : p->tried, p->s->fwdir, p->fwdir_from,
					  BN_FWDIR_HOW);
		return BN_OK;
	}
	if (bare) {
		fit(out, len, "%s/profiles/%s/%s.json", dd, axis_kinds[a], t->text);
		if (!readable(out)) {
			char hint[1100];

			/* what the data dir has, the nearest, how to use another */
			bn_suggest_profile(dd, axis_kinds[a], t->text, hint, sizeof(hint));
			return perr(p, t, "no %s profile \"%s\" (looked for %s)%s", axis_names[a],
				    t->text, out, hint);
		}
		return BN_OK;
	}
	if (!find_file(p, t->text, out, len))
		return perr(p, t, "cannot open %s file \"%s\" (looked for %s)", axis_names[a],
			    t->text, p->tried);
	return BN_OK;
}

static bool rule_ok(const char *r)
{
	int line;
	char rest;

	if (sscanf(r, "expect.L%d%c", &line, &rest) == 1 && line > 0)
		return true;
	return bn_rule_name_known(r) && strncmp(r, "bc12.", 5) == 0 && strchr(r + 5, '.');
}

static int read_rules(struct sp *p, int from, const struct bn_token *kw, char rules[][48],
		      int *n_rules)
{
	if (from >= p->n)
		return perr(p, kw, "\"%s\" needs the rule ids that must fail (e.g. bc12.cur.droop "
				   "or expect.L12)", kw->text);
	for (int i = from; i < p->n; i++) {
		const struct bn_token *t = &p->toks[i];

		if (t->kind != BN_TOK_WORD || !rule_ok(t->text))
			return perr(p, t, "\"%s\" is not a rule id (expected one such as "
					  "bc12.det.port_type, or expect.LN for an expectation)",
				    t->text);
		if (*n_rules >= BN_SUITE_MAX_RULES)
			return perr(p, t, "more than %d rules", BN_SUITE_MAX_RULES);
		fit(rules[(*n_rules)++], 48, "%s", t->text);
	}
	return BN_OK;
}

static double scenario_cost(const struct bn_scenario *scn)
{
	double dur_s = 0;
	int n_ch = 0;

	for (int i = 0; i < scn->n_steps; i++)
		if (scn->steps[i].kind == BN_STEP_WAIT)
			dur_s += bn_time_to_s(scn->steps[i].dur_us);
	for (unsigned m = scn->capture_mask; m; m &= m - 1)
		n_ch++;
	/* Samples times channels, and a process's start-up (about as much as
	 * 20 k samples of work) for every entry. */
	return dur_s * scn->capture_rate_hz * (n_ch ? n_ch : 1) + 20000;
}

static int open_block(struct sp *p)
{
	const struct bn_token *kw = &p->toks[0], *t = &p->toks[1];
	struct bn_scenario scn;
	struct bn_err e2 = { 0 };
	char *base, buf[BN_SUITE_PATH_LEN], *dot;
	int rc;

	if (p->n != 2 || t->kind == BN_TOK_EOL)
		return perr(p, kw, "\"scenario\" takes one scenario file");
	p->b = calloc(1, sizeof(*p->b));
	if (!p->b)
		return bn_err_set(p->err, BN_ERR_NOMEM, "%s: out of memory", p->name);
	p->b->line = kw->line;
	if (!find_file(p, t->text, p->b->scenario, sizeof(p->b->scenario)))
		return perr(p, t, "cannot open scenario \"%s\" (looked for %s)", t->text, p->tried);
	/* A broken scenario is the suite's bad input, found before anything runs. */
	rc = bn_scenario_parse_file(p->b->scenario, &scn, &e2);
	if (rc < 0)
		return bn_err_set(p->err, rc, "%s:%d:%d: error: in scenario: %s", p->name, t->line,
				  t->col, e2.msg);
	p->b->cost = scenario_cost(&scn);
	bn_scenario_free(&scn);
	fit(buf, sizeof(buf), "%s", p->b->scenario);
	base = basename(buf);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	fit(p->b->stem, sizeof(p->b->stem), "%s", base);
	return BN_OK;
}

static int grow(struct bn_suite *s, int *cap)
{
	if (s->n_entries < *cap)
		return BN_OK;
	*cap = *cap ? *cap * 2 : 64;
	struct bn_suite_entry *e = realloc(s->entries, (size_t)*cap * sizeof(*e));

	if (!e)
		return BN_ERR_NOMEM;
	s->entries = e;
	return BN_OK;
}

/* The block's product, in the order written: ports outermost, firmware
 * innermost. */
static int close_block(struct sp *p, int *cap)
{
	struct block *b = p->b;
	int idx[BN_AXIS_COUNT - 1] = { 0 }, count[BN_AXIS_COUNT - 1];
	struct fw_value ref = { .name = "", .expect = BN_SUITE_EXPECT_PASS };

	if (!b)
		return BN_OK;
	p->b = NULL;
	ref.line = b->line;
	for (int a = 0; a < BN_AXIS_COUNT - 1; a++)
		count[a] = b->n[a] ? b->n[a] : 1;
	for (;;) {
		for (int f = 0; f < (b->n_fw ? b->n_fw : 1); f++) {
			const struct fw_value *fw = b->n_fw ? &b->fw[f] : &ref;
			struct bn_suite_entry *e;
			size_t len;

			if (grow(p->s, cap) < 0) {
				free(b);
				return bn_err_set(p->err, BN_ERR_NOMEM, "%s: out of memory", p->name);
			}
			e = &p->s->entries[p->s->n_entries];
			memset(e, 0, sizeof(*e));
			e->index = p->s->n_entries;
			e->line = fw->line;
			e->cost = b->cost;
			fit(e->scenario, sizeof(e->scenario), "%s", b->scenario);
			fit(e->id, sizeof(e->id), "%s", b->stem);
			for (int a = 0; a < BN_AXIS_COUNT - 1; a++) {
				if (!b->n[a])
					continue;
				fit(e->param[a], sizeof(e->param[a]), "%s", b->v[a][idx[a]].name);
				fit(e->param_path[a], sizeof(e->param_path[a]), "%s",
					 b->v[a][idx[a]].path);
			}
			if (fw->name[0]) {
				fit(e->param[BN_AXIS_FIRMWARE], sizeof(e->param[0]), "%s", fw->name);
				fit(e->param_path[BN_AXIS_FIRMWARE], sizeof(e->param_path[0]),
					 "%s", fw->path);
			}
			for (int a = 0; a < BN_AXIS_COUNT; a++) {
				char v[128], *slash;

				if (!e->param[a][0])
					continue;
				/* ids name values by their stem: profiles/chargers/x.json -> x */
				slash = strrchr(e->param[a], '/');
				fit(v, sizeof(v), "%s", slash ? slash + 1 : e->param[a]);
				if (strchr(v, '.') && strchr(v, '.') != v)
					*strchr(v, '.') = '\0';
				len = strlen(e->id);
				fit(e->id + len, sizeof(e->id) - len, "/%s", v);
			}
			e->expect = fw->expect;
			for (int r = 0; r < fw->n_rules; r++)
				fit(e->rules[e->n_rules++], 48, "%s", fw->rules[r]);
			for (int r = 0; r < b->n_rules && e->n_rules < BN_SUITE_MAX_RULES; r++) {
				bool have = false;

				for (int k = 0; k < e->n_rules; k++)
					have |= !strcmp(e->rules[k], b->rules[r]);
				if (!have)
					fit(e->rules[e->n_rules++], 48, "%s", b->rules[r]);
			}
			if (b->n_rules && e->expect == BN_SUITE_EXPECT_PASS)
				e->expect = BN_SUITE_EXPECT_FAIL;
			for (int k = 0; k < p->s->n_entries; k++)
				if (!strcmp(p->s->entries[k].id, e->id)) {
					struct bn_token at = { .line = e->line, .col = 1 };
					int prev = p->s->entries[k].line;

					free(b);
					return perr(p, &at, "entry \"%s\" repeats the one from line %d",
						    e->id, prev);
				}
			p->s->n_entries++;
		}
		/* next combination */
		int a = BN_AXIS_COUNT - 2;

		while (a >= 0 && ++idx[a] == count[a])
			idx[a--] = 0;
		if (a < 0)
			break;
	}
	free(b);
	return BN_OK;
}

static int axis_of(const char *word)
{
	for (int a = 0; a < BN_AXIS_COUNT; a++)
		if (!strcmp(word, axis_names[a]))
			return a;
	return -1;
}

static int statement(struct sp *p, int *cap)
{
	const struct bn_token *kw = &p->toks[0];
	int a, rc;

	if (kw->kind != BN_TOK_WORD)
		return perr(p, kw, "expected a statement (suite, watchdog, fwdir, limits, scenario, "
				   "port, charger, host, dut, conditions, firmware, xfail)");
	if (!strcmp(kw->text, "scenario")) {
		rc = close_block(p, cap);
		return rc < 0 ? rc : open_block(p);
	}
	if (!strcmp(kw->text, "suite") || !strcmp(kw->text, "watchdog") ||
	    !strcmp(kw->text, "fwdir") || !strcmp(kw->text, "limits")) {
		const struct bn_token *t = &p->toks[1];

		if (p->b || p->s->n_entries)
			return perr(p, kw, "\"%s\" belongs before the first scenario", kw->text);
		if (p->n != 2)
			return perr(p, kw, "\"%s\" takes one argument", kw->text);
		if (!strcmp(kw->text, "suite")) {
			if (t->kind != BN_TOK_STRING)
				return perr(p, t, "expected the suite's name in double quotes");
			fit(p->s->name, sizeof(p->s->name), "%s", t->text);
		} else if (!strcmp(kw->text, "watchdog")) {
			double v;

			if (bn_quantity_parse(t->text, BN_DIM_S, &v, NULL, 0) != BN_OK || !(v > 0))
				return perr(p, t, "bad watchdog \"%s\" (expected a time such as 20s)",
					    t->text);
			p->s->watchdog_s = v;
		} else if (!strcmp(kw->text, "fwdir")) {
			if (!p->o || !p->o->fwdir) {
				fit(p->s->fwdir, sizeof(p->s->fwdir), "%s", t->text);
				fit(p->fwdir_from, sizeof(p->fwdir_from), "from %s:%d", p->name, t->line);
			}
		} else {
			if (!find_file(p, t->text, p->s->limits, sizeof(p->s->limits)))
				return perr(p, kw, "cannot open limits file \"%s\" (looked for %s)", t->text,
					    p->tried);
		}
		return BN_OK;
	}
	if (!p->b)
		return perr(p, kw, "\"%s\" outside a scenario block (expected \"scenario FILE\" "
				   "first)", kw->text);
	if (!strcmp(kw->text, "xfail")) {
		p->b->xfail_line = kw->line;
		return read_rules(p, 1, kw, p->b->rules, &p->b->n_rules);
	}
	a = axis_of(kw->text);
	if (a < 0)
		return perr(p, kw, "unknown statement \"%s\" (expected port, charger, host, dut, "
				   "conditions, firmware, xfail or scenario)", kw->text);
	if (p->n < 2)
		return perr(p, kw, "\"%s\" needs at least one value", kw->text);
	if (a == BN_AXIS_FIRMWARE) {
		struct fw_value *fw;
		const struct bn_token *t = &p->toks[1];

		if (p->b->n_fw == MAX_VALUES)
			return perr(p, kw, "more than %d firmware lines in one block", MAX_VALUES);
		fw = &p->b->fw[p->b->n_fw];
		memset(fw, 0, sizeof(*fw));
		fw->line = kw->line;
		if (t->kind != BN_TOK_WORD && t->kind != BN_TOK_STRING)
			return perr(p, t, "expected a firmware name or .so file");
		fit(fw->name, sizeof(fw->name), "%s", t->text);
		rc = resolve_value(p, BN_AXIS_FIRMWARE, t, fw->path, sizeof(fw->path));
		if (rc < 0)
			return rc;
		if (p->n > 2) {
			const struct bn_token *x = &p->toks[2];

			if (!strcmp(x->text, "xerror")) {
				if (p->n > 3)
					return perr(p, &p->toks[3], "\"xerror\" takes no rules");
				fw->expect = BN_SUITE_EXPECT_ERROR;
			} else if (!strcmp(x->text, "xfail")) {
				fw->expect = BN_SUITE_EXPECT_FAIL;
				rc = read_rules(p, 3, x, fw->rules, &fw->n_rules);
				if (rc < 0)
					return rc;
			} else {
				return perr(p, x, "expected \"xfail RULE...\" or \"xerror\" after the "
						  "firmware (one firmware per line)");
			}
		}
		p->b->n_fw++;
		return BN_OK;
	}
	for (int i = 1; i < p->n; i++) {
		const struct bn_token *t = &p->toks[i];
		struct value *v;

		if (t->kind != BN_TOK_WORD && t->kind != BN_TOK_STRING)
			return perr(p, t, "expected a %s name or file", kw->text);
		if (p->b->n[a] == MAX_VALUES)
			return perr(p, t, "more than %d %s values", MAX_VALUES, kw->text);
		v = &p->b->v[a][p->b->n[a]];
		for (int k = 0; k < p->b->n[a]; k++)
			if (!strcmp(p->b->v[a][k].name, t->text))
				return perr(p, t, "%s \"%s\" given twice", kw->text, t->text);
		fit(v->name, sizeof(v->name), "%s", t->text);
		rc = resolve_value(p, a, t, v->path, sizeof(v->path));
		if (rc < 0)
			return rc;
		p->b->n[a]++;
	}
	return BN_OK;
}

int bn_suite_parse_text(const char *name, const char *text, const struct bn_suite_opts *o,
			struct bn_suite *out, struct bn_err *err)
{
	struct sp *p = calloc(1, sizeof(*p));
	struct bn_lexer lx;
	char buf[BN_SUITE_PATH_LEN];
	int cap = 0, rc = BN_OK;

	memset(out, 0, sizeof(*out));
	if (!p)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory", name);
	p->name = name;
	p->o = o;
	p->s = out;
	p->err = err;
	fit(buf, sizeof(buf), "%s", name);
	fit(p->dir, sizeof(p->dir), "%s", dirname(buf));
	fit(out->path, sizeof(out->path), "%s", name);
	if (o && o->fwdir) {
		fit(out->fwdir, sizeof(out->fwdir), "%s", o->fwdir);
		fit(p->fwdir_from, sizeof(p->fwdir_from), "from %s", o->fwdir_from ? o->fwdir_from : "--fwdir");
	} else if (o && o->fwdir_default) {
		fit(out->fwdir, sizeof(out->fwdir), "%s", o->fwdir_default);
		fit(p->fwdir_from, sizeof(p->fwdir_from), "the one beside the bcbench binary");
	} else {
		fit(out->fwdir, sizeof(out->fwdir), "build/fw");
		fit(p->fwdir_from, sizeof(p->fwdir_from), "the default");
	}
	bn_lexer_init(&lx, name, text);
	for (;;) {
		struct bn_token *t = &p->toks[p->n];

		rc = bn_lexer_next(&lx, t, err);
		if (rc < 0)
			break;
		if (t->kind == BN_TOK_EOL || t->kind == BN_TOK_EOF) {
			if (p->n)
				rc = statement(p, &cap);
			p->n = 0;
			if (rc < 0 || t->kind == BN_TOK_EOF)
				break;
			continue;
		}
		if (p->n == LINE_MAX_TOKS - 1) {
			rc = perr(p, t, "line too long (more than %d words)", LINE_MAX_TOKS - 2);
			break;
		}
		p->n++;
	}
	if (rc == BN_OK)
		rc = close_block(p, &cap);
	free(p->b);
	free(p);
	/* A suite with no entries parses: running it is "nothing to run"
	 * (exit 7), the caller's to say. */
	if (rc == BN_OK && !out->name[0]) {
		char *dot, *base;

		fit(buf, sizeof(buf), "%s", name);
		base = basename(buf);
		dot = strrchr(base, '.');
		if (dot && dot != base)
			*dot = '\0';
		fit(out->name, sizeof(out->name), "%s", base);
	}
	if (rc < 0)
		bn_suite_free(out);
	return rc;
}

int bn_suite_parse_file(const char *path, const struct bn_suite_opts *o, struct bn_suite *out,
			struct bn_err *err)
{
	char *text;
	size_t len;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = bn_file_read(path, &text, &len, err);
	if (rc < 0)
		return rc;
	if (memchr(text, '\0', len)) {
		free(text);
		return bn_err_set(err, BN_ERR_DATA, "%s: error: not a text file (a NUL byte)", path);
	}
	rc = bn_suite_parse_text(path, text, o, out, err);
	free(text);
	return rc;
}

void bn_suite_free(struct bn_suite *s)
{
	free(s->entries);
	s->entries = NULL;
	s->n_entries = 0;
}

int bn_suite_parse_shard(const char *arg, int *k, int *n, struct bn_err *err)
{
	char extra;

	if (sscanf(arg, "%d/%d%c", k, n, &extra) != 2 || *n < 1 || *k < 1 || *k > *n ||
	    !isdigit((unsigned char)arg[0]))
		return bn_err_set(err, BN_ERR_ARG, "--shard \"%s\": expected K/N with 1 <= K <= N, "
						   "e.g. 2/4", arg);
	return BN_OK;
}

static const struct bn_suite *sort_suite;

static int by_cost(const void *a, const void *b)
{
	const struct bn_suite_entry *x = &sort_suite->entries[*(const int *)a];
	const struct bn_suite_entry *y = &sort_suite->entries[*(const int *)b];

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->index - y->index;
}

static bool matches(const char *filter, const char *id)
{
	char pat[256];
	const char *p = filter;

	while (*p) {
		size_t n = strcspn(p, ",");

		fit(pat, sizeof(pat), "%.*s", (int)n, p);
		if (pat[0] && fnmatch(pat, id, 0) == 0)
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

int bn_suite_select(const struct bn_suite *s, const char *filter, int shard_k, int shard_n,
		    int *pick, int *n_matching)
{
	int n = 0, out = 0;

	for (int i = 0; i < s->n_entries; i++)
		if (!filter || matches(filter, s->entries[i].id))
			pick[n++] = i;
	*n_matching = n;
	sort_suite = s;
	qsort(pick, (size_t)n, sizeof(*pick), by_cost);
	sort_suite = NULL;
	for (int i = 0; i < n; i++)
		if (i % shard_n == shard_k - 1)
			pick[out++] = pick[i];
	return out;
}
