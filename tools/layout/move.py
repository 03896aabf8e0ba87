#!/usr/bin/env python3
"""The framework's folder layout (docs/architecture.md, "Folders"), made by moving files.

    tools/layout/move.py [--dry-run] [REPO]

RULES maps today's paths (globs allowed) to their folders. The script `git mv`s every file a rule
matches to its new place, then rewrites across the repository (framework, plugins, sdk, apps,
tests, docs, tools):
  - every `#include "radial/..."` and `#include <radial/...>` of a moved header, and every other
    mention of a moved file's path (CMake lists, comments, Markdown), by its new path;
  - the relative includes of the framework's private headers (`#include "csv_scanner.hpp"`,
    `"../distributed/block_shards.hpp"`) so that they still name the same file.
Running it again changes nothing (a rule whose files are already in place matches none). It
refuses to run (exit 1, listing the files) when a framework source or header that no rule
maps sits where the layout forbids it: a .cpp at framework/src's top level, a header at
include/radial's top level, or a file in a folder that docs/architecture.md's Folders table
(the one list of folders and their levels, which tests/layout/check_layout.py also reads) does
not list.
Python 3, standard library only.
"""
import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

INC = "framework/include/radial"
SRC = "framework/src"

# (glob of today's paths, new folder). A folder ends with "/": the file keeps its name.
# Each framework folder's idea and its level are in docs/architecture.md ("Folders").
RULES = [
    # core: the value types every other folder passes around
    *[(f"{INC}/{h}.hpp", f"{INC}/core/") for h in (
        "config", "types", "errors", "params", "option_table", "state", "text", "centres",
        "fit_context", "dataset", "polynomial_term")],
    (f"{INC}/version.hpp.in", f"{INC}/core/"),
    (f"{INC}/data/input_coding.hpp", f"{INC}/core/"),
    *[(f"{SRC}/{s}.cpp", f"{SRC}/core/") for s in (
        "errors", "params", "state", "text", "centres", "dataset", "polynomial_term",
        "input_coding")],
    # exec: threads, the BLAS thread count, the heap, the CPU's vector instructions
    (f"{INC}/parallel.hpp", f"{INC}/exec/"),
    (f"{INC}/heap_policy.hpp", f"{INC}/exec/"),
    (f"{INC}/numerics/blas_threads.hpp", f"{INC}/exec/"),
    (f"{INC}/numerics/cpu.hpp", f"{INC}/exec/"),
    (f"{SRC}/parallel.cpp", f"{SRC}/exec/"),
    (f"{SRC}/worker_pool.[ch]pp", f"{SRC}/exec/"),
    (f"{SRC}/heap_policy.cpp", f"{SRC}/exec/"),
    (f"{SRC}/numerics/blas_threads.cpp", f"{SRC}/exec/"),
    (f"{SRC}/numerics/cpu.cpp", f"{SRC}/exec/"),
    # numerics: k-means and the mixture EM in folders of their own
    (f"{INC}/numerics/kmeans*.hpp", f"{INC}/numerics/kmeans/"),
    (f"{SRC}/numerics/kmeans*.[ch]pp", f"{SRC}/numerics/kmeans/"),
    (f"{INC}/numerics/mixture*.hpp", f"{INC}/numerics/mixture/"),
    (f"{SRC}/numerics/mixture*.[ch]pp", f"{SRC}/numerics/mixture/"),
    (f"{SRC}/numerics/em_*.cpp", f"{SRC}/numerics/mixture/"),
    # data: readers, missing values, the standardiser
    (f"{SRC}/missing_values.cpp", f"{SRC}/data/"),
    (f"{INC}/standardiser.hpp", f"{INC}/data/"),
    (f"{SRC}/standardiser.cpp", f"{SRC}/data/"),
    # network: the components' interfaces, the design matrix they meet at and its products,
    # width rules, links and prediction rules
    *[(f"{INC}/{h}.hpp", f"{INC}/network/") for h in (
        "basis", "centre_learner", "output_layer", "weight_penalty", "kernel_prior", "refiner",
        "candidate_basis", "design_matrix", "width_rule", "link", "prediction_rule")],
    *[(f"{SRC}/{s}.cpp", f"{SRC}/network/") for s in (
        "interfaces", "centre_count", "kernel_prior", "candidate_basis", "design_matrix",
        "width_rule", "link", "prediction_rules")],
    *[(f"{INC}/numerics/{h}.hpp", f"{INC}/network/") for h in (
        "gram_products", "normal_cg", "ridge_loo")],
    *[(f"{SRC}/numerics/{s}.cpp", f"{SRC}/network/") for s in (
        "gram_products", "normal_cg", "ridge_loo")],
    # plugin: the registration a plugin sees, the host's loader, the load-time checks
    (f"{INC}/registration.hpp", f"{INC}/plugin/"),
    (f"{SRC}/registration.cpp", f"{SRC}/plugin/"),
    (f"{INC}/registry.hpp", f"{INC}/plugin/loader.hpp"),
    (f"{SRC}/registry.cpp", f"{SRC}/plugin/loader.cpp"),
    (f"{INC}/plugin_abi.hpp", f"{INC}/plugin/"),
    (f"{INC}/fingerprint.hpp", f"{INC}/plugin/"),
    (f"{SRC}/fingerprint.cpp", f"{SRC}/plugin/"),
    (f"{INC}/interface_layout.hpp", f"{INC}/plugin/"),
    # optim: line searches and quasi-Newton kits (the GLM's and the whole network's)
    *[(f"{INC}/glm/{h}.hpp", f"{INC}/optim/") for h in ("line_search", "quasi_newton")],
    *[(f"{SRC}/glm/{s}.cpp", f"{SRC}/optim/") for s in ("line_search", "quasi_newton")],
    *[(f"{INC}/refine/{h}.hpp", f"{INC}/optim/") for h in ("lbfgs", "minimisers")],
    *[(f"{SRC}/refine/{s}.[ch]pp", f"{SRC}/optim/") for s in (
        "lbfgs", "minimisers", "minimiser_steps", "vector_ops")],
    # model: the trained network, its forward pass and its store
    (f"{INC}/network.hpp", f"{INC}/model/"),
    (f"{SRC}/network.cpp", f"{SRC}/model/"),
    # the SDK: the templates in one folder, one per slot; Radial::testing beside the kit it
    # completes (the CLI tests' shell harness stays with the tests)
    ("sdk/templates/basis", "sdk/templates/basis"),
    ("sdk/templates/kernel-prior", "sdk/templates/kernel-prior"),
    ("tests/cli_harness.sh", "tests/cli_harness.sh"),
    ("sdk/testing", "sdk/testing"),
]

