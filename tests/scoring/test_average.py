"""``average="macro"``: the mean of each segment's per-sentence score, as frameworks that score one
example at a time average them (each score added in order, times the arithmetic's scale, over
their number), held to NLTK's and sacrebleu's own sentence scores averaged by a plain loop; and
every face that has only sums refuses it rather than give the corpus's BLEU (its resampling:
test_macro_resampling.py)."""

import re

import nltk.translate.bleu_score as nltk_bleu
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

import exactbleu
from conftest import examples
from exactbleu.cli import main
from oracles import nltk_quietly

WORD = st.sampled_from(["a", "b", "c", "the", "cat", "sat", ".", "a"])
LINE = st.lists(WORD, max_size=8).map(" ".join)
CORPUS = st.lists(st.tuples(LINE, st.lists(LINE, min_size=1, max_size=3)), min_size=1, max_size=12)


def in_order(scores):
    total = 0.0
    for score in scores:
        total += score
    return total


@settings(max_examples=examples(200), deadline=None)
@given(corpus=CORPUS, method=st.sampled_from(["method1", "method2", "method4"]))
def test_the_macro_average_is_nltks_sentence_bleu_averaged_in_order(corpus, method):
    predictions, references = [p for p, _ in corpus], [group for _, group in corpus]
    smoothing = getattr(nltk_bleu.SmoothingFunction(), method)
    scores = [nltk_quietly(nltk_bleu.sentence_bleu, [r.split() for r in group], p.split(), smoothing_function=smoothing)
              for p, group in corpus]
    result = exactbleu.corpus_bleu(predictions, references, "nltk", smooth_method=method, average="macro")
    assert result["bleu"] == in_order(scores) / len(scores)


@settings(max_examples=examples(100), deadline=None)
@given(corpus=CORPUS)
def test_on_sacrebleus_scale_the_macro_average_adds_fractions_then_scales(corpus):
    predictions, references = [p for p, _ in corpus], [group for _, group in corpus]
    metric = BLEU(tokenize="none", effective_order=True)
    fractions = [metric.sentence_score(p, group).score / 100 for p, group in corpus]
    counted = exactbleu.statistics(predictions, references, "sacrebleu", tokenizer="none", average="macro")
    scored = exactbleu.scored(counted, "sacrebleu", tokenizer="none", average="macro")
    total = in_order(fractions)
    assert (scored.bleu, scored.value) == pytest.approx((total / len(corpus), total * 100 / len(corpus)), rel=1e-15)


def test_a_corpus_of_one_is_its_sentence_score_and_the_signature_says_macro():
    one = exactbleu.corpus_bleu(["the cat sat"], [["the cat sat on"]], "nltk", smooth_method="method1",
                                average="macro", signature=True)
    assert one["bleu"] == exactbleu.sentence_bleu("the cat sat", ["the cat sat on"], "nltk",
                                                  smooth_method="method1")["bleu"]
    assert "avg:macro" in one["signature"]
    assert "avg:" not in exactbleu.corpus_bleu(["a b"], [["a b"]], signature=True)["signature"]


PREDICTIONS, REFERENCES = ["the cat sat", "a b c d"], [["the cat sat on"], ["a b c"]]


@pytest.mark.parametrize("call, what", [
    (lambda: exactbleu.score(exactbleu.statistics(PREDICTIONS, REFERENCES).vector(), average="macro"),
     "a summed statistics vector"),
    (lambda: exactbleu.scored(exactbleu.statistics(PREDICTIONS, REFERENCES).sums(), average="macro"), "scored(Sums)"),
])
def test_what_has_only_sums_refuses_a_macro_average(call, what):
    with pytest.raises(ValueError, match=re.escape(f"{what}: average='macro' is the mean of each segment's own score")):
        call()


def test_an_average_is_one_of_two():
    with pytest.raises(ValueError, match=r"average must be one of \['micro', 'macro'\], got 'mean'"):
        exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, average="mean")


def test_the_command_line_takes_average(tmp_path, capsys):
    (tmp_path / "hyp").write_text("\n".join(PREDICTIONS) + "\n")
    (tmp_path / "ref").write_text("\n".join(group[0] for group in REFERENCES) + "\n")
    argv = [str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"), "--preset", "nltk", "-s", "method1", "-b", "-w", "12"]
    assert main([*argv, "--average", "macro"]) == 0
    macro = exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, "nltk", smooth_method="method1", average="macro")["bleu"]
    assert capsys.readouterr().out == f"{100 * macro:.12f}\n"
    assert main([*argv, "--average", "macro", "-ci"]) == 0  # its interval: test_macro_resampling.py
    options = {"smooth_method": "method1", "average": "macro", "n_bootstrap": 1000}
    estimate = exactbleu.bootstrap(exactbleu.statistics(PREDICTIONS, REFERENCES, "nltk", **options), "nltk", **options)
    mean, ci = estimate.percents()
    assert capsys.readouterr().out == f"{100 * macro:.12f} (\u03bc = {mean:.12f} \u00b1 {ci:.12f})\n"
