"""NLTK's arithmetic: its ``corpus_bleu`` and ``sentence_bleu`` with a ``SmoothingFunction`` method,
its quirks included.

NLTK divides each segment's matches by max(1, total) (the sums' ``denominators``), keeps each
precision as an unreduced fraction, returns 0 without a unigram match, and without smoothing
(``method0``) stands ``sys.float_info.min`` in for a precision of 0. Methods follow Chen & Cherry
(2014) as NLTK states them, with its defaults: epsilon 0.1 for method1 (``smooth_value`` sets it),
alpha 5 for method6, k 5 for methods 4 and 7.
"""

import contextlib
import contextvars
import fractions
import math
import sys
from collections.abc import Iterator
from typing import cast

import numpy as np

from ..options import Settings
from ..options.smoothing import NLTK, SMOOTHING, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, brevity_ratio, exponentials, logarithms, weight_array

NAME = NLTK
METHODS = frozenset(methods_of(NLTK))  # each one's formula is in score and score_rows
DENOMINATORS = True  # NLTK divides each segment's matches by max(1, total)
# Methods whose precisions are exact fractions of fractions: their rows are scored one by one.
_RATIONAL = {"method5", "method6", "method7"}
_NLTK_ALPHA, _NLTK_K = 5, 5
# The rows already scored under methods 5 to 7, by method, order and weights, then by the row's
# integers, while ``rows_scored_once`` holds: None outside it.
_SCORED_ROWS: contextvars.ContextVar[dict[tuple[object, ...], dict[tuple[int, ...], Scored]] | None] = \
    contextvars.ContextVar("exactbleu_scored_rows", default=None)


@contextlib.contextmanager
def rows_scored_once() -> Iterator[None]:
    """Within it, a segment's row that methods 5 to 7 have scored is not scored again: its score
    is a function of its integers, the method, the order and the weights alone. Every convention on
    a corpus scores the same rows many times over (a single reference is the shortest and the
    closest; most segments tokenize alike), and these methods score a row at a time. What it
    remembers goes with it."""
    token = _SCORED_ROWS.set({})
    try:
        yield
    finally:
        _SCORED_ROWS.reset(token)


def _brevity_penalty(translation_length: int, ref_length: int) -> float:
    if translation_length > ref_length:
        return 1.0
    if translation_length == 0:
        return 0.0
    return math.exp(1 - ref_length / translation_length)


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics."""
    translation_length, ref_length = int(sums.prediction_length), int(sums.reference_length)
    matches, totals = [int(value) for value in sums.matches], [int(value) for value in sums.totals]
    denominators = [int(value) for value in sums.denominators]
    # NLTK's arithmetic is chosen by its smoothing method: there is one.
    method, order = cast(str, settings.scoring.smooth_method), settings.statistics.max_order
    ratio = translation_length / ref_length if ref_length else 0.0
    brevity_penalty = _brevity_penalty(translation_length, ref_length)
    # NLTK keeps each precision as an unreduced fraction; method2 adds one to both of its terms.
    precisions: list[fractions.Fraction | float] = [fractions.Fraction(m, d)
                                                          for m, d in zip(matches[:order], denominators)]
    if matches[0] == 0:  # NLTK returns 0 before it smooths
        return Scored(0.0, 0.0, [float(p) for p in precisions], brevity_penalty, ratio, 1)
    halvings = 1
    for n, (m, d) in enumerate(zip(matches[:order], denominators)):
        if method == "method1" and m == 0:
            precisions[n] = (m + cast(float, settings.scoring.smooth_value)) / d  # method1's epsilon is set
        elif method == "method2" and n > 0:
            precisions[n] = fractions.Fraction(m + 1, d + 1)
        elif method == "method3" and m == 0:
            precisions[n] = 1 / (2**halvings * d)
            halvings += 1
        elif method in ("method4", "method7") and m == 0 and translation_length > 1:
            precisions[n] = 1 / (2**halvings * _NLTK_K / math.log(translation_length)) / d
            halvings += 1
        elif method == "method6" and n > 1:
            # NLTK asserts a trigram match first (an AssertionError without one); this gives the
            # formula's value instead. Its l is the n-grams the hypothesis has: the raw total.
            before = 0 if precisions[n - 2] == 0 else precisions[n - 1] ** 2 / precisions[n - 2]
            precisions[n] = (m + _NLTK_ALPHA * before) / (totals[n] + _NLTK_ALPHA)
    if SMOOTHING[method].counts_through:
        # Each order averages the one before (already averaged; order 1 counts one more), itself
        # and the next, where the next after the last is the 5-gram precision, whatever the order.
        fifth = SMOOTHING[method].counts_through - 1
        after = [*precisions, fractions.Fraction(matches[fifth], denominators[fifth])]
        previous = precisions[0] + 1
        for n in range(order):
            precisions[n] = previous = (previous + after[n] + after[n + 1]) / 3
    if method == "method0":
        # NLTK's method0 stands sys.float_info.min in for a precision of 0, so that the score is
        # tiny (about 1e-78 at four even weights) but not 0; with an uneven weight it can be large.
        precisions_in_mean = [p if p > 0 else sys.float_info.min for p in precisions]
    else:
        precisions_in_mean = precisions
    weights = settings.scoring.weight_set or (1 / order,) * order
    bleu = brevity_penalty * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions_in_mean) if p > 0))
    return Scored(bleu, bleu, [float(p) for p in precisions], brevity_penalty, ratio, 1)


Exact = tuple[int, int] | float  # a ratio kept exact, as (numerator, denominator > 0), or a float


def _float(value: Exact) -> float:
    """A value as a float: a ratio's numerator / denominator, which Python rounds correctly."""
    return value[0] / value[1] if isinstance(value, tuple) else value


