/* bcbench report FORMAT FILE...: render a record on disk (report.json or
 * suite.json) again, as html, junit, text or markdown. Everything comes
 * from the record and the files it names (with their hashes checked), so
 * a record can be rendered later, on another machine, and gives the same
 * bytes. */
#include <errno.h>
#include <getopt.h>
#include <glib.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "core/text.h"
#include "core/units.h"
#include "report/junit.h"
#include "report/report.h"
#include "report/report_html.h"
#include "report/suite_doc.h"
#include "report/suite_html.h"

const char bn_cli_report_usage[] =
	"Usage: bcbench report FORMAT FILE... [--out FILE] [--baseline SUITE.json]\n"
	"                      [--no-plots]\n"
	"Render a record again from the files on disk: FILE is a run's or a replay's\n"
	"report.json, or a suite's suite.json. The files the record names (capture.sr,\n"
	"each entry's report.json) are read with their SHA-256 checked: a record whose\n"
	"files changed is refused (exit 2). The same record gives the same bytes.\n"
	"\n"
	"FORMAT:\n"
	"  html      report.html beside each FILE (a suite's beside its suite.json):\n"
	"            one self-contained page (no network, no other file) with the overall\n"
	"            verdict, every rule, and the waveforms where rules decided\n"
	"  junit     JUnit XML on stdout (the Jenkins xUnit schema; GitLab reads it)\n"
	"  text      the terminal's summary: one line per result, then the totals\n"
	"  markdown  a summary for a merge request or a wiki\n"
	"\n"
	"  -o, --out FILE        write here instead (one FILE only; \"-\" for stdout),\n"
	"                        atomically\n"
	"  -b, --baseline FILE   html of a suite: add the diff against this suite.json\n"
	"      --no-plots        html: the tables only, without reading the capture\n"
	"  -h, --help            this help\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 rendered, 2 bad input (not a\n"
	"record, a named file missing or changed, unknown format), 6 the output cannot\n"
	"be written.\n";

enum fmt { FMT_HTML, FMT_JUNIT, FMT_TEXT, FMT_MARKDOWN };

/* Text goes to path ("-": stdout) atomically; the exit code. */
static int emit(const char *path, const char *text, struct bn_err *err)
{
	if (!path || !strcmp(path, "-")) {
		fputs(text, stdout);
		return 0;
	}
	if (bn_file_write_atomic(path, text, strlen(text), err) < 0) {
		fprintf(stderr, "bcbench report: %s\n", err->msg);
		return BN_EXIT_ENVIRONMENT;
	}
	return 0;
}

/* A result of report.json back into the struct the terminal prints. */
static void result_from_json(const cJSON *o, struct bn_result *r)
{
	const cJSON *m = bn_jget(o, "measured"), *lim = bn_jget(o, "limit"), *w = bn_jget(o, "window");
	const char *v = bn_jstr(o, "verdict");

	memset(r, 0, sizeof(*r));
	r->limit_min = bn_jnum(lim, "min");
	r->limit_max = bn_jnum(lim, "max");
	r->t0_us = r->t1_us = -1;
	bn_str_copy(r->id, sizeof(r->id), bn_jstr(o, "id") ? bn_jstr(o, "id") : "");
	bn_str_copy(r->kind, sizeof(r->kind), bn_jstr(o, "kind") ? bn_jstr(o, "kind") : "");
	bn_str_copy(r->side, sizeof(r->side), bn_jstr(o, "side") ? bn_jstr(o, "side") : "");
	/* (the record's verdicts are checked before: bn_report_json_verdict) */
	if (bn_verdict_parse(v) >= 0)
		r->verdict = bn_verdict_parse(v);
	bn_str_copy(r->text, sizeof(r->text), bn_jstr(o, "text") ? bn_jstr(o, "text") : "");
	if (cJSON_IsNumber(m)) {
		r->has_measured = true;
		r->measured = m->valuedouble;
	} else if (cJSON_IsString(m)) {
		bn_str_copy(r->measured_str, sizeof(r->measured_str), m->valuestring);
	}
	bn_str_copy(r->unit, sizeof(r->unit), bn_jstr(o, "unit") ? bn_jstr(o, "unit") : "");
	bn_str_copy(r->limit, sizeof(r->limit), bn_jstr(lim, "name") ? bn_jstr(lim, "name") : "");
	if (cJSON_IsNumber(bn_jget(o, "margin"))) {
		r->has_margin = true;
		r->margin = bn_jnum(o, "margin");
	}
	if (cJSON_IsObject(w)) {
		r->t0_us = (bn_time_us)llround(bn_jnum(w, "t0_s") * 1e6);
		r->t1_us = (bn_time_us)llround(bn_jnum(w, "t1_s") * 1e6);
	}
	bn_str_copy(r->reason, sizeof(r->reason), bn_jstr(o, "reason") ? bn_jstr(o, "reason") : "");
	r->warning = bn_jstr(o, "severity") && !strcmp(bn_jstr(o, "severity"), "warning");
}

