"""The package's shape, as a library others depend on needs it: the faces use the public core and
nothing else; no module reaches into another's underscore names; no tokenizer is named outside
its declaration (or a preset's); every module reads as a chapter; the public names are what they
say; the version is written once; mypy (strict) and ruff find nothing."""

import ast
import importlib.metadata
import subprocess
import sys
import tomllib

import pytest

import exactbleu
from conftest import ROOT

LIBRARY = sorted((ROOT / "exactbleu").rglob("*.py"))
EVERYTHING = [*LIBRARY, *sorted((ROOT / "space").glob("*.py")), ROOT / "bleu_metric.py", ROOT / "app.py"]
# The faces, each with the package its modules may import from besides the public core.
FACES = {**{path: "exactbleu.cli" for path in (ROOT / "exactbleu" / "cli").glob("*.py")},
         **dict.fromkeys([ROOT / "exactbleu" / f"{name}.py" for name in ("compat", "torchmetrics", "lm_eval", "lighteval",
                                                                                 "mbrs", "rewards", "verl", "coco")]),
         **{path: "exactbleu.metric" for path in (ROOT / "exactbleu" / "metric").glob("*.py")},
         **{path: "space" for path in (ROOT / "space").glob("*.py")}, ROOT / "app.py": "space"}
PUBLIC_MODULES = {"exactbleu", "exactbleu.compat"}


def module_name(path):
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_module(path, node):
    """The absolute name of the module an ImportFrom node imports from."""
    if node.level == 0:
        return node.module
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def test_the_faces_use_only_the_public_core():
    wrong = []
    for path, own in FACES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = imported_module(path, node)
                if module == "exactbleu":
                    wrong += [f"{path.name}: from exactbleu import {alias.name}" for alias in node.names
                              if alias.name not in exactbleu.__all__]
                elif module.startswith("exactbleu") and module not in PUBLIC_MODULES and not (
                        own and module.startswith(own)):
                    wrong.append(f"{path.name}: from {module} import ...")
            elif isinstance(node, ast.Import):
                wrong += [f"{path.name}: import {alias.name}" for alias in node.names
                          if alias.name.startswith("exactbleu.") and alias.name not in PUBLIC_MODULES]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "exactbleu":
                if node.attr not in exactbleu.__all__:
                    wrong.append(f"{path.name}: exactbleu.{node.attr}")
    assert wrong == []


def is_module(name):
    """Whether ``name`` (in exactbleu or space) is a module, read off the files: finding its spec would
    import its packages, the Space's gradio among them."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_no_module_takes_another_modules_underscore_names():
    wrong = []
    for path in EVERYTHING:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = set()  # names bound to a module of this project here
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = imported_module(path, node)
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        wrong.append(f"{path.name}: from {module} import {alias.name}")
                    elif module.split(".")[0] in ("exactbleu", "space") and is_module(f"{module}.{alias.name}"):
                        modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names
                               if alias.name.split(".")[0] in ("exactbleu", "space"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                wrong.append(f"{path.name}: {node.value.id}.{node.attr}")
    assert wrong == []


def string_constants(tree):
    """Every string constant of a module but its docstrings, with the call it is an argument of."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    calls = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for child in ast.walk(node):
                calls.setdefault(id(child), node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            call = calls.get(id(node))
            yield node.value, getattr(getattr(call, "func", None), "id", None)


def test_no_tokenizer_is_named_outside_its_declaration_or_a_presets():
    # "none" is a tokenizer, sacrebleu's smoothing method without smoothing and a signature's
    # word for no seed: only the other names can be told apart as written.
    names = set(exactbleu.TOKENIZERS) - {"none"}
    wrong = []
    for path in EVERYTHING:
        if path.is_relative_to(ROOT / "exactbleu" / "tokenizers"):
            continue
        for value, call in string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if value in names and call != "Preset":
                wrong.append(f"{path.relative_to(ROOT)}: {value!r}")
    assert wrong == []


def test_every_module_reads_as_a_chapter():
    """No module of more than 350 lines, no function of more than 60."""
    long = []
    for path in EVERYTHING:
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 350:
            long.append(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long.append(f"{path.relative_to(ROOT)}: {node.name}, {node.end_lineno - node.lineno + 1} lines")
    assert long == []


def test_every_public_name_is_declared_once_and_resolves():
    assert set(exactbleu.__all__) == {*exactbleu._PUBLIC, "compat", "__version__"}
    for name in exactbleu.__all__:
        assert getattr(exactbleu, name) is not None, name
    assert (ROOT / "exactbleu" / "py.typed").exists()


def test_the_version_is_written_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "exactbleu.version.__version__"}
    assert importlib.metadata.version("exactbleu") == exactbleu.__version__
    written = [path for path in EVERYTHING if f'"{exactbleu.__version__}"' in path.read_text(encoding="utf-8")]
    assert written == [ROOT / "exactbleu" / "version.py"]


@pytest.mark.slow
@pytest.mark.parametrize("tool", [["mypy"], ["ruff", "check"]])
def test_the_type_checker_and_the_linter_find_nothing(tool):
    """mypy (strict, configured in pyproject.toml) over the package, the Space and the two scripts;
    ruff over the same files."""
    completed = subprocess.run([sys.executable, "-m", *tool], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout[-5000:] + completed.stderr[-2000:]


def test_the_package_data_holds_every_subpackage():
    """setuptools discovers the packages by pyproject.toml's pattern: every folder of the package, and
    nothing else of the repository (tests, space, benchmarks)."""
    import setuptools

    found = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    discovered = setuptools.find_packages(where=str(ROOT), include=found["find"]["include"])
    subpackages = sorted(module_name(path.parent) for path in (ROOT / "exactbleu").rglob("__init__.py"))
    assert sorted(discovered) == subpackages and len(subpackages) >= 11
