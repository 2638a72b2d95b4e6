#include "report/junit.h"

#include <stdarg.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exit.h"
#include "core/file.h"
#include "report/report.h"
#include "report/suite_doc.h"

#define JUNIT_SUITE_SCHEMA BN_SUITE_SCHEMA
#define JUNIT_WHAT "suite document"

/* A growing text buffer; an allocation failure is sticky and checked once
 * at the end, so the writers below stay void. */
struct jbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

/* What one <testsuite> (or the whole file) holds. */
struct jcount {
	int tests, failures, errors, skipped;
	double time_s;
};

enum tc_kind { TC_PASS, TC_FAILURE, TC_ERROR, TC_SKIPPED };

struct tc {
	const char *classname;
	const char *name;
	double time_s;
	enum tc_kind kind;
	const char *type;    /* failure and error */
	const char *message; /* failure, error, skipped */
	const char *out;     /* <system-out>, NULL for none */
	/* The side a rule's result judges, "device" or "port", as the
	 * testcase's group: the schema CI tools validate against (Jenkins'
	 * junit-10.xsd) has no properties in a testcase. NULL: none. */
	const char *group;
};

static void jb_reserve(struct jbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom)
		return;
	if (b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 1024;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void jb_putn(struct jbuf *b, const char *s, size_t n)
{
	jb_reserve(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jb_puts(struct jbuf *b, const char *s)
{
	jb_putn(b, s, strlen(s));
}

static __attribute__((format(printf, 2, 3))) void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	jb_reserve(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static const char *jb_str(const struct jbuf *b)
{
	return b->p ? b->p : "";
}

static void jb_free(struct jbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Length of the well-formed UTF-8 sequence at s that encodes a character
 * XML 1.0 allows (tab, newline, CR, U+0020..U+D7FF, U+E000..U+FFFD,
 * U+10000..U+10FFFF), or 0. */
static size_t xml_char_len(const unsigned char *s)
{
	unsigned c = s[0];

	if (c < 0x80)
		return c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* UTF-16 surrogate */
		if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0; /* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

/* s escaped for an attribute value (attr) or character data. A byte that
 * starts no allowed character (a control byte, broken UTF-8) becomes
 * U+FFFD. In attributes tab, newline and CR are written as references so
 * attribute normalisation keeps them. */
static void jb_esc(struct jbuf *b, const char *s, bool attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = xml_char_len(p);

		if (n == 0) {
			jb_puts(b, "\xef\xbf\xbd");
			p++;
			continue;
		}
		switch (*p) {
		case '&': jb_puts(b, "&amp;"); break;
		case '<': jb_puts(b, "&lt;"); break;
		case '>': jb_puts(b, "&gt;"); break;
		case '"': jb_puts(b, "&quot;"); break;
		case '\'': jb_puts(b, "&apos;"); break;
		case '\r': jb_puts(b, "&#13;"); break;
		case '\t': jb_puts(b, attr ? "&#9;" : "\t"); break;
		case '\n': jb_puts(b, attr ? "&#10;" : "\n"); break;
		default: jb_putn(b, (const char *)p, n); break;
		}
		p += n;
	}
}

/* name="value" with a leading space. */
static void jb_attr(struct jbuf *b, const char *name, const char *value)
{
	jb_printf(b, " %s=\"", name);
	jb_esc(b, value, true);
	jb_puts(b, "\"");
}

static void jb_attr_int(struct jbuf *b, const char *name, int v)
{
	jb_printf(b, " %s=\"%d\"", name, v);
}

/* A time in seconds: at most 3 decimals, never an exponent (the Jenkins
 * xUnit schema's SUREFIRE_TIME pattern refuses 0.0392704 and 1e-05). */
static void jb_attr_num(struct jbuf *b, const char *name, double v)
{
	jb_printf(b, " %s=\"%.3f\"", name, v > 0 && isfinite(v) ? v : 0.0);
}

/* Typed lookups: NULL / false when absent or of another type. */
static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		return false;
	*out = v->valuedouble;
	return true;
}

static const cJSON *jobj(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsObject(v) ? v : NULL;
}

static const cJSON *jarr(const cJSON *o, const char *key)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	return cJSON_IsArray(v) ? v : NULL;
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* ---- checking the document ---- */

static const char *const known_verdicts[] = {
	"pass", "fail", "inconclusive", "skipped", "error", NULL,
};

#define RES_AT "%s: entries[%d].report.results[%d]"

static int check_result(const cJSON *res, int e, int r, struct bn_err *err)
{
	const char *verdict;

	if (!cJSON_IsObject(res))
		return bn_err_set(err, BN_ERR_DATA, RES_AT ": expected an object", JUNIT_WHAT, e,
				  r);
	if (!jstr(res, "id"))
		return bn_err_set(err, BN_ERR_DATA, RES_AT ": key \"id\": expected a string",
				  JUNIT_WHAT, e, r);
	verdict = jstr(res, "verdict");
	if (!verdict)
		return bn_err_set(err, BN_ERR_DATA, RES_AT ": key \"verdict\": expected a string",
				  JUNIT_WHAT, e, r);
	for (int i = 0; known_verdicts[i]; i++)
		if (strcmp(verdict, known_verdicts[i]) == 0)
			return BN_OK;
	return bn_err_set(err, BN_ERR_DATA, RES_AT ": unknown verdict \"%s\"", JUNIT_WHAT, e, r,
			  verdict);
}

static int check_entry(const cJSON *ent, int e, struct bn_err *err)
{
	const cJSON *rep;

	if (!cJSON_IsObject(ent))
		return bn_err_set(err, BN_ERR_DATA, "%s: entries[%d]: expected an object",
				  JUNIT_WHAT, e);
	if (!jstr(ent, "id"))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entries[%d]: key \"id\": expected a string", JUNIT_WHAT, e);
	rep = cJSON_GetObjectItemCaseSensitive(ent, "report");
	if (rep && !cJSON_IsNull(rep) && !cJSON_IsObject(rep))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entries[%d]: key \"report\": expected {\"path\", "
				  "\"sha256\"} or null",
				  JUNIT_WHAT, e);
	return BN_OK;
}

/* An entry's report, read from its file: its results are checked here,
 * when it is read, one entry at a time. */
static int check_report(const cJSON *rep, int e, struct bn_err *err)
{
	const cJSON *results, *res;
	int r = 0;

	results = cJSON_GetObjectItemCaseSensitive(rep, "results");
	if (!results)
		return BN_OK;
	if (!cJSON_IsArray(results))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entries[%d].report: key \"results\": expected an array",
				  JUNIT_WHAT, e);
	cJSON_ArrayForEach(res, results) {
		if (check_result(res, e, r, err) < 0)
			return err->code;
		r++;
	}
	return BN_OK;
}

static int check_doc(const cJSON *doc, struct bn_err *err)
{
	const cJSON *entries, *ent;
	const char *schema;
	int e = 0;

	if (!cJSON_IsObject(doc))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected a JSON object", JUNIT_WHAT);
	schema = jstr(doc, "schema");
	if (!schema)
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"schema\": missing, expected \"%s\"",
				  JUNIT_WHAT, JUNIT_SUITE_SCHEMA);
	if (strcmp(schema, JUNIT_SUITE_SCHEMA) != 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: schema \"%s\", expected \"%s\"",
				  JUNIT_WHAT, schema, JUNIT_SUITE_SCHEMA);
	entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	if (!cJSON_IsArray(entries))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"entries\": %s", JUNIT_WHAT,
				  entries ? "expected an array" : "missing");
	cJSON_ArrayForEach(ent, entries) {
		if (check_entry(ent, e, err) < 0)
			return err->code;
		e++;
	}
	return BN_OK;
}

