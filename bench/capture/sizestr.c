/* capture/sizestr.h: sr_parse_sizestring of libsigrok 0.5.2, step by step. */
#include "capture/sizestr.h"

#include <glib.h>
#include <stdlib.h>

#include "core/err.h"

int bn_sizestr_parse(const char *s, uint64_t *size, bool *overflow)
{
	uint64_t v, multiplier = 0;
	double frac_part = 0, d;
	bool done = false;
	char *p;

	*overflow = false;
	v = strtoull(s, &p, 10); /* saturates at UINT64_MAX, as libsigrok lets it */
	while (p && *p && multiplier == 0 && !done) {
		switch (*p) {
		case ' ':
			break;
		case '.':
			/* leaves p after the fraction; the p++ below skips one more.
			 * At the string's end libsigrok's skip reads past it: stop
			 * there instead, as it does when that byte is a NUL. */
			frac_part = g_ascii_strtod(p, &p);
			if (!*p)
				p--;
			break;
		case 'k':
		case 'K': multiplier = UINT64_C(1000); break;
		case 'm':
		case 'M': multiplier = UINT64_C(1000000); break;
		case 'g':
		case 'G': multiplier = UINT64_C(1000000000); break;
		case 't':
		case 'T': multiplier = UINT64_C(1000000000000); break;
		case 'p':
		case 'P': multiplier = UINT64_C(1000000000000000); break;
		case 'e':
		case 'E': multiplier = UINT64_C(1000000000000000000); break;
		default:
			done = true;
			p--;
		}
		p++;
	}
	/* size *= multiplier (wraps, as uint64_t does); size += frac * multiplier
	 * (or += frac): in double, converted back */
	if (multiplier > 0) {
		v *= multiplier;
		d = (double)v + frac_part * (double)multiplier;
	} else {
		d = (double)v + frac_part;
	}
	if (!(d < 18446744073709551616.0) || !(d > -1.0)) {
		*overflow = true;
		v = 0;
	} else {
		v = (uint64_t)d;
	}
	*size = v;
	if (p && *p && g_ascii_strcasecmp(p, "Hz"))
		return BN_ERR_DATA;
	return BN_OK;
}
