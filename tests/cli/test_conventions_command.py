"""``exactbleu conventions REF -i HYP``: the table of every convention, and with ``--score`` what
gives a reported score, as ``exactbleu.conventions`` and ``exactbleu.identify`` give them on the
files' lines; ``-l`` adds the target language's tokenizer; errors are one line."""

import contextlib
import io
import json

import pytest
from sacrebleu.metrics import BLEU

import exactbleu
from exactbleu import cli

LINES = 60


@pytest.fixture(scope="module")
def files(tmp_path_factory, wmt17):
    folder = tmp_path_factory.mktemp("conventions")
    lines = {"hyp": wmt17["systems"]["KIT.4950"][:LINES], "ref": wmt17["reference"][:LINES],
             "ref2": wmt17["systems"]["online-A.0"][:LINES]}
    paths = {}
    for name, text in lines.items():
        paths[name] = folder / name
        paths[name].write_text("".join(f"{line}\n" for line in text), encoding="utf-8")
    return paths, lines


def run(*arguments):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["conventions", *map(str, arguments)])
        except SystemExit as exit:
            status = exit.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
def test_the_table_is_every_convention(files):
    paths, lines = files
    status, out, _ = run(paths["ref"], paths["ref2"], "-i", paths["hyp"], "-f", "json")
    assert status == 0
    references = [list(pair) for pair in zip(lines["ref"], lines["ref2"])]
    assert json.loads(out) == [row._asdict() for row in exactbleu.conventions(lines["hyp"], references)]
    status, text, _ = run(paths["ref"], "-i", paths["hyp"])
    assert status == 0 and len(text.splitlines()) == len(exactbleu.conventions(lines["hyp"], lines["ref"]))


def test_a_score_gets_what_gives_it_and_the_language_adds_its_tokenizer(files):
    paths, lines = files
    score = BLEU(tokenize="zh").corpus_score(lines["hyp"], [lines["ref"]]).score
    status, out, _ = run(paths["ref"], "-i", paths["hyp"], "--score", f"{score:.1f}", "-l", "en-zh", "-f", "json")
    assert status == 0
    printed = json.loads(out)
    found = exactbleu.identify(lines["hyp"], lines["ref"], f"{score:.1f}", language="zh")
    assert printed["reported"] == f"{score:.1f}" and printed["matches"] == [row._asdict() for row in found.matches]
    assert {"preset": "sacrebleu", "options": {"tokenizer": "zh"}, "scale": 100} in [
        {name: row[name] for name in ("preset", "options", "scale")} for row in printed["matches"]]
    status, text, _ = run(paths["ref"], "-i", paths["hyp"], "--score", "99.99", "--nearest", "2")
    assert status == 0
    assert text.splitlines()[0] == "no convention gives 99.99" and len(text.splitlines()) == 4


@pytest.mark.parametrize("arguments, words", [
    (["{ref}", "-i", "{hyp}", "{ref}"], "one hypothesis file at a time"),
    (["{ref}", "-i", "{hyp}", "--score", "27,3"], "reported must be a score"),
    (["{ref}", "-i", "{hyp}", "--score", "27.3", "--nearest", "-1"], "--nearest must be"),
    (["{ref}", "-i", "{hyp}", "--tokenizers", "13b"], "invalid choice"),
    (["-i", "{hyp}"], "give the reference files"),
])
def test_errors_are_one_line(files, arguments, words):
    paths, _ = files
    status, _, err = run(*(argument.format(hyp=paths["hyp"], ref=paths["ref"]) for argument in arguments))
    assert status != 0 and words in err
