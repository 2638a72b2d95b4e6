/* The scenario parser: one statement per line, a table of statements,
 * errors like a compiler's ("FILE:LINE:COL: error: WHAT (expected ...)"). */
#include "scenario/scenario.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/file.h"
#include "core/suggest.h"
#include "scenario/expect.h"
#include "scenario/lexer.h"

#define MAX_BOUNCES 10000

struct parser;

typedef int (*stmt_fn)(struct parser *p, const struct bn_token *kw);

struct stmt {
	const char *word;
	bool setup;     /* set-up: at most once, before the first action */
	stmt_fn parse;
};

struct parser {
	const char *name;
	const char *src;
	struct bn_lexer lx;
	struct bn_token *toks; /* the current line, ending with EOL or EOF */
	int n_toks, cap_toks, i;
	struct bn_scenario *scn;
	int cap_steps;
	int first_action_line;
	bn_time_us total_wait_us; /* the waits so far: at most BN_SCN_MAX_TIME_S */
	int seen_line[32];     /* per statement of the table: first line, 0 */
	int end_line, end_col; /* just after the last token of the text */
	struct bn_err *err;
};

static const char *const op_strs[] = { "==", "!=", "<", "<=", ">", ">=" };
static const char *const stat_names[] = { "avg", "min", "max" };

const char *bn_cmp_op_str(enum bn_cmp_op op)
{
	return (unsigned)op < sizeof(op_strs) / sizeof(op_strs[0]) ? op_strs[op] : "?";
}

const char *bn_stat_name(enum bn_stat st)
{
	return (unsigned)st < sizeof(stat_names) / sizeof(stat_names[0]) ? stat_names[st] : "?";
}

/* An example per dimension for "expected a time such as 250ms". */
static const char *dim_example(enum bn_dim dim)
{
	switch (dim) {
	case BN_DIM_V: return "4.75V";
	case BN_DIM_A: return "500mA";
	case BN_DIM_S: return "250ms";
	case BN_DIM_HZ: return "100kHz";
	case BN_DIM_NONE: return "3";
	default: return "1";
	}
}

/* ---- errors ---- */