/* ---- testcase names ---- */

/* A rule's title in a name is cut at a word to about this many characters. */
#define NAME_TITLE_CHARS 100

/* The names given in one <testsuite>: CI tools key a testcase by
 * classname and name, and GitLab keeps only the first of two alike. */
struct names {
	char **v;
	int n, cap;
	bool oom;
};

static void names_free(struct names *u)
{
	for (int i = 0; i < u->n; i++)
		free(u->v[i]);
	free(u->v);
	memset(u, 0, sizeof(*u));
}

static bool names_has(const struct names *u, const char *s)
{
	for (int i = 0; i < u->n; i++)
		if (strcmp(u->v[i], s) == 0)
			return true;
	return false;
}

/* base, or "base #2", "base #3", ... the first not given yet in this
 * testsuite; owned by u. */
static const char *names_unique(struct names *u, const char *base)
{
	struct jbuf b = { 0 };
	char *kept;

	jb_puts(&b, base);
	for (int k = 2; !b.oom && names_has(u, jb_str(&b)); k++) {
		b.len = 0;
		jb_printf(&b, "%s #%d", base, k);
	}
	if (!b.oom && u->n == u->cap) {
		int cap = u->cap ? 2 * u->cap : 16;
		char **v = realloc(u->v, (size_t)cap * sizeof(*v));

		if (v) {
			u->v = v;
			u->cap = cap;
		}
	}
	if (b.oom || u->n == u->cap) {
		jb_free(&b);
		u->oom = true;
		return base;
	}
	kept = b.p ? b.p : strdup("");
	if (!kept) {
		u->oom = true;
		return base;
	}
	u->v[u->n++] = kept;
	return kept;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* s with each run of white space made one space, none at the ends (a
 * statement as written is aligned with spaces), cut after max characters
 * at the last word that fits, "…" marking the cut. A byte that starts no
 * character counts as one (the escaping replaces it). */
static void put_words(struct jbuf *b, const char *s, int max)
{
	struct jbuf w = { 0 };
	size_t cut = 0, i = 0;
	int chars = 0;

	for (const char *p = s ? s : ""; *p; p++) {
		if (!is_space(*p))
			jb_putn(&w, p, 1);
		else if (w.len && !is_space(p[1]) && p[1])
			jb_puts(&w, " ");
	}
	while (i < w.len && chars < max) {
		size_t n = xml_char_len((const unsigned char *)w.p + i);

		i += n ? n : 1;
		chars++;
		if (i < w.len && w.p[i] == ' ')
			cut = i;
	}
	if (i >= w.len) {
		jb_putn(b, jb_str(&w), w.len);
	} else {
		if (!cut)
			cut = i; /* one long word: cut inside it, on a character */
		while (cut > 0 && strchr(" ,;:", w.p[cut - 1]))
			cut--;
		jb_putn(b, w.p, cut);
		jb_puts(b, "\xe2\x80\xa6");
	}
	b->oom |= w.oom;
	jb_free(&w);
}

/* What a result's testcase is called: "expect: TEXT (line N)" for a
 * scenario expectation (its statement without the keyword), "ID: TITLE"
 * for a rule (the title cut at a word), the id alone when there is no
 * text. */
static void case_name(struct jbuf *b, const cJSON *res)
{
	const char *id = jstr(res, "id"), *text = jstr(res, "text");
	const char *title = jstr(res, "title");
	double line = 0;
	int l = 0;

	if (streq(jstr(res, "kind"), "expect") || (id && strncmp(id, "expect.", 7) == 0)) {
		if (jnum(res, "line", &line) && line >= 1 && line < 1e9)
			l = (int)line;
		else if (id && sscanf(id, "expect.L%d", &l) != 1)
			l = 0;
		while (text && is_space(*text))
			text++;
		if (text && strncmp(text, "expect", 6) == 0 && is_space(text[6]))
			text += 6;
		while (text && is_space(*text))
			text++;
		if (!text || !text[0]) {
			jb_puts(b, id ? id : "expect");
			return;
		}
		jb_puts(b, "expect: ");
		put_words(b, text, 4 * NAME_TITLE_CHARS);
		if (l > 0)
			jb_printf(b, " (line %d)", l);
		return;
	}
	if (!title || !title[0])
		title = text;
	jb_puts(b, id ? id : "?");
	if (title && title[0]) {
		jb_puts(b, ": ");
		put_words(b, title, NAME_TITLE_CHARS);
	}
}

/* ---- one entry ---- */

struct entry_view {
	const cJSON *ent;
	const cJSON *report; /* NULL when none was written */
	const char *id;
	const char *outcome;        /* the entry's outcome, "" if absent */
	const char *expect_outcome; /* "pass", "fail", "error", "" if absent */
	const cJSON *expect_rules;  /* array or NULL */
	bool completed;             /* a report whose status.state is completed */
	const char *classname;      /* "bcbench." + id, '/' -> '.' */
	struct names *names;        /* the testcase names given so far */
	const char *judges;         /* the side the report judges: "device" or "port" */
	/* why the entry ended in error (core/exit.h cause, the JUnit type of
	 * its errors); an expected error only when it is as expected */
	const char *error_cause;
	bool expected_error;
};

/* Why an entry ended in error: its "exit_cause"; from a record written
 * before it, its exit code's cause, else the device's. */
static const char *entry_error_cause(const cJSON *ent)
{
	const char *c = jstr(ent, "exit_cause");
	double code;

	if (c && bn_exit_from_cause(c, 0) >= 0)
		return c;
	if (jnum(ent, "exit_code", &code) && code >= 2 && bn_exit_cause((int)code))
		return bn_exit_cause((int)code);
	return BN_CAUSE_DUT_BROKE;
}

static bool rule_listed(const struct entry_view *v, const char *id)
{
	const cJSON *r;

	if (!streq(v->expect_outcome, "fail") || !v->expect_rules)
		return false;
	cJSON_ArrayForEach(r, v->expect_rules)
		if (cJSON_IsString(r) && strcmp(r->valuestring, id) == 0)
			return true;
	return false;
}

static bool result_is_warning(const cJSON *res)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "warning")) ||
	       streq(jstr(res, "severity"), "warning");
}

