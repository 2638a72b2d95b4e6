/* core/text.h: UTF-8 checked and repaired, strings cut only between
 * characters at every buffer length, control characters escaped for the
 * terminal; and the JSON and error paths built on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/json.h"
#include "core/text.h"
#include "hil/console.h"

/* 1-, 2-, 3- and 4-byte characters in every order and alignment */
static const char mixed[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z\xf0\x9f\x98\x80\xe2\x82\xac"
			    "\xc3\xa9" "bc\xe2\x82\xac\xc3\xa9\xf0\x9f\x98\x80";

static const struct {
	const char *s;
	size_t len;
	bool valid;
} valid_cases[] = {
	{ "", 0, true },
	{ "plain ascii \x01\x1b\x7f", 15, true },   /* controls are valid UTF-8 */
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, true },
	{ "\xf4\x8f\xbf\xbf", 4, true },              /* U+10FFFF */
	{ "\xff", 1, false },
	{ "\x80", 1, false },                          /* lone continuation */
	{ "\xc3", 1, false },                          /* cut 2-byte */
	{ "\xe2\x82", 2, false },                      /* cut 3-byte */
	{ "\xf0\x9f\x98", 3, false },                  /* cut 4-byte */
	{ "\xc0\xaf", 2, false },                      /* overlong '/' */
	{ "\xe0\x80\xaf", 3, false },                  /* overlong */
	{ "\xed\xa0\x80", 3, false },                  /* surrogate U+D800 */
	{ "\xf4\x90\x80\x80", 4, false },              /* above U+10FFFF */
	{ "a\0b", 3, false },                          /* NUL inside */
};

static void test_text__utf8_valid_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
		if (bn_utf8_valid(valid_cases[i].s, valid_cases[i].len) != valid_cases[i].valid)
			fail_msg("case %zu: expected %s", i, valid_cases[i].valid ? "valid" : "invalid");
	}
}

#define FFFD "\xef\xbf\xbd"

static const struct {
	const char *in;
	size_t len;
	const char *out;
} sanitize_cases[] = {
	{ "ok \xc3\xa9", 5, "ok \xc3\xa9" },
	{ "a\xff" "b", 3, "a" FFFD "b" },
	{ "\xc3(", 2, FFFD "(" },
	{ "x\xe2\x82", 3, "x" FFFD FFFD }, /* glib: one U+FFFD a byte */
	{ "\xed\xa0\x80", 3, FFFD FFFD FFFD },
	{ "a\0b", 3, "a" FFFD "b" },
	{ "\0", 1, FFFD },
	{ "", 0, "" },
};

static void test_text__sanitize_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sanitize_cases) / sizeof(sanitize_cases[0]); i++) {
		char *got = bn_utf8_sanitize(sanitize_cases[i].in, sanitize_cases[i].len);

		assert_non_null(got);
		assert_string_equal(got, sanitize_cases[i].out);
		assert_true(bn_utf8_valid(got, strlen(got)));
		free(got);
	}
}

/* Bytes of the UTF-8 character starting with lead byte c. */
static size_t char_len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* got is the longest whole-character prefix of src that fits len bytes
 * with its NUL. */
static void assert_char_prefix(const char *got, const char *src, size_t len)
{
	size_t n = strlen(got), full = strlen(src);

	assert_true(n < len);
	assert_memory_equal(got, src, n);
	assert_true(bn_utf8_valid(got, n));
	if (n < full)
		assert_true(n + char_len((unsigned char)src[n]) >= len);
}

