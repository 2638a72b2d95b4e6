#!/usr/bin/env python3
"""Acceptance check of a report.html (or a suite's report.html) as a browser
sees it: the page is opened in headless Chromium, driven over the DevTools
protocol on a pipe, and its facts are read from the DOM and compared with
the record it was rendered from (report.json, or suite.json with --suite).

Fails (exit 1, one line per failure) on: a console error or warning, an
uncaught exception, a request that is not file: or data: (the page must be
self-contained) or that failed, a page larger than --max-bytes, and any
departure from the DOM contract (docs in the usage text below and in
bench/report/plot.h). Exit 2: the check itself could not run (no browser,
a timeout, an unreadable record). Python standard library only.
"""
import argparse
import fcntl
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

OVERALL = ("compliant", "not-compliant", "not-demonstrated")
RESULT_VERDICTS = ("pass", "fail", "inconclusive", "skipped", "error")
CELL_VERDICTS = RESULT_VERDICTS + ("xfail", "xpass")
LANES = ("VBUS", "IBUS", "DP", "DM", "ID")
WINDOW_TOL_S = 1e-6
SHOT_WIDTH_PX = 1100
SHOT_MAX_HEIGHT_PX = 16000


class Fatal(Exception):
    """The check could not run (exit 2), as opposed to a page that fails."""