# Names that are not files of the tree but follow a moved one: the generated version header.
DERIVED = {f"{INC}/version.hpp.in": [("radial/core/version.hpp", "radial/core/version.hpp")]}

# Lines that name a moved folder relative to their own CMakeLists.txt, rewritten when the move
# of that folder happens (file, text, replacement).
EDITS = {
    "sdk/templates/basis": [
        ("sdk/CMakeLists.txt",
         'install(DIRECTORY template/ DESTINATION "${CMAKE_INSTALL_DATADIR}/radial/template")\n',
         ""),
    ],
    "sdk/testing": [
        ("tests/CMakeLists.txt",
         'EXISTS "${dir}/CMakeLists.txt" AND NOT leaf STREQUAL "support")',
         'EXISTS "${dir}/CMakeLists.txt")'),
    ],
}

# Where a framework file may sit once the rules have run: the folders of docs/architecture.md's
# Folders table (and their subfolders), nothing at the top of framework/src or
# framework/include/radial. None: read from the doc.
FOLDERS = None
FOLDER_ROW = re.compile(r"^\|\s*\d+\s*\|\s*`?([\w/]+?)/?`?\s*\|")


def layout_folders(repo):
    """The top-level folders of the Folders table in docs/architecture.md."""
    doc = (repo / "docs/architecture.md").read_text(encoding="utf-8")
    body = doc.split("\n## Folders", 1)[-1].split("\n## ", 1)[0] if "\n## Folders" in doc else ""
    return sorted({m.group(1).split("/")[0] for m in map(FOLDER_ROW.match, body.splitlines()) if m})

SKIP_TOP = {"build", ".git"}
# Left as written: the change log records each release with the paths it had.
KEEP = {"CHANGELOG.md"}


def git(repo, *args, capture=False):
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, text=True,
                         stdout=subprocess.PIPE if capture else None)
    return out.stdout if capture else None


def tracked(repo):
    return [p for p in git(repo, "ls-files", capture=True).splitlines() if p]


def plan(repo, files=None):
    """{old path: new path} for the tracked files the rules move now (paths relative to repo)."""
    files = tracked(repo) if files is None else files
    moves = {}
    for pattern, target in RULES:
        if not any(c in pattern for c in "*?["):
            # a plain path: a file, or a folder moved as a whole
            hits = [f for f in files if f == pattern or f.startswith(pattern + "/")]
            for f in hits:
                if f == pattern:
                    new = target + Path(f).name if target.endswith("/") else target
                else:
                    new = target.rstrip("/") + f[len(pattern):]
                if new != f:
                    moves.setdefault(f, new)
            continue
        for f in files:
            if "/" in f[len(os.path.dirname(pattern)) + 1:] or not fnmatch.fnmatchcase(f, pattern):
                continue
            new = target + Path(f).name if target.endswith("/") else target
            if new != f:
                moves.setdefault(f, new)
    return moves


def forbidden(paths, folders):
    """Framework files that sit where the layout has no place for them."""
    bad = []
    for f in paths:
        for root, exts in ((SRC + "/", (".cpp", ".hpp")), (INC + "/", (".hpp", ".in"))):
            if not f.startswith(root) or not f.endswith(exts):
                continue
            rest = f[len(root):]
            if "/" not in rest or rest.split("/")[0] not in folders:
                bad.append(f)
    return bad