static int perr_at(struct parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perr_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	char msg[BN_ERR_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bn_err_set(p->err, BN_ERR_DATA, "%s:%d:%d: error: %s", p->name, line, col, msg);
}

#define perr(p, tok, ...) perr_at((p), (tok)->line, (tok)->col, __VA_ARGS__)

/* A token for messages: "word", the string "text" (without its escapes),
 * or end of line; long ones are cut. */
static const char *show(const struct bn_token *t, char *buf, size_t len)
{
	if (t->kind == BN_TOK_EOL || t->kind == BN_TOK_EOF)
		snprintf(buf, len, "%s", bn_tok_kind_name(t->kind));
	else
		snprintf(buf, len, "%s\"%.57s%s\"", t->kind == BN_TOK_STRING ? "the string " : "",
			 t->text, strlen(t->text) > 60 ? "..." : "");
	return buf;
}

#define SHOW(t) show((t), (char[96]){ 0 }, 96)

/* ---- tokens of the current line ---- */

static const struct bn_token *cur(struct parser *p)
{
	return &p->toks[p->i];
}

static const struct bn_token *peek(struct parser *p, int ahead)
{
	int j = p->i + ahead;

	return &p->toks[j < p->n_toks ? j : p->n_toks - 1];
}

static bool at_end(struct parser *p)
{
	enum bn_tok_kind k = cur(p)->kind;

	return k == BN_TOK_EOL || k == BN_TOK_EOF;
}

static void advance(struct parser *p)
{
	if (!at_end(p))
		p->i++;
}

/* Lex one line into p->toks. */
static int read_line(struct parser *p)
{
	p->n_toks = 0;
	p->i = 0;
	for (;;) {
		struct bn_token *t;
		int rc;

		if (p->n_toks > BN_SCN_MAX_TOKENS)
			return perr(p, &p->toks[BN_SCN_MAX_TOKENS],
				    "more than %d words on one line", BN_SCN_MAX_TOKENS);
		if (p->n_toks == p->cap_toks) {
			int cap = p->cap_toks ? p->cap_toks * 2 : 16;
			struct bn_token *nt = realloc(p->toks, (size_t)cap * sizeof(*nt));

			if (!nt)
				return bn_err_set(p->err, BN_ERR_NOMEM, "%s: out of memory", p->name);
			p->toks = nt;
			p->cap_toks = cap;
		}
		t = &p->toks[p->n_toks];
		rc = bn_lexer_next(&p->lx, t, p->err);
		if (rc != BN_OK)
			return rc;
		p->n_toks++;
		if (t->kind == BN_TOK_EOL || t->kind == BN_TOK_EOF)
			return BN_OK;
		p->end_line = t->line;
		p->end_col = t->col + (int)t->len;
	}
}

/* The column just after the previous token: where a missing one belongs. */
static int missing(struct parser *p, const struct bn_token *kw, const char *expected)
{
	const struct bn_token *prev = p->i > 0 ? &p->toks[p->i - 1] : kw;

	return perr_at(p, prev->line, prev->col + (int)prev->len,
		       "missing argument to \"%s\" (expected %s)", kw->text, expected);
}

static int expect_end(struct parser *p, const struct bn_token *kw)
{
	if (at_end(p))
		return BN_OK;
	return perr(p, cur(p), "extra argument %s to \"%s\" (expected end of line)", SHOW(cur(p)),
		    kw->text);
}

/* ---- arguments ---- */

static int arg_quantity(struct parser *p, const struct bn_token *kw, enum bn_dim dim,
			double *out, const struct bn_token **where)
{
	const struct bn_token *t = cur(p);
	char expected[64];

	snprintf(expected, sizeof(expected), "%s such as %s", bn_dim_name(dim), dim_example(dim));
	if (at_end(p))
		return missing(p, kw, expected);
	if (t->kind == BN_TOK_STRING)
		return perr(p, t, "expected %s, got %s (write quantities without quotes)", expected,
			    SHOW(t));
	if ((t->kind != BN_TOK_QUANTITY && t->kind != BN_TOK_WORD) ||
	    bn_quantity_parse(t->text, dim, out, NULL, 0) != BN_OK) {
		const struct bn_token *u = peek(p, 1);
		enum bn_dim udim;

		if (t->kind == BN_TOK_QUANTITY && u->kind == BN_TOK_WORD &&
		    bn_unit_lookup(u->text, &udim, NULL) == BN_OK && udim == dim)
			return perr(p, t, "bad quantity %s: expected %s (no space before the unit: %s%s)",
				    SHOW(t), expected, t->text, u->text);
		return perr(p, t, "bad quantity %s: expected %s", SHOW(t), expected);
	}
	if (where)
		*where = t;
	advance(p);
	return BN_OK;
}

static int arg_time(struct parser *p, const struct bn_token *kw, bn_time_us *out,
		    const struct bn_token **where)
{
	double s;
	int rc = arg_quantity(p, kw, BN_DIM_S, &s, where);

	if (rc != BN_OK)
		return rc;
	if (fabs(s) > 1e12)
		return perr(p, *where, "time %s out of range", SHOW(*where));
	*out = bn_time_from_s(s);
	return BN_OK;
}

/* A word or a string, copied into buf. */
static int arg_text(struct parser *p, const struct bn_token *kw, const char *expected,
		    bool words_too, char *buf, size_t len)
{
	const struct bn_token *t = cur(p);

	if (at_end(p))
		return missing(p, kw, expected);
	if (t->kind != BN_TOK_STRING && !(words_too && t->kind == BN_TOK_WORD))
		return perr(p, t, "expected %s, got %s", expected, SHOW(t));
	if (strlen(t->text) >= len)
		return perr(p, t, "%s too long (at most %zu bytes)", kw->text, len - 1);
	memcpy(buf, t->text, strlen(t->text) + 1);
	advance(p);
	return BN_OK;
}

static int arg_op(struct parser *p, const struct bn_token *kw, enum bn_cmp_op *op)
{
	const struct bn_token *t = cur(p);

	if (at_end(p))
		return missing(p, kw, "an operator: one of == != < <= > >=");
	for (unsigned k = 0; k < sizeof(op_strs) / sizeof(op_strs[0]); k++) {
		if (t->kind == BN_TOK_OP && strcmp(t->text, op_strs[k]) == 0) {
			*op = (enum bn_cmp_op)k;
			advance(p);
			return BN_OK;
		}
	}
	if (t->kind == BN_TOK_OP)
		return perr(p, t, "bad operator %s (expected one of == != < <= > >=)", SHOW(t));
	return perr(p, t, "expected an operator (one of == != < <= > >=), got %s", SHOW(t));
}

/* ---- steps ---- */

static struct bn_step *new_step(struct parser *p, const struct bn_token *kw,
				enum bn_step_kind kind)
{
	struct bn_scenario *scn = p->scn;
	struct bn_step *st;

	if (scn->n_steps == BN_SCN_MAX_STEPS) {
		perr(p, kw, "more than %d actions in one scenario", BN_SCN_MAX_STEPS);
		return NULL;
	}
	if (scn->n_steps == p->cap_steps) {
		int cap = p->cap_steps ? p->cap_steps * 2 : 16;
		struct bn_step *ns = realloc(scn->steps, (size_t)cap * sizeof(*ns));

		if (!ns) {
			bn_err_set(p->err, BN_ERR_NOMEM, "%s: out of memory", p->name);
			return NULL;
		}
		scn->steps = ns;
		p->cap_steps = cap;
	}
	st = &scn->steps[scn->n_steps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->line = kw->line;
	st->col = kw->col;
	return st;
}

#define NEW_STEP(st, p, kw, kind)                         \
	do {                                              \
		(st) = new_step((p), (kw), (kind));       \
		if (!(st))                                \
			return (p)->err && (p)->err->code \
				? (p)->err->code          \
				: BN_ERR_NOMEM;           \
	} while (0)

/* ---- set-up statements ---- */

static int st_name(struct parser *p, const struct bn_token *kw)
{
	int rc = arg_text(p, kw, "a name in double quotes such as \"DCP detection\"", false,
			  p->scn->name, sizeof(p->scn->name));

	return rc != BN_OK ? rc : expect_end(p, kw);
}

static int st_path(struct parser *p, const struct bn_token *kw, char *buf,
		   struct bn_scn_loc *loc, const char *expected)
{
	int rc = arg_text(p, kw, expected, true, buf, BN_SCN_PATH_LEN);

	if (rc != BN_OK)
		return rc;
	loc->line = kw->line;
	loc->col = kw->col;
	return expect_end(p, kw);
}

static int st_port(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->port, &p->scn->port_loc,
		       "a port name (sdp cdp dcp aca-a aca-b aca-c aca-dock otg float) or a .json file");
}

static int st_charger(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->charger, &p->scn->charger_loc,
		       "a charger name or a .json file");
}