def _plus(one: Exact, two: Exact) -> Exact:
    """one + two as NLTK's fractions add: exact if both are ratios, else in floats."""
    if isinstance(one, tuple) and isinstance(two, tuple):
        return one[0] * two[1] + two[0] * one[1], one[1] * two[1]
    return _float(one) + _float(two)


def _exact_row(row: Sums, method: str, order: int, weights: tuple[float, ...]) -> Scored | None:
    """``score`` of one row under method 5, 6 or 7, its exact ratios kept as pairs of ints (and a
    float where ``score`` takes one in): the same values as its fractions, so the same floats, several
    times faster. None where ``score`` returns 0 before smoothing: ``score`` takes those rows."""
    length, reference, matches, totals = row.prediction_length, row.reference_length, row.matches, row.totals
    if matches[0] == 0:
        return None
    values: list[Exact] = [(matches[n], totals[n] or 1) for n in range(order)]
    halvings = 1
    for n in range(order):
        if method == "method7" and matches[n] == 0 and length > 1:  # method 4's step
            values[n] = 1 / (2**halvings * _NLTK_K / math.log(length)) / (totals[n] or 1)
            halvings += 1
        elif method == "method6" and n > 1:
            first, second = values[n - 2], values[n - 1]
            divisor = totals[n] + _NLTK_ALPHA
            if (first[0] if isinstance(first, tuple) else first) == 0:  # score()'s before is the int 0
                values[n] = matches[n] / divisor
            elif isinstance(first, tuple) and isinstance(second, tuple):
                before = (second[0] * second[0] * first[1], second[1] * second[1] * first[0])
                values[n] = (matches[n] * before[1] + _NLTK_ALPHA * before[0], before[1] * divisor)
            else:  # a float in it: a ratio squared exactly, then as a float, as a fraction does
                square = second[0] ** 2 / second[1] ** 2 if isinstance(second, tuple) else second**2
                values[n] = (matches[n] + _NLTK_ALPHA * (square / _float(first))) / divisor
    if method != "method6":  # methods 5 and 7 average each order with its neighbours, the 5-gram's included
        after = [*values, (matches[4], totals[4] or 1)]
        previous = _plus(values[0], (1, 1))
        for n in range(order):
            one, two = after[n], after[n + 1]
            if isinstance(previous, tuple) and isinstance(one, tuple) and isinstance(two, tuple):  # _plus twice, inline
                top, bottom = previous[0] * one[1] + one[0] * previous[1], previous[1] * one[1]
                values[n] = previous = (top * two[1] + two[0] * bottom, bottom * two[1] * 3)
            else:
                total = _plus(_plus(previous, one), two)
                values[n] = previous = (total[0], total[1] * 3) if isinstance(total, tuple) else total / 3
    brevity_penalty = _brevity_penalty(length, reference)
    floats = [value[0] / value[1] if isinstance(value, tuple) else value for value in values]
    bleu = brevity_penalty * math.exp(math.fsum(w * math.log(value) for w, value in zip(weights, floats) if value > 0))
    return Scored(bleu, bleu, floats, brevity_penalty, length / reference if reference else 0.0, 1)


