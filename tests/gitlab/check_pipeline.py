#!/usr/bin/python3
"""What gitlab-ci-local does not run of scripts/ci/gitlab-ci.yml, checked
from the file (tests/integration/gitlab.sh calls it; python3-yaml and
python3-jsonschema from scripts/install-deps.sh). Each line printed is
"ok   ..." or "FAIL ..."; exit 1 on any FAIL.

  check_pipeline.py schema SCHEMA.json PIPELINE.yml
      the pipeline against GitLab's CI JSON schema (draft-07)
  check_pipeline.py keys PIPELINE.yml
      tags, resource_group, retry, needs, artifacts: the values the
      template promises (README.md, "GitLab CI")
  check_pipeline.py retried PIPELINE.yml CODE...
      what GitLab does with a bench job that exited CODE: "5: retried;
      1: not retried; 0: passed" (one line, no ok/FAIL)
  check_pipeline.py timeout PIPELINE.yml BCBENCH [SUITE.json...]
      the bench job's literal timeout covers its longest shard's expected
      time with margin; and the estimate equals the simulated bench's
      own time (timing.sim_s) for every completed entry of SUITE.json
"""
import json
import os
import re
import subprocess
import sys

import yaml

failed = 0


def ok(msg):
    print("ok   " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def check(cond, msg, why=""):
    if cond:
        ok(msg)
    else:
        bad(msg + (": " + why if why else ""))


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


# GitLab's retry rule (lib/gitlab/ci/build/auto_retry.rb, GitLab 16.10+):
# a failed job is retried, up to max, when its failure reason is in `when`
# OR its exit code is in `exit_codes`; without `when`, `when` defaults to
# ["always"] only when exit_codes is absent. A script's non-zero exit is
# the failure reason script_failure.
def gitlab_retries(retry, exit_code, reason="script_failure"):
    if isinstance(retry, int):
        retry = {"max": retry}
    codes = retry.get("exit_codes")
    if isinstance(codes, int):
        codes = [codes]
    when = retry.get("when", ["always"] if codes is None else [])
    if isinstance(when, str):
        when = [when]
    if not retry.get("max"):
        return False
    return reason in when or "always" in when or exit_code in (codes or [])


def cmd_schema(schema_path, pipeline_path):
    import jsonschema

    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    doc = load(pipeline_path)
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errors:
        ok("%s validates against GitLab's CI schema (%s, %d jobs)"
           % (pipeline_path, schema.get("$id", "?"), sum(1 for k in doc if isinstance(doc[k], dict) and "script" in doc[k])))
    for e in errors[:10]:
        bad("schema: at %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "/", e.message[:300]))


def script_text(job):
    s = job.get("script", [])
    return "\n".join(s if isinstance(s, list) else [s])


def cmd_keys(pipeline_path):
    doc = load(pipeline_path)
    for name in ("build", "static", "bench", "report"):
        if not isinstance(doc.get(name), dict):
            bad("job %s is missing" % name)
            return
    build, static, bench, report = doc["build"], doc["static"], doc["bench"], doc["report"]

    for name, job in (("build", build), ("static", static), ("report", report)):
        check(not job.get("tags"), "%s runs on any runner (no tags)" % name, "tags %r" % job.get("tags"))
    check("make" in script_text(build) and " all" in script_text(build), "build runs make all", script_text(build))
    check(any(p.rstrip("/") in ("build/bcbench", "build") for p in build.get("artifacts", {}).get("paths", [])) and
          any(p.rstrip("/") in ("build/fw", "build") for p in build.get("artifacts", {}).get("paths", [])),
          "build keeps build/bcbench and build/fw as artifacts", repr(build.get("artifacts")))

    matrix = (bench.get("parallel") or {}).get("matrix") if isinstance(bench.get("parallel"), dict) else None
    benches = []
    for row in matrix or []:
        v = row.get("BENCH", [])
        benches += v if isinstance(v, list) else [v]
    check(len(benches) >= 2 and len(set(benches)) == len(benches),
          "bench: one job per bench, parallel:matrix BENCH %s" % benches, repr(bench.get("parallel")))
    tags = bench.get("tags") or []
    check("bcbench" in tags and "$BENCH" in tags, "bench runs on runners tagged bcbench and its BENCH", repr(tags))
    check(bench.get("resource_group") == "bench-$BENCH", "bench: resource_group bench-$BENCH",
          repr(bench.get("resource_group")))
    retry = bench.get("retry")
    check(isinstance(retry, dict) and retry.get("max") == 2 and retry.get("exit_codes") == [5],
          "bench: retry max 2, exit_codes [5]", repr(retry))
    if isinstance(retry, dict):
        # Every exit code of Contract 1 (bench/core/exit.h) and signals.
        retried = [c for c in (1, 2, 3, 4, 5, 6, 7, 129, 130, 143) if gitlab_retries(retry, c)]
        check(retried == [5], "bench: GitLab's retry rule retries exit 5 and no other exit code",
              "it retries %s" % retried)
    needs = [n if isinstance(n, str) else n.get("job") for n in bench.get("needs", [])]
    check("build" in needs, "bench needs build (its artifacts: build/bcbench, build/fw)", repr(needs))
    s = script_text(bench)
    for want, what in (('--wait "$BENCH_LOCK_WAIT_S"', "queues on the bench lock"),
                       ('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"', "runs its shard"),
                       ('--junit "reports/shard-$CI_NODE_INDEX/junit.xml"', "writes JUnit"),
                       ('--conf "$BENCH_CONF"', "uses its bench's bench.conf")):
        check(want in s, "bench %s (%s)" % (what, want), "script lacks it")
    art = bench.get("artifacts", {})
    check(art.get("when") == "always", "bench keeps its artifacts when it fails (when: always)", repr(art.get("when")))
    check(str(art.get("reports", {}).get("junit", "")).startswith("reports/shard-"), "bench: JUnit as the test report",
          repr(art.get("reports")))
    check("reports/" in art.get("paths", []), "bench keeps reports/ (suite.json, report.html, entries)", repr(art.get("paths")))

    check(report.get("when") == "always", "report runs after a failed bench job (when: always)", repr(report.get("when")))
    rneeds = [n if isinstance(n, str) else n.get("job") for n in report.get("needs", [])]
    check("bench" in rneeds and "build" in rneeds, "report needs bench (every shard) and build", repr(rneeds))
    rs = script_text(report)
    check("bcbench merge" in rs and "bcbench diff" in rs, "report merges the shards and diffs against the baseline")
    check("$CI_DEFAULT_BRANCH" in str(doc.get("variables", {}).get("BASELINE_URL", "")),
          "report's baseline is the default branch's", repr(doc.get("variables", {}).get("BASELINE_URL")))


UNITS_S = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60, "minute": 60,
           "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "d": 86400,
           "day": 86400, "days": 86400}


def duration_s(text):
    """GitLab's human duration ("3h 30m", "90 minutes", "1 hour 5 min")."""
    text = str(text).strip().lower()
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]+)", text)
    if not parts or re.sub(r"(\d+(?:\.\d+)?)\s*([a-z]+)", "", text).strip(" ,and"):
        raise ValueError("not a duration: %r" % text)
    return sum(float(n) * UNITS_S[u] for n, u in parts)