static int st_host(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->host, &p->scn->host_loc, "a host name or a .json file");
}

static int st_dut(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->dut, &p->scn->dut_loc, "a dut name or a .json file");
}

static int st_firmware(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->firmware, &p->scn->firmware_loc,
		       "a firmware name or a .so file");
}

static int st_limits(struct parser *p, const struct bn_token *kw)
{
	return st_path(p, kw, p->scn->limits, &p->scn->limits_loc, "a limits .json file");
}

static int st_battery(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	double v;
	int rc = arg_quantity(p, kw, BN_DIM_V, &v, &t);

	if (rc != BN_OK)
		return rc;
	if (!(v > 0))
		return perr(p, t, "battery voltage must be > 0, got %s", SHOW(t));
	p->scn->battery_v = v;
	p->scn->has_battery_v = true;
	return expect_end(p, kw);
}

static int st_capture(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	unsigned mask = 0;
	double hz;
	int rc;

	/* `capture off`: verdicts only, no file (the default channels and rate) */
	if (!at_end(p) && cur(p)->kind == BN_TOK_WORD && strcmp(cur(p)->text, "off") == 0) {
		advance(p);
		p->scn->capture_off = true;
		p->scn->capture_loc = (struct bn_scn_loc){ kw->line, kw->col };
		return expect_end(p, kw);
	}
	while (!at_end(p) && !(cur(p)->kind == BN_TOK_WORD && strcmp(cur(p)->text, "at") == 0)) {
		int ch;

		t = cur(p);
		if (t->kind == BN_TOK_WORD && strcmp(t->text, "off") == 0)
			return perr(p, t, "\"off\" after channels (expected capture off on its own, or "
					  "capture CH... at RATE)");
		ch = t->kind == BN_TOK_WORD ? bn_chan_from_name(t->text) : -1;
		if (ch < 0)
			return perr(p, t, "unknown channel %s (expected vbus ibus dp dm id)", SHOW(t));
		if (mask & (1u << ch))
			return perr(p, t, "channel %s listed twice", SHOW(t));
		mask |= 1u << ch;
		advance(p);
	}
	if (at_end(p))
		return missing(p, kw, mask ? "\"at RATE\" such as at 100kHz"
					   : "channels (vbus ibus dp dm id) then \"at RATE\"");
	if (!mask)
		return perr(p, cur(p), "expected a channel (vbus ibus dp dm id) before \"at\"");
	advance(p); /* at */
	rc = arg_quantity(p, kw, BN_DIM_HZ, &hz, &t);
	if (rc != BN_OK)
		return rc;
	if (!(hz > 0))
		return perr(p, t, "capture rate must be > 0, got %s", SHOW(t));
	p->scn->capture_mask = mask;
	p->scn->capture_rate_hz = hz;
	p->scn->capture_loc = (struct bn_scn_loc){ kw->line, kw->col };
	return expect_end(p, kw);
}

static int st_data_delay(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	bn_time_us us;
	int rc = arg_time(p, kw, &us, &t);

	if (rc != BN_OK)
		return rc;
	if (us < 0)
		return perr(p, t, "data_delay must not be negative, got %s", SHOW(t));
	p->scn->data_delay_us = us;
	return expect_end(p, kw);
}

static int st_bounce(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	double n;
	bn_time_us us;
	int rc;

	if (at_end(p))
		return missing(p, kw, "a count such as 3, then a time such as 1ms");
	t = cur(p);
	if (t->kind != BN_TOK_QUANTITY || bn_quantity_parse(t->text, BN_DIM_NONE, &n, NULL, 0) ||
	    n < 0 || n > MAX_BOUNCES || n != floor(n))
		return perr(p, t, "bad bounce count %s: expected a whole number from 0 to %d",
			    SHOW(t), MAX_BOUNCES);
	advance(p);
	rc = arg_time(p, kw, &us, &t);
	if (rc != BN_OK)
		return rc;
	if (us <= 0)
		return perr(p, t, "bounce time must be > 0, got %s", SHOW(t));
	p->scn->bounce_n = (int)n;
	p->scn->bounce_us = us;
	return expect_end(p, kw);
}

/* ---- actions ---- */