def _rational_rows(statistics: Statistics, settings: Settings, weights: tuple[float, ...]) -> list[Scored]:
    """Each row's score under method 5, 6 or 7, one by one; a row scored before (in this call, or
    within ``rows_scored_once``) is looked up, not scored again."""
    method, order = cast(str, settings.scoring.smooth_method), settings.statistics.max_order
    shared = _SCORED_ROWS.get()
    known = {} if shared is None else shared.setdefault((method, order, weights), {})
    scored = []
    for values in statistics.array.tolist():
        one = known.get(key := tuple(values))
        if one is None:
            row = Sums.of_row(values, statistics.orders)
            one = _exact_row(row, method, order, weights)
            if one is None:  # a row without a unigram match: score() takes it, under these settings
                one = score(row, settings)
            else:
                known[key] = one
        scored.append(one)
    return scored


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a row's denominators are
    max(1, total)). Methods 5 to 7 average fractions of fractions exactly, which no float
    operation reproduces: their rows are scored one by one."""
    method, order = settings.scoring.smooth_method, settings.statistics.max_order
    if method in _RATIONAL:
        each = settings.scoring.weight_set or (1 / order,) * order
        scored = _rational_rows(statistics, settings, each)
        return ScoredRows(bleu=np.array([one.bleu for one in scored], dtype=np.float64),
                          value=np.array([one.value for one in scored], dtype=np.float64),
                          precisions=np.array([one.precisions for one in scored], dtype=np.float64),
                          brevity_penalty=np.array([one.brevity_penalty for one in scored], dtype=np.float64),
                          length_ratio=np.array([one.length_ratio for one in scored], dtype=np.float64), scale=1)
    rows = len(statistics)
    matches, totals = statistics.matches[:, :order], statistics.totals[:, :order]
    denominators = np.maximum(totals, 1)
    translation_length, ref_length = statistics.prediction_length, statistics.reference_length
    ratio = brevity_ratio(translation_length, ref_length)
    brevity_penalty = np.ones(rows)
    brevity_penalty[translation_length == 0] = 0.0
    shorter = np.flatnonzero((translation_length <= ref_length) & (translation_length > 0))
    brevity_penalty[shorter] = exponentials(1 - ref_length[shorter] / translation_length[shorter])

    precisions = matches / denominators
    scored = matches[:, 0] != 0  # NLTK returns 0 before it smooths
    halvings = np.ones(rows, dtype=np.int64)
    if method == "method4":
        log_length = logarithms(translation_length.astype(np.float64), translation_length > 1)
    for n in range(order):
        missed = scored & (matches[:, n] == 0)
        if method == "method1":
            epsilon = cast(float, settings.scoring.smooth_value)  # method1's epsilon is set
            precisions[missed, n] = (matches[missed, n] + epsilon) / denominators[missed, n]
        elif method == "method2" and n > 0:
            precisions[scored, n] = (matches[scored, n] + 1) / (denominators[scored, n] + 1)
        elif method == "method3":
            precisions[missed, n] = 1 / (2**halvings[missed] * denominators[missed, n])
            halvings[missed] += 1
        elif method == "method4":
            missed &= translation_length > 1
            precisions[missed, n] = 1 / (2**halvings[missed] * _NLTK_K / log_length[missed]) / denominators[missed, n]
            halvings[missed] += 1
    in_mean = np.where(precisions > 0, precisions, sys.float_info.min) if method == "method0" else precisions
    weights = weight_array(settings.scoring.weight_set or (1 / order,) * order, order)
    terms = weights * logarithms(in_mean, in_mean > 0)  # a term of 0.0 leaves an exact sum as it is
    bleu = np.zeros(rows)
    sums = np.fromiter(map(math.fsum, terms[scored].tolist()), np.float64, int(scored.sum()))
    bleu[scored] = brevity_penalty[scored] * exponentials(sums)
    return ScoredRows(bleu, bleu, precisions, brevity_penalty, ratio, 1)
