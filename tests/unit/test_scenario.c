/* The scenario lexer and parser: a script with every statement, every kind
 * of error with its exact "FILE:LINE:COL: error:" prefix, and every
 * scenario file under scripts/scenarios/ in the tree.
 * Run: test_scenario [FILTER]   (a cmocka glob such as "*error*") */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/lexer.h"
#include "scenario/scenario.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * (fabs(b) + 1e-9))

/* ---- helpers ---- */

/* Parse text as "x.scn"; expect failure with exactly this prefix
 * ("x.scn:L:C: error: ") and the rest of the message containing part. */
static void check_error(const char *text, const char *prefix, const char *part)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	int rc = bn_scenario_parse_text("x.scn", text, &scn, &err);

	if (rc != BN_ERR_DATA || strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
	    !strstr(err.msg + strlen(prefix), part))
		print_error("text:\n%s\nrc %d, message:\n  %s\nwanted:\n  %s...%s\n", text, rc,
			    err.msg, prefix, part);
	assert_int_equal(rc, BN_ERR_DATA);
	assert_int_equal(strncmp(err.msg, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(err.msg + strlen(prefix), part));
	assert_null(scn.steps);
	assert_int_equal(scn.n_steps, 0);
	bn_scenario_free(&scn);
}

static void lex_all(const char *text, struct bn_token *toks, int max, int *n)
{
	struct bn_lexer lx;
	struct bn_err err = { 0 };

	bn_lexer_init(&lx, "l.scn", text);
	for (*n = 0; *n < max; (*n)++) {
		assert_int_equal(bn_lexer_next(&lx, &toks[*n], &err), BN_OK);
		if (toks[*n].kind == BN_TOK_EOF) {
			(*n)++;
			return;
		}
	}
	fail_msg("no EOF after %d tokens", max);
}

/* ---- lexer ---- */

static void test_scenario__lexer_tokens(void **state)
{
	static struct bn_token t[32];
	int n;

	lex_all("expect\tavg(ibus, 250ms) >= -0.9A # c \"x\"\n"
		"mark \"a \\\"b\\\" \\\\ c\"\n"
		"\n"
		"port ./p/aca-a.json",
		t, 32, &n);
	assert_int_equal(n, 18);
	assert_int_equal(t[0].kind, BN_TOK_WORD);
	assert_string_equal(t[0].text, "expect");
	assert_int_equal(t[0].line, 1);
	assert_int_equal(t[0].col, 1);
	assert_int_equal(t[1].kind, BN_TOK_WORD);
	assert_int_equal(t[1].col, 8); /* a tab counts 1 */
	assert_int_equal(t[2].kind, BN_TOK_LPAREN);
	assert_int_equal(t[2].col, 11);
	assert_int_equal(t[3].kind, BN_TOK_WORD);
	assert_string_equal(t[3].text, "ibus");
	assert_int_equal(t[4].kind, BN_TOK_COMMA);
	assert_int_equal(t[5].kind, BN_TOK_QUANTITY);
	assert_string_equal(t[5].text, "250ms");
	assert_int_equal(t[5].col, 18);
	assert_int_equal(t[6].kind, BN_TOK_RPAREN);
	assert_int_equal(t[7].kind, BN_TOK_OP);
	assert_string_equal(t[7].text, ">=");
	assert_int_equal(t[8].kind, BN_TOK_QUANTITY);
	assert_string_equal(t[8].text, "-0.9A");
	assert_int_equal(t[9].kind, BN_TOK_EOL); /* the comment skipped */
	assert_int_equal(t[9].line, 1);
	assert_int_equal(t[9].col, 41); /* at the newline */
	assert_int_equal(t[10].kind, BN_TOK_WORD);
	assert_int_equal(t[10].line, 2);
	assert_int_equal(t[11].kind, BN_TOK_STRING);
	assert_string_equal(t[11].text, "a \"b\" \\ c");
	assert_int_equal(t[11].col, 6);
	assert_int_equal(t[11].len, strlen("\"a \\\"b\\\" \\\\ c\""));
	assert_int_equal(t[12].kind, BN_TOK_EOL);
	assert_int_equal(t[13].kind, BN_TOK_EOL); /* the blank line */
	assert_int_equal(t[13].line, 3);
	assert_int_equal(t[14].kind, BN_TOK_WORD);
	assert_int_equal(t[14].line, 4);
	assert_int_equal(t[15].kind, BN_TOK_WORD);
	assert_string_equal(t[15].text, "./p/aca-a.json");
	assert_int_equal(t[16].kind, BN_TOK_EOL); /* no final newline */
	assert_int_equal(t[17].kind, BN_TOK_EOF);
}