static int st_vbus(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t = cur(p);
	struct bn_step *st;

	if (at_end(p))
		return missing(p, kw, "on or off");
	if (t->kind != BN_TOK_WORD || (strcmp(t->text, "on") && strcmp(t->text, "off")))
		return perr(p, t, "expected on or off, got %s", SHOW(t));
	NEW_STEP(st, p, kw, BN_STEP_VBUS);
	st->on = strcmp(t->text, "on") == 0;
	advance(p);
	return expect_end(p, kw);
}

static int st_bare(struct parser *p, const struct bn_token *kw, enum bn_step_kind kind)
{
	struct bn_step *st;

	NEW_STEP(st, p, kw, kind);
	return expect_end(p, kw);
}

static int st_plug(struct parser *p, const struct bn_token *kw)
{
	return st_bare(p, kw, BN_STEP_PLUG);
}

static int st_unplug(struct parser *p, const struct bn_token *kw)
{
	return st_bare(p, kw, BN_STEP_UNPLUG);
}

static int move_name(struct parser *p, const struct bn_token *kw, const char *what, char *buf,
		     size_t len)
{
	const struct bn_token *t;

	if (at_end(p))
		return missing(p, kw, what);
	t = cur(p);
	if (t->kind != BN_TOK_WORD && t->kind != BN_TOK_STRING)
		return perr(p, t, "expected %s, got %s", what, SHOW(t));
	if (strlen(t->text) >= len)
		return perr(p, t, "%s too long (at most %zu bytes)", what, len - 1);
	memcpy(buf, t->text, strlen(t->text) + 1);
	advance(p);
	return BN_OK;
}

static int st_move(struct parser *p, const struct bn_token *kw)
{
	struct bn_step *st;
	struct bn_move *m;
	int rc;

	NEW_STEP(st, p, kw, BN_STEP_MOVE);
	m = &st->move;
	m->data_delay_us = -1;
	m->bounce_n = -1;
	rc = move_name(p, kw, "a port name (sdp cdp dcp aca-a aca-b aca-c aca-dock otg float) or a "
		       ".json file", m->port, sizeof(m->port));
	while (rc == BN_OK && !at_end(p)) {
		const struct bn_token *t = cur(p), *q;
		double n;

		if (t->kind != BN_TOK_WORD)
			return perr(p, t, "expected charger, host, data_delay or bounce, got %s", SHOW(t));
		advance(p);
		if (!strcmp(t->text, "charger") && !m->charger[0]) {
			rc = move_name(p, t, "a charger name or a .json file", m->charger, sizeof(m->charger));
		} else if (!strcmp(t->text, "host") && !m->host[0]) {
			rc = move_name(p, t, "a host name or a .json file", m->host, sizeof(m->host));
		} else if (!strcmp(t->text, "data_delay") && m->data_delay_us < 0) {
			rc = arg_time(p, t, &m->data_delay_us, &q);
			if (rc == BN_OK && m->data_delay_us < 0)
				return perr(p, q, "data_delay must not be negative, got %s", SHOW(q));
		} else if (!strcmp(t->text, "bounce") && m->bounce_n < 0) {
			if (at_end(p))
				return missing(p, t, "a count such as 3, then a time such as 1ms");
			q = cur(p);
			if (q->kind != BN_TOK_QUANTITY || bn_quantity_parse(q->text, BN_DIM_NONE, &n, NULL, 0) ||
			    n < 0 || n > MAX_BOUNCES || n != floor(n))
				return perr(p, q, "bad bounce count %s: expected a whole number from 0 to %d",
					    SHOW(q), MAX_BOUNCES);
			advance(p);
			m->bounce_n = (int)n;
			rc = arg_time(p, t, &m->bounce_us, &q);
			if (rc == BN_OK && !(m->bounce_us > 0))
				return perr(p, q, "bounce time must be > 0, got %s", SHOW(q));
		} else if (!strcmp(t->text, "charger") || !strcmp(t->text, "host") ||
			   !strcmp(t->text, "data_delay") || !strcmp(t->text, "bounce")) {
			return perr(p, t, "\"%s\" given twice in one move", t->text);
		} else {
			return perr(p, t, "unknown move option %s (expected charger, host, data_delay or "
				    "bounce)", SHOW(t));
		}
	}
	return rc;
}

static int st_suspend(struct parser *p, const struct bn_token *kw)
{
	return st_bare(p, kw, BN_STEP_SUSPEND);
}

static int st_resume(struct parser *p, const struct bn_token *kw)
{
	return st_bare(p, kw, BN_STEP_RESUME);
}

static int st_wait(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	struct bn_step *st;
	bn_time_us us;
	int rc = arg_time(p, kw, &us, &t);

	if (rc != BN_OK)
		return rc;
	if (us <= 0)
		return perr(p, t, "wait of zero or negative time %s (expected a time > 0 such as 250ms)",
			    SHOW(t));
	if (us > bn_time_from_s(BN_SCN_MAX_TIME_S))
		return perr(p, t, "wait of %s is longer than %.0f h (the longest a scenario may run)",
			    SHOW(t), BN_SCN_MAX_TIME_S / 3600);
	if (p->total_wait_us + us > bn_time_from_s(BN_SCN_MAX_TIME_S))
		return perr(p, t, "the waits add up to more than %.0f h (the longest a scenario may run)",
			    BN_SCN_MAX_TIME_S / 3600);
	p->total_wait_us += us;
	NEW_STEP(st, p, kw, BN_STEP_WAIT);
	st->dur_us = us;
	return expect_end(p, kw);
}