class Browser:
    """One headless Chromium and its DevTools pipe: requests are JSON
    terminated by NUL written to the browser's fd 3, answers and events
    come back the same way on its fd 4."""

    def __init__(self, exe, timeout_s):
        self.timeout_s = timeout_s
        self.next_id = 1
        self.buf = b""
        self.events = []  # every event seen, in order, for the collectors
        self.profile = tempfile.mkdtemp(prefix="html_dom.")
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        # Out of the way of 3 and 4 so the dup2s in the child cannot clobber
        # them, and close-on-exec: only the dup2'd 3 and 4 reach the browser
        # (close_fds=False then leaks nothing, Python's own fds being
        # close-on-exec too).
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_r, from_w)]
        for fd in (to_r, from_w):
            os.close(fd)

        def child_fds():
            os.dup2(hi[0], 3)
            os.dup2(hi[1], 4)

        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--mute-audio",
                "--hide-scrollbars",
                # A page that reaches out fails fast instead of waiting on DNS.
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--user-data-dir=" + self.profile, "about:blank"]
        self.log = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                         stderr=self.log, close_fds=False,
                                         preexec_fn=child_fds, start_new_session=True)
        except OSError as e:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise Fatal("cannot start %s: %s" % (exe, e))
        finally:
            for fd in hi:
                os.close(fd)
        self.wfd, self.rfd = to_w, from_r

    def close(self, graceful=True):
        """Ask the browser to quit (graceful), then make sure: it is always
        gone. After a timeout it is not asked: it may be stuck."""
        try:
            if graceful and self.proc.poll() is None:
                try:
                    os.write(self.wfd, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                except OSError:
                    pass
                try:
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            for fd in (self.wfd, self.rfd):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def browser_log(self):
        self.log.seek(0)
        lines = self.log.read().decode("utf-8", "replace").strip().splitlines()
        return "\n".join(lines[-5:])

    def _recv(self, deadline, what):
        """One message, waiting no later than deadline."""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fatal("timed out after %g s waiting for %s" % (self.timeout_s, what))
            ready, _, _ = select.select([self.rfd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise Fatal("the browser closed its pipe while waiting for %s (exit %s)\n%s"
                            % (what, self.proc.poll(), self.browser_log()))
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        """Send a request and wait for its answer; events meanwhile are kept."""
        mid = self.next_id
        self.next_id += 1
        req = {"id": mid, "method": method, "params": params or {}}
        if session:
            req["sessionId"] = session
        try:
            os.write(self.wfd, json.dumps(req).encode() + b"\0")
        except OSError as e:
            raise Fatal("cannot send %s to the browser: %s\n%s" % (method, e, self.browser_log()))
        deadline = time.monotonic() + self.timeout_s
        while True:
            msg = self._recv(deadline, "the answer to " + method)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise Fatal("%s: %s" % (method, msg["error"].get("message", msg["error"])))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session, what):
        deadline = time.monotonic() + self.timeout_s
        for msg in self.events:
            if msg["method"] == method and msg.get("sessionId") == session:
                return msg
        while True:
            msg = self._recv(deadline, what)
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method and msg.get("sessionId") == session:
                    return msg


def remote_text(arg):
    if "value" in arg:
        return str(arg["value"])
    return arg.get("description", arg.get("type", "?"))


def page_problems(events, session, page_url):
    """Console errors and warnings, exceptions, log errors, requests for
    anything but the page itself and data: URLs (one self-contained file:
    another file beside it is no better than the network), and loads that
    failed."""
    out = []
    urls = {}
    for ev in events:
        if ev.get("sessionId") != session:
            continue
        m, p = ev["method"], ev.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console %s: %s" % (p["type"], " ".join(remote_text(a) for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description") or d.get("text", "exception")
            out.append("uncaught exception: %s" % desc.splitlines()[0])
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            out.append("browser log error: %s%s" % (e.get("text", ""), (" (%s)" % e["url"]) if e.get("url") else ""))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            urls[p.get("requestId")] = url
            scheme = url.split(":", 1)[0].lower()
            if scheme == "file" and url.split("#", 1)[0] != page_url:
                out.append("not self-contained: the page loads the file %s" % url)
            elif scheme not in ("file", "data", "about"):
                out.append("not self-contained: the page requests %s" % url)
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            out.append("load failed: %s (%s)" % (urls.get(p.get("requestId"), p.get("requestId")), p.get("errorText", "?")))
    return out


# Runs in the page: the contract's facts, as plain JSON.
EXTRACT_JS = r"""
(() => {
  const q = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const attr = (el, a) => el.hasAttribute(a) ? el.getAttribute(a) : null;
  const svgFacts = svg => ({
    t0: attr(svg, 'data-t0'), t1: attr(svg, 'data-t1'),
    lanes: q('g.lane', svg).map(g => attr(g, 'data-channel')),
    hl: q('rect.hl', svg).map(r => ({t0: attr(r, 'data-t0'), t1: attr(r, 'data-t1')})),
  });
  const byId = id => {
    const all = q('[id="' + id.replace(/"/g, '\\"') + '"]');
    if (!all.length) return null;
    const el = all[0];
    return {count: all.length, tag: el.tagName.toLowerCase(),
            classes: Array.from(el.classList),
            svgs: q('svg.plot-svg', el).map(svgFacts)};
  };
  const rowsOf = t => t ? q('tr', t).filter(tr => tr.querySelector('td')) : [];
  const rulesTable = document.getElementById('rules');
  const otherTable = document.getElementById('rules-other');
  const eventsTable = document.getElementById('events');
  const filesTable = document.getElementById('files');
  const matrix = document.getElementById('matrix');
  // Every plot by id, and whatever a plot link points at.
  const plotIds = new Set(['plot-run']);
  q('[id^="plot-"]').forEach(el => plotIds.add(el.id));
  const rules = q('tr.rule').map(tr => {
    const links = q('a.plot-link', tr).map(a => attr(a, 'href'));
    links.forEach(h => { if (h && h.startsWith('#')) plotIds.add(h.slice(1)); });
    return {index: attr(tr, 'data-index'), id: attr(tr, 'data-id'),
            verdict: attr(tr, 'data-verdict'), side: attr(tr, 'data-side'), links: links,
            inRules: !!rulesTable && rulesTable.contains(tr),
            inOther: !!otherTable && otherTable.contains(tr)};
  });
  const plots = {};
  plotIds.forEach(id => { plots[id] = byId(id); });
  return {
    title: document.title,
    verdicts: q('[id="verdict"]').map(el => ({tag: el.tagName.toLowerCase(), verdict: attr(el, 'data-verdict'), side: attr(el, 'data-side')})),
    others: q('[id="verdict-other"]').map(el => ({verdict: attr(el, 'data-verdict'), side: attr(el, 'data-side'), text: el.textContent})),
    rulesTable: !!rulesTable,
    rulesTableSide: rulesTable ? attr(rulesTable, 'data-side') : null,
    otherTableSide: otherTable ? attr(otherTable, 'data-side') : null,
    rules: rules,
    plots: plots,
    figures: q('figure.plot').length,
    bands: q('svg.plot-svg g.band').map(g => ({name: attr(g, 'data-band'), channel: attr(g, 'data-channel'), lo: attr(g, 'data-lo'), hi: attr(g, 'data-hi')})),
    strayBands: q('g.band').filter(g => !g.closest('svg.plot-svg, svg.curve-svg')).length,  // a charger curve (curve_html.h) draws its VCHG band on its own svg
    evs: q('svg.plot-svg g.ev').map(g => {
      const s = g.closest('svg.plot-svg');
      return {t: attr(g, 'data-t'), kind: attr(g, 'data-kind'), t0: attr(s, 'data-t0'), t1: attr(s, 'data-t1')};
    }),
    eventsTable: !!eventsTable, eventRows: rowsOf(eventsTable).length,
    filesTable: !!filesTable, fileRows: rowsOf(filesTable).filter(tr => !tr.classList.contains("artifact")).length,
    filesText: filesTable ? filesTable.textContent : '',
    matrix: !!matrix,
    entries: q('tr.entry').map(tr => {
      const a = tr.querySelector('a[href]');
      return {id: attr(tr, 'data-entry'), inMatrix: !!matrix && matrix.contains(tr),
              href: a ? attr(a, 'href') : null,
              cells: q('td.cell', tr).map(td => ({rule: attr(td, 'data-rule'), verdict: attr(td, 'data-verdict')}))};
    }),
  };
})()
"""


def num(s):
    """A finite float from an attribute's text, else None."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def judges_of(report):
    """The side a record judges: its "judges" (absent before
    bcbench-report/3, or anything else: the device)."""
    return "port" if report.get("judges") == "port" else "device"


def side_of(report, res):
    """The side a result judges: its own; a check without one (records
    before /3) the device; an expectation or bench result the judged side."""
    s = res.get("side")
    if isinstance(s, str) and s:
        return s
    return "device" if res.get("kind") == "check" else judges_of(report)


def side_judged(report, side):
    return any(side_of(report, r) == side and r.get("verdict") in ("pass", "fail")
               for r in report.get("results", []))


def expected_overall(report, side=None):
    """A side's verdict (the judged side's by default) from the results
    and status, by the rule of bn_report_json_overall_side: never the
    record's own "verdict" on trust."""
    side = side or judges_of(report)
    results = [r for r in report.get("results", []) if side_of(report, r) == side]
    n_pass = sum(r.get("verdict") == "pass" for r in results)
    n_fail = sum(r.get("verdict") == "fail" and r.get("severity") != "warning" for r in results)
    n_open = sum(r.get("verdict") in ("inconclusive", "error") for r in results)
    completed = (report.get("status") or {}).get("state") == "completed"
    if n_fail:
        return "not-compliant"
    if n_open or not completed or not n_pass:
        return "not-demonstrated"
    return "compliant"