static void test_scenario__lexer_ops_and_quantities(void **state)
{
	static struct bn_token t[16];
	int n;

	lex_all("dut.port==dcp =< .5V 1e-3A 3q", t, 16, &n);
	assert_int_equal(n, 9);
	assert_string_equal(t[0].text, "dut.port");
	assert_int_equal(t[1].kind, BN_TOK_OP);
	assert_string_equal(t[1].text, "==");
	assert_int_equal(t[1].col, 9);
	assert_string_equal(t[2].text, "dcp");
	assert_int_equal(t[3].kind, BN_TOK_OP);
	assert_string_equal(t[3].text, "=<");
	assert_int_equal(t[4].kind, BN_TOK_QUANTITY);
	assert_int_equal(t[5].kind, BN_TOK_QUANTITY);
	assert_int_equal(t[6].kind, BN_TOK_QUANTITY);
	assert_string_equal(t[6].text, "3q");
}

static void test_scenario__lexer_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "mark \"abc\n", "l.scn:1:6: error: unterminated string" },
		{ "mark \"abc\\", "l.scn:1:6: error: unterminated string" },
		{ "mark \"a\\nb\"", "l.scn:1:8: error: unknown escape: backslash before 'n'" },
		{ "wait 1s @", "l.scn:1:9: error: stray character '@'" },
		{ "\n\tload 5mA;", "l.scn:2:10: error: stray character ';'" },
		{ "x\x01", "l.scn:1:2: error: stray character \\x01" },
		{ "-x", "l.scn:1:1: error: stray character '-'" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bn_lexer lx;
		struct bn_token t;
		struct bn_err err = { 0 };
		int rc;

		bn_lexer_init(&lx, "l.scn", cases[k].text);
		do
			rc = bn_lexer_next(&lx, &t, &err);
		while (rc == BN_OK && t.kind != BN_TOK_EOF);
		if (rc != BN_ERR_DATA || strncmp(err.msg, cases[k].msg, strlen(cases[k].msg)))
			print_error("case %zu: got \"%s\"\n", k, err.msg);
		assert_int_equal(rc, BN_ERR_DATA);
		assert_int_equal(strncmp(err.msg, cases[k].msg, strlen(cases[k].msg)), 0);
	}
}

/* ---- a good script ---- */

static const char good_script[] =
	"# A scenario that uses every statement.\n"
	"name     \"Every \\\"statement\\\" \\\\ once\"   # comment\n"
	"port     dcp\n"
	"charger  profiles/chargers/dcp-1a-weak.json\n"
	"host     \"hosts/my host.json\"\n"
	"dut      phone\n"
	"firmware build/fw/reference.so\n"
	"limits   profiles/limits/bc12.json\n"
	"battery  3.7V\n"
	"capture  vbus ibus dm at 100kHz\n"
	"data_delay 150ms\n"
	"bounce   3 1ms\n"
	"\n"
	"vbus     on\n"
	"wait     3s\n"
	"expect   dut.port == dcp          # a word\n"
	"expect   avg(ibus, 250ms) >= 0.9A\n"
	"\texpect\tmin(vbus,1ms)<4.75V\n"
	"expect   max(dp, 2us) <= 600mV\n"
	"expect   dut.ibus_limit_ma != 500\n"
	"expect   dut.vbus_mv > 4.5V\n"
	"load     500mA\n"
	"load     off\n"
	"suspend\n"
	"resume   # a comment\n"
	"mark     \"after resume\"\n"
	"plug\n"
	"unplug\n"
	"wait 45min\n"
	"check    bc12.det bc12.cur.droop\n"
	"vbus off";