static int st_load(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t = cur(p);
	struct bn_step *st;
	double a = 0;
	int rc;

	if (t->kind == BN_TOK_WORD && strcmp(t->text, "off") == 0) {
		NEW_STEP(st, p, kw, BN_STEP_LOAD);
		st->load_off = true;
		advance(p);
		return expect_end(p, kw);
	}
	if (at_end(p))
		return missing(p, kw, "a current such as 500mA, or off");
	rc = arg_quantity(p, kw, BN_DIM_A, &a, &t);
	if (rc != BN_OK)
		return rc;
	if (a < 0)
		return perr(p, t, "load current must not be negative, got %s", SHOW(t));
	NEW_STEP(st, p, kw, BN_STEP_LOAD);
	st->load_a = a;
	return expect_end(p, kw);
}

static int st_mark(struct parser *p, const struct bn_token *kw)
{
	char buf[sizeof(((struct bn_step *)0)->mark)];
	struct bn_step *st;
	int rc = arg_text(p, kw, "a text in double quotes such as \"attach\"", false, buf,
			  sizeof(buf));

	if (rc != BN_OK)
		return rc;
	NEW_STEP(st, p, kw, BN_STEP_MARK);
	memcpy(st->mark, buf, sizeof(buf));
	return expect_end(p, kw);
}

static int expect_stat(struct parser *p, const struct bn_token *kw, struct bn_expect *e)
{
	const struct bn_token *t = cur(p);
	const struct bn_token *q;
	int ch, rc;
	unsigned k;

	for (k = 0; k < sizeof(stat_names) / sizeof(stat_names[0]); k++)
		if (strcmp(t->text, stat_names[k]) == 0)
			break;
	if (k == sizeof(stat_names) / sizeof(stat_names[0]))
		return perr(p, t, "unknown statistic %s (expected avg min max)", SHOW(t));
	e->kind = BN_EXPECT_STAT;
	e->stat = (enum bn_stat)k;
	advance(p);
	advance(p); /* ( */

	t = cur(p);
	if (at_end(p))
		return missing(p, kw, "a channel: vbus ibus dp dm id");
	ch = t->kind == BN_TOK_WORD ? bn_chan_from_name(t->text) : -1;
	if (ch < 0)
		return perr(p, t, "unknown channel %s (expected vbus ibus dp dm id)", SHOW(t));
	e->chan = (enum bn_chan)ch;
	advance(p);

	t = cur(p);
	if (at_end(p))
		return missing(p, kw, "\",\" then a time window such as 250ms");
	if (t->kind != BN_TOK_COMMA)
		return perr(p, t, "expected \",\" after the channel, got %s (as in %s(%s, 250ms))",
			    SHOW(t), bn_stat_name(e->stat), bn_chan_name(e->chan));
	advance(p);

	rc = arg_time(p, kw, &e->window_us, &q);
	if (rc != BN_OK)
		return rc;
	if (e->window_us > bn_time_from_s(BN_SCN_MAX_TIME_S))
		return perr(p, q, "window of %s is longer than %.0f h (the longest a scenario may run)",
			    SHOW(q), BN_SCN_MAX_TIME_S / 3600);
	if (e->window_us <= 0)
		return perr(p, q, "window of zero or negative time %s (expected a time > 0 such as 250ms)",
			    SHOW(q));

	t = cur(p);
	if (at_end(p))
		return missing(p, kw, "\")\"");
	if (t->kind != BN_TOK_RPAREN)
		return perr(p, t, "expected \")\" after the window, got %s", SHOW(t));
	advance(p);

	rc = arg_op(p, kw, &e->op);
	if (rc != BN_OK)
		return rc;
	if (bn_unit_lookup(bn_chan_unit(e->chan), &e->dim, NULL) != BN_OK)
		return bn_err_set(p->err, BN_ERR_BUG, "%s: no unit for channel %s", p->name,
				  bn_chan_name(e->chan));
	return arg_quantity(p, kw, e->dim, &e->value, NULL);
}

/* A key one slip away from one the bench knows is that one mistyped
 * ("dut.prot"); a key far from all of them may be a firmware's own. */
