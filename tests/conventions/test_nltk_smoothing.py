"""NLTK's SmoothingFunction methods and several weight sets, against NLTK itself: every sentence
score of the "nltk" preset, method0 (none) to method7, on 1300 random cases (tests/oracles.py's
random_cases), and corpus scores where NLTK's corpus result does not depend on the last sentence alone."""

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu

import exactbleu
from oracles import nltk_quietly as quietly
from oracles import random_cases

METHODS = ["method1", "method2", "method3", "method4", "method5", "method6", "method7"]
WEIGHT_SETS = [(0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.25, 0.25, 0.25, 0.25)]


def split(references):
    return [[reference.split() for reference in segment] for segment in references]


@pytest.mark.parametrize("cases", ["1000 of seed 2", "300 of the method's seed"])
@pytest.mark.parametrize("method", ["method0", *METHODS])
def test_every_sentence_score_equals_nltk(method, cases):
    seed, count = (2, 1000) if cases.startswith("1000") else (int(method[-1]), 300)
    predictions, references = random_cases(seed=seed, count=count)
    ours = exactbleu.sentence_scores(predictions, references, "nltk", smooth_method=method).tolist()
    compared = 0
    for prediction, segment_references, score in zip(predictions, references, ours):
        try:
            expected = quietly(sentence_bleu, split([segment_references])[0], prediction.split(),
                               smoothing_function=getattr(SmoothingFunction(), method))
        except AssertionError:  # method6 without a trigram match: NLTK asserts, this module scores
            assert method == "method6"
            continue
        compared += 1
        assert score == expected, (prediction, segment_references)  # bit for bit: the same operations
    assert compared >= (count // 4 if method == "method6" else count)


@pytest.mark.parametrize("method", ["method1", "method2", "method3"])
@pytest.mark.parametrize("weights", [None, (0.5, 0.5), (0.1, 0.2, 0.3, 0.4)])
def test_corpus_scores_equal_nltk(nltk_preset, method, weights):
    for seed in range(5):
        predictions, references = random_cases(seed=100 + seed, count=50 * (seed + 1))
        ours = nltk_preset.compute(predictions=predictions, references=references, smooth_method=method,
                                   weights=weights)["bleu"]
        expected = quietly(corpus_bleu, split(references), [p.split() for p in predictions],
                           weights=weights or (0.25,) * 4, smoothing_function=getattr(SmoothingFunction(), method))
        assert math.isclose(ours, expected, rel_tol=0, abs_tol=1e-12)


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 1.0])
def test_smooth_value_sets_method1_epsilon(nltk_preset, epsilon):
    predictions, references = random_cases(seed=7, count=200)
    ours = nltk_preset.compute(predictions=predictions, references=references, smooth_method="method1",
                               smooth_value=epsilon, sentence_level=True)
    smoothing = SmoothingFunction(epsilon=epsilon).method1
    assert math.isclose(ours["bleu"], quietly(corpus_bleu, split(references), [p.split() for p in predictions],
                                              smoothing_function=smoothing), rel_tol=0, abs_tol=1e-12)
    for prediction, segment_references, score in zip(predictions, references, ours["sentence_bleu"]):
        expected = quietly(sentence_bleu, split([segment_references])[0], prediction.split(), smoothing_function=smoothing)
        assert math.isclose(score, expected, rel_tol=0, abs_tol=1e-12)


@pytest.mark.parametrize("method", [None, "method1", "method3"])  # None: the preset's, NLTK's default
@given(seed=st.integers(0, 10**6))
def test_several_weight_sets_give_one_score_each_as_nltk(nltk_preset, method, seed):
    predictions, references = random_cases(seed=seed, count=12)
    rng = random.Random(seed)
    predictions = [" ".join(rng.choice("abcde") for _ in range(rng.randint(4, 9))) for _ in predictions]
    ours = nltk_preset.compute(predictions=predictions, references=references, weights=WEIGHT_SETS,
                               smooth_method=method, sentence_level=True)
    smoothing = getattr(SmoothingFunction(), method) if method else None
    expected = quietly(corpus_bleu, split(references), [p.split() for p in predictions], weights=WEIGHT_SETS,
                       smoothing_function=smoothing)
    assert isinstance(ours["bleu"], list) and len(ours["bleu"]) == len(WEIGHT_SETS)
    for score, nltk_score in zip(ours["bleu"], expected):
        assert math.isclose(score, nltk_score, rel_tol=1e-9, abs_tol=1e-12)
    assert len(ours["sentence_bleu"]) == len(WEIGHT_SETS)
    for number, weights in enumerate(WEIGHT_SETS):
        single = nltk_preset.compute(predictions=predictions, references=references, weights=weights,
                                     smooth_method=method, sentence_level=True)
        assert ours["sentence_bleu"][number] == single["sentence_bleu"]
        assert ours["bleu"][number] == single["bleu"]