def check_verdict(f, fails, want, allowed):
    if not f["verdicts"]:
        fails.append('no element with id="verdict"')
        return
    if len(f["verdicts"]) > 1:
        fails.append('%d elements with id="verdict" (ids are unique)' % len(f["verdicts"]))
    got = f["verdicts"][0]
    if got["tag"] != "div":
        fails.append("#verdict is a <%s>, not a <div>" % got["tag"])
    if got["verdict"] not in allowed:
        fails.append("#verdict data-verdict %r is not one of %s" % (got["verdict"], ", ".join(allowed)))
    elif want is not None and got["verdict"] != want:
        fails.append("#verdict says %r, the record %r" % (got["verdict"], want))


# Which channel a BC-1.2 band belongs on: the data-line levels on D+ or
# D-, the currents on IBUS, the VBUS levels on VBUS.
BAND_CHANNELS = {
    "VDAT_REF": ("DP", "DM"), "VLGC": ("DP", "DM"), "VDP_SRC": ("DP",), "VDM_SRC": ("DM",),
    "IUNIT": ("IBUS",), "ISUSP": ("IBUS",), "IDEV_CHG": ("IBUS",), "ICFG_MAX": ("IBUS",),
    "VDCP_SHTDWN": ("VBUS",), "VOTG_SESS_VLD": ("VBUS",), "DROOP_THRESHOLD": ("VBUS",),
}