static int known_key(struct parser *p, const struct bn_token *t, const char *key)
{
	int n;
	const char *const *keys = bn_telemetry_keys(&n);
	const char *near;
	char list[400];

	for (int i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return BN_OK;
	near = bn_suggest_nearest(key, keys, n);
	if (!near)
		return BN_OK;
	bn_suggest_text("", keys, n, list, sizeof(list));
	return perr(p, t, "unknown telemetry key \"dut.%s\" (did you mean dut.%s? the keys the bench "
		    "knows: %s)", key, near, list);
}

/* Every rule id and each family above it ("bc12", "bc12.det"): what a
 * check step may name. */
static int rule_names(const char ***names)
{
	enum { FAM_LEN = 32 };
	int n_rules = bn_rules_count(), n = 0, n_fam = 0, max_fam = n_rules * 3;
	/* the pointers, then the families' text, in one block */
	const char **out = malloc((size_t)(n_rules + max_fam) * sizeof(*out) + (size_t)max_fam * FAM_LEN);
	char(*fam)[FAM_LEN] = out ? (char(*)[FAM_LEN])(out + n_rules + max_fam) : NULL;

	*names = out;
	if (!out)
		return 0;
	for (int i = 0; i < n_rules; i++) {
		const char *id = bn_rule_at(i)->id;

		out[n++] = id;
		for (const char *dot = strchr(id, '.'); dot; dot = strchr(dot + 1, '.')) {
			int k, len = (int)(dot - id);

			for (k = 0; k < n_fam; k++)
				if ((int)strlen(fam[k]) == len && !strncmp(fam[k], id, (size_t)len))
					break;
			if (k == n_fam && n_fam < max_fam && len < FAM_LEN) {
				snprintf(fam[n_fam], FAM_LEN, "%.*s", len, id);
				out[n++] = fam[n_fam++];
			}
		}
	}
	return n;
}

static int known_rule(struct parser *p, const struct bn_token *t)
{
	const char **names;
	const char *near;
	int n, rc;

	if (bn_rule_name_known(t->text))
		return BN_OK;
	n = rule_names(&names);
	near = bn_suggest_nearest(t->text, names, n);
	if (near)
		rc = perr(p, t, "unknown check \"%s\" (did you mean %s? expected a rule id or family "
			  "such as bc12.det; bcbench(1) lists them)", t->text, near);
	else
		rc = perr(p, t, "unknown check \"%s\" (expected a rule id or family such as bc12.det; "
			  "bcbench(1) lists them)", t->text);
	free(names);
	return rc;
}

static int expect_telemetry(struct parser *p, const struct bn_token *kw, struct bn_expect *e)
{
	const struct bn_token *t = cur(p);
	const char *key = t->text + 4;
	int rc;

	if (key[0] == '\0')
		return perr(p, t, "missing key after \"dut.\" (expected e.g. dut.port)");
	if (strlen(key) >= sizeof(e->key))
		return perr(p, t, "telemetry key too long (at most %zu bytes)", sizeof(e->key) - 1);
	e->kind = BN_EXPECT_TELEMETRY;
	memcpy(e->key, key, strlen(key) + 1);
	rc = known_key(p, t, key);
	if (rc != BN_OK)
		return rc;
	advance(p);

	rc = arg_op(p, kw, &e->op);
	if (rc != BN_OK)
		return rc;

	t = cur(p);
	if (at_end(p))
		return missing(p, kw, "a number, a quantity such as 500mA, or a word");
	if (t->kind == BN_TOK_WORD || t->kind == BN_TOK_STRING) {
		if (e->op != BN_OP_EQ && e->op != BN_OP_NE)
			return perr(p, t, "operator \"%s\" needs a number or a quantity, got the word %s (use == or !=)",
				    bn_cmp_op_str(e->op), SHOW(t));
		if (strlen(t->text) >= sizeof(e->word))
			return perr(p, t, "word too long (at most %zu bytes)", sizeof(e->word) - 1);
		e->is_word = true;
		memcpy(e->word, t->text, strlen(t->text) + 1);
		e->dim = BN_DIM_NONE;
	} else if (t->kind != BN_TOK_QUANTITY ||
		   bn_quantity_parse_any(t->text, &e->dim, &e->value, NULL, 0) != BN_OK) {
		return perr(p, t, "bad value %s: expected a number, a quantity such as 500mA, or a word",
			    SHOW(t));
	} else if (e->dim != BN_DIM_NONE && bn_expect_key_dim(e->key) != e->dim) {
		/* A quantity compared with a telemetry key of another unit. */
		return perr(p, t, "dut.%s is not %s (expected a key ending in _ma for a current or "
			    "_mv for a voltage, or a bare number)", e->key, bn_dim_name(e->dim));
	}
	advance(p);
	return BN_OK;
}

static int st_expect(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t = cur(p);
	const struct bn_token *last;
	struct bn_expect e;
	size_t len;
	int rc;

	memset(&e, 0, sizeof(e));
	if (at_end(p))
		return missing(p, kw, "dut.KEY OP VALUE or avg|min|max(CH, TIME) OP QUANTITY");
	if (t->kind == BN_TOK_WORD && peek(p, 1)->kind == BN_TOK_LPAREN)
		rc = expect_stat(p, kw, &e);
	else if (t->kind == BN_TOK_WORD && strncmp(t->text, "dut.", 4) == 0)
		rc = expect_telemetry(p, kw, &e);
	else
		rc = perr(p, t, "unknown expectation %s (expected dut.KEY or avg|min|max(CH, TIME))",
			  SHOW(t));
	if (rc != BN_OK)
		return rc;
	rc = expect_end(p, kw);
	if (rc != BN_OK)
		return rc;

	/* The statement as written, without the comment and blanks around. */
	last = &p->toks[p->i - 1];
	len = last->off + last->len - kw->off;
	if (len >= sizeof(e.text))
		len = sizeof(e.text) - 1;
	memcpy(e.text, p->src + kw->off, len);
	e.text[len] = '\0';

	{
		struct bn_step *st;

		NEW_STEP(st, p, kw, BN_STEP_EXPECT);
		st->expect = e;
	}
	return BN_OK;
}

static int st_check(struct parser *p, const struct bn_token *kw)
{
	struct bn_step *st;

	if (at_end(p))
		return missing(p, kw, "a check ID such as bc12.det");
	NEW_STEP(st, p, kw, BN_STEP_CHECK);
	while (!at_end(p)) {
		const struct bn_token *t = cur(p);

		if (t->kind != BN_TOK_WORD)
			return perr(p, t, "expected a check ID such as bc12.det, got %s", SHOW(t));
		if (st->n_checks == BN_SCN_MAX_CHECKS)
			return perr(p, t, "too many checks on one line (at most %d)", BN_SCN_MAX_CHECKS);
		if (strlen(t->text) >= sizeof(st->checks[0]))
			return perr(p, t, "check ID too long (at most %zu bytes)",
				    sizeof(st->checks[0]) - 1);
		if (known_rule(p, t) != BN_OK)
			return BN_ERR_DATA;
		memcpy(st->checks[st->n_checks++], t->text, strlen(t->text) + 1);
		advance(p);
	}
	return BN_OK;
}

static int st_measure(struct parser *p, const struct bn_token *kw)
{
	const struct bn_token *t;
	char why[200];
	int ch, rc;

	if (at_end(p))
		return missing(p, kw, "a channel (vbus ibus dp dm id) or seed");
	t = cur(p);
	if (t->kind == BN_TOK_WORD && !strcmp(t->text, "seed")) {
		double n;

		advance(p);
		if (at_end(p))
			return missing(p, kw, "a whole number such as 7");
		t = cur(p);
		if (t->kind != BN_TOK_QUANTITY || bn_quantity_parse(t->text, BN_DIM_NONE, &n, NULL, 0) ||
		    n < 0 || n > 9007199254740992.0 || n != floor(n))
			return perr(p, t, "bad seed %s: expected a whole number >= 0", SHOW(t));
		if (p->scn->has_meas_seed)
			return perr(p, kw, "\"measure seed\" given twice");
		p->scn->has_meas_seed = true;
		p->scn->meas_seed = (unsigned long long)n;
		advance(p);
		return expect_end(p, kw);
	}
	ch = t->kind == BN_TOK_WORD ? bn_chan_from_name(t->text) : -1;
	if (ch < 0)
		return perr(p, t, "unknown channel %s (expected vbus ibus dp dm id, or seed)", SHOW(t));
	if (p->scn->meas_loc[ch].line)
		return perr(p, t, "\"measure %s\" given twice (first at line %d)", bn_chan_name(ch),
			    p->scn->meas_loc[ch].line);
	advance(p);
	if (at_end(p))
		return missing(p, kw, "the measurement in double quotes such as \"noise=3mV,bits=12,range=0V..6V\"");
	t = cur(p);
	if (t->kind != BN_TOK_STRING)
		return perr(p, t, "expected the measurement in double quotes such as "
			    "\"noise=3mV,bits=12,range=0V..6V\", got %s", SHOW(t));
	rc = bn_meas_parse(t->text, ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V, &p->scn->meas[ch], why,
			   sizeof(why));
	if (rc < 0)
		return perr(p, t, "bad measurement for %s: %s", bn_chan_name(ch), why);
	p->scn->meas_loc[ch] = (struct bn_scn_loc){ kw->line, kw->col };
	advance(p);
	return expect_end(p, kw);
}

/* The statements, in the order messages list them. */
static const struct stmt stmts[] = {
	{ "name", true, st_name },
	{ "port", true, st_port },
	{ "charger", true, st_charger },
	{ "host", true, st_host },
	{ "dut", true, st_dut },
	{ "firmware", true, st_firmware },
	{ "limits", true, st_limits },
	{ "battery", true, st_battery },
	{ "capture", true, st_capture },
	{ "data_delay", true, st_data_delay },
	{ "bounce", true, st_bounce },
	{ "measure", true, st_measure },
	{ "vbus", false, st_vbus },
	{ "plug", false, st_plug },
	{ "unplug", false, st_unplug },
	{ "move", false, st_move },
	{ "wait", false, st_wait },
	{ "load", false, st_load },
	{ "suspend", false, st_suspend },
	{ "resume", false, st_resume },
	{ "mark", false, st_mark },
	{ "expect", false, st_expect },
	{ "check", false, st_check },
};

#define N_STMTS (sizeof(stmts) / sizeof(stmts[0]))

_Static_assert(N_STMTS <= sizeof(((struct parser *)0)->seen_line) / sizeof(int),
	       "seen_line too small");

static void stmt_list(char *buf, size_t len, bool actions_only)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < N_STMTS && n < len; k++) {
		if (actions_only && stmts[k].setup)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", stmts[k].word);
	}
}

