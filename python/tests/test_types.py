"""The type stubs of the native module match what it exports (mypy's stubtest), and the
package type-checks strictly against them."""

from __future__ import annotations

import subprocess
import sys
import pytest

pytest.importorskip("mypy", reason="mypy (pip install mypy)")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600)


def test_stubs_match_the_native_module() -> None:
    p = run("mypy.stubtest", "cairn._native")
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_package_type_checks() -> None:
    p = run("mypy", "--strict", "--ignore-missing-imports", "--no-incremental", "-p", "cairn")
    assert p.returncode == 0, p.stdout + p.stderr
