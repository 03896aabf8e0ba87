#!/usr/bin/env python3
"""tools/layout/move.py on a made-up repository: it moves files with git, rewrites includes
(public, private and relative), CMake paths and Markdown mentions, changes nothing when run
again, and refuses (exit 1, naming the file) a framework source that no rule places.

    test_move.py PATH/TO/move.py
"""
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path


def load(script):
    spec = importlib.util.spec_from_file_location("move", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def repo_with(files):
    d = Path(tempfile.mkdtemp())
    subprocess.run(["git", "init", "-q", str(d)], check=True)
    for name, text in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)
    subprocess.run(["git", "-C", str(d), "add", "-A"], check=True)
    return d


def main(script):
    move = load(script)
    inc, src = "framework/include/radial", "framework/src"
    move.RULES = [
        (f"{inc}/types.hpp", f"{inc}/core/"),
        (f"{src}/types.cpp", f"{src}/core/"),
        (f"{src}/numerics/km*.[ch]pp", f"{src}/numerics/kmeans/"),
        ("sdk/old", "sdk/new/one"),
    ]
    move.FOLDERS = None  # read from the made-up docs/architecture.md below
    move.DERIVED, move.EDITS = {}, {}
    files = {
        f"{inc}/types.hpp": "#pragma once\n",
        f"{src}/types.cpp": '#include "radial/core/types.hpp"\n',
        f"{src}/numerics/kmeans.cpp": '#include <radial/core/types.hpp>\n#include "km_detail.hpp"\n'
                                      '#include "shared.hpp"\n',
        f"{src}/numerics/km_detail.hpp": '#include "shared.hpp"\n',
        f"{src}/numerics/shared.hpp": "",
        "framework/CMakeLists.txt": "set(S src/types.cpp)\n",
        "plugins/p/CMakeLists.txt": "set(S src/types.cpp)  # the plugin's own\n",
        "docs/a.md": "See `radial/core/types.hpp` and framework/src/numerics/kmeans/kmeans.cpp, sdk/old/.\n"
                     "Not radial/types.hppx nor sdk/older.\n",
        "sdk/old/x.cpp": '#include "radial/core/types.hpp"\n',
        "docs/architecture.md": "# A\n\n## Folders\n\n| level | folder | holds |\n|---|---|---|\n"
                                "| 1 | `core/` | values |\n| 2 | `numerics/` | numbers |\n",
    }
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    d = repo_with(files)
    expect(move.main([str(d)]) == 0, "the move failed")
    read = lambda f: (d / f).read_text()
    expect((d / f"{inc}/core/types.hpp").exists() and not (d / f"{inc}/types.hpp").exists(),
           "the header was not moved")
    expect(read(f"{src}/core/types.cpp") == '#include "radial/core/types.hpp"\n',
           "an include of a moved header was not rewritten")
    expect(read(f"{src}/numerics/kmeans/kmeans.cpp") ==
           '#include <radial/core/types.hpp>\n#include "km_detail.hpp"\n#include "../shared.hpp"\n',
           "relative includes: " + read(f"{src}/numerics/kmeans/kmeans.cpp"))
    expect(read(f"{src}/numerics/kmeans/km_detail.hpp") == '#include "../shared.hpp"\n',
           "a moved private header's include")
    expect(read("framework/CMakeLists.txt") == "set(S src/core/types.cpp)\n", "the CMake path")
    expect(read("plugins/p/CMakeLists.txt") == files["plugins/p/CMakeLists.txt"],
           "another folder's src/ was rewritten")
    expect(read("docs/a.md") == "See `radial/core/types.hpp` and "
           "framework/src/numerics/kmeans/kmeans.cpp, sdk/new/one/.\n"
           "Not radial/types.hppx nor sdk/older.\n", "Markdown: " + read("docs/a.md"))
    expect((d / "sdk/new/one/x.cpp").exists(), "the folder was not moved")
    expect(not (d / "sdk/old").exists(), "the emptied folder was left behind")
    subprocess.run(["git", "-C", str(d), "add", "-A"], check=True)
    before = subprocess.run(["git", "-C", str(d), "diff", "--cached", "--stat"], check=True,
                            capture_output=True, text=True).stdout
    expect(move.main([str(d)]) == 0, "the second run failed")
    subprocess.run(["git", "-C", str(d), "add", "-A"], check=True)
    after = subprocess.run(["git", "-C", str(d), "diff", "--cached", "--stat"], check=True,
                           capture_output=True, text=True).stdout
    expect(before == after, "a second run changed the tree")

    # A source no rule places, at the top of framework/src: refused, nothing moved.
    d = repo_with({**files, f"{src}/loose.cpp": ""})
    err = subprocess.run([sys.executable, script, "--dry-run", str(d)], capture_output=True,
                         text=True)
    # (the real rules: the made-up tree has no rule for loose.cpp either way)
    expect(err.returncode == 1 and "framework/src/loose.cpp" in err.stderr,
           f"an unplaced source was not refused: {err.returncode} {err.stderr}")
    expect(move.main([str(d)]) == 1 and (d / f"{inc}/types.hpp").exists(),
           "the refused run moved files")

    for f in failures:
        print("FAILED:", f)
    print("move.py:", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