WAIT_UNITS_S = {"us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def scenario_waits_s(path):
    """A scenario's duration: its waits, as the suite orders entries by
    them (bench/suite/suite.c, scenario_cost) and a real bench takes them
    in real time."""
    total = 0.0
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2 and words[0] == "wait":
                m = re.fullmatch(r"([0-9]*\.?[0-9]+)(us|\u00b5s|ms|s|min|h)", words[1])
                if not m:
                    raise ValueError("%s: wait %r" % (path, words[1]))
                total += float(m.group(1)) * WAIT_UNITS_S[m.group(2)]
    return total


def suite_scenarios(suite_path):
    """stem -> scenario path, as the suite names them (as written, then
    beside the suite file)."""
    out = {}
    with open(suite_path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) == 2 and words[0] == "scenario":
                p = words[1]
                if not os.path.exists(p):
                    p = os.path.join(os.path.dirname(suite_path), words[1])
                stem = os.path.splitext(os.path.basename(p))[0]
                if stem in out and out[stem] != p:
                    raise ValueError("two scenarios with stem %s" % stem)
                out[stem] = p
    return out


PER_ENTRY_S = 10.0   # a process, the bench opened and left safe, a re-open
MARGIN = 1.5


def cmd_timeout(pipeline_path, bcbench, suite_jsons):
    doc = load(pipeline_path)
    bench = doc["bench"]
    variables = doc.get("variables", {})
    suite = variables["SUITE"]
    lock_wait_s = float(variables.get("BENCH_LOCK_WAIT_S", 0))
    par = bench.get("parallel")
    if isinstance(par, int):
        n = par
    else:
        n = sum(len(r["BENCH"]) if isinstance(r["BENCH"], list) else 1 for r in par["matrix"])
    try:
        timeout_s = duration_s(bench["timeout"])
    except (KeyError, ValueError) as e:
        bad("bench: a literal timeout: %s" % e)
        return
    stems = suite_scenarios(suite)
    worst = (0.0, 0, 0, 0.0)
    for k in range(1, n + 1):
        out = subprocess.run([bcbench, "suite", suite, "--list", "--shard", "%d/%d" % (k, n), "--datadir", "."],
                             capture_output=True, text=True)
        if out.returncode != 0:
            bad("bcbench suite --list --shard %d/%d: exit %d: %s" % (k, n, out.returncode, out.stderr.strip()[:200]))
            return
        # "INDEX  ID  EXPECTATION", then "K of N entries".
        ids = [ln.split()[1] for ln in out.stdout.splitlines()
               if re.match(r"\s*\d+\s+\S", ln) and not re.fullmatch(r"\d+ of \d+ entries", ln.strip())]
        waits = sum(scenario_waits_s(stems[i.split("/")[0]]) for i in ids)
        est = waits + PER_ENTRY_S * len(ids)
        if est > worst[0]:
            worst = (est, k, len(ids), waits)
    need_s = MARGIN * worst[0] + lock_wait_s
    check(timeout_s >= need_s,
          "bench timeout %r = %.0f s covers the longest of %d shards of %s (shard %d: %d entries, waits %.0f s "
          "+ %.0f s an entry = %.0f s) x %.1f + the lock wait %.0f s = %.0f s"
          % (bench["timeout"], timeout_s, n, suite, worst[1], worst[2], worst[3], PER_ENTRY_S, worst[0], MARGIN,
             lock_wait_s, need_s),
          "too short")
    # The estimate is the bench's own clock: every entry that ran to its
    # end took exactly its scenario's waits in simulated time.
    n_done, off = 0, []
    for sj in suite_jsons:
        with open(sj, encoding="utf-8") as f:
            s = json.load(f)
        for e in s["entries"]:
            rep = e.get("report") or {}
            if e.get("outcome") == "error" or not rep.get("path"):
                continue
            with open(os.path.join(os.path.dirname(sj), rep["path"]), encoding="utf-8") as f:
                r = json.load(f)
            if r.get("status", {}).get("state") != "completed":
                continue
            n_done += 1
            est = scenario_waits_s(e["scenario"])
            if abs(r["timing"]["sim_s"] - est) > 1e-3:
                off.append("%s: sim %.3f s, waits %.3f s" % (e["id"], r["timing"]["sim_s"], est))
    if suite_jsons:
        check(n_done > 0 and not off, "the estimate (the scenario's waits) is each completed entry's simulated time "
              "(%d entries)" % n_done, "; ".join(off[:5]) or "no completed entry")


def main(argv):
    if len(argv) >= 3 and argv[1] == "schema":
        cmd_schema(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "keys":
        cmd_keys(argv[2])
    elif len(argv) >= 4 and argv[1] == "retried":
        retry = load(argv[2])["bench"].get("retry", 0)
        print("; ".join("%s: %s" % (c, "passed" if c == "0" else "retried" if c.isdigit() and gitlab_retries(retry, int(c))
                                    else "not retried") for c in argv[3:]))
    elif len(argv) >= 4 and argv[1] == "timeout":
        cmd_timeout(argv[2], argv[3], argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