static void test_scenario__good_script(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	struct bn_step *s;
	const struct bn_expect *e;

	if (bn_scenario_parse_text("good.scn", good_script, &scn, &err) != BN_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(err.code, BN_OK);
	assert_string_equal(scn.path, "good.scn");
	assert_string_equal(scn.name, "Every \"statement\" \\ once");
	assert_string_equal(scn.port, "dcp");
	assert_int_equal(scn.port_loc.line, 3);
	assert_int_equal(scn.port_loc.col, 1);
	assert_string_equal(scn.charger, "profiles/chargers/dcp-1a-weak.json");
	assert_int_equal(scn.charger_loc.line, 4);
	assert_string_equal(scn.host, "hosts/my host.json");
	assert_int_equal(scn.host_loc.line, 5);
	assert_string_equal(scn.dut, "phone");
	assert_int_equal(scn.dut_loc.line, 6);
	assert_string_equal(scn.firmware, "build/fw/reference.so");
	assert_int_equal(scn.firmware_loc.line, 7);
	assert_string_equal(scn.limits, "profiles/limits/bc12.json");
	assert_int_equal(scn.limits_loc.line, 8);
	assert_true(scn.has_battery_v);
	assert_near(scn.battery_v, 3.7);
	assert_int_equal(scn.capture_mask, (1u << BN_CH_VBUS) | (1u << BN_CH_IBUS) | (1u << BN_CH_DM));
	assert_near(scn.capture_rate_hz, 100e3);
	assert_int_equal(scn.data_delay_us, 150000);
	assert_int_equal(scn.bounce_n, 3);
	assert_int_equal(scn.bounce_us, 1000);
	assert_int_equal(scn.n_steps, 18);
	s = scn.steps;

	assert_int_equal(s[0].kind, BN_STEP_VBUS);
	assert_true(s[0].on);
	assert_int_equal(s[0].line, 14);
	assert_int_equal(s[0].col, 1);
	assert_int_equal(s[1].kind, BN_STEP_WAIT);
	assert_int_equal(s[1].dur_us, 3000000);

	e = &s[2].expect;
	assert_int_equal(s[2].kind, BN_STEP_EXPECT);
	assert_int_equal(e->kind, BN_EXPECT_TELEMETRY);
	assert_string_equal(e->key, "port");
	assert_int_equal(e->op, BN_OP_EQ);
	assert_true(e->is_word);
	assert_string_equal(e->word, "dcp");
	assert_string_equal(e->text, "expect   dut.port == dcp");

	e = &s[3].expect;
	assert_int_equal(e->kind, BN_EXPECT_STAT);
	assert_int_equal(e->stat, BN_STAT_AVG);
	assert_int_equal(e->chan, BN_CH_IBUS);
	assert_int_equal(e->window_us, 250000);
	assert_int_equal(e->op, BN_OP_GE);
	assert_false(e->is_word);
	assert_near(e->value, 0.9);
	assert_int_equal(e->dim, BN_DIM_A);
	assert_string_equal(e->text, "expect   avg(ibus, 250ms) >= 0.9A");

	e = &s[4].expect;
	assert_int_equal(s[4].line, 18);
	assert_int_equal(s[4].col, 2);
	assert_int_equal(e->stat, BN_STAT_MIN);
	assert_int_equal(e->chan, BN_CH_VBUS);
	assert_int_equal(e->window_us, 1000);
	assert_int_equal(e->op, BN_OP_LT);
	assert_near(e->value, 4.75);
	assert_int_equal(e->dim, BN_DIM_V);
	assert_string_equal(e->text, "expect\tmin(vbus,1ms)<4.75V");

	e = &s[5].expect;
	assert_int_equal(e->stat, BN_STAT_MAX);
	assert_int_equal(e->chan, BN_CH_DP);
	assert_int_equal(e->window_us, 2);
	assert_int_equal(e->op, BN_OP_LE);
	assert_near(e->value, 0.6);
	assert_int_equal(e->dim, BN_DIM_V);

	e = &s[6].expect;
	assert_int_equal(e->kind, BN_EXPECT_TELEMETRY);
	assert_string_equal(e->key, "ibus_limit_ma");
	assert_int_equal(e->op, BN_OP_NE);
	assert_false(e->is_word);
	assert_near(e->value, 500.0);
	assert_int_equal(e->dim, BN_DIM_NONE);

	e = &s[7].expect;
	assert_string_equal(e->key, "vbus_mv");
	assert_int_equal(e->op, BN_OP_GT);
	assert_near(e->value, 4.5);
	assert_int_equal(e->dim, BN_DIM_V);

	assert_int_equal(s[8].kind, BN_STEP_LOAD);
	assert_false(s[8].load_off);
	assert_near(s[8].load_a, 0.5);
	assert_int_equal(s[9].kind, BN_STEP_LOAD);
	assert_true(s[9].load_off);
	assert_int_equal(s[10].kind, BN_STEP_SUSPEND);
	assert_int_equal(s[11].kind, BN_STEP_RESUME);
	assert_int_equal(s[12].kind, BN_STEP_MARK);
	assert_string_equal(s[12].mark, "after resume");
	assert_int_equal(s[13].kind, BN_STEP_PLUG);
	assert_int_equal(s[14].kind, BN_STEP_UNPLUG);
	assert_int_equal(s[15].kind, BN_STEP_WAIT);
	assert_int_equal(s[15].dur_us, INT64_C(2700000000));
	assert_int_equal(s[16].kind, BN_STEP_CHECK);
	assert_int_equal(s[16].n_checks, 2);
	assert_string_equal(s[16].checks[0], "bc12.det");
	assert_string_equal(s[16].checks[1], "bc12.cur.droop");
	assert_int_equal(s[17].kind, BN_STEP_VBUS);
	assert_false(s[17].on);
	assert_int_equal(s[17].line, 31);

	assert_string_equal(bn_cmp_op_str(BN_OP_LE), "<=");
	assert_string_equal(bn_cmp_op_str(BN_OP_NE), "!=");
	assert_string_equal(bn_stat_name(BN_STAT_MAX), "max");
	bn_scenario_free(&scn);
	assert_null(scn.steps);
	bn_scenario_free(&scn); /* twice is harmless */
}

/* Names are checked where they are written: a telemetry key one slip
 * from a known one, a check id the registry lacks, a quantity against a
 * key of another unit; a key far from every known one is a firmware's
 * own and passes. */
static void test_scenario__names_at_parse(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };

	check_error("plug\nexpect dut.prot == dcp\n", "x.scn:2:8: error: ",
		    "unknown telemetry key \"dut.prot\" (did you mean dut.port?");
	check_error("plug\nexpect dut.ilim_am > 5\n", "x.scn:2:8: error: ", "did you mean dut.ilim_ma?");
	check_error("plug\nexpect dut.prot == dcp\n", "x.scn:2:8: error: ", "the keys the bench knows: backoffs, bus,");
	check_error("plug\nexpect dut.ilim_ma > 5V\n", "x.scn:2:22: error: ", "dut.ilim_ma is not a voltage");
	check_error("plug\ncheck bc12.det bc12.dett\n", "x.scn:2:16: error: ",
		    "unknown check \"bc12.dett\" (did you mean bc12.det?");
	check_error("plug\ncheck bc12.det.prot_type\n", "x.scn:2:7: error: ",
		    "did you mean bc12.det.port_type?");
	check_error("plug\ncheck frobnicate\n", "x.scn:2:7: error: ", "unknown check \"frobnicate\" (expected a rule id");
	assert_int_equal(bn_scenario_parse_text("x.scn", "plug\nexpect dut.otg_guard == tripped\n"
						"check bc12 bc12.det.port_type\n", &scn, &err), BN_OK);
	bn_scenario_free(&scn);
}

