"""Differential tests against NLTK's bleu_score: sentence scores, weights, NLTK's worked example,
and the "nltk" preset's corpus and sentence scores on hypotheses shorter than an order, where
NLTK's arithmetic differs from HF's."""

import math

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, modified_precision, sentence_bleu

from conftest import examples
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


def test_worked_example_from_nltk(bleu, nltk_preset):
    hypothesis = "It is a guide to action which ensures that the military always obeys the commands of the party"
    references = [
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is the guiding principle which guarantees the military forces always being under the command of the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    result = bleu.compute(predictions=[hypothesis], references=[references], **NLTK_OPTIONS)
    assert result["bleu"] == 0.5045666840058485
    assert math.isclose(nltk_preset.compute(predictions=[hypothesis], references=[references])["bleu"],
                        0.5045666840058485, rel_tol=1e-15)


# NLTK's own number on every input. Hypotheses of 0-9 tokens and references of 1-9, so
# that a hypothesis shorter than an order (NLTK's max(1, total) denominator) comes up often.
# A string over five letters is one draw, where a list of tokens is a draw a token.
HYPOTHESIS = st.text(alphabet="abcde", max_size=9).map(" ".join)
REFERENCE = st.text(alphabet="abcde", min_size=1, max_size=9).map(" ".join)
WEIGHTS = [None, (0.1, 0.2, 0.3, 0.4), (0.5, 0.5), (0.7, 0.3, 0.0, 0.0), (0.99, 0.01)]


def short_corpora(max_segments=40):
    """(predictions, references), each prediction with one to four references."""
    return st.lists(st.tuples(HYPOTHESIS, st.lists(REFERENCE, min_size=1, max_size=4)), min_size=1,
                    max_size=max_segments).map(lambda pairs: ([p for p, _ in pairs], [r for _, r in pairs]))


def split(references):
    return [[reference.split() for reference in segment] for segment in references]


def same_number(ours, expected):
    """NLTK's number to 1e-12, its stand-in of about 1e-78 for an order without matches included."""
    return math.isclose(ours, expected, rel_tol=1e-12, abs_tol=0) or (ours == expected == 0)


@seed(2028)
@settings(max_examples=examples(300))
@given(corpus=short_corpora(), weights=st.sampled_from(WEIGHTS),
       method=st.sampled_from([None, "method1", "method2", "method3", "method4"]))
def test_corpus_bleu_equals_nltk_on_short_hypotheses(nltk_preset, corpus, weights, method):
    predictions, references = corpus
    options = {"smooth_method": method} if method else {}
    ours = nltk_preset.compute(predictions=predictions, references=references, weights=weights, **options)["bleu"]
    expected = nltk_quietly(corpus_bleu, split(references), [p.split() for p in predictions],
                            weights=weights or (0.25,) * 4,
                            smoothing_function=getattr(SmoothingFunction(), method) if method else None)
    assert same_number(ours, expected), (ours, expected)


@seed(2028)
@settings(max_examples=examples(200))
@given(corpus=short_corpora(max_segments=12), weights=st.sampled_from(WEIGHTS),
       method=st.sampled_from(["method0", "method1", "method2", "method3", "method4", "method5", "method6",
                               "method7"]))
def test_sentence_bleu_equals_nltk_on_short_hypotheses(nltk_preset, corpus, weights, method):
    predictions, references = corpus
    ours = nltk_preset.compute(predictions=predictions, references=references, weights=weights, smooth_method=method,
                               sentence_level=True)["sentence_bleu"]
    for prediction, segment_references, score in zip(predictions, references, ours):
        try:
            expected = nltk_quietly(sentence_bleu, split([segment_references])[0], prediction.split(),
                                    weights=weights or (0.25,) * 4,
                                    smoothing_function=getattr(SmoothingFunction(), method))
        except (AssertionError, IndexError):
            # method6 without a trigram match, or with fewer than three orders: NLTK asserts or
            # indexes past its list; this module gives the formula's value.
            assert method == "method6"
            continue
        assert same_number(score, expected), (prediction, segment_references, score, expected)


def test_nltk_stands_a_tiny_number_in_for_an_order_without_matches(nltk_preset):
    predictions, references = ["a b c d"], [["a b x c d"]]  # no 3-gram or 4-gram match
    expected = nltk_quietly(corpus_bleu, [[r.split() for r in references[0]]], [predictions[0].split()])
    assert 0 < expected < 1e-70
    assert nltk_preset.compute(predictions=predictions, references=references)["bleu"] == expected
    # With an uneven weight the stand-in is no longer tiny: 0 would be far from NLTK's number.
    uneven = nltk_quietly(corpus_bleu, [[r.split() for r in references[0]]], [predictions[0].split()],
                          weights=(0.49, 0.49, 0.01, 0.01))
    assert uneven > 1e-7
    assert nltk_preset.compute(predictions=predictions, references=references,
                               weights=(0.49, 0.49, 0.01, 0.01))["bleu"] == uneven


def test_nltk_counts_one_possible_ngram_for_a_short_hypothesis(nltk_preset):
    """NLTK's per-sentence denominator is max(1, total): "a b" adds one possible 3-gram and 4-gram."""
    predictions, references = ["a b c d e", "a b"], [["a b c d e"], ["a b"]]
    assert modified_precision([["a", "b"]], ["a", "b"], 3).denominator == 1
    ours = nltk_preset.compute(predictions=predictions, references=references)
    expected = nltk_quietly(corpus_bleu, [[r.split() for r in rs] for rs in references], [p.split() for p in predictions])
    assert ours["bleu"] == expected < 1.0  # NLTK: 3/4 trigrams and 2/3 4-grams
    assert ours["precisions"] == [1.0, 1.0, 0.75, 2 / 3]


def test_hf_arithmetic_on_nltks_tokens_is_the_default_preset_one_option_away(bleu, nltk_preset):
    """HF's arithmetic counts no possible n-gram for a short hypothesis, NLTK's counts one: on
    NLTK's whitespace tokens and closest reference, the default preset is HF's. An explicit
    smooth_method=None is the preset's own method, as leaving it out."""
    predictions, references = ["a b c d e", "a b"], [["a b c d e"], ["a b"]]
    assert bleu.compute(predictions=predictions, references=references, tokenizer="none",
                        ref_length="closest")["bleu"] == 1.0
    nltks = nltk_preset.compute(predictions=predictions, references=references)["bleu"]
    assert nltks < 1.0
    assert nltk_preset.compute(predictions=predictions, references=references, smooth_method=None)["bleu"] == nltks