static void put_value(struct jbuf *b, double v, const char *unit)
{
	jb_printf(b, "%.6g%s%s", v, unit && unit[0] ? " " : "", unit ? unit : "");
}

/* "TEXT: measured 0.45 A; limit NAME (min 0.5 A, max 1.5 A); margin
 * -0.05 A; REASON", each part only when the result has it. */
static void result_detail(struct jbuf *b, const cJSON *res)
{
	const char *text = jstr(res, "text"), *unit = jstr(res, "unit");
	const char *reason = jstr(res, "reason");
	const cJSON *lim = jobj(res, "limit");
	const char *lname = jstr(lim, "name"), *lsrc = jstr(lim, "source");
	double v, lo = 0, hi = 0;
	bool has_lo = lim && jnum(lim, "min", &lo);
	bool has_hi = lim && jnum(lim, "max", &hi);
	const char *sep = "";

	if (text && text[0]) {
		jb_puts(b, text);
		sep = ": ";
	}
	if (jnum(res, "measured", &v)) {
		jb_printf(b, "%smeasured ", sep);
		put_value(b, v, unit);
		sep = "; ";
	} else if (jstr(res, "measured")) {
		jb_printf(b, "%smeasured %s", sep, jstr(res, "measured"));
		sep = "; ";
	}
	if ((lname && lname[0]) || has_lo || has_hi) {
		jb_printf(b, "%slimit%s%s", sep, lname && lname[0] ? " " : "", lname ? lname : "");
		if (has_lo || has_hi) {
			jb_puts(b, " (");
			if (has_lo) {
				jb_puts(b, "min ");
				put_value(b, lo, unit);
			}
			if (has_hi) {
				jb_puts(b, has_lo ? ", max " : "max ");
				put_value(b, hi, unit);
			}
			jb_puts(b, ")");
		}
		if (lsrc && lsrc[0])
			jb_printf(b, " [%s]", lsrc);
		sep = "; ";
	}
	if (jnum(res, "margin", &v)) {
		jb_printf(b, "%smargin ", sep);
		put_value(b, v, unit);
		sep = "; ";
	}
	if (reason && reason[0]) {
		jb_printf(b, "%s%s", sep, reason);
		sep = "; ";
	}
	if (!sep[0])
		jb_puts(b, "no detail");
}