/* The side the record does not judge. */
static const char *other_side(const cJSON *rep)
{
	return strcmp(bn_report_json_judges(rep), "port") ? "port" : "device";
}

static const char *side_of(const cJSON *rep, const cJSON *res)
{
	return bn_result_side_in(bn_jstr(res, "kind"), bn_jstr(res, "side"), bn_report_json_judges(rep));
}

/* "the port: not compliant (bc12.port.vchg, ...)" into buf when the other
 * side judged anything; "" otherwise. */
static void other_verdict(const cJSON *rep, char *buf, size_t len)
{
	const char *other = other_side(rep);
	bool judged = false;
	int o = bn_report_json_overall_side(rep, other, &judged), n = 0;
	const cJSON *res;
	size_t used;

	buf[0] = '\0';
	if (o < 0 || !judged)
		return;
	used = (size_t)snprintf(buf, len, "the %s: %s", other, bn_overall_name(o));
	cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
		if (strcmp(side_of(rep, res), other) || !bn_jstr(res, "verdict") ||
		    strcmp(bn_jstr(res, "verdict"), "fail") || bn_jstr(res, "severity") || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", n++ ? ", " : " (",
					 bn_jstr(res, "id") ? bn_jstr(res, "id") : "?");
	}
	if (n && used < len)
		snprintf(buf + used, len - used, ")");
}

/* The terminal's summary of one report, into a memory stream. */
static char *report_text(const cJSON *rep, int o, const int tot[BN_VERDICT_COUNT])
{
	const cJSON *res, *st = bn_jget(rep, "status");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
		struct bn_result r;

		result_from_json(res, &r);
		bn_result_print(f, &r);
	}
	bn_term_printf(f, "%s: %s — %d passed, %d failed, %d inconclusive, %d skipped, %d errors "
		       "(%.1f s in %.3f s)\n",
		       bn_jstr(bn_jget(rep, "scenario"), "name") ? bn_jstr(bn_jget(rep, "scenario"), "name") : "scenario",
		       bn_jstr(st, "state") ? bn_jstr(st, "state") : "?", tot[BN_VERDICT_PASS],
		       tot[BN_VERDICT_FAIL], tot[BN_VERDICT_INCONCLUSIVE], tot[BN_VERDICT_SKIPPED],
		       tot[BN_VERDICT_ERROR], bn_jnum(bn_jget(rep, "timing"), "sim_s"),
		       bn_jnum(bn_jget(rep, "timing"), "wall_s"));
	if (bn_jstr(st, "reason"))
		bn_term_printf(f, "  reason: %s\n", bn_jstr(st, "reason"));
	fprintf(f, "  verdict: %s (the %s)\n", bn_overall_name(o), bn_report_json_judges(rep));
	{
		char other[400];

		other_verdict(rep, other, sizeof(other));
		if (other[0])
			bn_term_printf(f, "  %s: reported, not the %s's verdict\n", other,
				       bn_report_json_judges(rep));
	}
	fclose(f);
	return buf;
}