def close(a, b):
    return a is None and b is None or (a is not None and b is not None and abs(a - b) <= 1e-9 + 1e-6 * abs(b))


def check_band_values(f, fails, report):
    """A band named as a limit has that limit's value in the record (its
    "limits", or the device's declared droop threshold), on its channel."""
    lims = report.get("limits") or {}
    droop = (report.get("dut") or {}).get("droop_threshold_v")
    for b in f["bands"]:
        name = b["name"]
        want = None
        if name == "DROOP_THRESHOLD":
            want = (droop, None)
        elif name in lims:
            want = (lims[name].get("min"), lims[name].get("max"))
        if want is not None:
            got = (num(b["lo"]), num(b["hi"]))
            if not (close(got[0], want[0]) and close(got[1], want[1])):
                fails.append("band %s on %s is [%s, %s], the record's limit [%s, %s]" %
                             (name, b["channel"], b["lo"], b["hi"], want[0], want[1]))
        if name in BAND_CHANNELS and b["channel"] not in BAND_CHANNELS[name]:
            fails.append("band %s is drawn on %s, not on %s" % (name, b["channel"], "/".join(BAND_CHANNELS[name])))


def check_bands(f, fails, required):
    names = {b["name"] for b in f["bands"]}
    for want in required:
        if want not in names:
            fails.append("band %s is in no plot (bands drawn: %s)" % (want, ", ".join(sorted(n for n in names if n)) or "none"))
    for b in f["bands"]:
        if not b["name"]:
            fails.append("a band without data-band")
        vals = {}
        for side in ("lo", "hi"):
            s = b[side]
            if s is None or (s != "" and num(s) is None):
                fails.append("band %s: data-%s %r is neither a number nor \"\"" % (b["name"], side, s))
            vals[side] = num(s)
        if vals["lo"] is not None and vals["hi"] is not None and vals["lo"] > vals["hi"]:
            fails.append("band %s: data-lo %s > data-hi %s" % (b["name"], b["lo"], b["hi"]))
    if f["strayBands"]:
        fails.append("%d g.band outside any svg.plot-svg or svg.curve-svg" % f["strayBands"])


def check_events(f, fails, report):
    for e in f["evs"]:
        t, t0, t1 = num(e["t"]), num(e["t0"]), num(e["t1"])
        if t is None or not e["kind"]:
            fails.append("event mark data-t %r data-kind %r: needs a time and a kind" % (e["t"], e["kind"]))
        elif t0 is not None and t1 is not None and not (t0 - WINDOW_TOL_S <= t <= t1 + WINDOW_TOL_S):
            fails.append("event mark %s at %s s drawn outside its plot [%s, %s]" % (e["kind"], e["t"], e["t0"], e["t1"]))
    if not f["eventsTable"]:
        fails.append('no <table id="events">')
    elif ((report.get("events") or {}).get("list")) and not f["eventRows"]:
        fails.append("the record has events but table#events has no rows")


def check_files(f, fails, report):
    files = report.get("files", [])
    if not f["filesTable"]:
        fails.append('no <table id="files">')
        return
    if f["fileRows"] != len(files):
        fails.append("table#files has %d rows, the record %d files" % (f["fileRows"], len(files)))
    for fl in files:
        if fl.get("sha256") and fl["sha256"] not in f["filesText"]:
            fails.append("table#files lacks the sha256 of %s (%s)" % (fl.get("path"), fl["sha256"]))


