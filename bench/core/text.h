/* Text that stays valid: UTF-8 checked and repaired before it reaches a
 * file, strings cut only between characters when a buffer is too small,
 * and control characters shown escaped before they reach a terminal.
 * Device names, firmware telemetry and console lines are bytes from
 * outside: any of them may be broken UTF-8 or carry escape sequences. */
#ifndef BN_CORE_TEXT_H
#define BN_CORE_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* s[0..len) is well-formed UTF-8 (no surrogates, nothing above U+10FFFF,
 * no overlong forms; NUL bytes count as invalid). */
bool bn_utf8_valid(const char *s, size_t len);

/* A malloc'ed, NUL-terminated copy of s[0..len) in which every invalid
 * byte (and every NUL) is U+FFFD. NULL only when out of memory. */
char *bn_utf8_sanitize(const char *s, size_t len);

/* n, or less so that s[0..n) does not end inside a UTF-8 character whose
 * bytes go on past n: where to cut s to at most n bytes. */
size_t bn_utf8_cut(const char *s, size_t n);

/* The bytes of s to print with "%.*s" for at most max bytes, cut between
 * characters (a bare "%.200s" may end inside one). */
int bn_utf8_prec(const char *s, size_t max);

/* snprintf(dst, len, "%s", src) that cuts only between characters.
 * Returns the bytes copied; dst is always terminated (len > 0). */
size_t bn_str_copy(char *dst, size_t len, const char *src);

/* vsnprintf into dst[len], cut between characters when it does not fit.
 * True when the whole text fitted. */
bool bn_str_vfmt(char *dst, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
bool bn_str_fmt(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* s as a terminal shows it safely: C0 controls and DEL as \n, \t, \r or
 * \xNN, C1 controls (U+0080..U+009F) as \u0080, bytes of broken UTF-8 as
 * \xNN; everything else, backslashes included, as is. Written into
 * buf[len], cut between escapes or characters; returns buf. */
const char *bn_term_esc(const char *s, char *buf, size_t len);
/* The same, malloc'ed (NULL when out of memory). */
char *bn_term_escape(const char *s);
/* fputs of s escaped. */
void bn_term_puts(FILE *f, const char *s);
/* fprintf with the whole formatted text escaped, so that no argument can
 * move the cursor or break the line; one newline at its end stays a line
 * end. */
void bn_term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bn_term_vprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
