"""The metric loads as its users load it: by its path, or a folder named like a Space, from any
folder; from the repository with nothing installed, as a Space runs it; and without the package,
with an error that says how to install it. bleu_metric.py stays a thin adapter."""

import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import METRIC_PATH, ROOT, without_transformers


def run(*command, cwd=ROOT, **kwargs):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.mark.slow
def test_the_metric_loads_by_its_path_or_a_folder_named_like_a_space_from_any_folder(tmp_path):
    """evaluate.load("bleu_metric.py") by its path from elsewhere, and evaluate.load("<folder>"),
    which looks for "<folder name>.py" as evaluate.load("<user>/<space>") does."""
    space = tmp_path / "bleu"
    space.mkdir()
    shutil.copy(METRIC_PATH, space / "bleu.py")
    code = ("import evaluate\n"
            f"for where in ({METRIC_PATH!r}, {str(space)!r}):\n"
            "    bleu = evaluate.load(where)\n"
            "    print(type(bleu).__module__, bleu.compute(predictions=['a b c d'], references=['a b c d'])['bleu'])")
    completed = run(sys.executable, "-c", code, cwd=tmp_path, env=without_transformers())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split()[-4:] == ["exactbleu.metric.evaluate_metric", "1.0"] * 2


@pytest.mark.slow
def test_the_metric_loads_from_the_repository_folder_with_nothing_installed():
    """As a Space runs it: exactbleu/ is found on the path, not installed."""
    code = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)];"
            "import os, evaluate; os.environ['HF_EVALUATE_OFFLINE'] = '1';"
            "print(evaluate.load('bleu_metric.py').compute(predictions=['a b c d'], references=['a b c d'])['bleu']);"
            "import exactbleu; print(exactbleu.__file__)")
    completed = run(sys.executable, "-c", code, cwd=ROOT, env=without_transformers())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["1.0", str(ROOT / "exactbleu" / "__init__.py")]


@pytest.mark.slow
def test_without_the_package_the_error_says_how_to_install_it(tmp_path):
    copy = tmp_path / "bleu_metric.py"
    shutil.copy(METRIC_PATH, copy)
    code = ("import sys, runpy; sys.modules['exactbleu'] = None;"  # as if it were not installed
            f"runpy.run_path({str(copy)!r})")
    completed = run(sys.executable, "-c", code, cwd=tmp_path, env=without_transformers())
    assert completed.returncode != 0
    assert "needs the exactbleu package" in completed.stderr and "`pip install .` in the root of a clone" in completed.stderr


def test_bleu_metric_is_a_thin_adapter():
    assert len(pathlib.Path(METRIC_PATH).read_text(encoding="utf-8").splitlines()) <= 60
