#!/usr/bin/env python3
"""The framework's folders keep the architecture (docs/architecture.md, "Folders").

    check_layout.py REPO        check the tree; exit 1 listing every violation
    check_layout.py --self-test the checks fail on made-up trees that break them

Reads every #include in framework/ and fails when
  - a .cpp or .hpp sits at the top of framework/src, or a header at the top of include/radial;
  - a header include/radial/X/h.hpp has its source (h.cpp, or a .cpp whose first include it is
    and whose name starts with h) elsewhere than src/X/;
  - an include runs from a lower folder to a higher one, the levels being the table of
    docs/architecture.md's "Folders" section (the one place they are written);
  - the folders that table lists are not the folders of framework/src and include/radial;
  - radial/sdk/plugin.hpp, the header every plugin includes, reaches the host's loader
    (the header declaring class Registry) through its includes.
While tools/layout/move.py still has files to move, the tree is checked as the script would
leave it, so a new file at a forbidden place fails here before the move is rerun.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

INC = "framework/include/radial"
SRC = "framework/src"
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)
ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`?([\w/]+?)/?`?\s*\|")


def levels_from_doc(text):
    """{folder: level} from the table under '## Folders' (rows '| 3 | `exec/` | ... |')."""
    section = text.split("\n## Folders", 1)
    if len(section) < 2:
        return None
    body = section[1].split("\n## ", 1)[0]
    levels = {}
    for line in body.splitlines():
        m = ROW.match(line.strip())
        if m:
            levels[m.group(2)] = int(m.group(1))
    return levels


def framework_files(repo):
    out = []
    for root in (INC, SRC):
        for dirpath, _, names in os.walk(repo / root):
            for n in names:
                if n.endswith((".cpp", ".hpp", ".hpp.in")):
                    out.append(str((Path(dirpath) / n).relative_to(repo)))
    return sorted(out)


def includes(repo, f):
    """The framework files `f` includes (repository paths), first include first."""
    found = []
    text = (repo / f).read_text(encoding="utf-8", errors="replace")
    for m in INCLUDE.finditer(text):
        name = m.group(2)
        if name.startswith("radial/"):
            target = "framework/include/" + name
        elif m.group(1) == '"':
            target = os.path.normpath(os.path.join(os.path.dirname(f), name))
        else:
            continue
        found.append(target)
    return found


def folder_of(path):
    """The folder a framework path belongs to below src/ or include/radial/ ('' = top)."""
    for root in (SRC + "/", INC + "/"):
        if path.startswith(root):
            return os.path.dirname(path[len(root):])
    return None


def level_of(folder, levels):
    top = folder.split("/")[0]
    return levels.get(folder, levels.get(top))


def check(repo, moves=None):
    repo = Path(repo)
    moves = moves or {}
    problems = []
    doc = repo / "docs/architecture.md"
    levels = levels_from_doc(doc.read_text(encoding="utf-8")) if doc.exists() else None
    if not levels:
        return ["docs/architecture.md: no '## Folders' section with a table of levels"]
    files = framework_files(repo)
    new = {f: moves.get(f, f) for f in files}
    known = set(files) | set(moves)
    graph = {new[f]: [moves.get(t, t) for t in includes(repo, f) if t in known] for f in files}
    paths = sorted(graph)

    # Nothing at the top.
    for f in paths:
        if folder_of(f) == "" and not f.endswith(".in") or (
                folder_of(f) == "" and f.startswith(INC + "/")):
            problems.append(f"{f}: at the top of {SRC if f.startswith(SRC) else INC}; "
                            "it belongs in the folder of its idea")

    # The folders of the doc are the folders on disk.
    disk = {folder_of(f) for f in paths} - {""}
    disk |= {os.path.dirname(d) for d in disk if "/" in d}
    listed = set(levels)
    for d in sorted(disk - listed):
        problems.append(f"docs/architecture.md: folder {d}/ is on disk but not in the Folders table")
    for d in sorted(listed - disk):
        problems.append(f"docs/architecture.md: folder {d}/ is in the Folders table but not on disk")
    for f in paths:
        d = folder_of(f)
        if d and level_of(d, levels) is None:
            problems.append(f"{f}: folder {d}/ has no level in docs/architecture.md")

    # Each header's source in the matching folder.
    headers = {}
    for f in paths:
        if f.startswith(INC + "/") and f.endswith(".hpp"):
            headers.setdefault(Path(f).stem, []).append(f)
    for f in paths:
        if not (f.startswith(SRC + "/") and f.endswith(".cpp")):
            continue
        stem = Path(f).stem
        own = list(headers.get(stem, []))
        first = graph[f][0] if graph[f] else None
        if first and first.startswith(INC + "/") and stem.startswith(Path(first).stem) \
                and first not in own:
            own.append(first)
        for h in own:
            if folder_of(h) != folder_of(f):
                problems.append(f"{f}: the source of {h[len('framework/include/'):]} must sit in "
                                f"{SRC}/{folder_of(h)}/")

    # No include from a lower folder to a higher one.
    for f in paths:
        d = folder_of(f)
        lf = level_of(d, levels) if d else None
        for t in graph[f]:
            dt = folder_of(t)
            lt = level_of(dt, levels) if dt else None
            if lf is not None and lt is not None and lt > lf:
                problems.append(f"{f} ({d.split('/')[0]}, level {lf}) includes "
                                f"{t} ({dt.split('/')[0]}, level {lt}): an include runs upwards")
    problems += plugin_sees_loader(repo, moves)
    return problems


LOADER = re.compile(r"\bclass\s+Registry\s*[{:]")


def plugin_sees_loader(repo, moves):
    """What radial/sdk/plugin.hpp (the header every plugin includes) includes, transitively, must
    not declare the host's loader (class Registry, load_default)."""
    start = "sdk/include/radial/sdk/plugin.hpp"
    if not (repo / start).exists():
        return []
    inverse = {v: k for k, v in moves.items()}
    seen, todo, problems = {start}, [start], []
    while todo:
        f = todo.pop()
        text = (repo / f).read_text(encoding="utf-8", errors="replace")
        if LOADER.search(text):
            problems.append(f"{start} includes {moves.get(f, f)} (through its includes), which "
                            "declares the host's loader: a plugin must not see load_default")
        for m in INCLUDE.finditer(text):
            name = m.group(2)
            if not name.startswith("radial/"):
                continue
            for root in ("framework/include/", "sdk/include/"):
                target = root + name
                target = inverse.get(target, target)  # a pending move's new name, on disk
                if (repo / target).exists() and target not in seen:
                    seen.add(target)
                    todo.append(target)
    return problems


