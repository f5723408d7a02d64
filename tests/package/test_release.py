"""The package as it is released and installed, away from any clone: ``python -m build`` makes a wheel
and an sdist that pass ``twine check --strict``; each installs into a clean environment with numpy,
regex and tqdm alone (a library others depend on must be light: sacrebleu 2.6 brings 7 distributions,
itself included); the installed package works there, its command line, and its ``evaluate`` metric,
from the script it carries and from a folder laid out as the Hub lays out a community metric's Space;
each option whose package is missing names the extra that installs it; and the README's install block
runs as printed."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import sacrebleu

from conftest import ROOT, once_for_the_run
from oracles import hf_bleu

pytestmark = pytest.mark.slow  # builds, virtual environments and real installs

BIN = pathlib.Path(sys.executable).parent  # uv, twine and the build frontend, from the test environment
CORE = {"exactbleu", "numpy", "regex", "tqdm"}
PREDICTIONS = ["the cat sat on the mat", "a dog ran"]
REFERENCES = [["the cat sat on a mat"], ["a dog ran home"]]

LIBRARY = textwrap.dedent("""
    import json, sys
    import exactbleu

    predictions, references = json.loads(sys.argv[1])
    results = {name: exactbleu.corpus_bleu(predictions, references, "sacrebleu", tokenizer=name)["bleu"]
               for name in ("13a", "intl", "zh", "char", "none")}
    results["hf"] = exactbleu.corpus_bleu(predictions, references)["bleu"]
    results["sentence_scores"] = exactbleu.sentence_scores(predictions, references, "sacrebleu").tolist()
    heavy = sorted(name for name in ("evaluate", "datasets", "pandas", "pyarrow", "torch", "scipy", "transformers")
                   if name in sys.modules)
    errors = {}
    for name in ("moses", "ko-mecab", "ja-mecab", "flores101"):
        try:
            exactbleu.corpus_bleu(predictions, references, tokenizer=name)
        except exactbleu.MissingExtra as error:
            errors[name] = str(error)
    try:
        exactbleu.bleu_matrix(predictions, [reference[0] for reference in references])
    except exactbleu.MissingExtra as error:
        errors["bleu_matrix"] = str(error)
    for module in ("exactbleu.metric.evaluate_metric", "exactbleu.torchmetrics"):
        try:
            __import__(module)
        except exactbleu.MissingExtra as error:
            errors[module] = str(error)
    print(json.dumps({"results": results, "heavy": heavy, "errors": errors, "file": exactbleu.__file__}))
""")

METRIC = textwrap.dedent("""
    import json, sys
    import evaluate, exactbleu.metric

    predictions, references = json.loads(sys.argv[1])
    installed = evaluate.load(exactbleu.metric.SCRIPT)  # the line the README gives a pip user
    hub = evaluate.load(sys.argv[2])  # a folder laid out as the Hub's Space
    print(json.dumps({name: [metric.compute(predictions=predictions, references=references)["bleu"],
                             type(metric).__module__] for name, metric in (("installed", installed), ("hub", hub))}
                     | {"file": exactbleu.__file__}))
""")


def run(*command, cwd, **variables):
    """A command away from the repository (so that nothing of the clone is imported), offline for the Hub."""
    offline = {name: "1" for name in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")}
    completed = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=600, cwd=cwd,
                               env=dict(os.environ, **offline, **variables))
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-3000:]
    return completed.stdout


def uv(scratch, *arguments):
    """uv, which installs what pip would, from the cache the test environments were built from; its
    temporary files, a build's lock among them, go to ``scratch``, not to stay in /tmp."""
    return run(BIN / "uv", *arguments, cwd=scratch, TMPDIR=str(scratch))


def repository_files(destination):
    """The repository's files as a clone has them (tracked, and new ones not ignored), copied."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, destination / name)
    return destination


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The wheel and the sdist, built by ``python -m build`` (the wheel from the sdist) from a copy
    of the repository, as CONTRIBUTING's release steps build them; once for the whole test run."""
    return once_for_the_run(tmp_path_factory, "release", lambda: build_release(tmp_path_factory))


