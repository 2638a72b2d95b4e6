#include "scenario/lexer.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void bn_lexer_init(struct bn_lexer *lx, const char *name, const char *src)
{
	memset(lx, 0, sizeof(*lx));
	lx->name = name;
	lx->src = src;
	lx->line = 1;
}

const char *bn_tok_kind_name(enum bn_tok_kind kind)
{
	switch (kind) {
	case BN_TOK_EOF: return "end of file";
	case BN_TOK_EOL: return "end of line";
	case BN_TOK_WORD: return "a word";
	case BN_TOK_QUANTITY: return "a quantity";
	case BN_TOK_STRING: return "a string";
	case BN_TOK_OP: return "an operator";
	case BN_TOK_LPAREN: return "\"(\"";
	case BN_TOK_RPAREN: return "\")\"";
	case BN_TOK_COMMA: return "\",\"";
	}
	return "a token";
}

static int lex_error(struct bn_lexer *lx, size_t at, struct bn_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int lex_error(struct bn_lexer *lx, size_t at, struct bn_err *err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bn_err_set(err, BN_ERR_DATA, "%s:%d:%d: error: %s", lx->name, lx->line,
			  (int)(at - lx->line_start + 1), msg);
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Characters of words and quantities. */
static bool is_word_char(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '/' || c == '-' ||
	       c == '+' || c >= 0x80;
}

static bool is_op_char(unsigned char c)
{
	return c == '=' || c == '!' || c == '<' || c == '>';
}

/* Ends a bare run (word or quantity). */
static bool is_delim(unsigned char c)
{
	return c == '\0' || c == '\n' || is_blank(c) || c == '#' || c == '"' || c == '(' ||
	       c == ')' || c == ',' || is_op_char(c);
}

static void show_char(unsigned char c, char buf[8])
{
	if (c >= 0x20 && c < 0x7f && c != '\'')
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "\\x%02x", c);
}

static int lex_string(struct bn_lexer *lx, struct bn_token *tok, struct bn_err *err)
{
	const char *s = lx->src;
	size_t start = lx->pos, i = lx->pos + 1, n = 0;

	for (;;) {
		unsigned char c = (unsigned char)s[i];
		char add;

		if (c == '\0' || c == '\n')
			return lex_error(lx, start, err, "unterminated string (expected a closing \")");
		if (c == '"')
			break;
		if (c == '\\') {
			unsigned char e = (unsigned char)s[i + 1];

			if (e == '"' || e == '\\') {
				add = (char)e;
				i += 2;
			} else if (e == '\0' || e == '\n') {
				return lex_error(lx, start, err,
						 "unterminated string (expected a closing \")");
			} else {
				char shown[8];

				show_char(e, shown);
				return lex_error(lx, i, err,
						 "unknown escape: backslash before %s in a string (expected \\\" or \\\\)",
						 shown);
			}
		} else {
			add = (char)c;
			i++;
		}
		if (n + 1 >= sizeof(tok->text))
			return lex_error(lx, start, err, "string too long (at most %zu bytes)",
					 sizeof(tok->text) - 1);
		tok->text[n++] = add;
	}
	tok->text[n] = '\0';
	tok->kind = BN_TOK_STRING;
	tok->len = i + 1 - start;
	lx->pos = i + 1;
	return BN_OK;
}

static int lex_bare(struct bn_lexer *lx, struct bn_token *tok, struct bn_err *err)
{
	const char *s = lx->src;
	size_t start = lx->pos, i = lx->pos;
	unsigned char c0 = (unsigned char)s[start], c1 = (unsigned char)s[start + 1];
	unsigned char c2 = c1 ? (unsigned char)s[start + 2] : 0;

	while (!is_delim((unsigned char)s[i])) {
		if (!is_word_char((unsigned char)s[i])) {
			char shown[8];

			show_char((unsigned char)s[i], shown);
			return lex_error(lx, i, err, "stray character %s", shown);
		}
		i++;
	}
	if (is_digit(c0) || (c0 == '.' && is_digit(c1)) ||
	    ((c0 == '-' || c0 == '+') && (is_digit(c1) || (c1 == '.' && is_digit(c2)))))
		tok->kind = BN_TOK_QUANTITY;
	else if (is_alpha(c0) || c0 == '_' || c0 == '.' || c0 == '/')
		tok->kind = BN_TOK_WORD;
	else {
		char shown[8];

		show_char(c0, shown);
		return lex_error(lx, start, err, "stray character %s", shown);
	}
	if (i - start >= sizeof(tok->text))
		return lex_error(lx, start, err, "%s too long (at most %zu bytes)",
				 tok->kind == BN_TOK_WORD ? "word" : "quantity",
				 sizeof(tok->text) - 1);
	memcpy(tok->text, s + start, i - start);
	tok->text[i - start] = '\0';
	tok->len = i - start;
	lx->pos = i;
	return BN_OK;
}

int bn_lexer_next(struct bn_lexer *lx, struct bn_token *tok, struct bn_err *err)
{
	const char *s = lx->src;
	unsigned char c;

	tok->text[0] = '\0';
	tok->len = 0;
	if (lx->done) {
		tok->kind = BN_TOK_EOF;
		tok->line = lx->line;
		tok->col = (int)(lx->pos - lx->line_start + 1);
		tok->off = lx->pos;
		return BN_OK;
	}
	while (is_blank((unsigned char)s[lx->pos]))
		lx->pos++;
	if (s[lx->pos] == '#')
		while (s[lx->pos] != '\0' && s[lx->pos] != '\n')
			lx->pos++;
	c = (unsigned char)s[lx->pos];
	tok->line = lx->line;
	tok->col = (int)(lx->pos - lx->line_start + 1);
	tok->off = lx->pos;

	if (c == '\0') {
		/* A last line without a newline still ends with an EOL. */
		if (lx->pos > lx->line_start) {
			tok->kind = BN_TOK_EOL;
			lx->line_start = lx->pos;
			lx->line++;
		} else {
			tok->kind = BN_TOK_EOF;
			lx->done = 1;
		}
		return BN_OK;
	}
	if (c == '\n') {
		tok->kind = BN_TOK_EOL;
		tok->len = 1;
		lx->pos++;
		lx->line_start = lx->pos;
		lx->line++;
		return BN_OK;
	}
	if (c == '"')
		return lex_string(lx, tok, err);
	if (c == '(' || c == ')' || c == ',') {
		tok->kind = c == '(' ? BN_TOK_LPAREN : c == ')' ? BN_TOK_RPAREN : BN_TOK_COMMA;
		tok->text[0] = (char)c;
		tok->text[1] = '\0';
		tok->len = 1;
		lx->pos++;
		return BN_OK;
	}
	if (is_op_char(c)) {
		size_t n = 0;

		while (is_op_char((unsigned char)s[lx->pos + n]) && n + 1 < sizeof(tok->text)) {
			tok->text[n] = s[lx->pos + n];
			n++;
		}
		tok->text[n] = '\0';
		tok->kind = BN_TOK_OP;
		tok->len = n;
		lx->pos += n;
		return BN_OK;
	}
	return lex_bare(lx, tok, err);
}
