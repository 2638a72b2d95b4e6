/* Quantities with written units: a table of symbols, a strict number
 * scanner and messages that say what was expected. */
#include "core/units.h"

#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

struct unit_sym {
	const char *sym;
	enum bn_dim dim;
	double scale; /* SI value of one of these */
};

/* Case matters: "mA" is not "MA", "mHz" is not "MHz". */
static const struct unit_sym unit_table[] = {
	{ "V", BN_DIM_V, 1.0 },
	{ "mV", BN_DIM_V, 1e-3 },
	{ "uV", BN_DIM_V, 1e-6 },
	{ "\xc2\xb5V", BN_DIM_V, 1e-6 }, /* µV */
	{ "A", BN_DIM_A, 1.0 },
	{ "mA", BN_DIM_A, 1e-3 },
	{ "uA", BN_DIM_A, 1e-6 },
	{ "\xc2\xb5" "A", BN_DIM_A, 1e-6 }, /* µA */
	{ "nA", BN_DIM_A, 1e-9 },
	{ "ohm", BN_DIM_OHM, 1.0 },
	{ "kohm", BN_DIM_OHM, 1e3 },
	{ "Mohm", BN_DIM_OHM, 1e6 },
	{ "\xce\xa9", BN_DIM_OHM, 1.0 },       /* Ω (U+03A9) */
	{ "k\xce\xa9", BN_DIM_OHM, 1e3 },
	{ "M\xce\xa9", BN_DIM_OHM, 1e6 },
	{ "\xe2\x84\xa6", BN_DIM_OHM, 1.0 },   /* Ω (U+2126 OHM SIGN) */
	{ "k\xe2\x84\xa6", BN_DIM_OHM, 1e3 },
	{ "M\xe2\x84\xa6", BN_DIM_OHM, 1e6 },
	{ "s", BN_DIM_S, 1.0 },
	{ "ms", BN_DIM_S, 1e-3 },
	{ "us", BN_DIM_S, 1e-6 },
	{ "\xc2\xb5s", BN_DIM_S, 1e-6 }, /* µs */
	{ "min", BN_DIM_S, 60.0 },
	{ "h", BN_DIM_S, 3600.0 },
	{ "Hz", BN_DIM_HZ, 1.0 },
	{ "kHz", BN_DIM_HZ, 1e3 },
	{ "MHz", BN_DIM_HZ, 1e6 },
	{ "Ah", BN_DIM_AH, 1.0 },
	{ "mAh", BN_DIM_AH, 1e-3 },
	{ "F", BN_DIM_F, 1.0 },
	{ "uF", BN_DIM_F, 1e-6 },
	{ "\xc2\xb5" "F", BN_DIM_F, 1e-6 }, /* µF */
	{ "nF", BN_DIM_F, 1e-9 },
	{ "pF", BN_DIM_F, 1e-12 },
};

/* An example per dimension, for "expected a current such as 500mA". */
static const char *dim_example(enum bn_dim dim)
{
	switch (dim) {
	case BN_DIM_NONE: return "42";
	case BN_DIM_V: return "4.75V";
	case BN_DIM_A: return "500mA";
	case BN_DIM_OHM: return "15kohm";
	case BN_DIM_S: return "250ms";
	case BN_DIM_HZ: return "100kHz";
	case BN_DIM_AH: return "1000mAh";
	case BN_DIM_F: return "1nF";
	}
	return "?";
}

const char *bn_dim_name(enum bn_dim dim)
{
	switch (dim) {
	case BN_DIM_NONE: return "a plain number";
	case BN_DIM_V: return "a voltage";
	case BN_DIM_A: return "a current";
	case BN_DIM_OHM: return "a resistance";
	case BN_DIM_S: return "a time";
	case BN_DIM_HZ: return "a frequency";
	case BN_DIM_AH: return "a charge";
	case BN_DIM_F: return "a capacitance";
	}
	return "an unknown quantity";
}

