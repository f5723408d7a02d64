"""fairseq's arithmetic: `Scorer.score` in fairseq/scoring/bleu.py (``--scoring bleu``), over the
counts its C library libbleu keeps, operation for operation, so the floats are identical.

Each order's precision is matches / totals, 0 for an order without n-grams; their logarithms are
summed, an order without a match counting minus infinity (so the score is 0), and the score is
BP * exp(sum / order) * 100, where BP = min(1, exp(1 - r / c)). No smoothing and no weights; libbleu
counts four orders. The ids it reads are trimmed first (``inputs.read_as_fairseq``).
"""

import math

from ..options import Settings
from ..options.smoothing import FAIRSEQ, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = FAIRSEQ
METHODS = frozenset(methods_of(FAIRSEQ))
DENOMINATORS = False


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics: a corpus's, or one segment's."""
    orders = settings.statistics.max_order
    precisions = [int(matches) / int(totals) if totals > 0 else 0.0
                  for matches, totals in zip(sums.matches[:orders], sums.totals[:orders])]
    log_sum = sum(math.log(precision) if precision > 0 else -math.inf for precision in precisions)
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    if length == 0:  # fairseq divides by it; its reading keeps every segment's first token, so only sums made so
        raise ValueError("fairseq's scorer divides by the prediction length, 0 in these statistics: it has no number "
                         "for them")
    brevity = min(1.0, math.exp(1 - reference / length))
    value = brevity * math.exp(log_sum / orders) * 100
    return Scored(value / 100, value, [100 * precision for precision in precisions], brevity,
                  length / reference if reference else 0.0, 100)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a row at a time)."""
    return rows_one_by_one(score, statistics, settings)
