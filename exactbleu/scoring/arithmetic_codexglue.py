"""CodeXGLUE's arithmetic: the smoothed BLEU-4 of its code-to-text evaluator (``score_cooked`` of
``evaluator.py``, after Moses's ``bleu.py``), operation for operation, so the floats are identical.

Each order's log precision is log(matches + s + m) - log(totals + s + m), where s is 1 from the
second order on (add-one smoothing) and m is ``sys.float_info.min`` (so an order with no unigram
match counts about -708, not minus infinity); their sum over the orders is divided by the number
of orders, the brevity penalty min(0, 1 - (r + 1) / (c + 1)) added, and the exponential taken.
The evaluator scores each example so and reports the mean, times 100 (``average="macro"``).
"""

import math
import sys

from ..options import Settings
from ..options.smoothing import CODEXGLUE, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = CODEXGLUE
METHODS = frozenset(methods_of(CODEXGLUE))
DENOMINATORS = False
_TINY = sys.float_info.min


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics (one example's, as the evaluator scores them)."""
    orders = settings.statistics.max_order
    log_bleu, precisions = 0.0, []
    for order, (matches, totals) in enumerate(zip(sums.matches[:orders], sums.totals[:orders])):
        smoothing = 1 if order > 0 else 0
        log_bleu += math.log(int(matches) + smoothing + _TINY) - math.log(int(totals) + smoothing + _TINY)
        precisions.append(100 * int(matches) / int(totals) if totals else 0.0)
    log_bleu /= float(orders)
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    brevity = min(0, 1 - float(reference + 1) / (length + 1))
    value = math.exp(log_bleu + brevity)
    return Scored(value, 100 * value, precisions, math.exp(brevity), length / reference if reference else 0.0, 100)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a row at a time)."""
    return rows_one_by_one(score, statistics, settings)
