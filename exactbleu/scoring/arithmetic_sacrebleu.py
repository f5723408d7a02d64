"""sacrebleu's arithmetic: its ``compute_bleu``, operation for operation, on its 0-100 scale.

Precisions in percent, Chen & Cherry (2014) smoothing (``none``, ``floor``, ``add-k``, ``exp``),
BP = exp(1 - r/c). The score on its own scale (``value``) is sacrebleu's ``.score``, float for float;
``bleu`` = min(1, score / 100), the one float that dividing by 100 gives, capped at 1 (a perfect
match scores 100.00000000000004 in sacrebleu). NLTK's ``weights`` apply to its precisions
(sacrebleu itself has none).
"""

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..options import Settings
from ..options.smoothing import SACREBLEU, methods_of
from ..sufficient_statistics import ExpectedRows, Statistics, Sums
from .common import Scored, ScoredRows, brevity_ratio, exponentials, logarithms, weight_array

NAME = SACREBLEU
METHODS = frozenset(methods_of(SACREBLEU))  # each one's formula is in sacrebleu_percent and score_rows
DENOMINATORS = False


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics."""
    # Matches and totals stay as given: ints, or float32 in sacrebleu's resampling, whose
    # arithmetic sacrebleu_percent then follows.
    value, percents, brevity_penalty, ratio = sacrebleu_percent(int(sums.prediction_length), int(sums.reference_length),
                                                                sums.matches, sums.totals, settings)
    weights = settings.scoring.weight_set
    if weights is not None:  # NLTK's weights on sacrebleu's precisions: not on percentages
        used = [(w, p / 100) for w, p in zip(weights, percents) if w > 0]
        bleu = (0.0 if min(p for _, p in used) == 0
                else brevity_penalty * math.exp(sum(w * math.log(p) for w, p in used)))
        value = 100 * bleu
    else:
        # exp(log(100)) is 100.00000000000004, so a perfect score would come out a few ulps above 1:
        # BLEU is at most 1.
        bleu = min(1.0, value / 100)
    return Scored(bleu, value, percents, brevity_penalty, ratio, 100)


def sacrebleu_percent(translation_length: int, ref_length: int, matches: Sequence[Any], totals: Sequence[Any],
                      settings: Settings) -> tuple[float, list[float], float, float]:
    """sacrebleu's ``compute_bleu``, operation for operation, on its 0-100 scale: (score,
    precisions in percent, brevity penalty, ratio). The lengths are ints; matches and totals may
    be ints or, as in sacrebleu's resampling, float32 numbers, whose arithmetic it then follows.
    (sacrebleu has no weights: the score is uniform over the orders.)"""
    method, max_order = settings.scoring.smooth_method, settings.statistics.max_order
    value = cast(float, settings.scoring.smooth_value)  # None only where the method reads none
    ratio = translation_length / ref_length if ref_length else 0.0
    brevity_penalty = 1.0
    if translation_length < ref_length:
        brevity_penalty = math.exp(1 - ref_length / translation_length) if translation_length > 0 else 0.0

    percents = [0.0] * max_order
    if not any(matches):  # sacrebleu's early exit: no smoothing method credits a corpus with no match
        return 0.0, percents, brevity_penalty, ratio
    order, effective = max_order, settings.scoring.effective_order
    halvings = 1.0
    for n in range(1, max_order + 1):
        correct, total = matches[n - 1], totals[n - 1]
        if method == "add-k" and n > 1:
            correct, total = correct + value, total + value
        if total == 0:
            break
        if effective:
            order = n
        if correct == 0:
            if method == "exp":
                halvings *= 2
                percents[n - 1] = 100.0 / (halvings * total)
            elif method == "floor":
                percents[n - 1] = 100.0 * value / total
        else:
            percents[n - 1] = 100.0 * correct / total

    used = percents[:order]
    if min(used) == 0:
        # sacrebleu takes log(0) as -9999999999, which makes its score exactly 0.0.
        score = 0.0
    else:
        score = brevity_penalty * math.exp(sum(map(math.log, used)) / order)
    return score, percents, brevity_penalty, ratio


def score_rows(statistics: Statistics | ExpectedRows, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone."""
    method, max_order = settings.scoring.smooth_method, settings.statistics.max_order
    value = cast(float, settings.scoring.smooth_value)  # None only where the method reads none
    rows = len(statistics)
    matches, totals = statistics.matches[:, :max_order], statistics.totals[:, :max_order]
    translation_length, ref_length = statistics.prediction_length, statistics.reference_length
    ratio = brevity_ratio(translation_length, ref_length)
    brevity_penalty = np.ones(rows)
    short = translation_length < ref_length
    brevity_penalty[short & (translation_length == 0)] = 0.0
    shorter = np.flatnonzero(short & (translation_length > 0))
    brevity_penalty[shorter] = exponentials(1 - ref_length[shorter] / translation_length[shorter])

    percents = np.zeros((rows, max_order))
    matched = matches.any(axis=1)  # sacrebleu's early exit: no match at all scores 0
    counting = matched.copy()  # False from the first order without n-grams on: sacrebleu's break
    order, halvings = np.full(rows, max_order), np.ones(rows)
    correct: NDArray[Any]  # ints, or floats with add-k's value
    total: NDArray[Any]
    for n in range(max_order):
        correct, total = matches[:, n], totals[:, n]
        if method == "add-k" and n > 0:
            correct, total = correct + value, total + value
        counting &= total != 0
        if settings.scoring.effective_order:
            order = np.where(counting, n + 1, order)
        missed = counting & (correct == 0)
        if method == "exp":
            halvings = np.where(missed, halvings * 2, halvings)
            percents[missed, n] = 100.0 / (halvings[missed] * total[missed])
        elif method == "floor":
            percents[missed, n] = 100.0 * value / total[missed]
        hit = counting & (correct != 0)
        percents[hit, n] = 100.0 * correct[hit] / total[hit]

    used = np.arange(max_order) < order[:, None]
    scored = matched & ~(used & (percents == 0)).any(axis=1)  # log(0) makes sacrebleu's score 0.0
    logs = logarithms(percents, used & scored[:, None])
    summed = np.zeros(rows)
    for n in range(max_order):  # in order, as Python's sum adds them
        summed = np.where(used[:, n], summed + logs[:, n], summed)
    score = np.zeros(rows)
    score[scored] = brevity_penalty[scored] * exponentials(summed[scored] / order[scored])

    if (given := settings.scoring.weight_set) is not None:
        weights = weight_array(given, max_order)
        precisions = percents / 100
        weighted = weights > 0
        positive = ~(precisions[:, weighted] == 0).any(axis=1)
        logs = logarithms(precisions, positive[:, None] & weighted)
        summed = np.zeros(rows)
        for m in np.flatnonzero(weighted):
            summed = summed + weights[m] * logs[:, m]
        bleu = np.zeros(rows)
        bleu[positive] = brevity_penalty[positive] * exponentials(summed[positive])
        score = 100 * bleu
    else:
        bleu = np.minimum(1.0, score / 100)
    return ScoredRows(bleu, score, percents, brevity_penalty, ratio, 100)