static void test_scenario__defaults(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };

	assert_int_equal(bn_scenario_parse_text("d.scn", "plug\n", &scn, &err), BN_OK);
	assert_string_equal(scn.name, "");
	assert_string_equal(scn.port, "");
	assert_int_equal(scn.port_loc.line, 0);
	assert_string_equal(scn.limits, "");
	assert_int_equal(scn.limits_loc.line, 0);
	assert_false(scn.has_battery_v);
	assert_int_equal(scn.capture_mask, BN_CH_ALL);
	assert_near(scn.capture_rate_hz, 10e3);
	assert_int_equal(scn.data_delay_us, -1);
	assert_int_equal(scn.bounce_n, 0);
	assert_int_equal(scn.n_steps, 1);
	assert_int_equal(scn.steps[0].kind, BN_STEP_PLUG);
	bn_scenario_free(&scn);

	/* CRLF line ends, upper-case channel names, a zero data delay */
	assert_int_equal(bn_scenario_parse_text("d.scn", "capture VBUS at 1kHz\r\ndata_delay 0ms\r\n"
						 "expect avg(IBUS, 45min) > 0A\r\n",
						 &scn, &err),
			 BN_OK);
	assert_int_equal(scn.capture_mask, 1u << BN_CH_VBUS);
	assert_int_equal(scn.data_delay_us, 0);
	assert_int_equal(scn.steps[0].expect.chan, BN_CH_IBUS);
	assert_string_equal(scn.steps[0].expect.text, "expect avg(IBUS, 45min) > 0A");
	bn_scenario_free(&scn);
}

