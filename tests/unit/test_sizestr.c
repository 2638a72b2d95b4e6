/* capture/sizestr.h must read a samplerate exactly as libsigrok 0.5.2's
 * sr_parse_sizestring does (the test links libsigrok; the reader does
 * not): the same verdict and the same value on a list of the forms sigrok
 * files use and their odd corners, and on many random strings of digits,
 * spaces, dots, multiplier letters and "Hz". Where the value reaches
 * 2^64 libsigrok's result is undefined: there ours must say so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <libsigrok/libsigrok.h>
#include <stdio.h>
#include <string.h>

#include "capture/sizestr.h"
#include "core/err.h"

/* 1 when ours and libsigrok's disagree on s (printed), else 0. s is
 * copied into a buffer of NULs: libsigrok reads one byte past a string
 * that ends in a fraction ("1.5"), which must be a NUL to mean anything. */
static int differs(const char *in)
{
	char s[64] = { 0 };
	uint64_t ours = 7, theirs = 7;
	bool overflow;
	int rc, src;

	assert_true(strlen(in) + 2 < sizeof(s));
	memcpy(s, in, strlen(in));
	rc = bn_sizestr_parse(s, &ours, &overflow);
	src = sr_parse_sizestring(s, &theirs);

	if ((rc == BN_OK) != (src == SR_OK)) {
		print_error("\"%s\": ours %s, libsigrok %s\n", s, rc == BN_OK ? "ok" : "error",
			    src == SR_OK ? "ok" : "error");
		return 1;
	}
	if (overflow)
		return 0; /* libsigrok's value is undefined there */
	if (ours != theirs) {
		print_error("\"%s\": ours %" PRIu64 ", libsigrok %" PRIu64 "\n", s, ours, theirs);
		return 1;
	}
	return 0;
}

static void test_sizestr__listed_forms(void **state)
{
	static const char *const forms[] = {
		"1 MHz", "1MHz", "1 mhz", "1.5 MHz", "1.5MHz", "1.5kHz", "1.25 GHz", "250 Hz",
		"250", "250 hz", "250 HZ", "250 Hzz", "250 H", "10 kHz", "10k", "10 K", "3 k Hz",
		"100 kHz", "5 kHz", "0", "0 Hz", "", " ", "  12", "12  ", "12 . 5", ".5", ".5 MHz",
		"1.", "1.x", "1..5", "1.5.5", "1e3", "1E", "1 THz", "1 PHz", "1 EHz", "20 EHz",
		"18446744073709551615", "18446744073709551616", "99999999999999999999 GHz",
		"9007199254740993", "9007199254740993 Hz", "4.2949673e9", "0x10", "+5", "+5 kHz",
		"-5", "-5 Hz", "fast", "1 MHz extra", "1\tMHz", "1 MHz ", "1 Mhz", "007 kHz",
		"1.999999999999 kHz", "0.5 Hz", "2.5", "1.5e3 Hz", "1.5e-1 kHz", "12345678.9 MHz",
		"1 G", "1 g", "1 t", "1 p", "1 e", "Hz", "kHz", "1 Hz Hz", "1.5", ".5", "2.25",
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		bad += differs(forms[i]);
	assert_int_equal(bad, 0);
}

static void test_sizestr__random_strings(void **state)
{
	static const char alpha[] = "0123456789012345678901234567890123456789  ..kKmMgGtTpPeEHhzZx+-";
	uint32_t x = 2463534242u;
	char s[24];
	int bad = 0, ok = 0;

	(void)state;
	for (int i = 0; i < 300000; i++) {
		int len;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		len = (int)(x % 14);
		for (int k = 0; k < len; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			s[k] = alpha[x % (sizeof(alpha) - 1)];
		}
		s[len] = '\0';
		/* often a real suffix, which the alphabet alone rarely spells */
		if (x & 0x100000)
			snprintf(s + len, sizeof(s) - (size_t)len, "%s", (x & 0x200000) ? " Hz" : "hz");
		bad += differs(s);
		{
			uint64_t v;
			bool of;

			ok += bn_sizestr_parse(s, &v, &of) == BN_OK;
		}
	}
	assert_int_equal(bad, 0);
	/* the inputs reach both answers */
	assert_true(ok > 10000 && ok < 290000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizestr__listed_forms),
		cmocka_unit_test(test_sizestr__random_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
