/* report.html: a run's record as one self-contained page a person can
 * review and sign (docs/report-html.md). It is rendered from the record
 * on disk only: report.json, and for its plots the capture.sr it names
 * (beside it for a run; the replayed file for a replay) with its SHA-256
 * checked. Everything the page shows comes from those files, so any
 * record can be rendered again later, and the same record gives the same
 * bytes.
 *
 * Size: the plots are reduced per pixel column (report/plot.h), so the
 * page's size depends on the number of results and events, never on the
 * capture's length; the bound is stated in docs/report-html.md and
 * checked by the HTML test on a 45-minute capture. */
#ifndef BN_REPORT_REPORT_HTML_H
#define BN_REPORT_REPORT_HTML_H

#include <stdbool.h>

#include "core/err.h"

struct bn_report_html_opts {
	bool no_plots;       /* the tables only (the capture is not read) */
};

/* The page, NUL-terminated, to be freed with g_free. BN_ERR_DATA when report.json
 * is not a bcbench report, or a file it names has another SHA-256 than
 * the record says (the record no longer matches its files); BN_ERR_IO
 * when it cannot be read. A capture that is not there is not an error:
 * the page says the plots could not be drawn and why. */
char *bn_report_html_render(const char *report_path, const struct bn_report_html_opts *o,
			    struct bn_err *err);
/* Render and write atomically to html_path (nothing written on error). */
int bn_report_html_write(const char *report_path, const char *html_path,
			 const struct bn_report_html_opts *o, struct bn_err *err);

#endif