const char *bn_dim_unit(enum bn_dim dim)
{
	switch (dim) {
	case BN_DIM_NONE: return "";
	case BN_DIM_V: return "V";
	case BN_DIM_A: return "A";
	case BN_DIM_OHM: return "ohm";
	case BN_DIM_S: return "s";
	case BN_DIM_HZ: return "Hz";
	case BN_DIM_AH: return "Ah";
	case BN_DIM_F: return "F";
	}
	return "?";
}

int bn_unit_lookup(const char *unit, enum bn_dim *dim, double *scale)
{
	size_t i;

	if (!unit)
		return BN_ERR_DATA;
	for (i = 0; i < G_N_ELEMENTS(unit_table); i++) {
		if (strcmp(unit, unit_table[i].sym) == 0) {
			if (dim)
				*dim = unit_table[i].dim;
			if (scale)
				*scale = unit_table[i].scale;
			return BN_OK;
		}
	}
	return BN_ERR_DATA;
}

static void set_why(char *why, unsigned why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_why(char *why, unsigned why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || why_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

/* Length of the decimal number at the start of s:
 * [+-] digits [. digits] [(e|E) [+-] digits], at least one mantissa digit.
 * 0 when there is none. No inf, nan or hex: strtod would take those. */
static size_t scan_number(const char *s)
{
	size_t i = 0, digits = 0, exp_start;

	if (s[i] == '+' || s[i] == '-')
		i++;
	while (g_ascii_isdigit(s[i])) {
		i++;
		digits++;
	}
	if (s[i] == '.') {
		i++;
		while (g_ascii_isdigit(s[i])) {
			i++;
			digits++;
		}
	}
	if (digits == 0)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		exp_start = i;
		i++;
		if (s[i] == '+' || s[i] == '-')
			i++;
		if (!g_ascii_isdigit(s[i]))
			return exp_start; /* "5e" is 5 followed by unit "e" */
		while (g_ascii_isdigit(s[i]))
			i++;
	}
	return i;
}

/* v * scale, but dividing by 1000 for "m" etc., so that "100mA" gives the
 * same double as the literal 0.1. */
static double scale_to_si(double v, double scale)
{
	if (scale < 1.0)
		return v / nearbyint(1.0 / scale);
	return v * scale;
}

/* The shared parser. want_any: accept any dimension (want ignored). */
static int parse(const char *text, bool want_any, enum bn_dim want,
		 enum bn_dim *dim_out, double *out_si, char *why,
		 unsigned why_len)
{
	char num[64];
	const char *unit;
	size_t n;
	double v, scale = 1.0;
	enum bn_dim dim = BN_DIM_NONE;
	const char *expect_name = want_any ? "a quantity" : bn_dim_name(want);
	const char *expect_ex = want_any ? "500mA" : dim_example(want);

	if (!text) {
		set_why(why, why_len, "expected %s such as %s, got nothing",
			expect_name, expect_ex);
		return BN_ERR_DATA;
	}
	n = scan_number(text);
	if (n == 0) {
		set_why(why, why_len, "expected %s such as %s, got \"%s\"%s",
			expect_name, expect_ex, text,
			text[0] ? " (no number)" : "");
		return BN_ERR_DATA;
	}
	if (n >= sizeof(num)) {
		set_why(why, why_len, "number too long in \"%.40s...\"", text);
		return BN_ERR_DATA;
	}
	memcpy(num, text, n);
	num[n] = '\0';
	/* g_ascii_strtod: the C locale whatever setlocale() said */
	v = g_ascii_strtod(num, NULL);
	if (!isfinite(v)) {
		set_why(why, why_len, "number out of range in \"%s\"", text);
		return BN_ERR_DATA;
	}

	unit = text + n;
	if (*unit == ' ')
		unit++;
	if (*unit == '\0') {
		if (unit != text + n) {
			set_why(why, why_len, "trailing space in \"%s\"", text);
			return BN_ERR_DATA;
		}
		if (!want_any && want != BN_DIM_NONE) {
			set_why(why, why_len,
				"expected %s such as %s, got \"%s\" (no unit)",
				expect_name, expect_ex, text);
			return BN_ERR_DATA;
		}
	} else {
		if (bn_unit_lookup(unit, &dim, &scale) != BN_OK) {
			const char *hint = "";

			if (strcmp(unit, "k") == 0 || strcmp(unit, "M") == 0)
				hint = "; for ohms write e.g. 15kohm";
			set_why(why, why_len,
				"unknown unit \"%s\" in \"%s\" (expected V, A, ohm, s, Hz, Ah or F, with a prefix such as m, u, k%s)",
				unit, text, hint);
			return BN_ERR_DATA;
		}
		if (!want_any && dim != want) {
			set_why(why, why_len, "expected %s such as %s, got \"%s\"",
				expect_name, expect_ex, text);
			return BN_ERR_DATA;
		}
	}
	if (dim_out)
		*dim_out = dim;
	if (out_si)
		*out_si = scale_to_si(v, scale);
	return BN_OK;
}

int bn_quantity_parse(const char *text, enum bn_dim want, double *out_si,
		      char *why, unsigned why_len)
{
	return parse(text, false, want, NULL, out_si, why, why_len);
}

int bn_quantity_parse_any(const char *text, enum bn_dim *dim, double *out_si,
			  char *why, unsigned why_len)
{
	return parse(text, true, BN_DIM_NONE, dim, out_si, why, why_len);
}

void bn_qty_format(double v, const char *unit, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *prefix;
	} small[] = { { 1e-3, "m" }, { 1e-6, "\xc2\xb5" }, { 1e-9, "n" }, { 1e-12, "p" } };
	double a = fabs(v);

	if (!unit || !unit[0]) {
		snprintf(buf, len, "%.4g", v);
		return;
	}
	if (a < 1e-12 * 0.9995) {
		snprintf(buf, len, "0 %s", unit);
		return;
	}
	/* minutes, hours and the like are written as the scenario wrote them */
	if (a < 1 && (!strcmp(unit, "V") || !strcmp(unit, "A") || !strcmp(unit, "s") ||
		      !strcmp(unit, "W") || !strcmp(unit, "F") || !strcmp(unit, "ohm"))) {
		for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
			if (a >= small[i].scale * 0.9995 || i + 1 == sizeof(small) / sizeof(small[0])) {
				snprintf(buf, len, "%.4g %s%s", v / small[i].scale, small[i].prefix, unit);
				return;
			}
	}
	if (a >= 1e3 * 0.9995 && (!strcmp(unit, "ohm") || !strcmp(unit, "Hz"))) {
		snprintf(buf, len, "%.4g %s%s", a >= 1e6 * 0.9995 ? v / 1e6 : v / 1e3,
			 a >= 1e6 * 0.9995 ? "M" : "k", unit);
		return;
	}
	snprintf(buf, len, "%.4g %s", v, unit);
}