def header_name(path):
    """radial/x/y.hpp for a public header's path, else None."""
    for root in ("framework/include/", "sdk/include/"):
        if path.startswith(root) and path.endswith(".hpp"):
            return path[len(root):]
    if path.startswith("sdk/testing/include/") or path.startswith("sdk/testing/include/"):
        return path.split("/include/", 1)[1]
    return None


def substitution(pairs):
    """One pass over a text: each mention of an old name (not inside a longer name) by its new
    one."""
    table = dict(pairs)
    if not table:
        return lambda text: text
    alternation = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
    pattern = re.compile(r"(?<![\w.-])(" + alternation + r")(?![\w-])")

    return lambda text: pattern.sub(lambda m: table[m.group(1)], text)


RELATIVE_INCLUDE = re.compile(r'^(\s*#\s*include\s+")([^"]+)(")', re.M)


def fix_relative_includes(text, old_file, new_file, moves, exists):
    """Private includes resolved from old_file's folder, written from new_file's folder."""
    def repl(m):
        inc = m.group(2)
        if inc.startswith("radial/"):
            return m.group(0)
        target = os.path.normpath(os.path.join(os.path.dirname(old_file), inc))
        if not exists(target):
            return m.group(0)
        target = moves.get(target, target)
        rel = os.path.relpath(target, os.path.dirname(new_file))
        return m.group(1) + rel + m.group(3)
    return RELATIVE_INCLUDE.sub(repl, text)


def text_files(repo):
    """Tracked text files below 1 MB, outside build trees."""
    for f in tracked(repo):
        path = repo / f
        if f.split("/")[0] in SKIP_TOP or f in KEEP or not path.is_file() or path.is_symlink():
            continue
        if path.stat().st_size > 1 << 20:
            continue
        with open(path, "rb") as handle:
            if b"\0" in handle.read(8192):
                continue
        yield f


def main(argv):
    dry = "--dry-run" in argv
    args = [a for a in argv if not a.startswith("--")]
    repo = Path(args[0] if args else Path(__file__).resolve().parents[2]).resolve()
    files = tracked(repo)
    moves = plan(repo, files)
    after = [moves.get(f, f) for f in files]
    folders = FOLDERS if FOLDERS is not None else layout_folders(repo)
    if not folders:
        print("move.py: docs/architecture.md has no Folders table to place files in",
              file=sys.stderr)
        return 1
    bad = forbidden(after, folders)
    if bad:
        print("move.py: no rule maps these framework files, and the layout forbids where they "
              "are (add a rule to tools/layout/move.py):", file=sys.stderr)
        for f in bad:
            print("  " + f, file=sys.stderr)
        return 1
    for old, new in sorted(moves.items()):
        print(f"{old} -> {new}")
    if dry or not moves:
        return 0

    # Mentions: public headers by include name, every moved path by its repository path, and
    # moved folders by their path; inside framework/ also its files by their path below it
    # (src/..., include/..., as its CMakeLists.txt writes them).
    pairs, local = [], []
    for old, new in moves.items():
        pairs.append((old, new))
        ho, hn = header_name(old), header_name(new)
        if ho and hn and ho != hn:
            pairs.append((ho, hn))
        if old.startswith("framework/"):
            local.append((old[len("framework/"):], new[len("framework/"):]))
        pairs += DERIVED.get(old, [])
    edits = []
    for pattern, target in RULES:
        if not any(c in pattern for c in "*?[") and not target.endswith("/") and \
                any(f.startswith(pattern + "/") for f in moves):
            pairs.append((pattern, target))
            edits += EDITS.get(pattern, [])
    rewrite, rewrite_local = substitution(pairs), substitution(pairs + local)

    old_set = set(files)
    inverse = {v: k for k, v in moves.items()}
    for old, new in sorted(moves.items()):
        (repo / new).parent.mkdir(parents=True, exist_ok=True)
        git(repo, "mv", old, new)
    for old in sorted(moves, key=lambda f: -f.count("/")):
        folder = (repo / old).parent
        while folder != repo and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # a folder the move emptied
            folder = folder.parent
    for f, before, after in edits:
        path = repo / f
        text = path.read_text(encoding="utf-8")
        if before not in text:
            print(f"move.py: {f} no longer holds {before!r}: edit it by hand", file=sys.stderr)
            return 1
        path.write_text(text.replace(before, after), encoding="utf-8")
    for f in text_files(repo):
        path = repo / f
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new_text = rewrite_local(text) if f.startswith("framework/") else rewrite(text)
        if f.startswith(SRC + "/"):
            new_text = fix_relative_includes(new_text, inverse.get(f, f), f, moves,
                                             lambda p: p in old_set)
        if new_text != text:
            path.write_text(new_text, encoding="utf-8", errors="surrogateescape")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
