"""The example in docs/python.md runs and prints what the page shows (figures included)."""

import os
import re
import subprocess
import sys

from conftest import SOURCE


def test_python_md_example_prints_what_the_page_shows(tmp_path):
    page = (SOURCE / "docs" / "python.md").read_text()
    example = page[page.index("## Example"):]
    blocks = re.findall(r"```(python|text)\n(.*?)```", example, re.S)
    code = "".join(text for kind, text in blocks if kind == "python")
    shown = "".join(text for kind, text in blocks if kind == "text")
    # Run where docs/examples is the source's and docs/images is a scratch folder.
    (tmp_path / "docs" / "images").mkdir(parents=True)
    (tmp_path / "docs" / "examples").symlink_to(SOURCE / "docs" / "examples")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "MPLBACKEND": "Agg"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
    assert (tmp_path / "docs" / "images" / "python-learning-curve.png").stat().st_size > 1000