def check_plot_window(f, fails, idx, res):
    w = res["window"]
    row = [r for r in f["rules"] if r["index"] == str(idx)]
    href = "#plot-%d" % idx
    if row and href not in row[0]["links"]:
        fails.append('failed rule %s (results[%d]) has no <a class="plot-link" href="%s">' % (res["id"], idx, href))
    plot = f["plots"].get("plot-%d" % idx)
    if not plot:
        fails.append("failed rule %s: no element #plot-%d" % (res["id"], idx))
        return
    if plot["tag"] != "figure" or "plot" not in plot["classes"]:
        fails.append('#plot-%d is <%s class="%s">, not <figure class="plot">' % (idx, plot["tag"], " ".join(plot["classes"])))
    hls = [(svg, h) for svg in plot["svgs"] for h in svg["hl"]]
    if not hls:
        fails.append("#plot-%d has no svg.plot-svg with a rect.hl" % idx)
        return
    for svg, h in hls:
        t0, t1 = num(h["t0"]), num(h["t1"])
        if t0 is None or t1 is None or abs(t0 - w["t0_s"]) > WINDOW_TOL_S or abs(t1 - w["t1_s"]) > WINDOW_TOL_S:
            continue
        s0, s1 = num(svg["t0"]), num(svg["t1"])
        if s0 is None or s1 is None or s0 > t0 + WINDOW_TOL_S or s1 < t1 - WINDOW_TOL_S:
            fails.append("#plot-%d: svg [%s, %s] does not contain the highlighted window [%s, %s]"
                         % (idx, svg["t0"], svg["t1"], h["t0"], h["t1"]))
        return
    fails.append("#plot-%d highlights %s, the record's window of %s is [%.6f, %.6f]"
                 % (idx, ", ".join("[%s, %s]" % (h["t0"], h["t1"]) for _, h in hls), res["id"], w["t0_s"], w["t1_s"]))