/* Markdown: a cell's text with | and newlines made harmless. */
static void md_cell(GString *s, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++) {
		if (*p == '|')
			g_string_append(s, "\\|");
		else if (*p == '\n' || *p == '\r')
			g_string_append_c(s, ' ');
		else if (*p == '<')
			g_string_append(s, "&lt;");
		else
			g_string_append_c(s, *p);
	}
}

/* The results table of the side the record judges (mine; expectations
 * with it), or the other side's under its own heading; failures first. */
static void md_results(GString *s, const cJSON *rep, bool mine)
{
	static const char *const order[] = { "fail", "error", "inconclusive", "pass", "skipped" };
	const char *judges = bn_report_json_judges(rep);
	const cJSON *res;
	int n = 0;

	for (int k = 0; k < 5; k++)
		cJSON_ArrayForEach(res, bn_jget(rep, "results")) {
			struct bn_result r;
			char q[64], lim[200];

			if (!bn_jstr(res, "verdict") || strcmp(bn_jstr(res, "verdict"), order[k]) ||
			    (strcmp(side_of(rep, res), judges) == 0) != mine)
				continue;
			if (!n++) {
				if (!mine)
					g_string_append_printf(s, "\n#### The %s's results (reported, not "
							       "the %s's verdict)\n\n",
							       other_side(rep), judges);
				g_string_append(s, "| Verdict | Rule | Measured | Limit | Margin | Reason |\n"
						   "|---|---|---|---|---|---|\n");
			}
			result_from_json(res, &r);
			g_string_append_printf(s, "| %s | `", !strcmp(order[k], "skipped") ? "n/a"
							     : order[k]);
			md_cell(s, r.id);
			g_string_append(s, "` ");
			md_cell(s, bn_jstr(res, "title") ? bn_jstr(res, "title") : r.text);
			g_string_append(s, " | ");
			if (r.has_measured) {
				bn_qty_format(r.measured, r.unit, q, sizeof(q));
				md_cell(s, q);
			} else {
				md_cell(s, r.measured_str);
			}
			g_string_append(s, " | ");
			bn_limit_format(r.limit, r.limit_min, r.limit_max, r.unit, lim, sizeof(lim));
			md_cell(s, lim);
			g_string_append(s, " | ");
			if (r.has_margin) {
				bn_qty_format(r.margin, r.unit, q, sizeof(q));
				md_cell(s, q);
			}
			g_string_append(s, " | ");
			md_cell(s, r.reason);
			g_string_append(s, " |\n");
		}
}

