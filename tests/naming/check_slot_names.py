#!/usr/bin/env python3
"""One name per slot: fails when the old name of the two prior slots appears outside its
compatibility path.

  check_slot_names.py SOURCE_DIR
  check_slot_names.py --self-test      the check on made-up trees: it must fail where it should

The priors were one "regularizer" slot before they became [weight-penalty] and [kernel-prior]
(radial/pipeline/legacy_prior_table.hpp). That name may remain only where old input is still
read: the constant itself, the deprecated Python arguments, the documentation and tests of both,
fuzzer seeds, and model files written before the split. Every other file must name the slots. A file
listed here may hold at most its count of the old name, so a new use in it fails too."""
import fnmatch
import os
import pathlib
import re
import sys
import tempfile

OLD_NAME = re.compile(rb"regulari[sz]er", re.IGNORECASE)

# path (relative, /-separated) -> (most occurrences, why the old name is there)
ALLOWED = {
    "framework/include/radial/pipeline/legacy_prior_table.hpp":
        (1, "the one definition of the old table name"),
    "apps/python/radial/sklearn.py":
        (15, "regularizer= and regularizer_params=, deprecated, with their FutureWarning"),
    "docs/pipeline-format.md": (3, "the deprecated table, documented"),
    "docs/python.md": (2, "the deprecated Python arguments, documented"),
    "tests/pipeline/test_pipeline.cpp": (10, "the reader of the deprecated table, tested"),
    "tests/python/test_sklearn.py": (5, "the deprecated Python arguments, tested"),
    "tests/fuzz/toml.dict": (3, "the fuzzer's dictionary: the old table is still parsed"),
    "tests/fuzz/corpus/pipeline/overrides-iris.toml": (1, "a fuzzer seed with the old table"),
    "tests/fuzz/corpus/pipeline/overrides-minimal.toml": (1, "a fuzzer seed with the old key"),
    "tests/naming/check_slot_names.py": (4, "this test"),
}
# Model files written before the split (their pipeline text has the old table), read by tests
# that old models still load and predict, and how they were recorded.
ALLOWED_GLOBS = {
    "tests/prediction-rules/examples-before/*": "models and their recipe, from before the split",
    "tests/fuzz/corpus/model/*": "model files written before the split (fuzzer seeds)",
    "tests/fuzz/regression/model/*": "model files written before the split (fuzzer regressions)",
}
SKIPPED_DIRS = {".git", "__pycache__"}


def occurrences(root):
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        # Build trees (build/, build-asan/, ...) are outputs, not sources.
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and
                   not (rel_folder == "." and d.startswith("build"))]
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, "rb") as f:
                count = len(OLD_NAME.findall(f.read()))
            if count:
                yield rel, count


def check(root):
    """The failures of the tree at root, one line each."""
    failures = []
    for rel, count in sorted(occurrences(root)):
        if any(fnmatch.fnmatch(rel, pattern) for pattern in ALLOWED_GLOBS):
            continue
        most, _ = ALLOWED.get(rel, (0, ""))
        if count > most:
            where = (f"{count} times, at most {most} allowed" if most else
                     f"{count} time(s)")
            failures.append(f"{rel}: the old prior slot name appears {where}; name the slot "
                            "([weight-penalty] / weight-penalty.KEY / weight_penalty=, or "
                            "[kernel-prior] / kernel-prior.KEY / kernel_prior=)")
    return failures


def self_test():
    old = "regul" + "arizer"  # spelled apart, so that this line is not an occurrence
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        (root / "docs").mkdir()
        (root / "docs" / "python.md").write_text(f"{old}= and {old}_params=\n")
        (root / "build" / "docs").mkdir(parents=True)
        (root / "build" / "docs" / "x.md").write_text(old)  # build trees are not sources
        (root / "tests" / "fuzz" / "corpus" / "model").mkdir(parents=True)
        (root / "tests" / "fuzz" / "corpus" / "model" / "old.model").write_bytes(
            b"\0[" + old.encode() + b"]\0")
        assert check(root) == [], check(root)
        (root / "plugins").mkdir()
        (root / "plugins" / "hint.cpp").write_text(f'"a smaller {old.upper()}.alpha"\n')
        (root / "docs" / "python.md").write_text(f"{old}= {old}_params= regulariser\n")
        failures = check(root)
        assert len(failures) == 2, failures
        assert failures[0].startswith("docs/python.md: the old prior slot name appears 3 times, "
                                      "at most 2 allowed"), failures
        assert failures[1].startswith("plugins/hint.cpp: the old prior slot name appears 1 time"), \
            failures
    print("ok: the check fails on an unlisted file and on a listed file above its count")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    root = sys.argv[1]
    if not os.path.isfile(os.path.join(root, "framework", "include", "radial", "pipeline",
                                       "legacy_prior_table.hpp")):
        raise SystemExit(f"{root} is not the Radial source tree")
    failures = check(root)
    for failure in failures:
        print(failure)
    if failures:
        raise SystemExit(1)
    print("ok: the old prior slot name appears only in its compatibility path")


if __name__ == "__main__":
    main()