def check_report_page(f, fails, report, args):
    results = report.get("results")
    if not isinstance(results, list):
        raise Fatal("%s: no \"results\" array" % args.report)
    computed = expected_overall(report)
    if report.get("verdict") is not None and report["verdict"] != computed:
        fails.append("the record's \"verdict\" %r contradicts its results and status (%r)" %
                     (report["verdict"], computed))
    for side, v in (report.get("verdicts") or {}).items():
        want_side = expected_overall(report, side) if (side_judged(report, side) or side == judges_of(report)) else None
        if v != want_side:
            fails.append("the record's \"verdicts\".%s %r contradicts its results and status (%r)" % (side, v, want_side))
    want = args.verdict or computed
    check_verdict(f, fails, want, OVERALL)
    judges = judges_of(report)
    other = "port" if judges == "device" else "device"
    if f["verdicts"] and f["verdicts"][0]["side"] != judges:
        fails.append("#verdict data-side %r, the record judges the %s" % (f["verdicts"][0]["side"], judges))
    # the other side's verdict: shown exactly when that side judged anything
    if side_judged(report, other):
        want_other = expected_overall(report, other)
        if len(f["others"]) != 1:
            fails.append("%d #verdict-other, the %s judged something" % (len(f["others"]), other))
        else:
            o = f["others"][0]
            if o["side"] != other or o["verdict"] != want_other:
                fails.append("#verdict-other says the %s %r, the record the %s %r" %
                             (o["side"], o["verdict"], other, want_other))
            for r in report.get("results", []):
                if (side_of(report, r) == other and r.get("verdict") == "fail" and
                        r.get("severity") != "warning" and r.get("id") not in o["text"]):
                    fails.append("#verdict-other does not name %s, which failed" % r.get("id"))
                    break
    elif f["others"]:
        fails.append("#verdict-other shown, but the %s judged nothing" % other)
    if not f["rulesTable"]:
        fails.append('no <table id="rules">')
    elif f["rulesTableSide"] != judges:
        fails.append("table#rules data-side %r, the record judges the %s" % (f["rulesTableSide"], judges))
    if f["otherTableSide"] not in (None, other):
        fails.append("table#rules-other data-side %r, not the %s" % (f["otherTableSide"], other))
    seen = {}
    for r in f["rules"]:
        if not r["inRules"] and not r["inOther"]:
            fails.append("tr.rule %s outside table#rules and table#rules-other" % r["id"])
        seen.setdefault(r["index"], []).append(r)
    for i, res in enumerate(results):
        rows = seen.pop(str(i), [])
        if not rows:
            fails.append("results[%d] %s (%s) has no row in table#rules" % (i, res.get("id"), res.get("verdict")))
            continue
        if len(rows) > 1:
            fails.append("results[%d] %s has %d rows" % (i, res.get("id"), len(rows)))
        row = rows[0]
        if row["id"] != res.get("id"):
            fails.append("row data-index=%d says data-id %r, the record %r" % (i, row["id"], res.get("id")))
        if row["verdict"] != res.get("verdict"):
            fails.append("row %s (results[%d]) says %r, the record %r" % (res.get("id"), i, row["verdict"], res.get("verdict")))
        side = side_of(report, res)
        if row["side"] != side:
            fails.append("row %s (results[%d]) says side %r, the record %r" % (res.get("id"), i, row["side"], side))
        elif (side == judges) != row["inRules"] or (side != judges) != row["inOther"]:
            fails.append("row %s (the %s's) is in the %s table" %
                         (res.get("id"), side, "judged side's" if row["inRules"] else "other side's"))
    for idx, rows in seen.items():
        fails.append("row data-index=%r (%s) matches no result of the record" % (idx, rows[0]["id"]))
    for i, res in enumerate(results):
        if res.get("verdict") == "fail" and isinstance(res.get("window"), dict):
            check_plot_window(f, fails, i, res)
    run = f["plots"].get("plot-run")
    if not run:
        fails.append("no #plot-run")
    else:
        if run["tag"] != "figure" or "plot" not in run["classes"]:
            fails.append('#plot-run is not a <figure class="plot">')
        lanes = [c for svg in run["svgs"] for c in svg["lanes"]]
        if not run["svgs"]:
            fails.append("#plot-run has no svg.plot-svg")
        for c in lanes:
            if c not in LANES:
                fails.append("#plot-run lane data-channel %r is not one of %s" % (c, ", ".join(LANES)))
        for c in args.lanes:
            if c not in lanes:
                fails.append("#plot-run has no lane %s (lanes: %s)" % (c, ", ".join(map(str, lanes)) or "none"))
    check_bands(f, fails, args.bands)
    check_band_values(f, fails, report)
    check_events(f, fails, report)
    check_files(f, fails, report)
    return "%d rules, %d plots, %d bands, %d event marks" % (len(results), f["figures"], len(f["bands"]), len(f["evs"]))


def cell_base(v):
    return {"xfail": "fail", "xpass": "pass"}.get(v, v)


def check_suite_page(f, fails, suite, args, page):
    entries = suite.get("entries")
    if not isinstance(entries, list):
        raise Fatal("%s: no \"entries\" array" % args.suite)
    check_verdict(f, fails, args.verdict, OVERALL + ("pass", "fail", "error"))
    if not f["matrix"]:
        fails.append('no <table id="matrix">')
    rows = {}
    for r in f["entries"]:
        if not r["inMatrix"]:
            fails.append("tr.entry %s outside table#matrix" % r["id"])
        rows.setdefault(r["id"], []).append(r)
    suite_dir = os.path.dirname(os.path.abspath(args.suite))
    page_dir = os.path.dirname(os.path.abspath(page))
    for e in entries:
        eid = e.get("id")
        got = rows.pop(eid, [])
        if not got:
            fails.append("entry %s has no row in table#matrix" % eid)
            continue
        if len(got) > 1:
            fails.append("entry %s has %d rows" % (eid, len(got)))
        row = got[0]
        href = row["href"]
        if not href:
            fails.append("entry %s: its row has no link" % eid)
        else:
            u = urllib.parse.urlsplit(href)
            if u.scheme or u.netloc:
                fails.append("entry %s links to %s, not a file beside the page" % (eid, href))
            elif not os.path.isfile(os.path.join(page_dir, urllib.parse.unquote(u.path))):
                fails.append("entry %s links to %s: no such file" % (eid, href))
        for c in row["cells"]:
            # "none" (or empty): the entry's report has no such result
            if c["verdict"] not in CELL_VERDICTS + ("", "none") or not c["rule"]:
                fails.append("entry %s: cell data-rule %r data-verdict %r" % (eid, c["rule"], c["verdict"]))
        rep = (e.get("report") or {}).get("path")
        if not rep or not os.path.isfile(os.path.join(suite_dir, rep)):
            continue
        with open(os.path.join(suite_dir, rep), encoding="utf-8") as fp:
            results = json.load(fp).get("results", [])
        for c in row["cells"]:
            if c["verdict"] in ("", "none") or not c["rule"]:
                continue
            have = {r.get("verdict") for r in results if r.get("id") == c["rule"]}
            if not have:
                fails.append("entry %s: cell %s says %s, its report has no such result" % (eid, c["rule"], c["verdict"]))
            elif cell_base(c["verdict"]) not in have:
                fails.append("entry %s: cell %s says %s, its report %s" % (eid, c["rule"], c["verdict"], "/".join(sorted(have))))
    for eid in rows:
        fails.append("row tr.entry %r matches no entry of the suite" % eid)
    return "%d entries, %d cells" % (len(entries), sum(len(r["cells"]) for r in f["entries"]))


