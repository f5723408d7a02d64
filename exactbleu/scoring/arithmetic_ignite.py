"""pytorch-ignite's arithmetic: ``Bleu`` of ``ignite.metrics.nlp`` (0.5.5), operation for
operation, so the floats are identical.

No score where the corpus has no unigram match; unsmoothed (``no_smooth``), none where any order
has no match. Each precision is its smoothing method's (ignite's names): ``no_smooth`` divides by
the totals, at least 1, through their reciprocal, as torch divides a float by a tensor (in float32
for one example, whose counts ignite keeps in float32); ``smooth1`` gives an order without a match
0.1 over its totals; ``nltk_smooth2`` and ``smooth2`` add 1 to matches and totals from the bigrams
on. The weighted logarithms are summed with ``math.fsum``; BP = exp(1 - r / c) where c < r.
"""

import math

import numpy as np

from ..options import Settings
from ..options.smoothing import IGNITE, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = IGNITE
METHODS = frozenset(methods_of(IGNITE))
DENOMINATORS = False


def _precisions(matches: list[int], totals: list[int], method: str, sentence: bool) -> list[float]:
    """Each order's precision under ignite's smoothing method."""
    if method == "ignite-smooth1":
        return [m / max(1, t) if m != 0 else 0.1 / max(1, t) for m, t in zip(matches, totals)]
    if method in ("ignite-nltk-smooth2", "ignite-smooth2"):
        low = 1 if method == "ignite-nltk-smooth2" else 0
        return [(m + 1) / (max(low, t) + 1) if order else m / max(low, t)
                for order, (m, t) in enumerate(zip(matches, totals))]
    # no_smooth: a float divided by a tensor is, in torch, the tensor's reciprocal times the float:
    # in float32 for one example (ignite's sentence counts are float32 tensors), else in float64.
    if sentence:
        return [float(np.float32(1) / np.float32(t) * np.float32(m)) if t > 1 else float(m) for m, t in
                zip(matches, totals)]
    return [(1 / t) * m if t > 1 else float(m) for m, t in zip(matches, totals)]


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics: a corpus's (``average="micro"``), or one example's."""
    orders = settings.statistics.max_order
    matches = [int(m) for m in sums.matches[:orders]]
    totals = [int(t) for t in sums.totals[:orders]]
    method = str(settings.scoring.smooth_method)
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    ratio = length / reference if reference else 0.0
    brevity_penalty = (math.exp(1 - reference / length) if length > 0 else 0.0) if length < reference else 1.0
    if matches[0] == 0 or (method == "ignite-no-smooth" and min(matches) == 0):
        return Scored(0.0, 0.0, [m / max(1, t) for m, t in zip(matches, totals)], brevity_penalty, ratio, 1)
    precisions = _precisions(matches, totals, method, settings.scoring.average == "macro")
    weight = 1 / orders
    value = brevity_penalty * math.exp(math.fsum(weight * math.log(p) for p in precisions))
    return Scored(value, value, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a row at a time)."""
    return rows_one_by_one(score, statistics, settings)