static void emit_case(struct jbuf *b, struct jcount *n, const struct tc *tc)
{
	static const char *const elem[] = {
		[TC_FAILURE] = "failure", [TC_ERROR] = "error", [TC_SKIPPED] = "skipped",
	};

	jb_puts(b, "    <testcase");
	jb_attr(b, "classname", tc->classname);
	jb_attr(b, "name", tc->name);
	if (tc->group)
		jb_attr(b, "group", tc->group);
	jb_attr_num(b, "time", tc->time_s);
	if (tc->kind == TC_PASS && !tc->out) {
		jb_puts(b, "/>\n");
		n->tests++;
		return;
	}
	jb_puts(b, ">\n");
	if (tc->kind != TC_PASS) {
		/* the text in the body too: CI tools show the body, not
		 * always the message attribute */
		jb_printf(b, "      <%s", elem[tc->kind]);
		jb_attr(b, "message", tc->message);
		if (tc->type)
			jb_attr(b, "type", tc->type);
		jb_puts(b, ">");
		jb_esc(b, tc->message ? tc->message : "", false);
		jb_printf(b, "</%s>\n", elem[tc->kind]);
	}
	if (tc->out) {
		jb_puts(b, "      <system-out>");
		jb_esc(b, tc->out, false);
		jb_puts(b, "</system-out>\n");
	}
	jb_puts(b, "    </testcase>\n");
	n->tests++;
	n->failures += tc->kind == TC_FAILURE;
	n->errors += tc->kind == TC_ERROR;
	n->skipped += tc->kind == TC_SKIPPED;
}

