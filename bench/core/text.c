/* UTF-8 checks and repair through glib, cuts between characters, and the
 * terminal escape. */
#include "core/text.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* "\u0080" plus NUL is the longest escape. */
#define TERM_UNIT_MAX 8

bool bn_utf8_valid(const char *s, size_t len)
{
	if (!s)
		return len == 0;
	/* g_utf8_validate_len stops at a NUL and reports it invalid */
	return g_utf8_validate_len(s, len, NULL);
}

char *bn_utf8_sanitize(const char *s, size_t len)
{
	GString *b = g_string_sized_new(len + 1);
	const char *p = s ? s : "", *end = p + (s ? len : 0);
	char *out;

	/* piece by piece between NUL bytes: g_utf8_make_valid keeps a NUL,
	 * which would end the C string early */
	for (;;) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *stop = nul ? nul : end;
		gchar *g = g_utf8_make_valid(p, (gssize)(stop - p));

		g_string_append(b, g);
		g_free(g);
		if (!nul)
			break;
		g_string_append(b, "\xef\xbf\xbd");
		p = nul + 1;
	}
	out = malloc(b->len + 1);
	if (out)
		memcpy(out, b->str, b->len + 1);
	g_string_free(b, TRUE);
	return out;
}

size_t bn_utf8_cut(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	/* the lead byte of the last character begun before n */
	for (size_t back = 1; back <= 4 && back <= n; back++) {
		unsigned char c = u[n - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? n - back : n;
	}
	return n; /* continuation bytes without a lead: broken anyway */
}

int bn_utf8_prec(const char *s, size_t max)
{
	size_t n;

	if (!s)
		return 0;
	n = strnlen(s, max + 1);
	if (n > max)
		n = bn_utf8_cut(s, max);
	return n > (size_t)__INT_MAX__ ? __INT_MAX__ : (int)n;
}

size_t bn_str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!dst || len == 0)
		return 0;
	if (!src)
		src = "";
	n = strnlen(src, len);
	if (n == len)
		n = bn_utf8_cut(src, len - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
	return n;
}

bool bn_str_vfmt(char *dst, size_t len, const char *fmt, va_list ap)
{
	int n;

	if (!dst || len == 0)
		return false;
	n = vsnprintf(dst, len, fmt, ap);
	if (n < 0) {
		dst[0] = '\0';
		return false;
	}
	if ((size_t)n < len)
		return true;
	dst[bn_utf8_cut(dst, len - 1)] = '\0';
	return false;
}

bool bn_str_fmt(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	bool fit;

	va_start(ap, fmt);
	fit = bn_str_vfmt(dst, len, fmt, ap);
	va_end(ap);
	return fit;
}

/* The text a terminal is shown for the character or byte at p, in out;
 * returns the bytes of p it stands for. */
static size_t term_unit(const char *p, char out[TERM_UNIT_MAX])
{
	unsigned char c = (unsigned char)*p;
	gunichar u;
	size_t n;

	if (c < 0x80) {
		if (c == '\n')
			strcpy(out, "\\n");
		else if (c == '\t')
			strcpy(out, "\\t");
		else if (c == '\r')
			strcpy(out, "\\r");
		else if (c < 0x20 || c == 0x7f)
			snprintf(out, TERM_UNIT_MAX, "\\x%02x", c);
		else {
			out[0] = (char)c;
			out[1] = '\0';
		}
		return 1;
	}
	u = g_utf8_get_char_validated(p, -1);
	if (u == (gunichar)-1 || u == (gunichar)-2) {
		snprintf(out, TERM_UNIT_MAX, "\\x%02x", c);
		return 1;
	}
	n = (size_t)g_utf8_skip[c];
	if (u < 0xa0) {
		/* C1 controls: CSI (U+009B) starts an escape sequence on
		 * terminals that honour 8-bit controls */
		snprintf(out, TERM_UNIT_MAX, "\\u%04x", (unsigned)u);
		return n;
	}
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

const char *bn_term_esc(const char *s, char *buf, size_t len)
{
	char unit[TERM_UNIT_MAX];
	size_t o = 0;

	if (!buf || len == 0)
		return "";
	for (const char *p = s ? s : ""; *p;) {
		size_t used = term_unit(p, unit), m = strlen(unit);

		if (o + m >= len)
			break;
		memcpy(buf + o, unit, m);
		o += m;
		p += used;
	}
	buf[o] = '\0';
	return buf;
}

char *bn_term_escape(const char *s)
{
	char unit[TERM_UNIT_MAX];
	GString *b = g_string_new(NULL);
	gchar *g;
	char *out;
	size_t n;

	for (const char *p = s ? s : ""; *p;)
		p += term_unit(p, unit), g_string_append(b, unit);
	n = b->len;
	g = g_string_free(b, FALSE);
	out = malloc(n + 1);
	if (out)
		memcpy(out, g, n + 1);
	g_free(g);
	return out;
}

void bn_term_puts(FILE *f, const char *s)
{
	char unit[TERM_UNIT_MAX];

	for (const char *p = s ? s : ""; *p;)
		p += term_unit(p, unit), fputs(unit, f);
}

void bn_term_vprintf(FILE *f, const char *fmt, va_list ap)
{
	gchar *text = g_strdup_vprintf(fmt, ap);
	size_t n;

	if (!text)
		return;
	n = strlen(text);
	if (n && text[n - 1] == '\n') {
		text[n - 1] = '\0';
		bn_term_puts(f, text);
		fputc('\n', f);
	} else {
		bn_term_puts(f, text);
	}
	g_free(text);
}

void bn_term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bn_term_vprintf(f, fmt, ap);
	va_end(ap);
}
