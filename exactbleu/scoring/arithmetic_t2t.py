"""tensor2tensor's arithmetic: ``compute_bleu`` of its ``bleu_hook.py`` (what ``t2t-bleu`` and
``bleu_wrapper`` score with), operation for operation, so the floats are identical.

Smoothing is always on: the k-th order with n-grams but no match counts 1 / (2^k totals); an order
without n-grams is left out of the sum of logarithms, which is still divided by the number of
orders (so it counts as a precision of 1). BP = exp(1 - 1 / (c / r)) where c < r, 0 where c is 0,
1 where r is 0. The score is rounded to a float32, as ``compute_bleu`` returns it.
"""

import math

import numpy as np

from ..options import Settings
from ..options.smoothing import T2T, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = T2T
METHODS = frozenset(methods_of(T2T))
DENOMINATORS = False


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics (a corpus's, or one segment's alone)."""
    orders = settings.statistics.max_order
    precisions, halvings = [0.0] * orders, 1.0
    for order, (matches, totals) in enumerate(zip(sums.matches[:orders], sums.totals[:orders])):
        if totals > 0:
            if matches > 0:
                precisions[order] = int(matches) / int(totals)
            else:
                halvings *= 2
                precisions[order] = 1.0 / (halvings * int(totals))
    geometric_mean = 0.0
    if max(precisions) > 0:
        geometric_mean = math.exp(sum(math.log(p) for p in precisions if p) / orders)
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    brevity_penalty, ratio = 1.0, length / reference if reference else 0.0
    if reference:
        if ratio <= 0.0:
            brevity_penalty = 0.0
        elif ratio < 1.0:
            brevity_penalty = math.exp(1 - 1.0 / ratio)
    value = float(np.float32(geometric_mean * brevity_penalty))
    return Scored(value, value, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (one row at a time: tensor2tensor
    scores corpora, so its rows are few)."""
    return rows_one_by_one(score, statistics, settings)