static void emit_result(struct jbuf *b, struct jcount *n, const struct entry_view *v,
			const cJSON *res)
{
	const char *id = jstr(res, "id"), *verdict = jstr(res, "verdict");
	const char *reason = jstr(res, "reason"), *text = jstr(res, "text");
	bool warning = result_is_warning(res);
	const char *side = bn_result_side_in(jstr(res, "kind"), jstr(res, "side"), v->judges);
	/* a failure of the side the entry does not judge is reported, not its failure */
	bool other = strcmp(side, v->judges) != 0;
	bool fails = streq(verdict, "fail") && !warning && !other;
	struct jbuf detail = { 0 }, msg = { 0 }, out = { 0 }, name = { 0 };
	struct tc tc = {
		/* No time of its own: a rule is judged within its entry's run
		 * (the testsuite's time); its capture window is bench time. */
		.classname = v->classname, .time_s = 0, .kind = TC_PASS, .group = side,
	};

	case_name(&name, res);
	tc.name = names_unique(v->names, jb_str(&name));
	result_detail(&detail, res);
	if (streq(verdict, "error")) {
		if (v->expected_error) {
			jb_printf(&out, "expected error: %s", jb_str(&detail));
			tc.out = jb_str(&out);
		} else {
			jb_printf(&msg, "error: %s", jb_str(&detail));
			tc.kind = TC_ERROR;
			/* a rule in error in a run that completed: the bench
			 * could not judge it (report.c: exit 6) */
			tc.type = streq(v->outcome, "error") ? v->error_cause : BN_CAUSE_ENVIRONMENT;
			tc.message = jb_str(&msg);
			tc.out = jb_str(&detail);
		}
	} else if (rule_listed(v, id)) {
		/* As the suite judges it: a listed rule that fired, even as a
		 * warning, did what the suite expects. */
		if (streq(verdict, "fail")) {
			jb_printf(&out, "expected failure (xfail): %s", jb_str(&detail));
			tc.out = jb_str(&out);
		} else {
			jb_printf(&msg, "expected to fail (xfail) but was %s%s: %s", verdict,
				  warning ? " (warning)" : "", jb_str(&detail));
			tc.kind = TC_FAILURE;
			tc.type = BN_CAUSE_FAILED;
			tc.message = jb_str(&msg);
			tc.out = jb_str(&detail);
		}
	} else if (fails) {
		tc.kind = TC_FAILURE;
		tc.type = BN_CAUSE_FAILED;
		tc.message = jb_str(&detail);
		tc.out = jb_str(&detail);
	} else if (streq(verdict, "fail") && other) {
		jb_printf(&out, "%s of the %s, reported (the entry judges the %s: does not fail it): %s",
			  warning ? "warning" : "failure", side, v->judges, jb_str(&detail));
		tc.out = jb_str(&out);
	} else if (streq(verdict, "fail")) {
		jb_printf(&out, "warning (does not fail the entry): %s", jb_str(&detail));
		tc.out = jb_str(&out);
	} else if (streq(verdict, "inconclusive") || streq(verdict, "skipped")) {
		/* both are skipped to a CI tool; the type tells a rule that
		 * could not decide from one that does not apply */
		bool incon = streq(verdict, "inconclusive");

		if (!reason || !reason[0])
			reason = text && text[0] ? text : "no reason given";
		jb_printf(&msg, "%s: %s", incon ? "inconclusive" : "not applicable", reason);
		tc.kind = TC_SKIPPED;
		tc.type = incon ? "inconclusive" : "not-applicable";
		tc.message = jb_str(&msg);
		tc.out = jb_str(&detail);
	} else if (!tc.out) {
		/* a pass: what was measured against which limit */
		tc.out = jb_str(&detail);
	}
	emit_case(b, n, &tc);
	b->oom |= detail.oom || msg.oom || out.oom || name.oom;
	jb_free(&detail);
	jb_free(&msg);
	jb_free(&out);
	jb_free(&name);
}

/* Listed rules the report has no result for: not failed, so xpass. */
static void emit_missing_rules(struct jbuf *b, struct jcount *n, const struct entry_view *v)
{
	const cJSON *results = jarr(v->report, "results"), *rule, *res;

	if (!streq(v->expect_outcome, "fail") || !v->expect_rules)
		return;
	cJSON_ArrayForEach(rule, v->expect_rules) {
		bool found = false;
		struct tc tc = {
			.classname = v->classname, .kind = TC_FAILURE, .type = BN_CAUSE_FAILED,
			.message = "expected to fail (xfail) but the report has no result for it",
		};

		if (!cJSON_IsString(rule))
			continue;
		cJSON_ArrayForEach(res, results)
			if (streq(jstr(res, "id"), rule->valuestring))
				found = true;
		if (found)
			continue;
		tc.name = names_unique(v->names, rule->valuestring);
		emit_case(b, n, &tc);
	}
}