static void test_text__str_copy_every_length(void **state)
{
	char buf[sizeof(mixed) + 4];

	(void)state;
	for (size_t len = 1; len <= sizeof(buf); len++) {
		size_t n;

		memset(buf, 'X', sizeof(buf));
		n = bn_str_copy(buf, len, mixed);
		assert_int_equal(n, strlen(buf));
		assert_char_prefix(buf, mixed, len);
		for (size_t k = n + 1; k < sizeof(buf); k++) /* nothing past the end */
			assert_int_equal(buf[k], 'X');
	}
	assert_int_equal(bn_str_copy(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "");
	assert_int_equal(bn_str_copy(buf, 0, mixed), 0);
}

static void test_text__str_fmt_every_length(void **state)
{
	char buf[sizeof(mixed) + 8], want[sizeof(mixed) + 8];

	(void)state;
	snprintf(want, sizeof(want), "[%s]", mixed);
	for (size_t len = 1; len <= sizeof(buf); len++) {
		bool fit = bn_str_fmt(buf, len, "[%s]", mixed);

		assert_char_prefix(buf, want, len);
		assert_int_equal(fit, strlen(want) < len);
	}
}

static void test_text__prec_every_length(void **state)
{
	char buf[sizeof(mixed) + 4];

	(void)state;
	for (size_t max = 0; max <= sizeof(mixed) + 2; max++) {
		int n = bn_utf8_prec(mixed, max);

		snprintf(buf, sizeof(buf), "%.*s", n, mixed);
		assert_char_prefix(buf, mixed, max + 1);
	}
	assert_int_equal(bn_utf8_prec(NULL, 10), 0);
	assert_int_equal(bn_utf8_prec("ab", 10), 2);
}

static void test_text__cut_table(void **state)
{
	(void)state;
	/* "a" + euro: cutting at 2 or 3 backs off to 1; at 4 keeps it */
	assert_int_equal(bn_utf8_cut("a\xe2\x82\xac", 1), 1);
	assert_int_equal(bn_utf8_cut("a\xe2\x82\xac", 2), 1);
	assert_int_equal(bn_utf8_cut("a\xe2\x82\xac", 3), 1);
	assert_int_equal(bn_utf8_cut("a\xe2\x82\xac", 4), 4);
	assert_int_equal(bn_utf8_cut("\xf0\x9f\x98\x80", 3), 0);
	assert_int_equal(bn_utf8_cut("\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(bn_utf8_cut("", 0), 0);
	/* broken input is not made worse: stray continuation bytes stay */
	assert_int_equal(bn_utf8_cut("\x80\x80\x80\x80\x80", 5), 5);
}

static const struct {
	const char *in, *out;
} esc_cases[] = {
	{ "plain", "plain" },
	{ "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m" },
	{ "a\nb\tc\rd", "a\\nb\\tc\\rd" },
	{ "\x01\x07\x1f\x7f", "\\x01\\x07\\x1f\\x7f" },
	{ "back\\slash \"q\"", "back\\slash \"q\"" },
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
	{ "csi\xc2\x9b" "2J", "csi\\u009b2J" },    /* C1 control */
	{ "nbsp\xc2\xa0", "nbsp\xc2\xa0" },        /* first after C1: kept */
	{ "bad\xff\xc3(", "bad\\xff\\xc3(" },
	{ "cut\xe2\x82", "cut\\xe2\\x82" },
	{ "sur\xed\xa0\x80", "sur\\xed\\xa0\\x80" },
};

static void test_text__term_escape_table(void **state)
{
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		char *got = bn_term_escape(esc_cases[i].in);

		assert_non_null(got);
		assert_string_equal(got, esc_cases[i].out);
		free(got);
		assert_string_equal(bn_term_esc(esc_cases[i].in, buf, sizeof(buf)),
				    esc_cases[i].out);
	}
}

/* Cut into a small buffer, the escape ends between escapes and between
 * characters: never "\x1" or half a character. */
static void test_text__term_esc_every_length(void **state)
{
	static const char src[] = "n\x1b[1m\xc3\xa9\n\xff\xe2\x82\xac\xc2\x9b\x7f\xf0\x9f\x98\x80";
	char *full = bn_term_escape(src);
	char buf[96];

	(void)state;
	assert_non_null(full);
	for (size_t len = 1; len <= strlen(full) + 2 && len <= sizeof(buf); len++) {
		size_t n;
		const char *bs;

		bn_term_esc(src, buf, len);
		n = strlen(buf);
		assert_true(n < len);
		assert_memory_equal(buf, full, n);
		assert_true(bn_utf8_valid(buf, n));
		bs = strrchr(buf, '\\');
		if (bs) {
			size_t need = bs[1] == 'x' ? 4 : bs[1] == 'u' ? 6 : 2;

			assert_true((size_t)(bs - buf) + need <= n);
		}
		if (n < strlen(full)) /* as much as fits */
			assert_true(n + 6 >= len - 1);
	}
	free(full);
}

static void test_text__term_printf_keeps_one_line_end(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	(void)state;
	assert_non_null(f);
	bn_term_printf(f, "name %s: %d\n", "a\nb\x1b", 3);
	bn_term_printf(f, "no end %s", "\t");
	fclose(f);
	assert_string_equal(text, "name a\\nb\\x1b: 3\nno end \\t");
	free(text);
}

/* Every key and string value is UTF-8 after bn_json_print, constant keys
 * included; valid text is left as it was. */
static void test_text__json_print_repairs_the_tree(void **state)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *inner = cJSON_CreateObject();
	char *text;

	(void)state;
	cJSON_AddStringToObject(root, "ok", "caf\xc3\xa9");
	cJSON_AddStringToObject(root, "bad\xff", "v\xc3(");
	cJSON_AddItemToObjectCS(root, "const\xfe", cJSON_CreateString("x"));
	cJSON_AddItemToArray(arr, cJSON_CreateString("\xe2\x82"));
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(1));
	cJSON_AddStringToObject(inner, "deep", "\xf0\x9f\x98");
	cJSON_AddItemToArray(arr, inner);
	cJSON_AddItemToObject(root, "list", arr);
	text = bn_json_print_line(root);
	assert_non_null(text);
	assert_true(bn_utf8_valid(text, strlen(text)));
	assert_string_equal(text, "{\"ok\":\"caf\xc3\xa9\",\"bad" FFFD "\":\"v" FFFD "(\",\"const" FFFD
			    "\":\"x\",\"list\":[\"" FFFD FFFD "\",1,{\"deep\":\"" FFFD FFFD FFFD "\"}]}");
	free(text);
	cJSON_Delete(root); /* the repaired const key is freed: ASan says if not */
}

