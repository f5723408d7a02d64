"""The COCO caption evaluation's arithmetic: pycocoevalcap 1.2's ``Bleu`` (the compute_score of its
BleuScorer, in bleu/bleu_scorer.py), operation for operation, so the floats are identical.

Each order's precision is (matches + 1e-15) / (totals + 1e-9), so that none is 0 and an order without
n-grams counts 1e-6; the score of n orders is the n-th root of their running product, times
BP = exp(1 - 1/ratio) where ratio = (c + 1e-15) / (r + 1e-9) is below 1. Its corpus score and each
image's score are the same function, of the summed counts and of one image's. pycocoevalcap counts 4
orders (its ``Bleu(n)`` fails past 4); here any ``max_order`` takes the same formula.
"""

import math

import numpy as np
from numpy.typing import NDArray

from ..options import Settings
from ..options.smoothing import COCO, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, exponentials

NAME = COCO
METHODS = frozenset(methods_of(COCO))  # its one "smoothing", the two epsilons below
DENOMINATORS = False
# pycocoevalcap's two epsilons: "tiny" on the matches and the hypothesis length ("so that if guess is 0
# still return 0"), "small" on the totals and the reference length.
TINY, SMALL = 1e-15, 1e-9


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics (a corpus's, or one image's)."""
    orders = settings.statistics.max_order
    product, precisions = 1.0, []
    for matches, totals in zip(sums.matches[:orders], sums.totals[:orders]):
        precision = (float(matches) + TINY) / (float(totals) + SMALL)
        precisions.append(precision)
        product *= precision
    value = product ** (1.0 / orders)
    ratio = (float(sums.prediction_length) + TINY) / (float(sums.reference_length) + SMALL)
    brevity_penalty = math.exp(1 - 1 / ratio) if ratio < 1 else 1.0
    if ratio < 1:
        value *= brevity_penalty
    return Scored(value, value, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone."""
    orders = settings.statistics.max_order
    precisions = (statistics.matches[:, :orders] + TINY) / (statistics.totals[:, :orders] + SMALL)
    product = np.ones(len(statistics))
    for order in range(orders):  # in order, as the running product multiplies them
        product = product * precisions[:, order]
    value = _powers(product, 1.0 / orders)
    ratio = (statistics.prediction_length + TINY) / (statistics.reference_length + SMALL)
    short = ratio < 1
    brevity_penalty = np.ones(len(statistics))
    brevity_penalty[short] = exponentials(1 - 1 / ratio[short])
    value[short] = value[short] * brevity_penalty[short]
    return ScoredRows(value, value.copy(), precisions, brevity_penalty, ratio, 1)


def _powers(values: NDArray[np.float64], exponent: float) -> NDArray[np.float64]:
    """Python's ``x ** exponent`` of each value (the C library's pow, as the one-sum form takes it)."""
    return np.fromiter((value**exponent for value in values.tolist()), np.float64, len(values))
