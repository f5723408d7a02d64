"""The package exactbleu: its functional API and Statistics, its command line, and
bleu_metric.py as a thin evaluate adapter over it."""

import re
import subprocess
import sys
import tomllib

import pytest

import exactbleu
from conftest import ROOT

PREDICTIONS = ["the cat sat on the mat", "a dog ran", "x", ""]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog ran home"], ["x y"], ["z"]]


def run(*command, cwd=ROOT, **kwargs):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, **kwargs)


def test_no_module_of_the_package_is_named_as_a_public_function():
    """Importing a submodule sets it on the package under its own name: a module named as a public
    function (``exactbleu/conventions.py`` beside ``exactbleu.conventions``) would replace the
    function for whoever imported the module first: only a module directly in the package is set on
    it, so none may share a public name. ``compat`` is public as a module. The package loads its names
    when first used, and lists them."""
    import pkgutil

    modules = {found.name for found in pkgutil.iter_modules(exactbleu.__path__)}
    assert sorted(modules & set(exactbleu.__all__)) == ["compat"]
    completed = subprocess.run([sys.executable, "-c", "import exactbleu.which_bleu, exactbleu; print(callable(exactbleu.conventions))"],
                               capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert completed.stdout.strip() == "True", completed.stderr
    assert "bleu_matrix" in dir(exactbleu) and callable(exactbleu.self_bleu)


def test_the_library_and_its_command_line_never_import_evaluate():
    code = ("import sys, exactbleu, exactbleu.cli; exactbleu.corpus_bleu(['a b'], ['a b']);"
            "print(sorted(m for m in ('evaluate', 'datasets', 'transformers', 'torch', 'torchmetrics') if m in sys.modules))")
    completed = run(sys.executable, "-c", code)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def requirement_lines(text):
    """The requirements of a requirements file, comments left out, each in packaging's normal form."""
    from packaging.requirements import Requirement

    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return sorted(str(Requirement(line)) for line in lines if line)


def test_requirements_txt_is_what_pyproject_says_the_space_needs():
    """A Space installs requirements.txt before the repository is there, so it cannot read the
    package's extras: the file lists the core's dependencies and the "space" extra's, expanded, and
    nothing else."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]

    def expanded(requirements):
        for requirement in map(Requirement, requirements):
            if requirement.name == "exactbleu":
                yield from (one for extra in sorted(requirement.extras) for one in expanded(extras[extra]))
            else:
                yield str(requirement)

    needed = sorted(set(expanded(project["dependencies"] + extras["space"])))
    assert requirement_lines((ROOT / "requirements.txt").read_text(encoding="utf-8")) == needed
    assert len(needed) >= 12 and not any(name.startswith("torch") for name in needed)


def test_the_package_is_installable_and_the_space_installs_only_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "exactbleu" and project["dynamic"] == ["version"]
    assert project["scripts"] == {"exactbleu": "exactbleu.cli:main"}
    assert {"evaluate", "moses", "ko", "ja", "spm", "matrix", "torch", "space"} <= \
        set(project["optional-dependencies"])
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert not [line for line in requirements if re.match(r"\s*(-e\s+)?\.(\s|$|\[)", line)]
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8")
    assert "/build/" in ignored and "*.egg-info/" in ignored
