/* What every HTML page bcbench writes shares: escaping, the page's head
 * with its one inline style sheet (no network, no external file: a page
 * opens from an artifact store or an e-mail, and prints on A4), and the
 * verdict classes. Pages are built in a GString (glib, which libsigrok
 * already brings) and are deterministic: the same record gives the same
 * bytes, so a page can be re-rendered later and compared. */
#ifndef BN_REPORT_HTML_BASE_H
#define BN_REPORT_HTML_BASE_H

#include <glib.h>

/* Append text with &, <, >, " and ' escaped (for element text and
 * attribute values alike). NULL appends nothing. */
void bn_html_esc(GString *s, const char *text);
/* Append printf output, escaped. */
void bn_html_escf(GString *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <!DOCTYPE html> ... <body>: title escaped, the style sheet inline. */
void bn_html_head(GString *s, const char *title);
/* </body></html> and a final newline. */
void bn_html_tail(GString *s);
/* The CSS class of a verdict or outcome name ("pass", "fail",
 * "inconclusive", "skipped", "error", "xfail", "xpass", and the overall
 * verdicts "compliant", "not-compliant", "not-demonstrated"): "v-NAME";
 * anything else "v-unknown". */
const char *bn_html_verdict_class(const char *name);

#endif
