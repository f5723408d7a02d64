"""Per-sentence scores: one rule, stated once. Under the "sacrebleu" preset every per-sentence
score uses effective order unless ``effective_order`` is given, as ``sacrebleu.sentence_bleu``
does; a corpus score never does. Held to sacrebleu itself."""

import json
import subprocess
import sys

import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from oracles import segments


def sacrebleu_sentence(prediction, references, **options):
    return min(1.0, sacrebleu.sentence_bleu(prediction, references, **options).score / 100)


def test_the_seed_example_is_sacrebleus_sentence_bleu():
    assert sacrebleu.sentence_bleu("Cat", ["Cat"]).score == pytest.approx(100)
    assert exactbleu.sentence_bleu("Cat", ["Cat"], "sacrebleu")["bleu"] == 1.0
    # A corpus score never averages only the orders it has: sacrebleu's corpus_bleu gives 0 here.
    assert sacrebleu.corpus_bleu(["Cat"], [["Cat"]]).score == 0.0
    assert exactbleu.corpus_bleu(["Cat"], [["Cat"]], "sacrebleu")["bleu"] == 0.0
    # Given, effective_order wins.
    assert exactbleu.sentence_bleu("Cat", ["Cat"], "sacrebleu", effective_order=False)["bleu"] == 0.0


@given(st.lists(st.tuples(segments(max_words=6, arbitrary_text=False),
                          st.lists(segments(max_words=6, arbitrary_text=False), min_size=1, max_size=3)),
                min_size=1, max_size=6))
def test_every_per_sentence_face_is_sacrebleus_sentence_bleu(pairs):
    predictions = [prediction for prediction, _ in pairs]
    references = [segment_references for _, segment_references in pairs]
    expected = [sacrebleu_sentence(p, r) for p, r in pairs]
    listed = exactbleu.corpus_bleu(predictions, references, "sacrebleu", sentence_level=True)["sentence_bleu"]
    explained = [segment["sentence_bleu"] for segment in exactbleu.explain(predictions, references, "sacrebleu")]
    one_by_one = [exactbleu.sentence_bleu(p, r, "sacrebleu")["bleu"] for p, r in pairs]
    for got in (listed, explained, one_by_one):
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_the_metric_and_the_command_line_follow_the_same_rule(sacrebleu_preset, tmp_path):
    predictions, references = ["Cat", "a small cat sat"], [["Cat"], ["the small cat sat"]]
    expected = [sacrebleu_sentence(p, r) for p, r in zip(predictions, references)]
    listed = sacrebleu_preset.compute(predictions=predictions, references=references, sentence_level=True)
    assert listed["sentence_bleu"] == pytest.approx(expected, rel=1e-9)
    (tmp_path / "hyp").write_text("\n".join(predictions) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(r[0] for r in references) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "exactbleu", str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                          "-sl", "-b", "-w", "12"], capture_output=True, text=True, check=True).stdout
    assert [float(line) / 100 for line in out.split()] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("options", [{"effective_order": True}, {"effective_order": True, "sentence_level": True},
                                     {"effective_order": True, "smooth": True}])
def test_effective_order_without_any_ngram_scores_zero(options):
    """It raised ZeroDivisionError under HF's arithmetic; sacrebleu's score is 0 there too."""
    assert sacrebleu.corpus_bleu([""], [[""]], use_effective_order=True).score == 0.0
    result = exactbleu.corpus_bleu([""], [[""]], **options)
    assert result["bleu"] == 0.0
    assert result.get("sentence_bleu", [0.0]) == [0.0]
    per_corpus = {name: value for name, value in options.items() if name != "sentence_level"}
    tested = exactbleu.paired_test({"a": [""], "b": [""]}, [[""]], n_samples=5, **per_corpus)
    assert tested["a"]["bleu"] == 0.0


def test_the_command_line_scores_an_empty_line_with_effective_order(tmp_path):
    (tmp_path / "hyp").write_text("\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "exactbleu", str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                          "--preset", "sacrebleu", "--smooth", "-sl", "-b"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0.0"]
    run = subprocess.run([sys.executable, "-m", "exactbleu", str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                          "--effective-order"], capture_output=True, text=True)
    assert json.loads(run.stdout)["score"] == 0.0
