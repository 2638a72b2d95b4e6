/* TEMPORARY (issue 21): libsigrok's sr_samplerate_string and
 * sr_parse_sizestring for bcbench, the binary without the hardware
 * libraries, until the writer and reader of issue 21 replace their calls
 * in srzip_write.c and srzip_read.c with their own (each tested against
 * libsigrok's). Linked into bcbench only (the Makefile's NOHW_SRC):
 * bcbench-hw and the tests use libsigrok's. Delete at that merge. */
#include <inttypes.h>
#include <libsigrok/libsigrok.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "10 kHz", "1.5 MHz", "200 Hz": the integer part, the fraction without
 * trailing zeros, the SI prefix, as libsigrok's sr_si_string_u64. */
char *sr_samplerate_string(uint64_t samplerate)
{
	static const uint64_t div[] = { 1, 1000, 1000000, 1000000000, 1000000000000ULL,
					1000000000000000ULL, 1000000000000000000ULL };
	static const char prefix[] = "\0kMGTPE";
	char fract[24] = "";
	unsigned i = 0;

	while (i + 1 < sizeof(div) / sizeof(div[0]) && samplerate / div[i] >= 1000)
		i++;
	if (i) {
		size_t n = (size_t)snprintf(fract, sizeof(fract), ".%0*" PRIu64, (int)(i * 3),
					    samplerate % div[i]);

		while (n && (fract[n - 1] == '0' || fract[n - 1] == '.'))
			fract[--n] = '\0';
	}
	return g_strdup_printf("%" PRIu64 "%s %.1sHz", samplerate / div[i], fract, prefix + i);
}

/* "10 kHz", "1.5M", "200": a number, an optional fraction and SI prefix,
 * an optional "Hz". */
int sr_parse_sizestring(const char *s, uint64_t *size)
{
	uint64_t mult = 0;
	double frac = 0;
	char *p;

	*size = strtoull(s, &p, 10);
	while (*p && !mult) {
		switch (*p) {
		case ' ': break;
		case '.': frac = g_ascii_strtod(p, &p); p--; break;
		case 'k': case 'K': mult = 1000ULL; break;
		case 'm': case 'M': mult = 1000000ULL; break;
		case 'g': case 'G': mult = 1000000000ULL; break;
		case 't': case 'T': mult = 1000000000000ULL; break;
		case 'p': case 'P': mult = 1000000000000000ULL; break;
		case 'e': case 'E': mult = 1000000000000000000ULL; break;
		default: goto end;
		}
		p++;
	}
end:
	if (mult) {
		*size *= mult;
		*size += (uint64_t)(frac * (double)mult);
	} else {
		*size += (uint64_t)frac;
	}
	if (*p && g_ascii_strcasecmp(p, "Hz"))
		return SR_ERR;
	return SR_OK;
}