static void test_text__json_str_repairs_and_counts_the_repair(void **state)
{
	cJSON *o = cJSON_CreateObject();
	struct bn_err err = { 0 };
	char buf[8];

	(void)state;
	cJSON_AddStringToObject(o, "a", "x\xffy");
	cJSON_AddStringToObject(o, "b", "abcd\xff\xff"); /* 6 bytes, 10 repaired */
	assert_int_equal(bn_json_str(o, "a", true, buf, sizeof(buf), "t", &err), BN_OK);
	assert_string_equal(buf, "x" FFFD "y");
	assert_int_equal(bn_json_str(o, "b", true, buf, sizeof(buf), "t", &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "string too long (10 bytes, at most 7)"));
	cJSON_Delete(o);
}

static void test_text__err_message_is_escaped(void **state)
{
	struct bn_err err = { 0 };
	char name[BN_ERR_MSG_LEN + 16];

	(void)state;
	bn_err_set(&err, BN_ERR_DATA, "device \"%s\": bad", "x\x1b[2J\ny\xff");
	assert_string_equal(err.msg, "device \"x\\x1b[2J\\ny\\xff\": bad");
	/* a long name of 3-byte characters: cut between characters */
	memset(name, 0, sizeof(name));
	for (size_t i = 0; i + 3 < sizeof(name) - 1; i += 3)
		memcpy(name + i, "\xe2\x82\xac", 3);
	for (int pad = 0; pad < 3; pad++) {
		bn_err_clear(&err);
		bn_err_set(&err, BN_ERR_DATA, "%.*s%s", pad, "aa", name);
		assert_true(bn_utf8_valid(err.msg, strlen(err.msg)));
		assert_true(strlen(err.msg) >= sizeof(err.msg) - 3);
	}
}

static bool has_raw_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A device's console line is quoted in the error it causes: escaped, and
 * cut between characters (the quote of the line and of the value) at
 * every alignment. */
static void test_text__console_line_quoted_safely(void **state)
{
	struct bn_con_rec rec;
	struct bn_err err = { 0 };
	char line[600];

	(void)state;
	assert_true(bn_console_parse_line("bc12 port=\x1b[2Jdcp\x07 ilim=5", &rec, &err) < 0);
	assert_non_null(strstr(err.msg, "port \"\\x1b[2Jdcp\\x07\": not a port type"));
	assert_false(has_raw_control(err.msg));
	for (int pad = 0; pad < 3; pad++) {
		for (int field = 0; field < 4; field++) {
			/* a bad port, number and state; a line too long */
			static const char *const heads[] = { "bc12 port=", "bc12 port=dcp ilim_ma=",
							     "bc12 port=dcp state=", "bc12 port=" };
			size_t end = field == 3 ? sizeof(line) - 1 : 300;
			size_t o = (size_t)snprintf(line, sizeof(line), "%s%.*s", heads[field], pad, "aa");

			while (o + 3 <= end) {
				memcpy(line + o, "\xe2\x82\xac", 3);
				o += 3;
			}
			line[o] = '\0';
			bn_err_clear(&err);
			assert_true(bn_console_parse_line(line, &rec, &err) < 0);
			assert_true(bn_utf8_valid(err.msg, strlen(err.msg)));
			/* a cut character would show as \xe2 or \x82 */
			if (strstr(err.msg, "\\x"))
				fail_msg("pad %d field %d: %s", pad, field, err.msg);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text__utf8_valid_table),
		cmocka_unit_test(test_text__sanitize_table),
		cmocka_unit_test(test_text__str_copy_every_length),
		cmocka_unit_test(test_text__str_fmt_every_length),
		cmocka_unit_test(test_text__prec_every_length),
		cmocka_unit_test(test_text__cut_table),
		cmocka_unit_test(test_text__term_escape_table),
		cmocka_unit_test(test_text__term_esc_every_length),
		cmocka_unit_test(test_text__term_printf_keeps_one_line_end),
		cmocka_unit_test(test_text__json_print_repairs_the_tree),
		cmocka_unit_test(test_text__json_str_repairs_and_counts_the_repair),
		cmocka_unit_test(test_text__err_message_is_escaped),
		cmocka_unit_test(test_text__console_line_quoted_safely),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
