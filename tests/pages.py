"""The docs' pages as the tests read them: README.md and docs/*.md, and each recipe's code block,
found by its marker (`<!-- recipe: name -->`)."""

import os
import re
import sys

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [README] + [page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))]


def recipe(name):
    """A recipe's code block, found by its marker in README.md or a page of docs/."""
    for page in PAGES:
        match = re.search(rf"<!-- recipe: {name} -->\n```(\w+)\n(.*?)```", page, re.DOTALL)
        if match:
            return match.group(2)
    raise AssertionError(f"no page holds a recipe {name!r}")


def as_here(command):
    """A shell recipe as this interpreter runs it: the README's `.venv/bin/` is the venv its
    set-up commands create, which holds this interpreter when the README's test command runs."""
    assert ".venv/bin/python " in command or ".venv/bin/exactbleu " in command
    return command.strip().replace(".venv/bin/python", sys.executable).replace(
        ".venv/bin/exactbleu", os.path.join(os.path.dirname(sys.executable), "exactbleu"))


def run_python(name):
    namespace = {}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the recipes load "bleu_metric.py" from the repository root
    try:
        exec(compile(recipe(name), f"README.md:{name}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace
