#!/usr/bin/env python3
"""Find the examples in Markdown files and man pages, for
tests/integration/docs.sh.

The convention (tests/docs/README.md says it for writers):

  ```sh, ```bash, ```shell, ```console   commands; run
  ```scn                                 a scenario; run with bcbench run
  ```suite                               a suite; run with bcbench suite
  ```text, ```json, ```conf, ```c        not a command or a scenario
  (and ```toml, ```yaml, ```ini, ```xml, (output, a synopsis, a file format,
  ```diff, ```udev)                      a bench.conf): not run, counted

A command block with `$ ` prompts holds commands on the prompt lines (a
line ending in a backslash goes on to the next) and their output between;
`$ echo $?` followed by a number is the exit code of the command before
it. A block without prompts is one command per line (`#` comment lines
and blank lines skipped). Every command must exit 0 unless told.

HTML comments on the lines right before a fence (blank lines between are
allowed) say more about the block:

  <!-- exit N -->           every command of the block (or the scenario,
                            or the suite) exits N ($ echo $? still wins)
  <!-- not run: REASON -->  not run, and why (hardware, minutes, ...);
                            the test prints each one, so a skip is seen
  <!-- shortened with --filter GLOB: REASON -->
                            each `bcbench suite` of the block runs only
                            the entries GLOB selects (a whole suite takes
                            minutes); printed like a skip

Anything the test cannot place is an error naming the file and line: a
fence without a language or with an unknown one, a marker that is not
right before a fence, `not run` without a reason, an unclosed fence, or
a command written as an indented code block (fence it as ```sh).

A man page (FILE.1) has its examples in .nf/.fi (or .EX/.EE) blocks:
each is a command block, unless a comment line before it names what else
it is (.\" text, .\" conf, .\" scn, ...); .\" exit N and
.\" not run: REASON as above. Its escapes (\-, \e, \(em, ...) are undone.

A prompted block's output lines are checked too: each (but a "..." line)
must be part of a line the command printed, "..." in it standing for any
text, wall-clock times ("in 0.056 s)") for any time.

Usage: extract.py OUTDIR FILE.md|FILE.1...
       extract.py --check-output SHOWN ACTUAL   (the output check)
Writes OUTDIR/manifest, one line per item, tab-separated:
  cmd    FILE LINE EXIT BODY   (BODY: OUTDIR/NNNN.sh, the command)
  scn    FILE LINE EXIT BODY   (BODY: OUTDIR/NNNN.scn)
  suite  FILE LINE EXIT BODY   (BODY: OUTDIR/NNNN.suite)
  skip   FILE LINE -    REASON
  short  FILE LINE GLOB REASON (the block's commands follow)
  other  FILE LINE -    LANGUAGE
  error  FILE LINE -    WHAT
in document order; exits 0 (errors are items: the test counts them).
"""
import os
import re
import sys

CMD_LANGS = {"sh", "bash", "shell", "console"}
RUN_LANGS = {"scn": "scn", "suite": "suite"}
OTHER_LANGS = {"text", "json", "conf", "c", "toml", "yaml", "yml", "ini", "xml", "diff", "udev"}

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
MARKER = re.compile(r"^\s*<!--\s*(exit|not run|shortened with)\b\s*(.*?)\s*-->\s*$")
ANY_MARKERISH = re.compile(r"<!--\s*(exit|not run|shortened with)\b")
SHORTENED = re.compile(r"^--filter\s+('[^']+'|\S+):\s*(\S.*)$")
SUITE_CMD = re.compile(r"\b(bcbench suite)(?=\s)")
PROMPT = re.compile(r"^\$ (.*)$")
# An indented line that reads as a command a user would type.
CMDISH = re.compile(r"^(\$ |build/|bcbench\b|make\b|sudo\b|sh\b|cc\b|python3\b|sigrok-cli\b)")


class Out:
    def __init__(self, outdir):
        self.outdir = outdir
        self.n = 0
        self.lines = []

    def body(self, ext, text):
        self.n += 1
        path = os.path.join(self.outdir, "%04d.%s" % (self.n, ext))
        with open(path, "w") as f:
            f.write(text)
        return path

    def add(self, kind, doc, line, want, arg):
        arg = str(arg).replace("\t", " ").replace("\n", " ")
        self.lines.append("\t".join([kind, doc, str(line), str(want), arg]))


