#!/usr/bin/python3
"""Seeds of the diff and merge harnesses from a real suite run.

Usage (from the top of the tree, after `make all`):
  build/bcbench suite -q --fwdir build/fw --out W/whole tests/fuzz/corpus/suite/tiny.suite
  build/bcbench suite -q --fwdir build/fw --shard 1/2 --out W/s1 tests/fuzz/corpus/suite/tiny.suite
  build/bcbench suite -q --fwdir build/fw --shard 2/2 --out W/s2 tests/fuzz/corpus/suite/tiny.suite
  tests/fuzz/suite-seeds.py W

A harness input is a flags byte, then NUL-separated parts: the records,
then the reports they name, written by the harness as r0.json, r1.json,
... beside the records (tests/fuzz/diff.c, merge.c). Here each record's
report paths are rewritten to those names, and each report is cut to its
first RESULTS results and written compact, so a seed stays within the
harnesses' 64 KiB; the inputs set flag bit 1, so the harness puts the
cut reports' real hashes in the records.
"""
import json
import os
import sys

RESULTS = 4
FIX_HASHES = 2

work = sys.argv[1]
root = os.path.dirname(os.path.abspath(__file__))


def load(d):
    with open(os.path.join(work, d, "suite.json"), "rb") as f:
        return json.load(f)


def renamed(d, doc, files):
    """doc with its entries' report paths named rK.json, K counting on
    from len(files); the reports' bytes appended to files."""
    for e in doc["entries"]:
        rep = e.get("report")
        if isinstance(rep, dict) and "path" in rep:
            with open(os.path.join(work, d, rep["path"]), "rb") as f:
                r = json.load(f)
            if isinstance(r.get("results"), list):
                r["results"] = r["results"][:RESULTS]
            r.pop("events", None)
            files.append(json.dumps(r, separators=(",", ":")).encode())
            rep["path"] = "r%d.json" % (len(files) - 1)
    return json.dumps(doc, separators=(",", ":")).encode()


def write(harness, name, flags, parts):
    path = os.path.join(root, "corpus", harness, name)
    with open(path, "wb") as f:
        f.write(bytes([flags | FIX_HASHES]) + b"\0".join(parts))
    print(path, os.path.getsize(path))


def one_pair(harness, name, flags, dirs, base_doc=None):
    files = []
    docs = [renamed(d, load(d), files) for d in dirs]
    write(harness, name, flags, docs + files)


# diff: bit 1 fix the hashes
one_pair("diff", "suite-pair", 0, ["whole", "whole"])
one_pair("diff", "suite-shards", 0, ["s1", "s2"])
# merge: bit 0 partial, bit 1 fix hashes, bits 2-3 shards less one
one_pair("merge", "two-shards", 1 << 2, ["s1", "s2"])
one_pair("merge", "reversed", 1 << 2, ["s2", "s1"])
one_pair("merge", "one-shard-partial", 1, ["s1"])
one_pair("merge", "whole", 0, ["whole"])