def test_options_that_do_not_combine(nltk_preset):
    with pytest.raises(ValueError, match="n_bootstrap takes one weight set"):
        nltk_preset.compute(predictions=["a b"], references=["a b"], weights=WEIGHT_SETS, n_bootstrap=10)
    with pytest.raises(ValueError, match="effective_order=True is sacrebleu's"):
        nltk_preset.compute(predictions=["a b"], references=["a b"], smooth_method="method2", effective_order=True)
    with pytest.raises(ValueError, match="smooth_method.*method1.*method7"):
        nltk_preset.compute(predictions=["a b"], references=["a b"], smooth_method="method8")


@pytest.mark.parametrize("method", ["method5", "method7"])
@pytest.mark.parametrize("weights", [(0.5, 0.5), (0.2,) * 5, (1 / 6,) * 6])
def test_methods_5_and_7_read_the_5_gram_precision_at_any_order(nltk_preset, method, weights):
    """NLTK smooths the last order with the 5-gram precision, whatever the order: the rows count
    through order 5 for these methods, and statistics() and score_statistics() agree on that."""
    predictions, references = random_cases(seed=5, count=300)
    ours = nltk_preset.compute(predictions=predictions, references=references, smooth_method=method,
                               weights=weights, sentence_level=True)
    smoothing = getattr(SmoothingFunction(), method)
    for prediction, segment_references, score in zip(predictions, references, ours["sentence_bleu"]):
        expected = quietly(sentence_bleu, split([segment_references])[0], prediction.split(), weights=weights,
                           smoothing_function=smoothing)
        assert math.isclose(score, expected, rel_tol=0, abs_tol=1e-12)
    columns = nltk_preset.statistics(predictions, references, smooth_method=method, weights=weights)
    assert len(columns["matches"][0]) == max(5, len(weights))
    scored = nltk_preset.score_statistics(columns, smooth_method=method, weights=weights, sentence_level=True)
    assert scored == ours and len(ours["precisions"]) == len(weights)


@pytest.mark.parametrize("method", ["method5", "method6", "method7"])
def test_rows_scored_once_across_settings_are_still_nltks(method):
    """Inside ``rows_scored_once`` (what every convention on a corpus uses) a row scored once is
    looked up: scores under other orders and weights, of the same texts and of texts that share
    rows with them, stay NLTK's own, and the memory is gone after it."""
    from exactbleu.scoring import arithmetic_nltk, rows_scored_once

    predictions, references = random_cases(seed=11, count=300)
    doubled = predictions + predictions[:150], references + references[:150]  # rows shared across calls
    settings = [{}, {"max_order": 2}, {"weights": (0.5, 0.3, 0.2)}, {"max_order": 3}]
    with rows_scored_once():
        got = [exactbleu.sentence_scores(texts, refs, "nltk", smooth_method=method, **options).tolist()
               for texts, refs in ((predictions, references), doubled) for options in settings]
        assert arithmetic_nltk._SCORED_ROWS.get()  # the rows were remembered
    assert arithmetic_nltk._SCORED_ROWS.get() is None
    compared = 0
    for (texts, refs), options, scores in zip([(predictions, references)] * 4 + [doubled] * 4, settings * 2, got):
        order = options.get("max_order", 4)
        weights = options.get("weights", (1 / order,) * order)
        for prediction, segment_references, score in zip(texts, refs, scores):
            try:
                expected = quietly(sentence_bleu, split([segment_references])[0], prediction.split(), weights,
                                   smoothing_function=getattr(SmoothingFunction(), method))
            except (AssertionError, IndexError):  # method6 without a trigram match, or of 2 orders: NLTK fails
                assert method == "method6"
                continue
            compared += 1
            assert score == expected, (prediction, segment_references, options)
    assert compared > 500