/* ---- errors: one test per kind ---- */

static void test_scenario__move(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	const struct bn_move *m;

	(void)state;
	assert_int_equal(bn_scenario_parse_text("x.scn",
						"vbus on\nmove dcp charger dcp-1a data_delay 300ms bounce 2 1ms\n"
						"move cdp host root-500ma\n",
						&scn, &err),
			 BN_OK);
	assert_int_equal(scn.n_steps, 3);
	assert_int_equal(scn.steps[1].kind, BN_STEP_MOVE);
	m = &scn.steps[1].move;
	assert_string_equal(m->port, "dcp");
	assert_string_equal(m->charger, "dcp-1a");
	assert_string_equal(m->host, "");
	assert_int_equal(m->data_delay_us, 300000);
	assert_int_equal(m->bounce_n, 2);
	assert_int_equal(m->bounce_us, 1000);
	m = &scn.steps[2].move;
	assert_string_equal(m->port, "cdp");
	assert_string_equal(m->host, "root-500ma");
	assert_int_equal(m->data_delay_us, -1);
	assert_int_equal(m->bounce_n, -1);
	bn_scenario_free(&scn);
	check_error("vbus on\nmove\n", "x.scn:2:5: error: ", "missing argument to \"move\"");
	check_error("vbus on\nmove dcp chargr x\n", "x.scn:2:10: error: ", "unknown move option \"chargr\"");
	check_error("vbus on\nmove dcp charger a charger b\n", "x.scn:2:20: error: ", "\"charger\" given twice");
	check_error("vbus on\nmove dcp data_delay -1s\n", "x.scn:2:21: error: ", "must not be negative");
	check_error("vbus on\nmove dcp bounce 1.5 1ms\n", "x.scn:2:17: error: ", "bad bounce count");
	check_error("vbus on\nmove dcp 5V\n", "x.scn:2:10: error: ", "expected charger, host");
}

static void test_scenario__error_unknown_step(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };

	assert_int_equal(bn_scenario_parse_text("x.scn", "# c\nport dcp\n\nvbuss on\n", &scn, &err),
			 BN_ERR_DATA);
	assert_string_equal(err.msg,
			    "x.scn:4:1: error: unknown step \"vbuss\" (expected one of: name port "
			    "charger host dut firmware limits battery capture data_delay bounce measure "
			    "vbus plug unplug move wait load suspend resume mark expect check)");
	check_error("vbus on\n  (\n", "x.scn:2:3: error: ", "expected a step, got \"(\"");
	check_error("vbus on\n\"wait\" 1s\n", "x.scn:2:1: error: ", "expected a step");
}

static void test_scenario__error_bad_quantity(void **state)
{
	check_error("vbus on\nwait 1s\nwait 2s\nwait 3s\nwait 3q\n", "x.scn:5:6: error: ",
		    "bad quantity \"3q\": expected a time such as 250ms");
	check_error("vbus on\nwait 250\n", "x.scn:2:6: error: ", "bad quantity \"250\": expected a time");
	check_error("vbus on\nwait 1 s\n", "x.scn:2:6: error: ",
		    "bad quantity \"1\": expected a time such as 250ms (no space before the unit: 1s)");
	check_error("vbus on\nwait \"3s\"\n", "x.scn:2:6: error: ",
		    "expected a time such as 250ms, got the string \"3s\"");
	check_error("battery 5mA\nplug\n", "x.scn:1:9: error: ",
		    "bad quantity \"5mA\": expected a voltage such as 4.75V");
	check_error("plug\nload 5V\n", "x.scn:2:6: error: ",
		    "bad quantity \"5V\": expected a current such as 500mA");
	check_error("capture vbus at fast\nplug\n", "x.scn:1:17: error: ",
		    "bad quantity \"fast\": expected a frequency such as 100kHz");
	check_error("plug\nexpect avg(ibus, 1ms) > 5V\n", "x.scn:2:25: error: ",
		    "bad quantity \"5V\": expected a current");
	check_error("plug\nexpect avg(ibus, 1mA) > 5A\n", "x.scn:2:18: error: ",
		    "bad quantity \"1mA\": expected a time");
	check_error("plug\nexpect dut.vbus_mv > 3q\n", "x.scn:2:22: error: ",
		    "bad value \"3q\": expected a number, a quantity");
	check_error("bounce 2.5 1ms\nplug\n", "x.scn:1:8: error: ", "bad bounce count \"2.5\"");
	check_error("bounce 3 0ms\nplug\n", "x.scn:1:10: error: ", "bounce time must be > 0");
	check_error("battery 0V\nplug\n", "x.scn:1:9: error: ", "battery voltage must be > 0");
	check_error("data_delay -1ms\nplug\n", "x.scn:1:12: error: ", "must not be negative");
	check_error("plug\nload -1mA\n", "x.scn:2:6: error: ", "must not be negative");
}

