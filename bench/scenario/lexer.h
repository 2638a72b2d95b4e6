/* The scenario lexer: splits a .scn text into tokens, one line at a time.
 *
 * Tokens are separated by blanks (space, tab, CR). '#' outside a string
 * starts a comment that runs to the end of the line. Kinds:
 *   WORD      starts with a letter, '_', '.' or '/'; goes on with letters,
 *             digits and _ . / - + (and bytes >= 0x80): dcp, dut.port,
 *             profiles/chargers/dcp.json, aca-a, bc12.detection
 *   QUANTITY  starts with a digit, or '+', '-' or '.' before a digit, then
 *             the same characters as a word: 500mA, -1s, 4.75V, 3q (the
 *             parser judges the number and its unit)
 *   STRING    "..." on one line; \" and \\ are the only escapes
 *   OP        a run of = ! < >, e.g. "==" or "=<" (the parser judges it)
 *   ( ) ,     LPAREN, RPAREN, COMMA
 *   EOL       the end of a line (at its newline, or at the end of the text
 *             when the last line has none); EOF after the last EOL
 * Lines and columns are 1-based; columns count bytes (a tab counts 1).
 * Errors (BN_ERR_DATA, "NAME:LINE:COL: error: ..."): an unterminated
 * string, an unknown escape, a stray character, a token too long. */
#ifndef BN_SCENARIO_LEXER_H
#define BN_SCENARIO_LEXER_H

#include <stddef.h>

#include "core/err.h"

#define BN_TOK_TEXT_LEN 1024

enum bn_tok_kind {
	BN_TOK_EOF = 0,
	BN_TOK_EOL,
	BN_TOK_WORD,
	BN_TOK_QUANTITY,
	BN_TOK_STRING,
	BN_TOK_OP,
	BN_TOK_LPAREN,
	BN_TOK_RPAREN,
	BN_TOK_COMMA,
};

struct bn_token {
	enum bn_tok_kind kind;
	int line, col;
	size_t off, len; /* the raw span in the source (a string with its quotes) */
	char text[BN_TOK_TEXT_LEN]; /* as written; STRING: unescaped, no quotes */
};

struct bn_lexer {
	const char *name; /* stands for the file in messages */
	const char *src;
	size_t pos;
	size_t line_start; /* offset of the current line's first byte */
	int line;
	int done;          /* EOF returned */
};

void bn_lexer_init(struct bn_lexer *lx, const char *name, const char *src);
/* The next token into *tok. After EOF, EOF again. */
int bn_lexer_next(struct bn_lexer *lx, struct bn_token *tok, struct bn_err *err);
/* "a word", "a quantity", "end of line", ... for messages. */
const char *bn_tok_kind_name(enum bn_tok_kind kind);

#endif