def commands(body, first_line):
    """[line, text, exit or None, output lines] for each command of a
    block's lines; text None: an error, said in place of the exit."""
    cmds = []
    prompted = any(PROMPT.match(l) for l in body)
    i = 0
    while i < len(body):
        raw = body[i]
        lineno = first_line + i
        if prompted:
            m = PROMPT.match(raw)
            if not m:
                if cmds and cmds[-1][1] is not None:
                    cmds[-1][3].append(raw)  # what the command printed
                i += 1
                continue
            text = m.group(1)
        else:
            text = raw
            if not text.strip() or text.lstrip().startswith("#"):
                i += 1
                continue
        parts = [text]
        while parts[-1].rstrip().endswith("\\") and i + 1 < len(body):
            i += 1
            parts.append(body[i])
        i += 1
        text = "\n".join(parts)
        if prompted and text.strip() == "echo $?":
            # the next line is the exit code of the command before
            if cmds and cmds[-1][1] is not None and i < len(body) and re.fullmatch(r"\s*\d+\s*", body[i]):
                cmds[-1][2] = int(body[i])
                i += 1
                continue
            cmds.append([lineno, None, "`$ echo $?` without a command before it or a number on the next line", []])
            continue
        cmds.append([lineno, text, None, []])
    return cmds


def block(path, out, start, lang, body, pending, what):
    """Emit one block's items; pending: its markers. Returns no markers."""
    want = None
    skip = None
    short = None
    for ln, kind, arg in pending:
        if kind == "exit":
            if not re.fullmatch(r"\d+", arg):
                out.add("error", path, ln, "-", "exit N wants a number, got \"%s\"" % arg)
            else:
                want = int(arg)
        elif kind == "shortened with":
            sm = SHORTENED.match(arg)
            if not sm:
                out.add("error", path, ln, "-", "shortened with --filter GLOB: REASON wants a glob and a reason")
            else:
                short = (sm.group(1), sm.group(2))
        elif kind == "not run":
            reason = arg[1:].strip() if arg.startswith(":") else ""
            if not reason:
                out.add("error", path, ln, "-", "not run: REASON without a reason")
            skip = reason or "?"
        else:
            lang = kind  # a man page's block says what it is
    if not lang:
        out.add("error", path, start, "-",
                "a fence without a language: sh or console (commands), scn or suite (run), or text, json, conf, c (not run)")
        return []
    if lang not in CMD_LANGS and lang not in RUN_LANGS and lang not in OTHER_LANGS:
        out.add("error", path, start, "-", "unknown block language \"%s\"" % lang)
        return []
    if lang in OTHER_LANGS:
        if want is not None or skip is not None or short is not None:
            out.add("error", path, start, "-", "a marker on a %s block, which is never run" % what)
        out.add("other", path, start, "-", lang)
        return []
    if skip is not None:
        out.add("skip", path, start, "-", skip)
        return []
    if lang in RUN_LANGS:
        if short is not None:
            out.add("error", path, start, "-", "shortened with --filter on a %s block: only a command block's `bcbench suite` takes it" % what)
            return []
        p = out.body(RUN_LANGS[lang], "\n".join(body) + "\n")
        out.add(RUN_LANGS[lang], path, start, 0 if want is None else want, p)
        return []
    cmds = commands(body, start + 1)
    if not cmds:
        out.add("error", path, start, "-", "a command block without a command")
    if short is not None:
        if not any(c[1] and SUITE_CMD.search(c[1]) for c in cmds):
            out.add("error", path, start, "-", "shortened with --filter on a block without a `bcbench suite` command")
        else:
            out.add("short", path, start, short[0], short[1])
            for c in cmds:
                if c[1] and SUITE_CMD.search(c[1]):
                    c[1] = SUITE_CMD.sub(r"\1 --filter " + short[0], c[1])
                    c[3] = []  # a shortened suite prints fewer entries
    for ln, text, code, printed in cmds:
        if text is None:
            out.add("error", path, ln, "-", code)
            continue
        if code is None:
            code = 0 if want is None else want
        p = out.body("sh", text + "\n")
        if any(l.strip() and l.strip() != "..." for l in printed):
            # NNNN.sh's output as the document shows it: NNNN.sh.out
            with open(p + ".out", "w") as f:
                f.write("\n".join(printed) + "\n")
        out.add("cmd", path, ln, code, p)
    return []


