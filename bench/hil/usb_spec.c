/* dut_usb's VID:PID[:SERIAL] as text and back: plain string work, apart
 * from hil/usb_dev.c so the binary without the hardware libraries
 * (docs/design.md, "Two binaries") still reads and names it. */
#include "hil/usb_dev.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int bn_usb_spec_parse(const char *text, struct bn_usb_spec *out, struct bn_err *err)
{
	struct bn_usb_spec s = { 0 };
	const char *p = text;
	unsigned v[2];

	if (!text)
		return bn_err_set(err, BN_ERR_ARG, "dut_usb: missing (expected VID:PID[:SERIAL])");
	for (int k = 0; k < 2; k++) {
		v[k] = 0;
		for (int i = 0; i < 4; i++, p++) {
			if (!isxdigit((unsigned char)*p))
				goto bad;
			v[k] = v[k] * 16 + (unsigned)(isdigit((unsigned char)*p) ?
							      *p - '0' :
							      tolower((unsigned char)*p) - 'a' + 10);
		}
		if (k == 0 && *p++ != ':')
			goto bad;
	}
	s.vid = (uint16_t)v[0];
	s.pid = (uint16_t)v[1];
	if (*p == ':') {
		size_t n = strlen(++p);

		if (n == 0 || n >= sizeof(s.serial))
			goto bad;
		for (size_t i = 0; i < n; i++)
			if (!isgraph((unsigned char)p[i]))
				goto bad;
		memcpy(s.serial, p, n + 1);
		s.has_serial = true;
	} else if (*p) {
		goto bad;
	}
	*out = s;
	return BN_OK;
bad:
	return bn_err_set(err, BN_ERR_ARG,
			  "dut_usb \"%.200s\": expected VID:PID[:SERIAL], VID and PID of 4 hex "
			  "digits, a serial of printable characters (e.g. 18d1:4ee1:0A1B2C)",
			  text);
}

const char *bn_usb_spec_str(const struct bn_usb_spec *s, char *buf, size_t len)
{
	if (s->has_serial)
		snprintf(buf, len, "%04x:%04x (serial %s)", s->vid, s->pid, s->serial);
	else
		snprintf(buf, len, "%04x:%04x", s->vid, s->pid);
	return buf;
}
