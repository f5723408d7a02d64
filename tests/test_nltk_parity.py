"""Differential tests against NLTK's bleu_score: sentence scores, weights, corpus scores where
NLTK's two quirks do not apply, the quirks themselves, and NLTK's worked example."""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from nltk.translate.bleu_score import corpus_bleu, modified_precision, sentence_bleu

from oracles import nltk_quietly, random_cases

NLTK_OPTIONS = {"tokenizer": "none", "ref_length": "closest"}


@pytest.mark.parametrize("weights", [None, (0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.4, 0.3, 0.2, 0.1), (0.7, 0.3, 0.0, 0.0)])
def test_sentence_bleu_on_1000_random_cases(bleu, weights):
    predictions, references = random_cases(seed=2217)
    ours = bleu.compute(predictions=predictions, references=references, sentence_level=True, weights=weights,
                        **NLTK_OPTIONS)["sentence_bleu"]
    nltk_weights = weights or (0.25, 0.25, 0.25, 0.25)
    for prediction, segment_references, score in zip(predictions, references, ours):
        expected = nltk_quietly(sentence_bleu, [r.split() for r in segment_references], prediction.split(), nltk_weights)
        assert math.isclose(score, expected, rel_tol=0, abs_tol=1e-9), (prediction, segment_references)


def test_worked_example_from_nltk(bleu):
    hypothesis = "It is a guide to action which ensures that the military always obeys the commands of the party"
    references = [
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is the guiding principle which guarantees the military forces always being under the command of the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    result = bleu.compute(predictions=[hypothesis], references=[references], **NLTK_OPTIONS)
    assert result["bleu"] == 0.5045666840058485


WORD = st.sampled_from("a b c d e f".split())


@st.composite
def quirk_free_corpora(draw):
    """Every hypothesis has at least 4 words, so NLTK's max(1, total) never applies."""
    size = draw(st.integers(1, 6))
    sentence = st.lists(WORD, min_size=4, max_size=12).map(" ".join)
    predictions = draw(st.lists(sentence, min_size=size, max_size=size))
    references = [draw(st.lists(st.lists(WORD, max_size=12).map(" ".join), min_size=1, max_size=4)) for _ in range(size)]
    return predictions, references


@given(corpus=quirk_free_corpora(), weights=st.sampled_from([(0.25,) * 4, (0.5, 0.5), (0.1, 0.2, 0.3, 0.4)]))
def test_corpus_bleu_where_nltk_quirks_do_not_apply(nltk_preset, corpus, weights):
    predictions, references = corpus
    ours = nltk_preset.compute(predictions=predictions, references=references, weights=weights)
    hypotheses, refs = [p.split() for p in predictions], [[r.split() for r in rs] for rs in references]
    expected = nltk_quietly(corpus_bleu, refs, hypotheses, weights)
    # Quirk 1: where an order has no match at all, NLTK gives ~1e-78..1e-154, this module 0.
    assume(ours["bleu"] > 0 or expected > 1e-70)
    assert math.isclose(ours["bleu"], expected, rel_tol=1e-9, abs_tol=1e-12)


def test_quirk_nltk_returns_a_tiny_number_instead_of_zero(nltk_preset):
    predictions, references = ["a b c d"], [["a b x c d"]]  # no 3-gram or 4-gram match
    expected = nltk_quietly(corpus_bleu, [[r.split() for r in references[0]]], [predictions[0].split()])
    assert 0 < expected < 1e-70
    assert nltk_preset.compute(predictions=predictions, references=references)["bleu"] == 0.0


def test_quirk_nltk_counts_one_possible_ngram_for_a_short_hypothesis(nltk_preset):
    """NLTK's per-sentence denominator is max(1, total): "a b" adds one possible 3-gram and 4-gram."""
    predictions, references = ["a b c d e", "a b"], [["a b c d e"], ["a b"]]
    assert modified_precision([["a", "b"]], ["a", "b"], 3).denominator == 1
    ours = nltk_preset.compute(predictions=predictions, references=references)
    assert ours["precisions"] == [1.0, 1.0, 1.0, 1.0]  # 3/3 trigrams and 2/2 4-grams
    expected = nltk_quietly(corpus_bleu, [[r.split() for r in rs] for rs in references], [p.split() for p in predictions])
    assert ours["bleu"] == 1.0 and expected < 1.0  # NLTK: 3/4 trigrams and 2/3 4-grams
