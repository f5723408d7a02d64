"""A plain ``pip install exactbleu`` is light, as a library others depend on must be: a handful of
distributions, as sacrebleu's; the core works there, the command line included; and each option
whose package is missing says which extra installs it."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # a virtual environment and a real install

# What the core needs: numpy, regex (the intl tokenizer's Unicode classes) and tqdm (the command
# line's progress bar). sacrebleu 2.6 brings 7 distributions, itself included.
CORE = {"exactbleu", "numpy", "regex", "tqdm"}
MOST = 8

CHECKS = textwrap.dedent("""
    import json, sys
    import exactbleu

    predictions, references = ["the cat sat on the mat", "a dog ran"], [["the cat sat on a mat"], ["a dog ran home"]]
    results = {name: exactbleu.corpus_bleu(predictions, references, tokenizer=name)["bleu"]
               for name in ("13a", "intl", "zh", "char", "none")}
    results["sentence_scores"] = exactbleu.sentence_scores(predictions, references, "sacrebleu").tolist()
    results["self_bleu"] = exactbleu.self_bleu(predictions)["self_bleu"]
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
    try:
        import exactbleu.metric.evaluate_metric
    except exactbleu.MissingExtra as error:
        errors["evaluate_metric"] = str(error)
    try:
        import exactbleu.torchmetrics
    except exactbleu.MissingExtra as error:
        errors["torchmetrics"] = str(error)
    print(json.dumps({"results": results, "heavy": heavy, "errors": errors}))
""")


def uv(scratch, *arguments):
    """uv, the installer the README's set-up uses: it reads the same metadata as pip and resolves the
    same distributions, in a fraction of pip's time (an isolated build of the package included).
    Its temporary files, a build's lock among them, go to ``scratch``, not to stay in /tmp."""
    completed = subprocess.run([str(pathlib.Path(sys.executable).parent / "uv"), *arguments], capture_output=True,
                               text=True, timeout=600, env=dict(os.environ, TMPDIR=str(scratch)))
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed.stdout


def distributions(scratch, python):
    listed = uv(scratch, "pip", "list", "--python", python, "--format=json")
    return {entry["name"].lower() for entry in json.loads(listed)}


def test_a_plain_install_is_light_and_the_core_works_there(tmp_path):
    uv(tmp_path, "venv", "--quiet", "--python", sys.executable, str(tmp_path / "venv"))
    python = str(tmp_path / "venv" / "bin" / "python")
    before = distributions(tmp_path, python)
    uv(tmp_path, "pip", "install", "--quiet", "--python", python, str(ROOT))
    brought = distributions(tmp_path, python) - before
    assert brought == CORE and len(brought) <= MOST, brought

    # Run away from the repository, so that the installed package is the one imported.
    completed = subprocess.run([python, "-c", CHECKS], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout)
    expected = {name: value for name, value in report["results"].items()}
    import exactbleu

    predictions, references = ["the cat sat on the mat", "a dog ran"], [["the cat sat on a mat"], ["a dog ran home"]]
    for name in ("13a", "intl", "zh", "char", "none"):
        assert expected[name] == exactbleu.corpus_bleu(predictions, references, tokenizer=name)["bleu"], name
    assert report["heavy"] == []
    for name, extra in (("moses", "moses"), ("ko-mecab", "ko"), ("ja-mecab", "ja"), ("flores101", "spm"),
                        ("bleu_matrix", "matrix"), ("evaluate_metric", "evaluate"), ("torchmetrics", "torchmetrics")):
        assert f'pip install "exactbleu[{extra}]"' in report["errors"][name], (name, report["errors"].get(name))
    assert "tokenizer='moses'" in report["errors"]["moses"]

    (tmp_path / "ref").write_text("the cat sat on a mat\na dog ran home\n", encoding="utf-8")
    (tmp_path / "hyp").write_text("the cat sat on the mat\na dog ran\n", encoding="utf-8")
    command = subprocess.run([str(tmp_path / "venv" / "bin" / "exactbleu"), "ref", "-i", "hyp", "-b", "-w", "4"],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert command.returncode == 0, command.stderr
    assert float(command.stdout) == round(100 * exactbleu.corpus_bleu(predictions, references, "sacrebleu")["bleu"], 4)