static void test_scenario__error_given_twice(void **state)
{
	check_error("port dcp\nport sdp\nvbus on\n", "x.scn:2:1: error: ",
		    "\"port\" given twice (first at line 1)");
	check_error("name \"a\"\n\n  name \"b\"\nplug\n", "x.scn:3:3: error: ",
		    "\"name\" given twice (first at line 1)");
}

static void test_scenario__error_setup_after_action(void **state)
{
	check_error("name \"a\"\nport dcp\n\n# go\nvbus on\nwait 1s\ncharger c.json\n",
		    "x.scn:7:1: error: ", "set-up statement \"charger\" after the first action (line 5)");
}

static void test_scenario__error_unknown_channel(void **state)
{
	check_error("name \"a\"\nport dcp\ncapture vbs at 1kHz\nvbus on\n", "x.scn:3:9: error: ",
		    "unknown channel \"vbs\" (expected vbus ibus dp dm id)");
	check_error("plug\nexpect max(vbs, 1ms) > 1V\n", "x.scn:2:12: error: ",
		    "unknown channel \"vbs\" (expected vbus ibus dp dm id)");
	check_error("capture vbus dp vbus at 1kHz\nplug\n", "x.scn:1:17: error: ",
		    "channel \"vbus\" listed twice");
}

/* `capture off`: the default channels and rate, no file; anything after
 * it, or off among channels, is an error at its place. */
static void test_scenario__capture_off(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_scenario_parse_text("x.scn", "port dcp\ncapture off\nvbus on\nwait 1s\n",
						&scn, &err), BN_OK);
	assert_true(scn.capture_off);
	assert_int_equal(scn.capture_loc.line, 2);
	assert_int_equal(scn.capture_mask, BN_CH_ALL);
	assert_true(scn.capture_rate_hz == 10e3);
	bn_scenario_free(&scn);
	assert_int_equal(bn_scenario_parse_text("x.scn", "capture vbus at 1kHz\nplug\n", &scn, &err),
			 BN_OK);
	assert_false(scn.capture_off);
	bn_scenario_free(&scn);
	check_error("port dcp\ncapture off now\nplug\n", "x.scn:2:13: error: ",
		    "extra argument \"now\" to \"capture\" (expected end of line)");
	check_error("capture vbus off at 1kHz\nplug\n", "x.scn:1:14: error: ",
		    "\"off\" after channels");
	check_error("capture off\ncapture off\nplug\n", "x.scn:2:1: error: ",
		    "\"capture\" given twice (first at line 1)");
}

static void test_scenario__error_missing_argument(void **state)
{
	check_error("vbus on\nwait\n", "x.scn:2:5: error: ",
		    "missing argument to \"wait\" (expected a time such as 250ms)");
	check_error("vbus   # on\n", "x.scn:1:5: error: ", "missing argument to \"vbus\" (expected on or off)");
	check_error("port\nplug\n", "x.scn:1:5: error: ", "missing argument to \"port\"");
	check_error("name\nplug\n", "x.scn:1:5: error: ", "missing argument to \"name\"");
	check_error("plug\nload", "x.scn:2:5: error: ", "missing argument to \"load\"");
	check_error("capture vbus\nplug\n", "x.scn:1:13: error: ", "\"at RATE\"");
	check_error("capture at 1kHz\nplug\n", "x.scn:1:9: error: ", "expected a channel");
	check_error("bounce 3\nplug\n", "x.scn:1:9: error: ", "missing argument to \"bounce\"");
	check_error("plug\nexpect\n", "x.scn:2:7: error: ", "missing argument to \"expect\"");
	check_error("plug\nexpect dut.port ==\n", "x.scn:2:19: error: ",
		    "missing argument to \"expect\" (expected a number");
	check_error("plug\nexpect avg(ibus, 1ms) >\n", "x.scn:2:24: error: ",
		    "expected a current such as 500mA");
	check_error("plug\nexpect avg(ibus\n", "x.scn:2:16: error: ", "\",\"");
	check_error("plug\nexpect avg(ibus 1ms) > 1A\n", "x.scn:2:17: error: ",
		    "expected \",\" after the channel");
	check_error("plug\nexpect avg(ibus, 1ms > 1A\n", "x.scn:2:22: error: ",
		    "expected \")\" after the window");
	check_error("plug\ncheck\n", "x.scn:2:6: error: ", "missing argument to \"check\"");
	check_error("plug\nmark\n", "x.scn:2:5: error: ", "missing argument to \"mark\"");
}