void bn_limit_format(const char *name, double min, double max, const char *unit, char *buf,
		     size_t len)
{
	char a[48], b[48];

	if (!name)
		name = "";
	if (strpbrk(name, "<>=") || (isnan(min) && isnan(max))) {
		snprintf(buf, len, "%s", name);
		return;
	}
	if (!isnan(min))
		bn_qty_format(min, unit, a, sizeof(a));
	if (!isnan(max))
		bn_qty_format(max, unit, b, sizeof(b));
	if (!isnan(min) && !isnan(max))
		snprintf(buf, len, "%s%s%s..%s", name, name[0] ? " " : "", a, b);
	else
		snprintf(buf, len, "%s%s%s %s", name, name[0] ? " " : "", !isnan(min) ? ">=" : "<=",
			 !isnan(min) ? a : b);
}

int bn_plausible_max(double v, enum bn_dim dim, double max_si, int bare, char *why, size_t len)
{
	const char *u = bn_dim_unit(dim);
	char got[48], most[48];

	if (!(v > max_si))
		return BN_OK;
	bn_qty_format(v, u, got, sizeof(got));
	bn_qty_format(max_si, u, most, sizeof(most));
	if (bare)
		snprintf(why, len, "%s is more than USB carries (at most %s): did you write m%s? "
			 "write %g or \"%gm%s\"", got, most, u, v / 1000.0, v, u);
	else
		snprintf(why, len, "%s is more than USB carries (at most %s): did you mean "
			 "\"%gm%s\"?", got, most, v, u);
	return BN_ERR_DATA;
}
