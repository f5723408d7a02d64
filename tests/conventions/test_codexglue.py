"""The "codexglue" preset against CodeXGLUE's code-to-text evaluator itself (evaluator.py, run as
it is by tests/data/codexglue/record_codexglue.py; the evaluator stays out of the repository):
its split of every text, token for token, each example's smoothed BLEU-4, and the number it prints
for the corpus, float for float, on 31 drawn corpora of code summaries (camelCase and snake_case,
operators, entities, capitals beyond ASCII, empty predictions, a single token, repeated n-grams,
several references)."""

import gzip
import json

import pytest

import exactbleu
from conftest import ROOT
from exactbleu.cli import main
from exactbleu.tokenizers.frameworks import tokenize_codexglue

with gzip.open(ROOT / "tests" / "data" / "codexglue" / "recorded.json.gz", "rt", encoding="utf-8") as _file:
    RECORDED = json.load(_file)
CASES = RECORDED["cases"]


def test_its_split_is_the_evaluators_token_for_token():
    texts = {text: tokens for case in CASES for text, tokens in case["tokens"].items()}
    assert len(texts) > 300
    assert {text: tokenize_codexglue(text) for text in texts} == texts


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_example_and_the_corpus_are_the_evaluators_float_for_float(case, capsys):
    predictions, references = case["predictions"], case["references"]
    counted = exactbleu.statistics(predictions, references, "codexglue")
    assert exactbleu.sentence_scores(predictions, references, "codexglue").tolist() == case["examples"]
    assert exactbleu.scored(counted, "codexglue").value == case["printed"]  # what its __main__ prints
    result = exactbleu.corpus_bleu(predictions, references, "codexglue", signature=True)
    assert result["bleu"] * 100 == pytest.approx(case["printed"], rel=1e-15)
    assert "avg:macro" in result["signature"] and "tok:codexglue" in result["signature"]


def test_the_command_line_prints_the_evaluators_number(tmp_path, capsys):
    case = max((case for case in CASES if max(map(len, case["references"])) == 1),
               key=lambda case: len(case["predictions"]))
    (tmp_path / "hyp").write_text("".join(line.strip() + "\n" for line in case["predictions"]), encoding="utf-8")
    (tmp_path / "ref").write_text("".join(group[0].strip() + "\n" for group in case["references"]), encoding="utf-8")
    status = main([str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"), "--preset", "codexglue", "-b",
                                 "-w", "13"])
    assert (status, capsys.readouterr().out) == (0, f"{case['printed']:.13f}\n")


def test_which_bleu_names_the_evaluator_for_its_number():
    case = next(case for case in CASES if len(case["predictions"]) == 20)
    found = exactbleu.identify(case["predictions"], case["references"], f"{case['printed']:.2f}")
    assert (found.matches[0].preset, found.matches[0].options, found.matches[0].scale) == ("codexglue", {}, 100)
