#include "report/html_base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

void bn_html_esc(GString *s, const char *text)
{
	char *fixed = NULL;

	if (!text)
		return;
	/* a record's strings come from outside (a device's telemetry, a
	 * scenario's names): the page stays valid UTF-8, and a control
	 * character shows as U+FFFD instead of driving anything */
	if (!bn_utf8_valid(text, strlen(text))) {
		fixed = bn_utf8_sanitize(text, strlen(text));
		text = fixed ? fixed : "\xef\xbf\xbd";
	}
	for (const char *p = text; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n') {
			g_string_append(s, "\xef\xbf\xbd");
			continue;
		}
		switch (*p) {
		case '&': g_string_append(s, "&amp;"); break;
		case '<': g_string_append(s, "&lt;"); break;
		case '>': g_string_append(s, "&gt;"); break;
		case '"': g_string_append(s, "&quot;"); break;
		case '\'': g_string_append(s, "&#39;"); break;
		default: g_string_append_c(s, *p); break;
		}
	}
	free(fixed);
}

void bn_html_escf(GString *s, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	bn_html_esc(s, text);
	g_free(text);
}

/* Colours that survive a black-and-white print: every verdict also has
 * its word in the cell, never colour alone. */
static const char style_sheet[] =
	"@page{size:A4;margin:14mm 12mm}\n"
	"body{font:13px/1.35 system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;"
	"color:#1b1b1b;margin:0 auto;max-width:1100px;padding:12px}\n"
	"h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 6px;"
	"border-bottom:1px solid #bbb}h3{font-size:14px;margin:14px 0 4px}\n"
	"table{border-collapse:collapse;width:100%;margin:4px 0 10px}\n"
	"th,td{border:1px solid #ccc;padding:3px 5px;vertical-align:top;text-align:left}\n"
	"th{background:#f0f0f0}td.num{text-align:right;white-space:nowrap;"
	"font-variant-numeric:tabular-nums}\n"
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}\n"
	".verdict{display:inline-block;padding:2px 8px;border-radius:3px;font-weight:600}\n"
	".v-pass,.v-xfail,.v-compliant{background:#d8f0d8}\n"
	".v-fail,.v-xpass,.v-not-compliant{background:#f6d0d0}\n"
	".v-inconclusive,.v-not-demonstrated{background:#fbe8b8}\n"
	".v-error{background:#e8c8f0}.v-skipped{background:#ececec;color:#555}\n"
	".v-unknown{background:#fff}\n"
	".banner{font-size:18px;padding:8px 12px;margin:6px 0 10px;border:2px solid #888}\n"
	"dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:6px 0}\n"
	"dl.meta dt{font-weight:600}dl.meta dd{margin:0;overflow-wrap:anywhere}\n"
	"figure.plot{margin:8px 0 16px;page-break-inside:avoid;break-inside:avoid}\n"
	"figure.plot figcaption{font-weight:600;margin-bottom:2px;padding:2px 4px}\n"
	"figure.plot p.how{margin:2px 0 0;font-size:12px}\n"
	"table#rules{font-size:12px}table#rules td:first-child{min-width:13em}\n"
	"table#rules td:last-child{min-width:12em;overflow-wrap:anywhere}\n"
	"svg{display:block;max-width:100%;height:auto}\n"
	"svg text{font:10px sans-serif;fill:#333}\n"
	"svg .trace{fill:none;stroke:#1f4e9c;stroke-width:1}\n"
	"svg .env{fill:#1f4e9c;fill-opacity:.35;stroke:none}\n"
	"svg .band rect{fill:#2e9c4a;fill-opacity:.12;stroke:#2e9c4a;stroke-opacity:.5;"
	"stroke-dasharray:3 2}\n"
	"svg .band text{fill:#1d6b31}\n"
	"svg .hl{fill:#e0402a;fill-opacity:.14;stroke:#e0402a;stroke-width:1}\n"
	"svg .ev line{stroke:#777;stroke-dasharray:2 2}svg .ev text{fill:#555;font-size:9px}\n"
	"svg .axis{stroke:#999;fill:none}svg .grid{stroke:#e4e4e4}\n"
	"a{color:#1f4e9c}\n"
	/* a suite's matrix prints on landscape pages of its own, small */
	"@page wide{size:A4 landscape;margin:10mm}\n"
	"@media print{div.matrix{page:wide;overflow:visible!important}table#matrix{font-size:6px}"
	"table#matrix td,table#matrix th{padding:1px 1px}table#matrix td:first-child{max-width:30mm;overflow-wrap:anywhere}}\n"
	/* the results table fits a portrait A4 page: smaller, and long words
	 * (limits, ids) may break */
	"@media print{table#rules{font-size:8.5px}table#rules td,table#rules th{padding:1px 3px;"
	"overflow-wrap:anywhere;min-width:0!important}table#rules td:first-child{width:30%}"
	"table#rules td:last-child{width:18%}table#files,table#events{font-size:8.5px}"
	"table td{overflow-wrap:anywhere}}\n"
	"@media print{body{max-width:none;padding:0}a{color:inherit;text-decoration:none}"
	"h2{page-break-after:avoid;break-after:avoid}tr{page-break-inside:avoid;break-inside:avoid}}\n";

void bn_html_head(GString *s, const char *title)
{
	g_string_append(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			   "<title>");
	bn_html_esc(s, title);
	g_string_append(s, "</title>\n<style>\n");
	g_string_append(s, style_sheet);
	g_string_append(s, "</style>\n</head>\n<body>\n");
}

void bn_html_tail(GString *s)
{
	g_string_append(s, "</body>\n</html>\n");
}

const char *bn_html_verdict_class(const char *name)
{
	static const char *const known[] = {
		"pass", "fail", "inconclusive", "skipped", "error", "xfail", "xpass",
		"compliant", "not-compliant", "not-demonstrated",
	};
	static const char *const cls[] = {
		"v-pass", "v-fail", "v-inconclusive", "v-skipped", "v-error", "v-xfail", "v-xpass",
		"v-compliant", "v-not-compliant", "v-not-demonstrated",
	};

	for (size_t i = 0; name && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			return cls[i];
	return "v-unknown";
}