def pending_moves(repo):
    """tools/layout/move.py's plan for this tree ({} once it has run, or without git)."""
    script = repo / "tools/layout/move.py"
    if not script.exists() or not (repo / ".git").exists():
        return {}
    sys.path.insert(0, str(script.parent))
    import move  # noqa: E402
    try:
        return move.plan(repo)
    except subprocess.CalledProcessError:
        return {}


def self_test():
    doc = ("# A\n\n## Folders\n\n| level | folder | holds |\n|---|---|---|\n"
           "| 1 | `core/` | values |\n| 2 | `net/` | network |\n\n## Next\n")
    def tree(files):
        d = Path(tempfile.mkdtemp())
        (d / "docs").mkdir()
        (d / "docs/architecture.md").write_text(doc)
        for name, text in files.items():
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            (d / name).write_text(text)
        return d
    good = {f"{INC}/core/a.hpp": "", f"{SRC}/core/a.cpp": '#include "radial/core/a.hpp"\n',
            f"{INC}/net/b.hpp": '#include "radial/core/a.hpp"\n',
            f"{SRC}/net/b.cpp": '#include "radial/net/b.hpp"\n#include "p.hpp"\n',
            f"{SRC}/net/p.hpp": ""}
    cases = {
        "good": (good, None),
        "top-level source": ({**good, f"{SRC}/c.cpp": ""}, "at the top"),
        "top-level header": ({**good, f"{INC}/c.hpp": ""}, "at the top"),
        "upward include": ({**good, f"{INC}/core/a.hpp": '#include "radial/net/b.hpp"\n'},
                           "runs upwards"),
        "upward private include": ({**good, f"{SRC}/core/a.cpp":
                                    '#include "radial/core/a.hpp"\n#include "../net/p.hpp"\n'},
                                   "runs upwards"),
        "source elsewhere": ({**good, f"{SRC}/net/a.cpp": '#include "radial/core/a.hpp"\n'},
                             "must sit in"),
        "folder missing from doc": ({**good, f"{SRC}/extra/x.cpp": ""}, "not in the Folders"),
        "folder missing on disk": ({k: v for k, v in good.items() if "/net/" not in k},
                                   "not on disk"),
        "plugin sees the loader": ({**good, "sdk/include/radial/sdk/plugin.hpp":
                                    '#include "radial/net/b.hpp"\n',
                                    f"{INC}/net/b.hpp": '#include "radial/core/a.hpp"\n'
                                    "class Registry {};\n"}, "must not see load_default"),
    }
    failed = 0
    for name, (files, expect) in cases.items():
        problems = check(tree(files))
        ok = not problems if expect is None else any(expect in p for p in problems)
        if not ok:
            failed += 1
            print(f"self-test '{name}': expected {expect!r}, got {problems}")
    # A pending move is checked as the script would leave it.
    moved = check(tree({**good, f"{SRC}/c.cpp": ""}), {f"{SRC}/c.cpp": f"{SRC}/core/c.cpp"})
    if moved:
        failed += 1
        print(f"self-test 'pending move': {moved}")
    print("self-test:", "failed" if failed else "passed")
    return 1 if failed else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 1:
        print(__doc__)
        return 2
    repo = Path(argv[0]).resolve()
    moves = pending_moves(repo)
    problems = check(repo, moves)
    note = " (as tools/layout/move.py would leave the tree)" if moves else ""
    for p in problems:
        print(p)
    print(f"layout{note}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