def open_page(br, page, shot):
    """Load the page in a fresh tab; its facts, the problems seen, and the
    screenshot written if asked."""
    target = br.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = br.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for dom in ("Page", "Runtime", "Log", "Network"):
        br.send(dom + ".enable", {}, session)
    br.send("Emulation.setDeviceMetricsOverride",
            {"width": SHOT_WIDTH_PX, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
    url = "file://" + urllib.parse.quote(os.path.abspath(page))
    nav = br.send("Page.navigate", {"url": url}, session)
    if nav.get("errorText"):
        raise Fatal("cannot open %s: %s" % (url, nav["errorText"]))
    br.wait_event("Page.loadEventFired", session, "the page's load event")
    # Let timers set at load run (a script failing late still counts).
    br.send("Runtime.evaluate", {"expression": "new Promise(r => setTimeout(r, 50))",
                                 "awaitPromise": True}, session)
    res = br.send("Runtime.evaluate", {"expression": EXTRACT_JS, "returnByValue": True}, session)
    if "exceptionDetails" in res:
        raise Fatal("reading the DOM failed: %s" % res["exceptionDetails"].get("text"))
    facts = res["result"]["value"]
    if shot:
        m = br.send("Page.getLayoutMetrics", {}, session)
        size = m.get("cssContentSize") or m.get("contentSize")
        h = max(1, min(SHOT_MAX_HEIGHT_PX, int(math.ceil(size["height"]))))
        png = br.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": SHOT_WIDTH_PX, "height": h, "scale": 1}}, session)
        import base64
        with open(shot, "wb") as fp:
            fp.write(base64.b64decode(png["data"]))
    return facts, page_problems(br.events, session, url)


PRINT_JS = r"""
(() => {
  const d = document.documentElement;
  const out = [...document.querySelectorAll('body *')]
      .filter(e => e.getBoundingClientRect().right > d.clientWidth + 1)
      .filter(e => !(e.parentElement && e.parentElement.getBoundingClientRect().right > d.clientWidth + 1))
      .slice(0, 5)
      .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' to ' + Math.round(e.getBoundingClientRect().right) + ' px');
  return {scroll: d.scrollWidth, width: d.clientWidth, out: out};
})()
"""


def print_overflow(br, page, width_px):
    """The page laid out as for print, width_px wide: what sticks out."""
    target = br.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = br.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    br.send("Page.enable", {}, session)
    br.send("Emulation.setEmulatedMedia", {"media": "print"}, session)
    br.send("Emulation.setDeviceMetricsOverride",
            {"width": width_px, "height": 1000, "deviceScaleFactor": 1, "mobile": False}, session)
    br.send("Page.navigate", {"url": "file://" + urllib.parse.quote(os.path.abspath(page))}, session)
    br.wait_event("Page.loadEventFired", session, "the page's load event (print layout)")
    res = br.send("Runtime.evaluate", {"expression": PRINT_JS, "returnByValue": True}, session)
    v = res["result"]["value"]
    if v["scroll"] > width_px:
        return ["printed %d px wide, the page is %d px: %s" % (width_px, v["scroll"], ", ".join(v["out"]) or "?")]
    return []


def main():
    ap = argparse.ArgumentParser(
        description="Open a bcbench report.html in headless Chromium and check it from the DOM.",
        epilog="Exit 0: the page passes; 1: it fails (one line per failure); 2: the check could not run.")
    ap.add_argument("page", help="the report.html to open")
    ap.add_argument("--report", help="the report.json it was rendered from (default: report.json beside the page)")
    ap.add_argument("--suite", help="check a suite page against this suite.json instead of a run page")
    ap.add_argument("--bands", default="", help="comma-separated band names that must be drawn in some plot (e.g. VDAT_REF,VLGC,IUNIT)")
    ap.add_argument("--lanes", default=",".join(LANES), help="lanes #plot-run must have (default %(default)s; \"\" for none)")
    ap.add_argument("--verdict", help="the overall verdict the page must show (default: report.json's, or computed from it; suite pages: any)")
    ap.add_argument("--max-bytes", type=int, help="the page file may be at most this many bytes")
    ap.add_argument("--screenshot", metavar="PNG", help="also write a screenshot (%d px wide, at most %d px high) and print its path" % (SHOT_WIDTH_PX, SHOT_MAX_HEIGHT_PX))
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds for each wait on the browser (default %(default)s)")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"), help="the browser (default $CHROMIUM or chromium)")
    ap.add_argument("--dump", action="store_true", help="print the facts read from the DOM as JSON")
    ap.add_argument("--print-width", type=int, metavar="PX",
                    help="laid out for print (CSS print media) this many px wide, nothing may stick out: "
                         "703 is a portrait A4 page inside its margins, 1047 a landscape one")
    args = ap.parse_args()
    args.bands = [b for b in args.bands.split(",") if b]
    args.lanes = [c for c in args.lanes.split(",") if c]
    t_start = time.monotonic()
    name = "html_dom: " + args.page
    try:
        if not os.path.isfile(args.page):
            raise Fatal("no such page")
        if args.suite:
            record_path = args.suite
        else:
            args.report = args.report or os.path.join(os.path.dirname(args.page) or ".", "report.json")
            record_path = args.report
        try:
            with open(record_path, encoding="utf-8") as fp:
                record = json.load(fp)
        except (OSError, ValueError) as e:
            raise Fatal("cannot read %s: %s" % (record_path, e))
        exe = shutil.which(args.chromium)
        if not exe:
            raise Fatal("no browser %r (scripts/install-deps.sh installs chromium)" % args.chromium)
        br = Browser(exe, args.timeout)
        try:
            facts, fails = open_page(br, args.page, args.screenshot)
            if args.print_width:
                fails += print_overflow(br, args.page, args.print_width)
        except BaseException:
            br.close(graceful=False)
            raise
        br.close()
        if args.dump:
            print(json.dumps(facts, indent=1))
        size = os.path.getsize(args.page)
        if args.max_bytes is not None and size > args.max_bytes:
            fails.append("the page is %d bytes, more than --max-bytes %d" % (size, args.max_bytes))
        if args.suite:
            summary = check_suite_page(facts, fails, record, args, args.page)
        else:
            summary = check_report_page(facts, fails, record, args)
    except Fatal as e:
        print("%s: error: %s" % (name, e), file=sys.stderr)
        return 2
    took = time.monotonic() - t_start
    if args.screenshot:
        print("%s: screenshot %s" % (name, args.screenshot))
    if fails:
        print("%s: %d failure%s (%.2f s):" % (name, len(fails), "" if len(fails) == 1 else "s", took))
        for m in fails:
            print("  - " + m)
        return 1
    print("%s: ok, %s, %d bytes (%.2f s)" % (name, summary, size, took))
    return 0


if __name__ == "__main__":
    sys.exit(main())