static int parse_statement(struct parser *p)
{
	const struct bn_token *kw = cur(p);
	char list[256];
	size_t k;

	if (kw->kind != BN_TOK_WORD) {
		stmt_list(list, sizeof(list), false);
		return perr(p, kw, "expected a step, got %s (expected one of: %s)", SHOW(kw), list);
	}
	for (k = 0; k < N_STMTS; k++)
		if (strcmp(kw->text, stmts[k].word) == 0)
			break;
	if (k == N_STMTS) {
		stmt_list(list, sizeof(list), false);
		return perr(p, kw, "unknown step %s (expected one of: %s)", SHOW(kw), list);
	}
	if (stmts[k].setup) {
		if (p->first_action_line)
			return perr(p, kw, "set-up statement \"%s\" after the first action (line %d)",
				    kw->text, p->first_action_line);
		/* measure: once per channel, st_measure checks */
		if (p->seen_line[k] && stmts[k].parse != st_measure)
			return perr(p, kw, "\"%s\" given twice (first at line %d)", kw->text,
				    p->seen_line[k]);
		p->seen_line[k] = kw->line;
	} else if (!p->first_action_line) {
		p->first_action_line = kw->line;
	}
	advance(p);
	return stmts[k].parse(p, kw);
}

int bn_scenario_parse_text(const char *name, const char *text, struct bn_scenario *out,
			   struct bn_err *err)
{
	struct parser p;
	int rc = BN_OK;

