"""The scoring functions fed hand-written statistics, no tokenizer involved, as sacrebleu's own
tests feed given counts to its scoring: each arithmetic's edge cases (empty sides, smoothing,
effective order, weights of zero), and the many-rows form bit for bit the one-sum form of each row."""

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from exactbleu import Statistics, options, scoring, sufficient_statistics
from exactbleu.scoring import for_sentences, result_of_sums, scores_of_rows


# Hand-written statistics, no tokenizer involved: [c, r, matches..., totals...].
def score(stats, **given):
    settings = options.resolve_settings(**given)
    return scoring.result_of_sums(sufficient_statistics.Statistics([stats], options.counted_orders(settings)).sums(), settings)


def test_scoring_empty_sides():
    assert score([0, 0, 0, 0, 0, 0, 0, 0, 0, 0])["bleu"] == 0.0
    assert score([0, 5, 0, 0, 0, 0, 0, 0, 0, 0])["brevity_penalty"] == 0.0
    hf_empty_reference = score([4, 0, 0, 0, 0, 0, 4, 3, 2, 1])
    assert (hf_empty_reference["brevity_penalty"], hf_empty_reference["length_ratio"]) == (0.0, 0.0)
    paper_empty_reference = score([4, 0, 0, 0, 0, 0, 4, 3, 2, 1], ref_length="closest")
    assert (paper_empty_reference["brevity_penalty"], paper_empty_reference["length_ratio"]) == (1.0, 0.0)


def test_scoring_exp_smoothing_halves_per_missing_order():
    result = score([10, 10, 5, 0, 0, 0, 10, 9, 8, 7], smooth_method="exp")
    assert result["precisions"] == pytest.approx([0.5, 1 / (2 * 9), 1 / (4 * 8), 1 / (8 * 7)], rel=1e-15)


def test_scoring_no_match_at_all_is_zero_even_smoothed():
    """As in sacrebleu, smoothing gives no credit to a corpus where nothing matches at any order."""
    for method in ("exp", "floor", "add-k"):
        assert score([3, 3, 0, 0, 0, 0, 3, 2, 1, 0], smooth_method=method)["bleu"] == 0.0


def test_scoring_effective_order_stops_at_the_last_order_with_ngrams():
    stats = [2, 2, 2, 1, 0, 0, 2, 1, 0, 0]  # a perfect 2-word sentence
    assert score(stats, smooth_method="none", effective_order=True)["bleu"] == pytest.approx(1.0, rel=1e-15)
    assert score(stats, effective_order=True)["bleu"] == 1.0
    assert score(stats)["bleu"] == 0.0


def test_scoring_zero_weight_orders_do_not_enter_the_mean():
    stats = [4, 4, 4, 2, 0, 0, 4, 3, 2, 1]
    assert score(stats, weights=[0.5, 0.5, 0, 0])["bleu"] == math.exp(0.5 * math.log(1.0) + 0.5 * math.log(2 / 3))


@functools.cache
def rows(orders):
    """A statistics row by hand: any lengths, matches at most totals, totals as the length has them;
    sometimes an empty prediction or reference. The row is read from one draw of bytes, a draw a
    number costing several times more; the bytes shrink to zeros, and so does the row."""

    def row(drawn):
        length = drawn[0] % 13
        totals = [max(0, length - n) for n in range(orders)]
        matches = [byte % (total + 1) for byte, total in zip(drawn[2:], totals)]
        return [length, drawn[1] % 15, *matches, *totals]

    return st.binary(min_size=orders + 2, max_size=orders + 2).map(row)


SCORING = [("default", {}), ("default", {"smooth": True}), ("default", {"effective_order": True}),
           ("default", {"ref_length": "closest"}), ("default", {"weights": [0.7, 0, 0.2, 0.1]}),
           *[("sacrebleu", {"smooth_method": method, **extra}) for method in ("none", "floor", "add-k", "exp")
             for extra in ({}, {"effective_order": True}, {"max_order": 2})],
           ("sacrebleu", {"smooth_method": "floor", "smooth_value": 0.5}), ("sacrebleu", {"smooth_value": 0.0,
                                                                                          "smooth_method": "add-k"}),
           ("sacrebleu", {"weights": [0.6, 0.4]}), ("sacrebleu", {"weights": [0, 0.5, 0.5]}),
           *[("nltk", {"smooth_method": f"method{number}"}) for number in range(8)],
           ("nltk", {"weights": [0.49, 0.49, 0.01, 0.01]}), ("nltk", {"smooth_method": "method4", "max_order": 2}),
           # Methods 5 to 7 keep their ratios exact, row by row: at other orders and weights too.
           ("nltk", {"smooth_method": "method5", "max_order": 6}), ("nltk", {"smooth_method": "method7", "max_order": 2}),
           ("nltk", {"smooth_method": "method6", "weights": [0.1, 0.2, 0.3, 0.2, 0.2]}),
           # The COCO caption evaluation's: its n-th root of a running product, at other orders too.
           ("coco", {}), ("coco", {"max_order": 1}), ("coco", {"max_order": 6}), ("coco", {"ref_length": "shortest"})]


@pytest.mark.parametrize("preset, chosen", SCORING)
@settings(max_examples=examples(40))  # each of 35 settings: 1,400 drawn corpora of up to 30 rows in all
@given(data=st.data())
def test_rows_made_by_hand_score_as_each_alone(preset, chosen, data):
    """Rows no tokenizer makes too (an empty reference with a long prediction, and so on)."""
    settings = options.resolve_settings(preset, **chosen)
    orders = options.counted_orders(settings)
    made = data.draw(st.lists(rows(orders), min_size=1, max_size=30))
    statistics = Statistics(np.array(made, dtype=np.int64), orders)
    expected = [result_of_sums(sums, for_sentences(settings))["bleu"] for sums in statistics.segments()]
    assert scores_of_rows(statistics, settings).tolist() == expected


@pytest.mark.parametrize("method", ["method5", "method6", "method7"])
def test_nltks_exact_ratios_row_by_row_on_long_segments(method):
    """Rows of up to 5,000 tokens, some orders without a match: their ratios grow past any float's
    precision, and each row's score is still its one-sum score, bit for bit."""
    import random

    rng = random.Random(int(method[-1]))
    settings = options.resolve_settings("nltk", smooth_method=method)
    orders = options.counted_orders(settings)
    made = []
    for _ in range(2000):
        length = rng.choice([rng.randint(0, 12), rng.randint(0, 5000)])
        totals = [max(0, length - n) for n in range(orders)]
        matches = [rng.randint(0, total) if rng.random() < 0.7 else 0 for total in totals]
        made.append([length, rng.randint(0, 5000), *matches, *totals])
    statistics = Statistics(np.array(made, dtype=np.int64), orders)
    expected = [result_of_sums(sums, for_sentences(settings))["bleu"] for sums in statistics.segments()]
    assert scores_of_rows(statistics, settings).tolist() == expected

