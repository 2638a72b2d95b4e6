/* Unit parsing: every dimension and prefix, and the inputs it must refuse. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/err.h"
#include "core/units.h"

/* Relative comparison: parsed values go through a scale factor. */
#define assert_close(a, b)                                                    \
	do {                                                                  \
		double a_ = (a), b_ = (b);                                    \
		if (!(fabs(a_ - b_) <= 1e-12 * fmax(fabs(a_), fabs(b_)))) {   \
			print_error("%s = %.17g, expected %.17g\n", #a, a_, b_); \
			fail();                                               \
		}                                                             \
	} while (0)

static double parse_ok(const char *text, enum bn_dim want)
{
	char why[200] = "";
	double v = NAN;
	int rc = bn_quantity_parse(text, want, &v, why, sizeof(why));

	if (rc != BN_OK) {
		print_error("\"%s\" rejected: %s\n", text, why);
		fail();
	}
	return v;
}

/* Returns the reason so callers can check it. */
static const char *parse_bad(const char *text, enum bn_dim want, char *why,
			     unsigned len)
{
	double v = 12345.0;
	int rc = bn_quantity_parse(text, want, &v, why, len);

	if (rc != BN_ERR_DATA) {
		print_error("\"%s\" accepted (rc %d, value %g)\n", text, rc, v);
		fail();
	}
	assert_true(v == 12345.0); /* output untouched on failure */
	assert_true(why[0] != '\0');
	return why;
}

static void test_units__voltage(void **state)
{
	assert_close(parse_ok("4.75V", BN_DIM_V), 4.75);
	assert_close(parse_ok("500mV", BN_DIM_V), 0.5);
	assert_close(parse_ok("250uV", BN_DIM_V), 250e-6);
	assert_close(parse_ok("250\xc2\xb5V", BN_DIM_V), 250e-6);
	assert_close(parse_ok("5 V", BN_DIM_V), 5.0);
}

static void test_units__current(void **state)
{
	assert_true(parse_ok("100mA", BN_DIM_A) == 0.1); /* exact, as a literal */
	assert_true(parse_ok("500mA", BN_DIM_A) == 0.5);
	assert_close(parse_ok("1.5A", BN_DIM_A), 1.5);
	assert_close(parse_ok("10uA", BN_DIM_A), 10e-6);
	assert_close(parse_ok("10\xc2\xb5" "A", BN_DIM_A), 10e-6);
	assert_close(parse_ok("300nA", BN_DIM_A), 300e-9);
}

static void test_units__resistance(void **state)
{
	assert_close(parse_ok("200ohm", BN_DIM_OHM), 200.0);
	assert_close(parse_ok("15kohm", BN_DIM_OHM), 15e3);
	assert_close(parse_ok("1.2Mohm", BN_DIM_OHM), 1.2e6);
	assert_close(parse_ok("124k\xce\xa9", BN_DIM_OHM), 124e3);
	assert_close(parse_ok("1\xe2\x84\xa6", BN_DIM_OHM), 1.0);
}

static void test_units__time(void **state)
{
	assert_close(parse_ok("250ms", BN_DIM_S), 0.25);
	assert_close(parse_ok("1s", BN_DIM_S), 1.0);
	assert_close(parse_ok("45min", BN_DIM_S), 2700.0);
	assert_close(parse_ok("2h", BN_DIM_S), 7200.0);
	assert_close(parse_ok("100us", BN_DIM_S), 100e-6);
}

static void test_units__frequency_charge_capacitance(void **state)
{
	assert_close(parse_ok("100kHz", BN_DIM_HZ), 100e3);
	assert_close(parse_ok("50Hz", BN_DIM_HZ), 50.0);
	assert_close(parse_ok("12MHz", BN_DIM_HZ), 12e6);
	assert_close(parse_ok("1000mAh", BN_DIM_AH), 1.0);
	assert_close(parse_ok("2.2Ah", BN_DIM_AH), 2.2);
	assert_close(parse_ok("1nF", BN_DIM_F), 1e-9);
	assert_close(parse_ok("10pF", BN_DIM_F), 10e-12);
	assert_close(parse_ok("4.7uF", BN_DIM_F), 4.7e-6);
	assert_close(parse_ok("1F", BN_DIM_F), 1.0);
}

static void test_units__numbers(void **state)
{
	assert_close(parse_ok("-0.5V", BN_DIM_V), -0.5);
	assert_close(parse_ok("+3V", BN_DIM_V), 3.0);
	assert_close(parse_ok(".5A", BN_DIM_A), 0.5);
	assert_close(parse_ok("5.A", BN_DIM_A), 5.0);
	assert_close(parse_ok("1e3mA", BN_DIM_A), 1.0);
	assert_close(parse_ok("1.5E-3A", BN_DIM_A), 1.5e-3);
	assert_close(parse_ok("2e+1ms", BN_DIM_S), 0.02);
	assert_close(parse_ok("42", BN_DIM_NONE), 42.0);
	assert_close(parse_ok("-1e-2", BN_DIM_NONE), -0.01);
}

static void test_units__rejects(void **state)
{
	static const struct {
		const char *text;
		enum bn_dim want;
	} bad[] = {
		{ "5VV", BN_DIM_V },   { "mA", BN_DIM_A },     { "", BN_DIM_A },
		{ "5 V V", BN_DIM_V }, { "5  V", BN_DIM_V },   { "5V ", BN_DIM_V },
		{ " 5V", BN_DIM_V },   { "5", BN_DIM_V },      { "5 ", BN_DIM_NONE },
		{ "5V", BN_DIM_NONE }, { "15k", BN_DIM_OHM },  { "5MA", BN_DIM_A },
		{ "inf V", BN_DIM_V }, { "nanV", BN_DIM_V },   { "0x10V", BN_DIM_V },
		{ "1e999V", BN_DIM_V }, { "-V", BN_DIM_V },    { ".V", BN_DIM_V },
		{ "1e", BN_DIM_NONE }, { "5,0V", BN_DIM_V },   { "5v", BN_DIM_V },
	};
	char why[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		parse_bad(bad[i].text, bad[i].want, why, sizeof(why));
	}
	assert_int_equal(bn_quantity_parse(NULL, BN_DIM_V, NULL, NULL, 0),
			 BN_ERR_DATA);
}

static void test_units__wrong_dimension(void **state)
{
	char why[200];

	parse_bad("5V", BN_DIM_A, why, sizeof(why));
	assert_string_equal(why, "expected a current such as 500mA, got \"5V\"");
	parse_bad("500mA", BN_DIM_V, why, sizeof(why));
	assert_non_null(strstr(why, "expected a voltage"));
	parse_bad("1000mAh", BN_DIM_A, why, sizeof(why));
	assert_non_null(strstr(why, "current"));
	parse_bad("10ms", BN_DIM_HZ, why, sizeof(why));
	assert_non_null(strstr(why, "frequency"));
}

static void test_units__messages(void **state)
{
	char why[200];

	parse_bad("5VV", BN_DIM_V, why, sizeof(why));
	assert_non_null(strstr(why, "unknown unit \"VV\""));
	parse_bad("mA", BN_DIM_A, why, sizeof(why));
	assert_non_null(strstr(why, "no number"));
	parse_bad("5", BN_DIM_A, why, sizeof(why));
	assert_non_null(strstr(why, "no unit"));
	parse_bad("15k", BN_DIM_OHM, why, sizeof(why));
	assert_non_null(strstr(why, "15kohm"));
	/* a short buffer truncates, never overflows */
	parse_bad("5VV", BN_DIM_V, why, 8);
	assert_int_equal(strlen(why), 7);
}

static void test_units__parse_any(void **state)
{
	enum bn_dim dim = BN_DIM_NONE;
	double v = 0;

	assert_int_equal(bn_quantity_parse_any("45min", &dim, &v, NULL, 0), BN_OK);
	assert_int_equal(dim, BN_DIM_S);
	assert_close(v, 2700.0);
	assert_int_equal(bn_quantity_parse_any("3", &dim, &v, NULL, 0), BN_OK);
	assert_int_equal(dim, BN_DIM_NONE);
	assert_int_equal(bn_quantity_parse_any("3 parsecs", &dim, &v, NULL, 0),
			 BN_ERR_DATA);
}

static void test_units__lookup(void **state)
{
	enum bn_dim dim = BN_DIM_NONE;
	double scale = 0;

	assert_int_equal(bn_unit_lookup("mV", &dim, &scale), BN_OK);
	assert_int_equal(dim, BN_DIM_V);
	assert_close(scale, 1e-3);
	assert_int_equal(bn_unit_lookup("kohm", &dim, &scale), BN_OK);
	assert_int_equal(dim, BN_DIM_OHM);
	assert_close(scale, 1e3);
	assert_int_equal(bn_unit_lookup("min", &dim, &scale), BN_OK);
	assert_int_equal(dim, BN_DIM_S);
	assert_close(scale, 60.0);
	assert_int_equal(bn_unit_lookup("mAh", &dim, &scale), BN_OK);
	assert_int_equal(dim, BN_DIM_AH);
	assert_int_equal(bn_unit_lookup("mQ", &dim, &scale), BN_ERR_DATA);
	assert_int_equal(bn_unit_lookup("", &dim, &scale), BN_ERR_DATA);
	assert_int_equal(bn_unit_lookup(NULL, &dim, &scale), BN_ERR_DATA);
}

static void test_units__dim_names(void **state)
{
	assert_string_equal(bn_dim_name(BN_DIM_A), "a current");
	assert_string_equal(bn_dim_name(BN_DIM_V), "a voltage");
	assert_string_equal(bn_dim_unit(BN_DIM_OHM), "ohm");
	assert_string_equal(bn_dim_unit(BN_DIM_S), "s");
	assert_string_equal(bn_dim_unit(BN_DIM_AH), "Ah");
	assert_string_equal(bn_dim_unit(BN_DIM_F), "F");
}

/* What the terminal and the diff print: SI prefixes, 4 significant
 * digits, a computed difference's rounding shown as 0, limits as a person
 * reads them. */
static void test_units__format(void **state)
{
	char b[64];

	(void)state;
	bn_qty_format(0.0001019, "A", b, sizeof(b));
	assert_string_equal(b, "101.9 \xc2\xb5" "A");
	bn_qty_format(4.95, "V", b, sizeof(b));
	assert_string_equal(b, "4.95 V");
	bn_qty_format(6.484e-18, "A", b, sizeof(b));
	assert_string_equal(b, "0 A");
	bn_qty_format(-0.0025, "A", b, sizeof(b));
	assert_string_equal(b, "-2.5 mA");
	bn_qty_format(0.0035, "s", b, sizeof(b));
	assert_string_equal(b, "3.5 ms");
	bn_qty_format(47000, "ohm", b, sizeof(b));
	assert_string_equal(b, "47 kohm");
	bn_qty_format(0.999999, "V", b, sizeof(b));
	assert_string_equal(b, "1000 mV");
	bn_qty_format(2700, "s", b, sizeof(b));
	assert_string_equal(b, "2700 s");
	bn_qty_format(12.5, "", b, sizeof(b));
	assert_string_equal(b, "12.5");
	bn_limit_format("IDEV_CHG", NAN, 1.5, "A", b, sizeof(b));
	assert_string_equal(b, "IDEV_CHG <= 1.5 A");
	bn_limit_format("VDP_SRC", 0.5, 0.7, "V", b, sizeof(b));
	assert_string_equal(b, "VDP_SRC 500 mV..700 mV");
	bn_limit_format(">= 0.9 A", 0.9, NAN, "A", b, sizeof(b));
	assert_string_equal(b, ">= 0.9 A");
	bn_limit_format(NULL, 4.75, NAN, "V", b, sizeof(b));
	assert_string_equal(b, ">= 4.75 V");
	bn_limit_format("", NAN, NAN, "V", b, sizeof(b));
	assert_string_equal(b, "");
}

/* A value no USB charger gives: what was likely meant. */
static void test_units__plausible(void **state)
{
	char why[200] = "";

	assert_int_equal(bn_plausible_max(5.0, BN_DIM_A, BN_PLAUSIBLE_USB_A, 1, why, sizeof(why)), BN_OK);
	assert_int_equal(bn_plausible_max(10.0, BN_DIM_A, BN_PLAUSIBLE_USB_A, 1, why, sizeof(why)), BN_OK);
	assert_int_equal(bn_plausible_max(800.0, BN_DIM_A, BN_PLAUSIBLE_USB_A, 1, why, sizeof(why)),
			 BN_ERR_DATA);
	assert_string_equal(why, "800 A is more than USB carries (at most 10 A): did you write "
				 "mA? write 0.8 or \"800mA\"");
	assert_int_equal(bn_plausible_max(5100.0, BN_DIM_V, BN_PLAUSIBLE_USB_V, 0, why, sizeof(why)),
			 BN_ERR_DATA);
	assert_string_equal(why, "5100 V is more than USB carries (at most 50 V): did you mean "
				 "\"5100mV\"?");
	assert_int_equal(bn_plausible_max(NAN, BN_DIM_A, BN_PLAUSIBLE_USB_A, 1, why, sizeof(why)), BN_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units__voltage),
		cmocka_unit_test(test_units__current),
		cmocka_unit_test(test_units__resistance),
		cmocka_unit_test(test_units__time),
		cmocka_unit_test(test_units__frequency_charge_capacitance),
		cmocka_unit_test(test_units__numbers),
		cmocka_unit_test(test_units__rejects),
		cmocka_unit_test(test_units__wrong_dimension),
		cmocka_unit_test(test_units__messages),
		cmocka_unit_test(test_units__parse_any),
		cmocka_unit_test(test_units__lookup),
		cmocka_unit_test(test_units__dim_names),
		cmocka_unit_test(test_units__format),
		cmocka_unit_test(test_units__plausible),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
