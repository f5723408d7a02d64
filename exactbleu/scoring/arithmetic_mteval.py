"""NIST's and Moses's mteval-v13a.pl and mteval-v14.pl: their BLEU arithmetic (``bleu_score``, and
``bleu_score_nosmoothing`` under ``--no-smoothing``), operation for operation.

BP = exp(min(0, 1 - r / c)), 0 where c is 0. Smoothed (their default): the k-th order with
n-grams but no match counts 1 / (2^k totals), an order without n-grams counts 1 (its logarithm 0),
and the score is exp(sum / orders) * BP. Unsmoothed: 0 where an order has no match, else
exp(sum / orders + log BP), in one exponential. They print it with four decimals.
"""

import math

from ..options import Settings
from ..options.smoothing import MTEVAL, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = MTEVAL
METHODS = frozenset(methods_of(MTEVAL))
DENOMINATORS = False
UNSMOOTHED = "mteval-no-smoothing"


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics (a system's, a document's or one segment's)."""
    orders = settings.statistics.max_order
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    penalty = min(0.0, 1 - reference / length) if length > 0 else -math.inf
    brevity_penalty = math.exp(penalty)
    ratio = length / reference if reference else 0.0
    total, halvings, precisions = 0.0, 1.0, list[float]()
    for matches, totals in zip(map(int, sums.matches[:orders]), map(int, sums.totals[:orders])):
        if settings.scoring.smooth_method == UNSMOOTHED:
            if matches == 0:
                return Scored(0.0, 0.0, [*precisions, *[0.0] * (orders - len(precisions))], brevity_penalty, ratio, 1)
            logarithm = math.log(matches / totals)
        elif totals == 0:
            logarithm = 0.0
        elif matches == 0:
            halvings *= 2
            logarithm = math.log(1 / (halvings * totals))
        else:
            logarithm = math.log(matches / totals)
        precisions.append(math.exp(logarithm))
        total += logarithm
    if settings.scoring.smooth_method == UNSMOOTHED:
        value = math.exp(total / orders + penalty)
    else:
        value = math.exp(total / orders) * brevity_penalty
    return Scored(value, value, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a segment's, as ``-d 2`` prints)."""
    return rows_one_by_one(score, statistics, settings)