/* The testcase "run": how the run itself ended, for an entry whose run did
 * not complete, or that was expected to end in an error and completed. */
static void emit_run(struct jbuf *b, struct jcount *n, const struct entry_view *v)
{
	const cJSON *status = v->report ? jobj(v->report, "status") : NULL;
	const cJSON *unexpected = jarr(v->ent, "unexpected"), *u;
	const char *cause = jstr(v->ent, "cause"), *reason = status ? jstr(status, "reason") : NULL;
	const char *state = status ? jstr(status, "state") : NULL;
	bool expected = v->expected_error;
	struct jbuf why = { 0 }, msg = { 0 }, out = { 0 };
	struct tc tc = { .classname = v->classname, .kind = TC_PASS };
	double exit_code;

	if (v->completed && !streq(v->outcome, "error")) {
		if (!streq(v->expect_outcome, "error"))
			return;
		tc.name = names_unique(v->names, "run");
		tc.kind = TC_FAILURE;
		tc.type = BN_CAUSE_FAILED;
		tc.message = "expected the run to end in an error, but it completed";
		emit_case(b, n, &tc);
		return;
	}
	tc.name = names_unique(v->names, "run");
	if (cause && cause[0])
		jb_puts(&why, cause);
	else if (reason && reason[0])
		jb_puts(&why, reason);
	else if (!v->report)
		jb_puts(&why, "the run wrote no report");
	else if (v->completed)
		jb_puts(&why, "the entry ended in an error");
	else
		jb_printf(&why, "the run did not complete (status %s)", state ? state : "unknown");
	jb_printf(&out, "%s\n", jb_str(&why));
	if (jnum(v->ent, "exit_code", &exit_code))
		jb_printf(&out, "exit code %.6g\n", exit_code);
	jb_printf(&out, "cause: %s\n", v->error_cause);
	if (reason && reason[0] && !streq(reason, jb_str(&why)))
		jb_printf(&out, "status: %s: %s\n", state ? state : "?", reason);
	cJSON_ArrayForEach(u, unexpected)
		if (cJSON_IsString(u))
			jb_printf(&out, "unexpected: %s\n", u->valuestring);
	if (expected) {
		jb_printf(&msg, "expected error: %s", jb_str(&out));
		tc.out = jb_str(&msg);
	} else {
		tc.kind = TC_ERROR;
		tc.type = v->error_cause;
		tc.message = jb_str(&why);
		tc.out = jb_str(&out);
	}
	emit_case(b, n, &tc);
	b->oom |= why.oom || msg.oom || out.oom;
	jb_free(&why);
	jb_free(&msg);
	jb_free(&out);
}

static void prop(struct jbuf *b, const char *name, const char *value)
{
	if (!value)
		return;
	jb_puts(b, "      <property");
	jb_attr(b, "name", name);
	jb_attr(b, "value", value);
	jb_puts(b, "/>\n");
}

static void prop_num(struct jbuf *b, const char *name, const cJSON *o, const char *key)
{
	char s[32];
	double d;

	if (!jnum(o, key, &d))
		return;
	snprintf(s, sizeof(s), "%.6g", d);
	prop(b, name, s);
}

/* The report's file of a role, else NULL. */
static const cJSON *report_file(const cJSON *report, const char *role)
{
	const cJSON *files = jarr(report, "files"), *f;

	cJSON_ArrayForEach(f, files)
		if (streq(jstr(f, "role"), role))
			return f;
	return NULL;
}

