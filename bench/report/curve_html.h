/* A charger profile's swept curve on report.html: an inline SVG V-I plot
 * of its "measured" block (curve sweep, curve import: the shared keys of
 * curve/measured.h): each point with
 * its expanded uncertainty as a bar, the curve through them, the VCHG
 * band, the knee and the shutdown it saw. plot.h draws waveforms against
 * time from a capture; this is VBUS against current from a profile, so
 * it draws its own (with the page's plot styles).
 *
 * The DOM the HTML tests read:
 *   <figure class="plot curve" id="charger-curve" data-profile="NAME"
 *           data-by="sweep" data-complete="true|false">
 *     <svg class="curve-svg" data-i0="A" data-i1="A" data-v0="V" data-v1="V">
 *       <g class="band" data-band="VCHG" data-lo="V" data-hi="V"><rect/><text/></g>
 *       <polyline class="trace"/>
 *       <g class="pt" data-a="A" data-v="V" data-u="V" data-n="N"><line/><circle/></g>...
 *       <g class="knee" data-a="A"><line/><text/></g>
 *       <g class="shutdown" data-above-a="A" data-recover-s="S"><line/><text/></g>
 *     </svg><figcaption/><p class="how"/></figure>
 * or, from a record whose profile is not the one it used:
 *   <p class="curve-note" id="charger-profile-note">No charger curve: why</p>
 * Values are SI, "%.6g". The same profile gives the same bytes. */
#ifndef BN_REPORT_CURVE_HTML_H
#define BN_REPORT_CURVE_HTML_H

#include <glib.h>

/* Append the figure for the profile at profile_path to out: 1 when drawn,
 * 0 when there is nothing to draw (no such file, not a profile, no
 * "measured" block or no points in it: the page says nothing then). */
int bn_curve_html(GString *out, const char *profile_path);

/* The figure of the charger profile a record names (its files[] entry of
 * role "charger": path and sha256), as report.html draws it: an absolute
 * path as it is; a relative one beside the record (record_dir), else as
 * the run named it (its own directory). Whichever file is found is drawn
 * only with the record's SHA-256: when none is there, the record holds
 * no hash, or the hash differs, no figure but a line saying why (returns
 * 2, the same text wherever the record lies); else as bn_curve_html. */
int bn_curve_html_record(GString *out, const char *record_dir, const char *path,
			 const char *want_sha256);

#endif