static char *report_markdown(const cJSON *rep, int o, const int tot[BN_VERDICT_COUNT])
{
	GString *s = g_string_new(NULL);
	const cJSON *rec = bn_jget(rep, "record"), *tool = bn_jget(rep, "tool");

	g_string_append(s, "### BC-1.2 compliance record: ");
	md_cell(s, bn_jstr(bn_jget(rep, "scenario"), "name"));
	g_string_append_printf(s, "\n\n**%s** (the %s) — %d passed, %d failed, %d inconclusive, %d "
			       "errors, %d not applicable\n\n",
			       bn_overall_name(o), bn_report_json_judges(rep), tot[BN_VERDICT_PASS],
			       tot[BN_VERDICT_FAIL], tot[BN_VERDICT_INCONCLUSIVE], tot[BN_VERDICT_ERROR],
			       tot[BN_VERDICT_SKIPPED]);
	{
		char other[400];

		other_verdict(rep, other, sizeof(other));
		if (other[0]) {
			md_cell(s, other);
			g_string_append_printf(s, ": reported, not the %s's verdict\n\n",
					       bn_report_json_judges(rep));
		}
	}
	g_string_append(s, "| | |\n|---|---|\n| Firmware | ");
	md_cell(s, bn_jstr(bn_jget(rep, "dut"), "firmware"));
	g_string_append(s, " |\n| Port | ");
	md_cell(s, bn_jstr(bn_jget(rep, "port"), "profile"));
	g_string_append(s, " |\n| Bench | ");
	md_cell(s, bn_jstr(bn_jget(rep, "bench"), "backend"));
	g_string_append(s, " |\n| Started (UTC) | ");
	md_cell(s, bn_jstr(rec, "started_utc"));
	g_string_append(s, " |\n| Operator | ");
	md_cell(s, bn_jstr(rec, "operator"));
	g_string_append(s, " |\n| Tool | ");
	md_cell(s, bn_jstr(tool, "version"));
	g_string_append(s, " ");
	md_cell(s, bn_jstr(tool, "commit"));
	g_string_append(s, " |\n| Status | ");
	md_cell(s, bn_jstr(bn_jget(rep, "status"), "state"));
	if (bn_jstr(bn_jget(rep, "status"), "reason")) {
		g_string_append(s, ": ");
		md_cell(s, bn_jstr(bn_jget(rep, "status"), "reason"));
	}
	g_string_append(s, " |\n\n");
	md_results(s, rep, true);
	md_results(s, rep, false);
	return g_string_free(s, FALSE);
}

/* A single report as a one-entry suite, for the JUnit writer. */
static char *report_junit(const cJSON *rep, const char *path, struct bn_err *err)
{
	cJSON *doc = cJSON_CreateObject(), *entries, *e, *ref, *o;
	char sha[65], dirbuf[1200], basebuf[1200], suite_path[1300], *text;
	double x = bn_jnum(bn_jget(rep, "status"), "exit_code");
	int code = isfinite(x) && fabs(x) < 1000 ? (int)x : BN_EXIT_ENVIRONMENT;

	if (bn_file_sha256(path, sha, err) < 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	bn_str_copy(dirbuf, sizeof(dirbuf), path);
	bn_str_copy(basebuf, sizeof(basebuf), path);
	snprintf(suite_path, sizeof(suite_path), "%s/suite.json", dirname(dirbuf));
	cJSON_AddStringToObject(doc, "schema", BN_SUITE_SCHEMA);
	o = cJSON_AddObjectToObject(doc, "suite");
	cJSON_AddStringToObject(o, "name", bn_jstr(bn_jget(rep, "scenario"), "name")
						    ? bn_jstr(bn_jget(rep, "scenario"), "name") : "run");
	cJSON_AddItemToObject(doc, "bench", cJSON_Duplicate(bn_jget(rep, "bench"), 1));
	entries = cJSON_AddArrayToObject(doc, "entries");
	e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "index", 0);
	cJSON_AddStringToObject(e, "id", bn_jstr(bn_jget(rep, "scenario"), "name")
						 ? bn_jstr(bn_jget(rep, "scenario"), "name") : "run");
	/* 4 (--require-verdicts) judged nothing wrong: not an error */
	cJSON_AddStringToObject(e, "outcome", code == BN_EXIT_OK || code == BN_EXIT_NOT_DEMONSTRATED
						      ? "pass" : code == BN_EXIT_FAILED ? "fail" : "error");
	cJSON_AddBoolToObject(e, "as_expected", code == BN_EXIT_OK || code == BN_EXIT_NOT_DEMONSTRATED);
	cJSON_AddNumberToObject(e, "exit_code", code);
	if (bn_exit_cause(code))
		cJSON_AddStringToObject(e, "exit_cause", bn_exit_cause(code));
	cJSON_AddNumberToObject(e, "wall_s", isfinite(bn_jnum(bn_jget(rep, "timing"), "wall_s"))
						     ? bn_jnum(bn_jget(rep, "timing"), "wall_s") : 0);
	ref = cJSON_AddObjectToObject(e, "report");
	cJSON_AddStringToObject(ref, "path", basename(basebuf));
	cJSON_AddStringToObject(ref, "sha256", sha);
	cJSON_AddItemToArray(entries, e);
	text = bn_junit_render(doc, suite_path, err);
	cJSON_Delete(doc);
	return text;
}