static void emit_properties(struct jbuf *b, const cJSON *doc, const struct entry_view *v)
{
	const cJSON *params = jobj(v->ent, "params");
	const cJSON *bench = v->report ? jobj(v->report, "bench") : NULL;
	const cJSON *dut = v->report ? jobj(v->report, "dut") : NULL;
	const cJSON *scen = v->report ? jobj(v->report, "scenario") : NULL;
	const cJSON *lim = report_file(v->report, "limits"), *r;
	const char *fw = dut ? jstr(dut, "firmware") : NULL;
	struct jbuf rules = { 0 };

	if (!bench)
		bench = jobj(doc, "bench");
	if (!lim)
		lim = jobj(doc, "limits");
	if (!fw || !fw[0])
		fw = params ? jstr(params, "firmware") : NULL;
	cJSON_ArrayForEach(r, v->expect_rules)
		if (cJSON_IsString(r))
			jb_printf(&rules, "%s%s", rules.len ? " " : "", r->valuestring);

	jb_puts(b, "    <properties>\n");
	prop(b, "bench.backend", bench ? jstr(bench, "backend") : NULL);
	prop(b, "dut.firmware", fw);
	prop(b, "port", params ? jstr(params, "port") : NULL);
	prop(b, "charger", params ? jstr(params, "charger") : NULL);
	prop(b, "host", params ? jstr(params, "host") : NULL);
	prop(b, "conditions", params ? jstr(params, "conditions") : NULL);
	prop(b, "judges", v->report ? v->judges : NULL);
	prop(b, "scenario", jstr(v->ent, "scenario"));
	prop(b, "scenario.name", scen ? jstr(scen, "name") : NULL);
	prop(b, "limits.path", lim ? jstr(lim, "path") : NULL);
	prop(b, "limits.sha256", lim ? jstr(lim, "sha256") : NULL);
	prop(b, "expect.outcome", v->expect_outcome[0] ? v->expect_outcome : NULL);
	prop(b, "expect.rules", rules.len ? jb_str(&rules) : NULL);
	prop(b, "outcome", v->outcome[0] ? v->outcome : NULL);
	prop_num(b, "exit_code", v->ent, "exit_code");
	prop(b, "cause", jstr(v->ent, "cause"));
	prop(b, "exit_cause", jstr(v->ent, "exit_cause"));
	prop(b, "dir", jstr(v->ent, "dir"));
	jb_puts(b, "    </properties>\n");
	b->oom |= rules.oom;
	jb_free(&rules);
}

static void emit_entry(struct jbuf *b, struct jcount *total, const cJSON *doc, const cJSON *ent,
		       const cJSON *rep)
{
	const cJSON *expect = jobj(ent, "expect"), *results, *res;
	const cJSON *status = rep ? jobj(rep, "status") : NULL;
	const char *s;
	struct names names = { 0 };
	struct entry_view v = { .ent = ent, .report = rep, .id = jstr(ent, "id"), .names = &names,
				.judges = bn_report_json_judges(rep) };
	struct jcount n = { 0 };
	struct jbuf body = { 0 }, cls = { 0 };

	s = jstr(ent, "outcome");
	v.outcome = s ? s : "";
	s = expect ? jstr(expect, "outcome") : NULL;
	v.expect_outcome = s ? s : "";
	v.expect_rules = jarr(expect, "rules");
	v.completed = status && streq(jstr(status, "state"), "completed");
	v.error_cause = entry_error_cause(ent);
	v.expected_error = streq(v.expect_outcome, "error") && streq(v.outcome, "error") &&
			   !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ent, "as_expected"));
	jb_printf(&cls, "bcbench.%s", v.id);
	for (size_t i = 0; i < cls.len; i++)
		if (cls.p[i] == '/')
			cls.p[i] = '.';
	v.classname = jb_str(&cls);
	jnum(ent, "wall_s", &n.time_s);

	emit_properties(&body, doc, &v);
	results = jarr(rep, "results");
	cJSON_ArrayForEach(res, results)
		emit_result(&body, &n, &v, res);
	if (v.completed)
		emit_missing_rules(&body, &n, &v);
	emit_run(&body, &n, &v);

	jb_puts(b, "  <testsuite");
	jb_attr(b, "name", v.id);
	jb_attr_int(b, "tests", n.tests);
	jb_attr_int(b, "failures", n.failures);
	jb_attr_int(b, "errors", n.errors);
	jb_attr_int(b, "skipped", n.skipped);
	jb_attr_num(b, "time", n.time_s);
	jb_puts(b, ">\n");
	jb_puts(b, jb_str(&body));
	jb_puts(b, "  </testsuite>\n");
	b->oom |= body.oom || cls.oom || names.oom;
	jb_free(&body);
	jb_free(&cls);
	names_free(&names);

	total->tests += n.tests;
	total->failures += n.failures;
	total->errors += n.errors;
	total->skipped += n.skipped;
	total->time_s += n.time_s;
}

/* The <testsuites> start tag, padded with spaces before its '>' to width
 * bytes when it is shorter (XML allows them there). */