	memset(out, 0, sizeof(*out));
	out->capture_mask = BN_CH_ALL;
	out->capture_rate_hz = 10e3;
	out->data_delay_us = -1;
	if (!name || !text)
		return bn_err_set(err, BN_ERR_ARG, "scenario: no name or no text");
	if (strlen(name) >= sizeof(out->path))
		return bn_err_set(err, BN_ERR_ARG, "%.64s...: path too long", name);
	memcpy(out->path, name, strlen(name) + 1);

	memset(&p, 0, sizeof(p));
	p.name = name;
	p.src = text;
	p.scn = out;
	p.err = err;
	p.end_line = 1;
	p.end_col = 1;
	bn_lexer_init(&p.lx, name, text);
	for (;;) {
		rc = read_line(&p);
		if (rc != BN_OK)
			break;
		if (!at_end(&p)) {
			rc = parse_statement(&p);
			if (rc != BN_OK)
				break;
		}
		if (p.toks[p.n_toks - 1].kind == BN_TOK_EOF)
			break;
	}
	if (rc == BN_OK && out->n_steps == 0) {
		char list[256];

		stmt_list(list, sizeof(list), true);
		rc = perr_at(&p, p.end_line, p.end_col,
			     "scenario has no actions (expected at least one of: %s)", list);
	}
	free(p.toks);
	if (rc != BN_OK) {
		bn_scenario_free(out);
		memset(out, 0, sizeof(*out));
		return rc;
	}
	return BN_OK;
}

/* A NUL byte would end the text early: say where it is. */
static int check_nul(const char *path, const char *buf, size_t len, struct bn_err *err)
{
	const char *nul = memchr(buf, '\0', len);
	const char *ls;
	int line = 1;

	if (!nul)
		return BN_OK;
	for (const char *c = buf; c < nul; c++)
		line += *c == '\n';
	for (ls = nul; ls > buf && ls[-1] != '\n'; ls--)
		;
	return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: NUL byte in a scenario (a binary file?)",
			  path, line, (int)(nul - ls + 1));
}

int bn_scenario_parse_file(const char *path, struct bn_scenario *out, struct bn_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!path)
		return bn_err_set(err, BN_ERR_ARG, "scenario: no path");
	rc = bn_file_read(path, &text, &len, err);
	if (rc != BN_OK)
		return rc;
	if (len > BN_SCN_MAX_BYTES)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: error: %zu bytes, more than a scenario may have "
				"(%d)", path, len, BN_SCN_MAX_BYTES);
	if (rc == BN_OK)
		rc = check_nul(path, text, len, err);
	if (rc == BN_OK)
		rc = bn_scenario_parse_text(path, text, out, err);
	if (rc == BN_OK) /* for the record, from the bytes parsed: one read */
		bn_sha256_hex(text, len, out->sha256);
	free(text);
	return rc;
}

void bn_scenario_free(struct bn_scenario *scn)
{
	if (!scn)
		return;
	free(scn->steps);
	scn->steps = NULL;
	scn->n_steps = 0;
}

bn_time_us bn_scenario_duration_us(const struct bn_scenario *scn, bn_time_us move_us)
{
	bn_time_us t = 0;

	for (int i = 0; i < scn->n_steps; i++)
		if (scn->steps[i].kind == BN_STEP_WAIT)
			t += scn->steps[i].dur_us;
		else if (scn->steps[i].kind == BN_STEP_MOVE)
			t += move_us;
	return t;
}
