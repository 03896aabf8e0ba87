#!/usr/bin/python3
"""Rewrites a Radial model's payload and frames it again with a valid header, as an attacker
would: rewrite_model.py IN OUT PATTERN REPLACEMENT

PATTERN is a Python regular expression replaced once (it must match) in the payload; the
header line "RADIAL-MODEL <format> <payload bytes> <fnv1a-64 hex>" is recomputed, so only the
model store's own checks stand between the result and the program."""
import re
import sys


def fnv1a64(data: bytes) -> int:
    h = 14695981039346656037  # FNV-1a offset basis and prime, as published
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % (1 << 64)
    return h


def main() -> int:
    source, target, pattern, replacement = sys.argv[1:5]
    data = open(source, "rb").read()
    header, payload = data.split(b"\n", 1)
    fields = header.split(b" ")
    new_payload, count = re.subn(pattern.encode(), replacement.encode(), payload, count=1)
    if count != 1:
        print(f"rewrite_model.py: pattern {pattern!r} not found in the payload", file=sys.stderr)
        return 1
    new_header = b"%s %s %d %016x\n" % (fields[0], fields[1], len(new_payload), fnv1a64(new_payload))
    with open(target, "wb") as out:
        out.write(new_header + new_payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