static void test_scenario__error_wrong_argument(void **state)
{
	check_error("name dcp\nplug\n", "x.scn:1:6: error: ", "expected a name in double quotes");
	check_error("vbus maybe\n", "x.scn:1:6: error: ", "expected on or off, got \"maybe\"");
	check_error("vbus \"on\"\n", "x.scn:1:6: error: ", "expected on or off, got the string \"on\"");
	check_error("plug\nmark 3s\n", "x.scn:2:6: error: ", "expected a text in double quotes");
	check_error("plug\ncheck bc12.det 3\n", "x.scn:2:16: error: ", "expected a check ID");
	check_error("plug\nexpect foo == 1\n", "x.scn:2:8: error: ", "unknown expectation \"foo\"");
	check_error("plug\nexpect dut. == 1\n", "x.scn:2:8: error: ", "missing key after \"dut.\"");
	check_error("plug\nexpect mean(ibus, 1ms) > 1A\n", "x.scn:2:8: error: ",
		    "unknown statistic \"mean\" (expected avg min max)");
	check_error("plug\nexpect dut.port < dcp\n", "x.scn:2:19: error: ",
		    "operator \"<\" needs a number or a quantity");
}

static void test_scenario__error_extra_tokens(void **state)
{
	check_error("plug now\n", "x.scn:1:6: error: ",
		    "extra argument \"now\" to \"plug\" (expected end of line)");
	check_error("vbus on\nwait 1s 2s  # c\n", "x.scn:2:9: error: ", "extra argument \"2s\" to \"wait\"");
	check_error("port dcp sdp\nplug\n", "x.scn:1:10: error: ", "extra argument \"sdp\"");
	check_error("plug\nexpect dut.port == dcp sdp\n", "x.scn:2:24: error: ", "extra argument");
	check_error("plug\nload off 1A\n", "x.scn:2:10: error: ", "extra argument \"1A\"");
}

static void test_scenario__error_bad_operator(void **state)
{
	check_error("vbus on\nexpect dut.port = dcp\n", "x.scn:2:17: error: ",
		    "bad operator \"=\" (expected one of == != < <= > >=)");
	check_error("vbus on\nexpect avg(vbus, 1ms) => 1V\n", "x.scn:2:23: error: ",
		    "bad operator \"=>\"");
	check_error("vbus on\nexpect dut.port dcp\n", "x.scn:2:17: error: ",
		    "expected an operator (one of == != < <= > >=), got \"dcp\"");
}

static void test_scenario__error_wait_not_positive(void **state)
{
	check_error("vbus on\nwait 0ms\n", "x.scn:2:6: error: ", "wait of zero or negative time \"0ms\"");
	check_error("vbus on\nwait -1s\n", "x.scn:2:6: error: ", "wait of zero or negative time \"-1s\"");
}

static void test_scenario__error_capture_rate(void **state)
{
	check_error("capture vbus at 0Hz\nvbus on\n", "x.scn:1:17: error: ",
		    "capture rate must be > 0, got \"0Hz\"");
	check_error("capture vbus at -1kHz\nvbus on\n", "x.scn:1:17: error: ", "capture rate must be > 0");
}

static void test_scenario__error_no_actions(void **state)
{
	check_error("name \"x\"\nport dcp   # c\n\n", "x.scn:2:9: error: ",
		    "scenario has no actions (expected at least one of: vbus plug unplug move wait "
		    "load suspend resume mark expect check)");
	check_error("", "x.scn:1:1: error: ", "scenario has no actions");
	check_error("# only a comment\n", "x.scn:1:1: error: ", "scenario has no actions");
}

