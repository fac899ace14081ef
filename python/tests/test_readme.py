"""The README's Python quick start, Dask and xarray examples run as written: every block between
`<!-- python:NAME -->` and its closing fence, in order, as one script in a fresh interpreter (its
names then cannot meet the other tests' ufuncs), so they stay true."""
import os
import re
import subprocess
import sys

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
BLOCKS = re.findall(r"<!-- python:(\w+) -->\n```python\n(.*?)```", open(README, encoding="utf-8").read(), re.S)


def test_readme_has_the_python_examples():
    assert [name for name, _ in BLOCKS] == ["quickstart", "dask", "xarray"]


def test_readme_python_examples_run(tmp_path):
    pytest.importorskip("dask.array")
    pytest.importorskip("xarray")
    script = tmp_path / "readme_examples.py"
    script.write_text("\n".join(f"# README block {name}\n{code}" for name, code in BLOCKS) + "\nprint('readme ok')\n")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "readme ok" in run.stdout, run.stdout + run.stderr