def build_release(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("release")
    source = repository_files(scratch / "source")
    run(sys.executable, "-m", "build", "--installer", "uv", "--outdir", scratch / "dist", source, cwd=scratch,
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", TMPDIR=str(scratch))
    wheels, sdists = sorted((scratch / "dist").glob("*.whl")), sorted((scratch / "dist").glob("*.tar.gz"))
    assert len(wheels) == len(sdists) == 1, sorted((scratch / "dist").iterdir())
    return source, wheels[0], sdists[0]


def clean_environment(scratch, name, distribution):
    """A new virtual environment with ``distribution`` installed; its Python, and what the install brought."""
    uv(scratch, "venv", "--quiet", "--python", sys.executable, scratch / name)
    python = scratch / name / "bin" / "python"
    uv(scratch, "pip", "install", "--quiet", "--python", python, distribution)
    listed = json.loads(uv(scratch, "pip", "list", "--python", python, "--format=json"))
    return python, {entry["name"].lower() for entry in listed}


def test_the_wheel_and_the_sdist_pass_twine_check_and_are_this_version(released):
    import exactbleu

    _, wheel, sdist = released
    output = run(BIN / "twine", "check", "--strict", wheel, sdist, cwd=wheel.parent)
    assert output.count("PASSED") == 2, output
    assert wheel.name == f"exactbleu-{exactbleu.__version__}-py3-none-any.whl"
    assert sdist.name == f"exactbleu-{exactbleu.__version__}.tar.gz"


def test_the_installed_wheel_is_light_and_its_library_command_and_metric_work(released, tmp_path):
    source, wheel, _ = released
    python, brought = clean_environment(tmp_path, "venv", wheel)
    assert brought == CORE, brought

    corpus = json.dumps([PREDICTIONS, REFERENCES])
    report = json.loads(run(python, "-c", LIBRARY, corpus, cwd=tmp_path))
    assert report["file"].startswith(str(tmp_path / "venv")), report["file"]
    references = [reference for (reference,) in REFERENCES]
    for name in ("13a", "intl", "zh", "char", "none"):
        expected = sacrebleu.corpus_bleu(PREDICTIONS, [references], tokenize=name).score
        assert report["results"][name] == pytest.approx(expected / 100, abs=1e-15), name
    assert report["results"]["hf"] == hf_bleu(PREDICTIONS, REFERENCES)["bleu"]
    assert report["results"]["sentence_scores"] == pytest.approx(
        [sacrebleu.sentence_bleu(p, r).score / 100 for p, r in zip(PREDICTIONS, REFERENCES)], abs=1e-15)
    assert report["heavy"] == []
    for name, extra in (("moses", "moses"), ("ko-mecab", "ko"), ("ja-mecab", "ja"), ("flores101", "spm"),
                        ("bleu_matrix", "matrix"), ("exactbleu.metric.evaluate_metric", "evaluate"),
                        ("exactbleu.torchmetrics", "torchmetrics")):
        assert f'pip install "exactbleu[{extra}]"' in report["errors"][name], (name, report["errors"].get(name))

    (tmp_path / "ref").write_text("".join(f"{reference}\n" for reference in references), encoding="utf-8")
    (tmp_path / "hyp").write_text("".join(f"{prediction}\n" for prediction in PREDICTIONS), encoding="utf-8")
    printed = run(tmp_path / "venv" / "bin" / "exactbleu", "ref", "-i", "hyp", "-b", "-w", "4", cwd=tmp_path)
    assert float(printed) == round(sacrebleu.corpus_bleu(PREDICTIONS, [references]).score, 4)
    assert run(python, "-m", "exactbleu", "--version", cwd=tmp_path).split()[-1].endswith(wheel.name.split("-")[1])

    # The metric, once the evaluate extra is there: from the package's own script, and from the
    # repository laid out as a Hub Space named after its script, bleu_metric.
    uv(tmp_path, "pip", "install", "--quiet", "--python", python, f"exactbleu[evaluate] @ {wheel.as_uri()}")
    hub = tmp_path / "hub" / "bleu_metric"
    shutil.copytree(source, hub)
    loaded = json.loads(run(python, "-c", METRIC, corpus, hub, cwd=tmp_path, HF_HOME=str(tmp_path / "hf")))
    assert loaded["file"].startswith(str(tmp_path / "venv")), loaded["file"]
    expected = hf_bleu(PREDICTIONS, REFERENCES)["bleu"]
    assert loaded["installed"] == loaded["hub"] == [expected, "exactbleu.metric.evaluate_metric"], loaded


def test_the_sdist_installs_as_light(released, tmp_path):
    _, _, sdist = released
    python, brought = clean_environment(tmp_path, "venv", sdist)
    assert brought == CORE, brought
    output = run(python, "-c", "import exactbleu; print(exactbleu.corpus_bleu(['a b c d'], ['a b c d'])['bleu'])",
                 cwd=tmp_path)
    assert output.strip() == "1.0"


def test_the_readmes_install_block_runs_as_printed_and_leaves_a_working_command(released, tmp_path):
    """From the root of a clone, as the README tells a new user, with pip (not uv)."""
    source, _, _ = released
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- install -->\n```bash\n(.*?)```", readme, re.DOTALL)
    assert block, "README.md has no <!-- install --> block"
    clone = tmp_path / "clone"
    shutil.copytree(source, clone)
    run("bash", "-c", f"set -e\n{block.group(1)}", cwd=clone)
    (tmp_path / "ref").write_text("the cat sat on a mat\n", encoding="utf-8")
    (tmp_path / "hyp").write_text("the cat sat on the mat\n", encoding="utf-8")
    printed = run(clone / ".venv" / "bin" / "exactbleu", "ref", "-i", "hyp", "-b", cwd=tmp_path)
    assert float(printed) == round(sacrebleu.corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]]).score,
                                   1)