static bool is_suite(const cJSON *doc)
{
	const char *schema = bn_jstr(doc, "schema");

	return schema && (!strcmp(schema, BN_SUITE_SCHEMA) || !strcmp(schema, BN_SUITE_SCHEMA_V1));
}

/* An exit code's cause, "?" for none (NAN: absent). */
static const char *code_cause(double code)
{
	const char *c = isfinite(code) && fabs(code) < 1000 ? bn_exit_cause((int)code) : NULL;

	return c ? c : "?";
}

/* The suite's summary as text or markdown: one line per entry. */
static char *suite_summary(const cJSON *doc, bool markdown)
{
	GString *s = g_string_new(NULL);
	const cJSON *e, *tot = bn_jget(doc, "totals");

	if (markdown)
		g_string_append(s, "| Outcome | Entry | Exit | Cause |\n|---|---|---|---|\n");
	cJSON_ArrayForEach(e, bn_jget(doc, "entries")) {
		if (markdown) {
			g_string_append(s, "| ");
			md_cell(s, bn_jstr(e, "outcome"));
			g_string_append(s, " | `");
			md_cell(s, bn_jstr(e, "id"));
			g_string_append_printf(s, "` | %.0f | ", bn_jnum(e, "exit_code"));
			md_cell(s, bn_jstr(e, "cause"));
			g_string_append(s, " |\n");
		} else {
			char *id = bn_term_escape(bn_jstr(e, "id") ? bn_jstr(e, "id") : "");
			char *cause = bn_term_escape(bn_jstr(e, "cause") ? bn_jstr(e, "cause") : "");

			g_string_append_printf(s, "  %-6s %s%s%s\n", bn_jstr(e, "outcome") ? bn_jstr(e, "outcome") : "?",
					       id ? id : "", cause && cause[0] ? "  [" : "",
					       cause && cause[0] ? cause : "");
			if (cause && cause[0])
				g_string_append_c(s, ']');
			free(id);
			free(cause);
		}
	}
	g_string_append_printf(s, "%s%.0f entries: %.0f pass, %.0f xfail, %.0f fail, %.0f xpass, %.0f error; "
			       "%.0f not as expected; exit %.0f (%s)\n", markdown ? "\n" : "",
			       bn_jnum(tot, "entries"), bn_jnum(tot, "pass"), bn_jnum(tot, "xfail"),
			       bn_jnum(tot, "fail"), bn_jnum(tot, "xpass"), bn_jnum(tot, "error"),
			       bn_jnum(tot, "unexpected"), bn_jnum(doc, "exit_code"),
			       code_cause(bn_jnum(doc, "exit_code")));
	return g_string_free(s, FALSE);
}