def scan(path, out):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    pending = []  # markers seen since the last fence or text: (line, kind, arg)
    in_list = False
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m and m.group(2)[0] == "`" and "`" in line[m.end(2):]:
            m = None  # CommonMark: a backtick fence's info has no backtick (``` `` ```` in text)
        if not m:
            mk = MARKER.match(line)
            if mk:
                pending.append((i + 1, mk.group(1), mk.group(2)))
            elif ANY_MARKERISH.search(re.sub(r"`+[^`]*`+", "", line)):  # not one quoted in text
                out.add("error", path, i + 1, "-", "a marker must be a line of its own: <!-- exit N --> or <!-- not run: REASON -->")
            elif line.strip():
                for ln, kind, _ in pending:
                    out.add("error", path, ln, "-", "<!-- %s --> is not right before a fenced block" % kind)
                pending = []
                if re.match(r"^\s*([-*+]|\d+[.)])\s", line):
                    in_list = True
                elif not line.startswith((" ", "\t")):
                    in_list = False
                # An indented code block: a blank line, then 4 spaces or a
                # tab, outside a list.
                if (not in_list and i > 0 and not lines[i - 1].strip()
                        and re.match(r"^( {4}|\t)", line) and CMDISH.match(line.strip())):
                    out.add("error", path, i + 1, "-",
                            "a command in an indented code block: fence it as ```sh so the test runs it")
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start = i + 1  # the fence's line, 1-based
        j = i + 1
        while j < len(lines):
            c = lines[j].strip()
            if c.startswith(fence[0] * len(fence)) and not c.strip(fence[0]):
                break
            j += 1
        if j == len(lines):
            out.add("error", path, start, "-", "fence never closed")
            return
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j]]
        pending, i = block(path, out, start, lang, body, pending, "```" + lang), j + 1
    for ln, kind, _ in pending:
        out.add("error", path, ln, "-", "<!-- %s --> is not right before a fenced block" % kind)


ROFF_ESC = [("\\-", "-"), ("\\e", "\\"), ("\\(em", "\u2014"), ("\\(*W", "\u03a9"),
            ("\\(mu", "\u00d7"), ("\\&", ""), ("\\(aq", "'"), ("\\(dq", '"')]
ROFF_MARK = re.compile(r'^\.\\"\s*(exit|not run|shortened with|text|json|conf|c|sh|console|scn|suite)\b\s*(.*?)\s*$')


def unroff(line):
    for a, b in ROFF_ESC:
        line = line.replace(a, b)
    return line


def scan_roff(path, out):
    """The .nf/.fi and .EX/.EE blocks of a man page, as command blocks."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    pending = []
    i = 0
    while i < len(lines):
        line = lines[i]
        mk = ROFF_MARK.match(line)
        if mk:
            pending.append((i + 1, mk.group(1), mk.group(2)))
            i += 1
            continue
        if line.startswith((".RS", ".PP", ".in", ".sp")) or not line.strip():
            i += 1
            continue
        if line.strip() not in (".nf", ".EX"):
            for ln, kind, _ in pending:
                out.add("error", path, ln, "-", '.\\" %s is not right before a .nf block' % kind)
            pending = []
            i += 1
            continue
        end = ".fi" if line.strip() == ".nf" else ".EE"
        start = i + 1
        j = i + 1
        while j < len(lines) and lines[j].strip() != end:
            j += 1
        if j == len(lines):
            out.add("error", path, start, "-", "%s never closed by %s" % (line.strip(), end))
            return
        body = [unroff(l) for l in lines[i + 1:j]]
        pending, i = block(path, out, start, "sh", body, pending, line.strip()), j + 1
    for ln, kind, _ in pending:
        out.add("error", path, ln, "-", '.\\" %s is not right before a .nf block' % kind)


# Wall-clock times differ from run to run: "simulated in 0.056 s)",
# an entry's "(0.26 s)" are not compared.
WALL = re.compile(r"(?:(?<=\()|(?<=in ))\d+(\.\d+)? m?s\)")


def shown_line(line):
    """A regex for a line of output as a document shows it: a part of an
    actual line, "..." standing for any text, wall times for any time."""
    parts = [re.escape(WALL.sub("@WALL@", p)) for p in line.strip().split("...")]
    return re.compile(".*".join(parts).replace("@WALL@", r"\d+(\.\d+)? m?s\)"))


def check_output(shown_path, actual_path):
    """Each line the document shows (but "...") is part of a line the
    command printed (in any order: stdout and stderr are interleaved by
    buffering). Prints the lines that are not; 1 if any."""
    with open(shown_path, encoding="utf-8") as f:
        shown = [l for l in f.read().split("\n") if l.strip() and l.strip() != "..."]
    with open(actual_path, encoding="utf-8", errors="replace") as f:
        actual = [WALL.sub("0 s)", l) for l in f.read().split("\n")]
    missing = [l for l in shown if not any(shown_line(l).search(a) for a in actual)]
    for l in missing:
        print(l.strip())
    return 1 if missing else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--check-output":
        return check_output(argv[2], argv[3])
    if len(argv) < 3:
        sys.stderr.write("usage: extract.py OUTDIR FILE.md...\n")
        return 2
    out = Out(argv[1])
    os.makedirs(argv[1], exist_ok=True)
    for path in argv[2:]:
        (scan_roff if re.search(r"\.[1-9]$", path) else scan)(path, out)
    with open(os.path.join(argv[1], "manifest"), "w") as f:
        f.write("".join(l + "\n" for l in out.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
