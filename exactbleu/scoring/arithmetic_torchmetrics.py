"""torchmetrics' arithmetic: ``_bleu_score_compute`` of torchmetrics 1.9's BLEU (``BLEUScore``,
``SacreBLEUScore``, ``bleu_score``), with torch's own float32 operations in the same order
(``device.float32_scores``), so the floats are those torchmetrics computes on the CPU (a GPU's
float32 log and exp may differ in the last bit). torch is needed: its log and exp are not correctly
rounded, so no other library gives the same floats.

The counts are float32, as torchmetrics keeps them: below 2**24 (``limits.FLOAT32_WHOLE``) they
are exact, and from there on refused, where its sums may depend on the order it added them in. No
score where any order has no match (with ``smooth=True`` too); each precision matches / totals, or
with ``smooth=True`` (m + 1) / (t + 1) from the bigrams on; their logarithms weighted and summed,
the exponential taken; BP = 1 where c > r, else exp(1 - r / c).
"""

from ..limits import FLOAT32_WHOLE
from ..options import Settings
from ..options.smoothing import TORCH, TORCHMETRICS, methods_of
from ..sufficient_statistics import Statistics, Sums
from .common import Scored, ScoredRows, rows_one_by_one

NAME = TORCHMETRICS
METHODS = frozenset(methods_of(TORCHMETRICS))
DENOMINATORS = False


def score(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics: a corpus's, or one segment's."""
    if TORCH.missing():
        raise TORCH.error("torchmetrics' arithmetic")
    from ..device.float32_scores import torchmetrics_bleu, torchmetrics_brevity  # torch's own float32 operations

    orders = settings.statistics.max_order
    counts = [int(sums.prediction_length), int(sums.reference_length), *map(int, sums.matches[:orders]),
              *map(int, sums.totals[:orders])]
    if max(counts) >= FLOAT32_WHOLE:
        raise ValueError(f"torchmetrics counts in float32, where a count of {max(counts):,} (2**24 or more) may not be "
                         f"exact and its sums may depend on the order it added them in: it has no one number for these "
                         f"statistics; score fewer segments at a time")
    length, reference = counts[0], counts[1]
    ratio = length / reference if reference else 0.0
    if min(counts[2 : 2 + orders]) == 0:  # torchmetrics' 0, before its brevity penalty (which needs c > 0)
        precisions = [m / t if t else 0.0 for m, t in zip(counts[2 : 2 + orders], counts[2 + orders :])]
        return Scored(0.0, 0.0, precisions, torchmetrics_brevity(length, reference) if length else 0.0, ratio, 1)
    weights = settings.scoring.weight_set or [1.0 / orders] * orders
    smooth = settings.scoring.smooth_method == "torchmetrics-smooth"
    value, precisions, brevity_penalty = torchmetrics_bleu(counts, orders, weights, smooth)
    return Scored(value, value, precisions, brevity_penalty, ratio, 1)


def score_rows(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each row's score, as ``score`` gives it for that row alone (a row at a time)."""
    return rows_one_by_one(score, statistics, settings)
