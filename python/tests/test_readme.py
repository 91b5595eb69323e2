"""The README's Python quick start runs as written, on a generated dump in ./dump."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_readme_quick_start_runs(tmp_path: Path, dump: Path) -> None:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## From Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "no python block under 'From Python'"
    shutil.copytree(dump, tmp_path / "dump")
    p = subprocess.run([sys.executable, "-c", code.group(1)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "score" in p.stdout and "name" in p.stdout
    lines = p.stdout.strip().splitlines()
    assert "Conference" in lines[-2] or "Journal" in lines[-2], lines[-2]  # a venue, and its count
    assert "Ann Lee" in lines[-1] and "AUTHORED" in lines[-1]
