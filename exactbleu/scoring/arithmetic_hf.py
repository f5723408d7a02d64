"""HF's arithmetic: Hugging Face's ``bleu`` (tensorflow/nmt's ``compute_bleu``), operation for
operation, so the floats are identical.

``smooth`` adds one to matches and totals at every order (Lin & Och, 2004), any zero precision
makes the geometric mean 0, BP = exp(1 - 1/ratio) when ratio <= 1, and an empty side gives 0.0 for
bleu, BP and ratio (with ``ref_length="closest"``, an empty closest reference gives BP 1, as the
paper has it). ``weights`` and ``effective_order`` are NLTK's and sacrebleu's, on these precisions.
"""

import math

import numpy as np

from ..options import Settings
from ..options.smoothing import HF
from ..sufficient_statistics import ExpectedRows, Statistics, Sums
from .common import Scored, ScoredRows, brevity_ratio, exponentials, logarithms, weight_array

NAME = HF
METHODS: frozenset[str] = frozenset()  # HF's arithmetic has no smoothing method, only `smooth`
DENOMINATORS = False


def _effective_order(totals: list[int], settings: Settings) -> int:
    """sacrebleu's effective order: the orders up to the last one with any n-gram at all."""
    if not settings.scoring.effective_order:
        return settings.statistics.max_order
    return sum(1 for total in totals if total > 0)


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics."""
    translation_length, ref_length = int(sums.prediction_length), int(sums.reference_length)
    matches, totals = list(map(int, sums.matches)), list(map(int, sums.totals))
    if settings.scoring.smooth:
        precisions = [(m + 1.0) / (t + 1.0) for m, t in zip(matches, totals)]
    else:
        precisions = [float(m) / t if t > 0 else 0.0 for m, t in zip(matches, totals)]

    order = _effective_order(totals, settings)
    given = settings.scoring.weight_set
    # A precision of 0 makes the mean 0; the weighted logarithms are added in order, as the
    # definition's sum adds them. With effective order and no n-gram at all, no order is averaged.
    if given is None:
        weight = 1.0 / order if order else 0.0
        logs = [weight * math.log(p) for p in precisions[:order] if p > 0]
        averaged = order
    else:  # an order of weight 0 does not enter the mean (p ** 0 is 1), as in NLTK
        used = [(w, p) for w, p in zip(given, precisions[:order]) if w > 0]
        logs = [w * math.log(p) for w, p in used if p > 0]
        averaged = len(used)
    geometric_mean = math.exp(sum(logs)) if averaged and len(logs) == averaged else 0.0

    if translation_length == 0 or (ref_length == 0 and settings.statistics.ref_length == "shortest"):
        # HF's guard: nothing to divide by, so no ratio and no penalty, where HF itself would divide
        # by zero. HF only ever takes the shortest reference.
        ratio = brevity_penalty = 0.0
    elif ref_length == 0:
        # The closest reference is empty: BP is 1 because c > r, as in Papineni et al., NLTK and
        # sacrebleu; the ratio is 0.0, as sacrebleu reports it.
        ratio, brevity_penalty = 0.0, 1.0
    else:
        ratio = float(translation_length) / ref_length
        brevity_penalty = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    bleu = geometric_mean * brevity_penalty
    return Scored(bleu, bleu, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics | ExpectedRows, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone."""
    matches, totals = statistics.matches, statistics.totals
    max_order = settings.statistics.max_order
    if settings.scoring.smooth:
        precisions = (matches + 1.0) / (totals + 1.0)
    else:
        precisions = np.divide(matches, totals, out=np.zeros(matches.shape), where=totals > 0)

    if settings.scoring.effective_order:
        order = (totals > 0).sum(axis=1)
    else:
        order = np.full(len(statistics), max_order)
    orders = np.arange(max_order)
    given = settings.scoring.weight_set
    if given is None:
        weights = np.divide(1.0, order, out=np.zeros(len(order)), where=order > 0)[:, None] * np.ones(max_order)
        used = orders < order[:, None]
    else:
        weights = np.broadcast_to(weight_array(given, max_order), matches.shape)
        used = (weights > 0) & (orders < order[:, None])
    averaged = used.any(axis=1) & ~(used & (precisions <= 0)).any(axis=1)
    logs = logarithms(precisions, used & averaged[:, None])
    total = np.zeros(len(statistics))
    for n in range(max_order):  # in order, as Python's sum adds them
        total = np.where(used[:, n], total + weights[:, n] * logs[:, n], total)
    geometric_mean = np.zeros(len(statistics))
    geometric_mean[averaged] = exponentials(total[averaged])

    translation_length, ref_length = statistics.prediction_length, statistics.reference_length
    ratio = brevity_ratio(translation_length, ref_length)
    brevity_penalty = np.ones(len(statistics))
    short = (ratio <= 1.0) & (ratio > 0)
    brevity_penalty[short] = exponentials(1 - 1.0 / ratio[short])
    empty = (translation_length == 0) | ((ref_length == 0) & (settings.statistics.ref_length == "shortest"))
    brevity_penalty[empty] = 0.0
    ratio[empty] = 0.0
    bleu = geometric_mean * brevity_penalty
    return ScoredRows(bleu, bleu, precisions, brevity_penalty, ratio, 1)
