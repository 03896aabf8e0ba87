#!/usr/bin/python3
"""Compares two trained models or two JSON reports for the mpi end-to-end tests.

    e2e_compare.py model A.model B.model      numbers to 1e-10 relative, everything else exact
    e2e_compare.py report A.json B.json       the same over the JSON, timings left out
    e2e_compare.py csv A.csv B.csv            predictions: rows in order, labels equal, numbers as above
    ... --exact                               every number equal to the bit (same rank count)

A number a of the first file and b of the second agree when |a - b| <= 1e-10 max(|a|, |b|, s),
s the largest magnitude of the run of numbers they sit in (an array of the model, a list of the
report, a row of predictions): relative to the array's scale, as a norm-wise relative error, so
that an entry which cancels to near zero (a mean of centred data, a small weight beside large
ones) carries the rounding of its array and not of itself. Integers (counts, iteration
numbers, shapes) and strings must be equal. A model embeds its training report, whose wall times
differ between any two runs (so model files are never byte-identical): it is compared as a
report, without the "seconds", "cpu_seconds", "threads" and "ranks" entries. Exit 0 when they
agree, 1 with the differences listed (at most 20) when not.
"""
import json
import math
import os
import re
import sys

# E2E_COMPARE_REL: a script whose numbers are ill-conditioned by nature (e2e_selection_sample.sh)
# may loosen it.
REL = float(os.environ.get("E2E_COMPARE_REL", "1e-10"))
# Report keys that measure the run, not the model: wall times and the thread / rank counts.
RUN_KEYS = {"seconds", "cpu_seconds", "threads", "ranks"}

FLOAT = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$|^[-+]?(nan|inf)$", re.I)


def is_float_token(t):
    return FLOAT.match(t) is not None and any(c in t for c in ".eEnN")


def close(a, b, scale):
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


class Diff:
    def __init__(self):
        self.items = []
        self.max_rel = 0.0

    def number(self, where, a, b, scale):
        if a == b or (math.isnan(a) and math.isnan(b)):
            return
        rel = abs(a - b) / max(abs(a), abs(b), scale)
        self.max_rel = max(self.max_rel, rel)
        if not close(a, b, scale):
            self.items.append(f"{where}: {a!r} vs {b!r} (rel {rel:.3g} of max(|a|, |b|, array scale {scale:.3g}))")

    def other(self, where, a, b):
        self.items.append(f"{where}: {str(a)[:80]!r} vs {str(b)[:80]!r}")


def split_model(file):
    """The archive's tokens after the header line, and the JSON texts it holds (the training
    report, which carries wall times), each JSON replaced by one placeholder token."""
    text = open(file, encoding="utf-8").read().split("\n", 1)[1]
    tokens, reports, at = [], [], 0
    # A Boost text archive writes a string as "<length> <characters>": a report is a length
    # followed by a space and "{".
    for m in re.finditer(r"(?:^|\s)(\d+) \{", text):
        if m.start() < at:
            continue
        n = int(m.group(1))
        body = text[m.end() - 1:m.end() - 1 + n]
        try:
            reports.append(json.loads(body))
        except ValueError:
            continue
        tokens += text[at:m.start(1)].split() + ["<report>"]
        at = m.end() - 1 + n
    tokens += text[at:].split()
    return tokens, reports


def compare_models(fa, fb, diff):
    # The header line (magic, format, length, checksum) changes with any byte, the wall times
    # of the embedded report included, so the body is compared token by token instead.
    ta, ra = split_model(fa)
    tb, rb = split_model(fb)
    if len(ta) != len(tb) or len(ra) != len(rb):
        diff.other("token count", (len(ta), len(ra)), (len(tb), len(rb)))
        return
    i = 0
    while i < len(ta):
        if is_float_token(ta[i]) and is_float_token(tb[i]):
            j = i
            while j < len(ta) and is_float_token(ta[j]) and is_float_token(tb[j]):
                j += 1
            va = [float(t) for t in ta[i:j]]
            vb = [float(t) for t in tb[i:j]]
            scale = max([abs(v) for v in va if math.isfinite(v)], default=0.0)
            for k in range(j - i):
                diff.number(f"token {i + k + 1}", va[k], vb[k], scale)
            i = j
        else:
            if ta[i] != tb[i]:
                diff.other(f"token {i + 1}", ta[i], tb[i])
            i += 1
    for k, (a, b) in enumerate(zip(ra, rb)):
        compare_json(a, b, f"embedded report {k + 1}", diff)


def compare_json(a, b, where, diff, scale=0.0):
    if isinstance(a, dict) and isinstance(b, dict):
        keys_a = set(a) - RUN_KEYS
        keys_b = set(b) - RUN_KEYS
        if keys_a != keys_b:
            diff.other(where + " keys", sorted(keys_a ^ keys_b), "")
        for k in sorted(keys_a & keys_b):
            compare_json(a[k], b[k], f"{where}.{k}", diff)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diff.other(where + " length", len(a), len(b))
            return
        s = max([abs(v) for v in a if isinstance(v, float) and math.isfinite(v)], default=0.0)
        for k, (x, y) in enumerate(zip(a, b)):
            compare_json(x, y, f"{where}[{k}]", diff, s)
    elif isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        if a != b:
            diff.other(where, a, b)
    elif isinstance(a, int) and isinstance(b, int):
        if a != b:
            diff.other(where, a, b)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        diff.number(where, float(a), float(b), scale)
    elif a != b:
        diff.other(where, a, b)


def compare_csv(fa, fb, diff):
    # Predictions: the same header and rows; labels equal, probabilities and outputs to 1e-10
    # (a row's scale is its largest entry: probabilities sum to 1).
    la = open(fa, encoding="utf-8").read().splitlines()
    lb = open(fb, encoding="utf-8").read().splitlines()
    if len(la) != len(lb):
        diff.other("line count", len(la), len(lb))
        return
    for n, (a, b) in enumerate(zip(la, lb), start=1):
        fa_, fb_ = a.split(","), b.split(",")
        if len(fa_) != len(fb_):
            diff.other(f"line {n}", a, b)
            continue
        numbers = [float(t) for t in fa_ if is_float_token(t)]
        scale = max([abs(v) for v in numbers if math.isfinite(v)], default=0.0)
        for c, (x, y) in enumerate(zip(fa_, fb_), start=1):
            if is_float_token(x) and is_float_token(y):
                diff.number(f"line {n} column {c}", float(x), float(y), scale)
            elif x != y:
                diff.other(f"line {n} column {c}", x, y)


def main():
    global REL
    args = sys.argv[1:]
    if "--exact" in args:
        args.remove("--exact")
        REL = 0.0
    if len(args) != 3 or args[0] not in ("model", "report", "csv"):
        sys.exit("usage: e2e_compare.py model|report|csv A B [--exact]")
    kind, fa, fb = args
    diff = Diff()
    if kind == "model":
        compare_models(fa, fb, diff)
    elif kind == "csv":
        compare_csv(fa, fb, diff)
    else:
        compare_json(json.load(open(fa)), json.load(open(fb)), "report", diff)
    if diff.items:
        print(f"{kind}s differ: {fa} vs {fb} ({len(diff.items)} differences)")
        for item in diff.items[:20]:
            print("  " + item)
        sys.exit(1)
    print(f"{kind}s agree: {fa} vs {fb} (max rel diff {diff.max_rel:.2g})")


if __name__ == "__main__":
    main()