static void test_scenario__error_window_zero(void **state)
{
	check_error("vbus on\nexpect avg(ibus, 0ms) > 1A\n", "x.scn:2:18: error: ",
		    "window of zero or negative time \"0ms\"");
}

static void test_scenario__error_lexical(void **state)
{
	check_error("name \"abc\nvbus on\n", "x.scn:1:6: error: ", "unterminated string");
	check_error("vbus on\nwait 1s @\n", "x.scn:2:9: error: ", "stray character '@'");
	check_error("vbus on\nmark \"a\\tb\"\n", "x.scn:2:8: error: ", "unknown escape");
}

static void test_scenario__error_io(void **state)
{
	struct bn_scenario scn;
	struct bn_err err = { 0 };

	assert_int_equal(bn_scenario_parse_file("/nonexistent/dir/x.scn", &scn, &err), BN_ERR_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/x.scn"));
	assert_null(scn.steps);
}

static void test_scenario__parse_file(void **state)
{
	char path[] = "/tmp/test_scenario_XXXXXX";
	int fd = mkstemp(path);
	struct bn_scenario scn;
	struct bn_err err = { 0 };
	static const char text[] = "port sdp\nvbus on\nwait 1s\x00wait 2s\n";

	assert_true(fd >= 0);
	/* a good file */
	assert_int_equal(write(fd, text, 24), 24);
	assert_int_equal(bn_scenario_parse_file(path, &scn, &err), BN_OK);
	assert_string_equal(scn.path, path);
	assert_string_equal(scn.port, "sdp");
	assert_int_equal(scn.n_steps, 2);
	assert_int_equal(scn.steps[1].dur_us, 1000000);
	bn_scenario_free(&scn);

	/* a NUL byte: reported where it is */
	assert_int_equal(write(fd, text + 24, sizeof(text) - 1 - 24), (ssize_t)(sizeof(text) - 1 - 24));
	close(fd);
	assert_int_equal(bn_scenario_parse_file(path, &scn, &err), BN_ERR_DATA);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s:3:8: error: NUL byte", path);
		assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
	}
	unlink(path);
}

/* Every scenario in the tree parses (none yet: nothing to do). Run from the
 * top of the tree, or set BN_SRCDIR. */
static void test_scenario__tree_scenarios(void **state)
{
	const char *top = getenv("BN_SRCDIR");
	char pattern[1024];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/scripts/scenarios/*.scn", top ? top : ".");
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t k = 0; k < g.gl_pathc; k++) {
		struct bn_scenario scn;
		struct bn_err err = { 0 };

		if (bn_scenario_parse_file(g.gl_pathv[k], &scn, &err) != BN_OK) {
			globfree(&g);
			fail_msg("%s", err.msg);
		}
		assert_true(scn.n_steps > 0);
		bn_scenario_free(&scn);
	}
	globfree(&g);
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario__lexer_tokens),
		cmocka_unit_test(test_scenario__lexer_ops_and_quantities),
		cmocka_unit_test(test_scenario__lexer_errors),
		cmocka_unit_test(test_scenario__good_script),
		cmocka_unit_test(test_scenario__defaults),
		cmocka_unit_test(test_scenario__error_unknown_step),
		cmocka_unit_test(test_scenario__move),
		cmocka_unit_test(test_scenario__error_bad_quantity),
		cmocka_unit_test(test_scenario__error_given_twice),
		cmocka_unit_test(test_scenario__error_setup_after_action),
		cmocka_unit_test(test_scenario__error_unknown_channel),
		cmocka_unit_test(test_scenario__capture_off),
		cmocka_unit_test(test_scenario__error_missing_argument),
		cmocka_unit_test(test_scenario__error_wrong_argument),
		cmocka_unit_test(test_scenario__error_extra_tokens),
		cmocka_unit_test(test_scenario__error_bad_operator),
		cmocka_unit_test(test_scenario__error_wait_not_positive),
		cmocka_unit_test(test_scenario__error_capture_rate),
		cmocka_unit_test(test_scenario__error_no_actions),
		cmocka_unit_test(test_scenario__error_window_zero),
		cmocka_unit_test(test_scenario__error_lexical),
		cmocka_unit_test(test_scenario__error_io),
		cmocka_unit_test(test_scenario__parse_file),
		cmocka_unit_test(test_scenario__names_at_parse),
		cmocka_unit_test(test_scenario__tree_scenarios),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