static int render_one(enum fmt fmt, const char *path, const char *out, const char *baseline,
		      bool no_plots)
{
	struct bn_err err = { 0 };
	cJSON *doc = NULL, *base = NULL;
	char *text = NULL, html_path[1300], dirbuf[1200];
	int rc = 0;

	if (bn_json_load(path, &doc, &err) < 0) {
		fprintf(stderr, "bcbench report: %s\n", err.msg);
		return BN_EXIT_BAD_INPUT;
	}
	if (is_suite(doc)) {
		if (bn_suite_doc_check(doc, path, &err) < 0)
			goto bad;
		switch (fmt) {
		case FMT_HTML:
			if (baseline && (bn_json_load(baseline, &base, &err) < 0 ||
					 bn_suite_doc_check(base, baseline, &err) < 0))
				goto bad;
			text = bn_suite_html_render(doc, path, base, baseline, &err);
			bn_str_copy(dirbuf, sizeof(dirbuf), path);
			snprintf(html_path, sizeof(html_path), "%s/report.html", dirname(dirbuf));
			break;
		case FMT_JUNIT: text = bn_junit_render(doc, path, &err); break;
		case FMT_TEXT: text = suite_summary(doc, false); break;
		case FMT_MARKDOWN: text = suite_summary(doc, true); break;
		}
	} else if (bn_report_schema_known(bn_jstr(doc, "schema"))) {
		struct bn_report_html_opts ho = { .no_plots = no_plots };
		int totals[BN_VERDICT_COUNT];
		/* the verdict from the results, a record that contradicts itself refused */
		int o = bn_report_json_verdict(doc, path, totals, &err);

		if (o < 0)
			goto bad;
		if (baseline) {
			bn_err_set(&err, BN_ERR_ARG, "--baseline is for a suite's html; %s is a report", path);
			goto bad;
		}
		switch (fmt) {
		case FMT_HTML:
			text = bn_report_html_render(path, &ho, &err);
			bn_str_copy(dirbuf, sizeof(dirbuf), path);
			snprintf(html_path, sizeof(html_path), "%s/report.html", dirname(dirbuf));
			break;
		case FMT_JUNIT: text = report_junit(doc, path, &err); break;
		case FMT_TEXT: text = report_text(doc, o, totals); break;
		case FMT_MARKDOWN: text = report_markdown(doc, o, totals); break;
		}
	} else {
		bn_err_set(&err, BN_ERR_DATA, "%s: not a bcbench record (schema \"%s\" or \"%s\")", path,
			   BN_REPORT_SCHEMA, BN_SUITE_SCHEMA);
		goto bad;
	}
	if (!text)
		goto bad;
	rc = emit(out ? out : fmt == FMT_HTML ? html_path : "-", text, &err);
	if (rc == 0 && fmt == FMT_HTML && out && strcmp(out, "-"))
		fprintf(stderr, "bcbench report: wrote %s\n", out);
	else if (rc == 0 && fmt == FMT_HTML && !out)
		fprintf(stderr, "bcbench report: wrote %s\n", html_path);
	g_free(text);
	cJSON_Delete(doc);
	cJSON_Delete(base);
	return rc;
bad:
	fprintf(stderr, "bcbench report: %s\n", err.msg[0] ? err.msg : "out of memory");
	g_free(text);
	cJSON_Delete(doc);
	cJSON_Delete(base);
	/* out of memory rendering is not the record's fault */
	return !err.msg[0] || err.code == BN_ERR_NOMEM ? BN_EXIT_ENVIRONMENT
	       : err.code == BN_ERR_IO && errno == ENOSPC ? BN_EXIT_ENVIRONMENT : BN_EXIT_BAD_INPUT;
}

int bn_cli_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "no-plots", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { "html", "junit", "text", "markdown" };
	const char *out = NULL, *baseline = NULL;
	bool no_plots = false;
	int c, fmt = -1, worst = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'b': baseline = optarg; break;
		case 'P': no_plots = true; break;
		case 'h': fputs(bn_cli_report_usage, stdout); return 0;
		default: fputs(bn_cli_report_usage, stderr); return 2;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "bcbench report: expected FORMAT and at least one FILE\n%s", bn_cli_report_usage);
		return 2;
	}
	for (int i = 0; i < 4; i++)
		if (!strcmp(argv[optind], names[i]))
			fmt = i;
	if (fmt < 0) {
		fprintf(stderr, "bcbench report: unknown format \"%s\" (html, junit, text or markdown)\n",
			argv[optind]);
		return 2;
	}
	if (out && argc - optind > 2) {
		fprintf(stderr, "bcbench report: --out takes one FILE, %d given\n", argc - optind - 1);
		return 2;
	}
	for (int i = optind + 1; i < argc; i++) {
		int rc = render_one((enum fmt)fmt, argv[i], out, baseline, no_plots);

		worst = bn_exit_most_urgent(worst, rc);
	}
	return worst;
}
