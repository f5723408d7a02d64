"""Every example of docs/ runs as written, and prints what the page shows.

A Python example is a doctest (pytest runs the pages with ``--doctest-glob``, each output compared),
or a recipe (``<!-- recipe: name -->``) that a test runs by its name. A shell example runs from the
repository root, in bash, with ``.venv/bin/`` standing for the test environment's (the README's
quick start makes that ``.venv``), and prints on standard output what the ``text`` block after it
shows. An example that needs what the tests cannot reach (a model from the Hub) is marked
``<!-- not run: why -->``, and its section shows a variant that does run: here, or marked
``<!-- run by tests/....py -->``, run there.
"""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PAGES = sorted((ROOT / "docs").glob("*.md"))
BLOCK = re.compile(r"(?:<!-- (?P<marker>[^>]*?) -->\n)?```(?P<kind>\w*)\n(?P<body>.*?)```", re.DOTALL)
TESTS = "".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("*.py")
                if path.name != "test_docs_examples.py")


def blocks(page):
    """The page's fenced blocks in order: (kind, marker, body, the section's heading)."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        headings = re.findall(r"^#+ .*$", text[: match.start()], re.MULTILINE)
        found.append((match["kind"], match["marker"] or "", match["body"], headings[-1] if headings else ""))
    return found


SHELL = [(page.name, number, body) for page in PAGES for number, (kind, marker, body, _) in enumerate(blocks(page))
         if kind == "bash" and not marker.startswith(("not run:", "run by "))]


def test_every_python_example_is_a_doctest_or_a_recipe_that_a_test_runs():
    for page in PAGES:
        for kind, marker, body, _ in blocks(page):
            if kind != "python" or ">>>" in body:
                continue
            assert marker.startswith("recipe: "), f"{page.name}: a Python example that no test runs: {body[:80]!r}"
            assert f'"{marker.removeprefix("recipe: ")}"' in TESTS or \
                f'"{marker.removeprefix("recipe: ").split("/")[0]}/' in TESTS, f"{page.name}: no test runs {marker}"


def test_every_block_is_an_example_its_output_or_a_recipe():
    kinds = {"python", "bash", "text", "yaml", "json", "bibtex"}
    for page in PAGES:
        previous = None
        for kind, marker, body, _ in blocks(page):
            assert kind in kinds, f"{page.name}: a block of an unknown kind {kind!r}: {body[:60]!r}"
            if kind == "text":
                assert previous == "bash", f"{page.name}: output shown after no shell example: {body[:60]!r}"
            previous = kind


def test_a_shell_example_not_run_here_has_a_variant_that_is_run():
    for page in PAGES:
        found = blocks(page)
        for kind, marker, body, heading in found:
            if marker.startswith("not run:"):
                variants = [(other, theirs) for kind_, other, theirs, where in found
                            if kind_ == "bash" and where == heading and not other.startswith("not run:")]
                assert variants, f"{page.name}: {body.strip()!r} is not run, and its section runs no variant"
            if marker.startswith("run by "):
                test = ROOT / marker.removeprefix("run by ").strip()
                assert test.exists(), f"{page.name}: {marker} names no test file"
                words = body.split()[1:]  # what the test runs after the command's name
                source = test.read_text(encoding="utf-8") + (test.parent / test.name.replace("test_", "in_")
                                                              ).read_text(encoding="utf-8")
                assert all(word.strip('"') in source or word.endswith(".py") for word in words), (page.name, body)


@pytest.mark.slow  # each runs a command in a process of its own
@pytest.mark.parametrize("page, number, command", SHELL, ids=[f"{page}-{number}" for page, number, _ in SHELL])
def test_each_shell_example_prints_what_the_page_shows(page, number, command):
    found = blocks(ROOT / "docs" / page)
    shown = next((body for kind, _, body, _ in found[number + 1:] if kind == "text"), None)
    bin_folder = os.path.dirname(sys.executable)
    completed = subprocess.run(["bash", "-c", command.strip().replace(".venv/bin/", bin_folder + "/")], cwd=ROOT,
                               capture_output=True, text=True, timeout=300,
                               env={**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}"})
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert shown is not None, f"{page}: the page shows no output for {command.strip()!r}"
    assert completed.stdout == shown
