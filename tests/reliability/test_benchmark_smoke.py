"""CI runs the benchmark only in its tiny smoke mode: it must still run and agree with HF."""

import pytest

import subprocess
import sys

from conftest import ROOT

pytestmark = pytest.mark.slow  # the benchmark's processes


def test_benchmark_runs_in_smoke_mode():
    completed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--smoke"],
                               capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "| corpus | ours | bleuscore (Rust)" in completed.stdout
    assert "wrote" in completed.stdout  # the scaling plot