static void head_tag(struct jbuf *b, const char *name, const struct jcount *t, size_t width)
{
	size_t from = b->len;

	/* junit-10.xsd has no "skipped" on <testsuites>; each <testsuite>
	 * carries its own. */
	jb_puts(b, "<testsuites");
	jb_attr(b, "name", name && name[0] ? name : "bcbench suite");
	jb_attr_int(b, "tests", t->tests);
	jb_attr_int(b, "failures", t->failures);
	jb_attr_int(b, "errors", t->errors);
	jb_attr_num(b, "time", t->time_s);
	while (!b->oom && b->len - from < width)
		jb_puts(b, " ");
	jb_puts(b, ">\n");
}

/* The XML to f, entry by entry, each entry's report read when it is
 * written and let go: nothing grows with the number of entries. The
 * start tag's counts are known only at the end, so it is written first
 * with room to spare and written again over itself then. */
static int emit(FILE *f, const cJSON *doc, const char *suite_path, struct bn_err *err)
{
	const cJSON *suite, *timing, *ent;
	struct jcount total = { 0 };
	struct jbuf head = { 0 };
	const char *name;
	long head_at, end_at;
	size_t width;
	double wall;
	int e = 0;

	if (check_doc(doc, err) < 0)
		return err->code;
	suite = jobj(doc, "suite");
	name = suite ? jstr(suite, "name") : NULL;
	timing = jobj(doc, "timing");

	/* room for every count at its widest: 3 ints and a %.3f time */
	head_tag(&head, name, &total, 0);
	width = head.len + 3 * 11 + 16;
	head.len = 0;
	head_tag(&head, name, &total, width);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	head_at = ftell(f);
	fputs(jb_str(&head), f);
	cJSON_ArrayForEach(ent, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
		struct jbuf b = { 0 };
		cJSON *rep = NULL;

		if (bn_suite_report_load(ent, suite_path, &rep, err) < 0 ||
		    (rep && check_report(rep, e, err) < 0)) {
			cJSON_Delete(rep);
			jb_free(&head);
			return err->code;
		}
		emit_entry(&b, &total, doc, ent, rep);
		cJSON_Delete(rep);
		if (b.oom) {
			jb_free(&head);
			return bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory rendering JUnit XML",
					  JUNIT_WHAT);
		}
		fwrite(b.p, 1, b.len, f);
		jb_free(&b);
		e++;
	}
	fputs("</testsuites>\n", f);
	/* The suite's wall time when it has one (entries may have run in
	 * parallel), else the sum of the entries'. */
	if (timing && jnum(timing, "wall_s", &wall))
		total.time_s = wall;
	head.len = 0;
	head_tag(&head, name, &total, width);
	end_at = ftell(f);
	if (head.oom || head_at < 0 || end_at < 0 || fseek(f, head_at, SEEK_SET) != 0 ||
	    fputs(jb_str(&head), f) == EOF || fseek(f, end_at, SEEK_SET) != 0 || ferror(f)) {
		jb_free(&head);
		return bn_err_set(err, BN_ERR_IO, "%s: cannot write JUnit XML", JUNIT_WHAT);
	}
	jb_free(&head);
	return BN_OK;
}

char *bn_junit_render(const cJSON *suite_doc, const char *suite_path, struct bn_err *err)
{
	struct bn_err local = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!err)
		err = &local;
	f = open_memstream(&text, &len);
	if (!f) {
		bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory rendering JUnit XML", JUNIT_WHAT);
		return NULL;
	}
	rc = emit(f, suite_doc, suite_path, err);
	if (fclose(f) != 0 && rc == BN_OK)
		rc = bn_err_set(err, BN_ERR_NOMEM, "%s: out of memory rendering JUnit XML",
				JUNIT_WHAT);
	if (rc < 0) {
		free(text);
		return NULL;
	}
	return text;
}

int bn_junit_write(const cJSON *suite_doc, const char *suite_path, const char *path,
		   struct bn_err *err)
{
	struct bn_err local = { 0 };
	struct bn_afile a;
	int rc;

	if (!err)
		err = &local;
	/* checked first: a document that is not one creates no file at all */
	if (check_doc(suite_doc, err) < 0)
		return err->code;
	rc = bn_afile_open(&a, path, err);
	if (rc < 0)
		return rc;
	a.no_sync = true; /* derived from suite.json, the durable record (core/file.h) */
	rc = emit(a.f, suite_doc, suite_path, err);
	if (rc < 0) {
		bn_afile_discard(&a);
		return rc;
	}
	return bn_afile_commit(&a, err);
}
