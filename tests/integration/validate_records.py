"""Validate every bcbench record under a directory against its schema.

usage: validate_records.py DIR [EXCLUDED...]

A record is a file named report.json, suite.json or events.json, or any
other *.json whose top-level "schema" is bcbench-report/N,
bcbench-suite/N or bcbench-events/N (a merge's -o FILE, a copy). Each is
validated against docs/report.schema.json, docs/suite.schema.json or
docs/events.schema.json by its "schema" field; a file of one of those
names that is not JSON, or has no known schema, fails. A report of
bcbench-report/3 must also agree with itself where a schema cannot say
it: its "verdict" is verdicts[judges], and each side's verdict is the
one its results and status give (expectations and bench results belong
to the side the record judges; a side that judged nothing is null unless
the record judges it), and its status.cause is its status.exit_code's.
EXCLUDED are
paths (relative to DIR, or absolute) of records a test broke on purpose;
each must exist and be a record, so an exclusion cannot outlive its
reason or hide anything else. Prints one line per invalid file (the
file, where in it, the error) and exits 1; else a count and exits 0.
Run from the repository root (the schemas are read from docs/).
"""
import json
import os
import sys

import jsonschema

KINDS = {
    "bcbench-report/": "report",
    "bcbench-suite/": "suite",
    "bcbench-events/": "events",
}
NAMES = {"report.json", "suite.json", "events.json"}


def schema_kind(doc):
    s = doc.get("schema") if isinstance(doc, dict) else None
    if not isinstance(s, str):
        return None
    for prefix, kind in KINDS.items():
        if s.startswith(prefix):
            return kind
    return None


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def overall(doc, side):
    """A side's verdict from the results, as report.c computes it."""
    judges = doc.get("judges", "device")
    n_pass = n_fail = n_open = 0
    for r in doc.get("results", []):
        s = r.get("side") or ("device" if r.get("kind") == "check" else judges)
        if s != side:
            continue
        v = r.get("verdict")
        n_pass += v == "pass"
        n_fail += v == "fail" and r.get("severity") != "warning"
        n_open += v in ("inconclusive", "error")
    judged = any((r.get("side") or ("device" if r.get("kind") == "check" else judges)) == side
                 and r.get("verdict") in ("pass", "fail") for r in doc.get("results", []))
    if n_fail:
        o = "not-compliant"
    elif doc.get("status", {}).get("state") != "completed" or n_open or not n_pass:
        o = "not-demonstrated"
    else:
        o = "compliant"
    return o if judged or side == judges else None


def sides_problems(doc):
    """What a bcbench-report/3 record says of its sides that its results contradict."""
    if doc.get("schema") != "bcbench-report/3":
        return []
    out = []
    got = doc.get("verdicts", {})
    for side in ("device", "port"):
        want = overall(doc, side)
        if got.get(side) != want:
            out.append("verdicts/%s: says %r, its results give %r" % (side, got.get(side), want))
    if doc.get("verdict") != got.get(doc.get("judges")):
        out.append("verdict: says %r, verdicts[%r] is %r" %
                   (doc.get("verdict"), doc.get("judges"), got.get(doc.get("judges"))))
    return out


CAUSES = {0: "ok", 1: "rule-failed", 2: "bad-input", 3: "device-broke-run",
          4: "not-demonstrated", 5: "bench-fault", 6: "environment", 7: "nothing-to-run"}


def cause_problems(doc):
    """A report's status.cause that is not its status.exit_code's (README.md, Exit codes)."""
    st = doc.get("status", {})
    if "cause" not in st:
        return []
    code = st.get("exit_code")
    want = "interrupted" if isinstance(code, int) and code > 128 else CAUSES.get(code)
    if st["cause"] != want:
        return ["status/cause: says %r, exit_code %r is %r" % (st["cause"], code, want)]
    return []


def where(err):
    return "/".join(str(p) for p in err.absolute_path) or "(top)"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    excluded = set()
    problems = []
    for x in sys.argv[2:]:
        p = os.path.normpath(x if os.path.isabs(x) else os.path.join(top, x))
        excluded.add(p)
    validators = {}
    for kind in ("report", "suite", "events"):
        schema = load("docs/%s.schema.json" % kind)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validators[kind] = cls(schema)

    counts = {"report": 0, "suite": 0, "events": 0}
    seen_excluded = set()
    def walk_error(e):
        problems.append("%s: cannot read the directory: %s" % (e.filename, e.strerror))

    for d, dirs, files in os.walk(top, onerror=walk_error):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            path = os.path.normpath(os.path.join(d, name))
            named = name in NAMES
            try:
                doc = load(path)
            except (ValueError, UnicodeDecodeError, OSError) as e:
                if path in excluded:
                    seen_excluded.add(path)
                elif named:
                    problems.append("%s: not JSON: %s" % (path, e))
                continue
            kind = schema_kind(doc)
            if kind is None and not named:
                continue  # another JSON file (limits, conditions, a fixture)
            if path in excluded:
                seen_excluded.add(path)
                continue
            if kind is None:
                problems.append("%s: no \"schema\" of a bcbench record (%r)" %
                                (path, doc.get("schema") if isinstance(doc, dict) else doc))
                continue
            if named and name != kind + ".json":
                problems.append("%s: its schema %r is not a %s" % (path, doc["schema"], name[:-5]))
                continue
            counts[kind] += 1
            errors = sorted(validators[kind].iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errors[:3]:
                problems.append("%s: %s: %s" % (path, where(e), e.message[:300]))
            if len(errors) > 3:
                problems.append("%s: ... %d errors in all" % (path, len(errors)))
            if kind == "report" and not errors:
                problems.extend("%s: %s" % (path, p) for p in sides_problems(doc))
                problems.extend("%s: %s" % (path, p) for p in cause_problems(doc))
    for p in sorted(excluded - seen_excluded):
        problems.append("%s: excluded, but it is not a record there (a stale exclusion)" % p)
    for line in problems:
        print(line)
    if problems:
        sys.exit(1)
    if not sum(counts.values()):
        print("no record under %s" % top)
        sys.exit(1)
    print("%d report.json, %d suite.json, %d events.json; %d excluded" %
          (counts["report"], counts["suite"], counts["events"], len(seen_excluded)))


if __name__ == "__main__":
    main()
