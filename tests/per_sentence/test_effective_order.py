"""Per-sentence scores: one rule, stated once. Under the "sacrebleu" preset every per-sentence
score uses effective order unless ``effective_order`` is given, as ``sacrebleu.sentence_bleu``
does; a corpus score never does. Every per-sentence face (``corpus_bleu``'s ``sentence_level``,
``explain``, the metric, the command line) gives ``sentence_scores``' numbers, which
tests/conventions holds to sacrebleu's and NLTK's."""

import json
import subprocess
import sys

import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from oracles import corpora


@pytest.fixture(scope="module")
def metrics(bleu, sacrebleu_preset, nltk_preset):
    return {"default": bleu, "sacrebleu": sacrebleu_preset, "nltk": nltk_preset}


def test_the_seed_example_is_sacrebleus_sentence_bleu():
    assert sacrebleu.sentence_bleu("Cat", ["Cat"]).score == pytest.approx(100)
    assert exactbleu.sentence_bleu("Cat", ["Cat"], "sacrebleu")["bleu"] == 1.0
    # A corpus score never averages only the orders it has: sacrebleu's corpus_bleu gives 0 here.
    assert sacrebleu.corpus_bleu(["Cat"], [["Cat"]]).score == 0.0
    assert exactbleu.corpus_bleu(["Cat"], [["Cat"]], "sacrebleu")["bleu"] == 0.0
    # Given, effective_order wins.
    assert exactbleu.sentence_bleu("Cat", ["Cat"], "sacrebleu", effective_order=False)["bleu"] == 0.0


@given(corpus=corpora(max_segments=6), preset=st.sampled_from(["default", "sacrebleu", "nltk"]))
def test_every_per_sentence_face_gives_sentence_scores_numbers(metrics, corpus, preset):
    predictions, references = corpus
    expected = exactbleu.sentence_scores(predictions, references, preset).tolist()
    listed = exactbleu.corpus_bleu(predictions, references, preset, sentence_level=True)["sentence_bleu"]
    explained = [segment["sentence_bleu"] for segment in exactbleu.explain(predictions, references, preset)]
    computed = metrics[preset].compute(predictions=predictions, references=references, sentence_level=True)
    assert listed == explained == computed["sentence_bleu"] == expected


def test_the_metric_and_the_command_line_follow_the_same_rule(sacrebleu_preset, tmp_path):
    predictions, references = ["Cat", "a small cat sat"], [["Cat"], ["the small cat sat"]]
    expected = exactbleu.sentence_scores(predictions, references, "sacrebleu").tolist()
    assert expected[0] == 1.0  # "Cat" has unigrams only: with effective order, a perfect score
    listed = sacrebleu_preset.compute(predictions=predictions, references=references, sentence_level=True)
    assert listed["sentence_bleu"] == expected
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
