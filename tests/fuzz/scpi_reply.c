/* An instrument's reply to a numeric query (bn_scpi_parse_num,
 * bench/hil/scpi.c) on any bytes. The first line is the query's prefix,
 * the second its unit suffix (each cut to what a dialect can hold), the
 * rest the reply as read from the line. */
#include "lib/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hil/scpi.h"

/* The next line of *p (up to '\n' or the end) into buf, cut to len - 1. */
static void take_line(const char **p, char *buf, size_t len)
{
	const char *nl = strchr(*p, '\n');
	size_t n = nl ? (size_t)(nl - *p) : strlen(*p);

	snprintf(buf, len, "%.*s", (int)n, *p);
	*p += nl ? n + 1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_scpi_query q;
	struct bn_err err = { 0 };
	const char *p;
	char *text;
	double v;

	bn_fuzz_quiet();
	text = bn_fuzz_text(data, size);
	if (!text)
		return 0;
	memset(&q, 0, sizeof(q));
	snprintf(q.query, sizeof(q.query), ":MEAS:VOLT?");
	p = text;
	take_line(&p, q.prefix, sizeof(q.prefix));
	take_line(&p, q.suffix, sizeof(q.suffix));
	bn_scpi_parse_num(&q, p, &v, "fuzz", &err);
	free(text);
	return 0;
}
