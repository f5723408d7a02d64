"""Scoring: summed statistics become the result dict, in one of three arithmetics.

Every function here is pure: a function of ``statistics.Sums`` and the settings. A corpus score is
the score of the corpus's sums, a sentence score that of one segment's, and a bootstrap sample's
that of its resampled sums.
"""

import dataclasses
import fractions
import math
import sys
from typing import Callable, Dict, List, NamedTuple

from .sufficient_statistics import Statistics, Sums

SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
# NLTK's SmoothingFunction methods (Chen & Cherry, 2014, as NLTK states them), with its defaults:
# epsilon 0.1 for method1 (smooth_value sets it), alpha 5 for method6, k 5 for method4 and 7.
# method0 is NLTK's own name for no smoothing, the "nltk" preset's default.
NLTK_SMOOTHING = {f"method{number}": (0.1 if number == 1 else None) for number in range(0, 8)}
# NLTK's methods 5 and 7 read each segment's 5-gram precision, whatever the order: the rows
# count through order 5 for them (see `options.counted_orders`).
NLTK_FIFTH_ORDER = {"method5", "method7"}
_NLTK_ALPHA, _NLTK_K = 5, 5


class Scored(NamedTuple):
    """One score as its arithmetic gives it: ``bleu`` on 0..1; ``value`` and ``precisions`` on the
    arithmetic's own ``scale`` (100 for sacrebleu's percent, 1 for HF's and NLTK's), as its
    significance tests compare them and sacrebleu prints them."""

    bleu: float
    value: float
    precisions: List[float]
    brevity_penalty: float
    length_ratio: float
    scale: int


def arithmetic(settings) -> Callable[..., Scored]:
    """The one place that chooses the arithmetic from the settings: HF's (no ``smooth_method``),
    NLTK's (its ``method0`` to ``method7``) or sacrebleu's (its four methods). Corpus scores,
    sentence scores, every resample of the significance tests and the command line all score
    through it."""
    method = settings.scoring.smooth_method
    if method is None:
        return _score_tensorflow_nmt
    if method in NLTK_SMOOTHING:
        return _score_nltk
    return _score_sacrebleu


def on_percent_scale(settings) -> bool:
    """Whether the settings' arithmetic states its scores on 0..100 (sacrebleu's)."""
    return arithmetic(settings) is _score_sacrebleu


def scored(sums: Sums, settings) -> Scored:
    """The score of summed statistics under one weight set (see ``score``)."""
    return arithmetic(settings)(sums, settings)


def score(sums: Sums, settings) -> Dict[str, object]:
    """The result of summed statistics: a segment's, or a corpus's (``settings``: ``options.Settings``).

    Three arithmetic conventions, each kept operation for operation so the floats are identical:

    - ``smooth_method=None`` is HF's ``bleu`` (tensorflow/nmt): ``smooth`` adds one to matches
      and totals at every order (Lin & Och, 2004), any zero precision makes the geometric mean 0,
      BP = exp(1 - 1/ratio) when ratio <= 1, and an empty side gives 0.0 for bleu, BP and ratio
      (with ``ref_length="closest"``, an empty closest reference gives BP 1, as the paper has it).
    - a ``smooth_method`` is sacrebleu's ``compute_bleu``: precisions in percent, Chen & Cherry
      (2014) smoothing, BP = exp(1 - r/c), and ``bleu`` = sacrebleu's score / 100.
    - an NLTK method (``"method1"`` ...) is NLTK's ``corpus_bleu``/``sentence_bleu`` with that
      ``SmoothingFunction`` method. NLTK divides each segment's matches by max(1, total): the
      sums' ``denominators``.

    With several weight sets (``weights`` a tuple of tuples), ``bleu`` is a list: one score each.
    """
    if several_weight_sets(settings):
        scores = [score(sums, dataclasses.replace(settings, scoring=dataclasses.replace(settings.scoring, weights=one)))
                  for one in settings.scoring.weights]
        return {**scores[0], "bleu": [one["bleu"] for one in scores]}
    result = scored(sums, settings)
    return {
        "bleu": result.bleu,
        "precisions": [precision / result.scale for precision in result.precisions],
        "brevity_penalty": result.brevity_penalty,
        "length_ratio": result.length_ratio,
        "translation_length": int(sums.prediction_length),
        "reference_length": int(sums.reference_length),
    }


def _effective_order(totals, settings):
    """sacrebleu's effective order: the orders up to the last one with any n-gram at all."""
    if not settings.scoring.effective_order:
        return settings.statistics.max_order
    return sum(1 for total in totals if total > 0)


def _score_tensorflow_nmt(sums, settings):
    translation_length, ref_length = int(sums.prediction_length), int(sums.reference_length)
    matches, totals = [int(value) for value in sums.matches], [int(value) for value in sums.totals]
    if settings.scoring.smooth:
        precisions = [(m + 1.0) / (t + 1.0) for m, t in zip(matches, totals)]
    else:
        precisions = [float(m) / t if t > 0 else 0.0 for m, t in zip(matches, totals)]

    order = _effective_order(totals, settings)
    if settings.scoring.weights is None:
        # With effective order and no n-gram at all, no order is averaged: the mean is 0 below.
        weights = [1.0 / order] * order if order else []
    else:
        weights = settings.scoring.weights
    # An order of weight 0 does not enter the mean (p ** 0 is 1), as in NLTK.
    used = [(w, p) for w, p in zip(weights, precisions[:order]) if w > 0]
    if used and min(p for _, p in used) > 0:
        geometric_mean = math.exp(sum(w * math.log(p) for w, p in used))
    else:
        geometric_mean = 0.0

    if translation_length == 0 or (ref_length == 0 and settings.statistics.ref_length == "shortest"):
        # HF's guard (evaluate issue 601). HF only ever takes the shortest reference.
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


def _score_sacrebleu(sums, settings):
    # Matches and totals stay as given: ints, or float32 in sacrebleu's resampling, whose
    # arithmetic sacrebleu_percent then follows.
    score, percents, brevity_penalty, ratio = sacrebleu_percent(int(sums.prediction_length), int(sums.reference_length),
                                                                sums.matches, sums.totals, settings)
    if settings.scoring.weights is not None:  # NLTK's weights on sacrebleu's precisions: not on percentages
        used = [(w, p / 100) for w, p in zip(settings.scoring.weights, percents) if w > 0]
        bleu = 0.0 if min(p for _, p in used) == 0 else brevity_penalty * math.exp(sum(w * math.log(p) for w, p in used))
        score = 100 * bleu
    else:
        # exp(log(100)) is 100.00000000000004, so a perfect score would come out a few ulps above 1:
        # BLEU is at most 1.
        bleu = min(1.0, score / 100)
    return Scored(bleu, score, percents, brevity_penalty, ratio, 100)


def sacrebleu_percent(translation_length, ref_length, matches, totals, settings):
    """sacrebleu's ``compute_bleu``, operation for operation, on its 0-100 scale: (score,
    precisions in percent, brevity penalty, ratio). The lengths are ints; matches and totals may
    be ints or, as in sacrebleu's resampling, float32 numbers, whose arithmetic it then follows.
    (sacrebleu has no weights: the score is uniform over the orders.)"""
    method, max_order = settings.scoring.smooth_method, settings.statistics.max_order
    value = settings.scoring.smooth_value
    ratio = translation_length / ref_length if ref_length else 0.0
    brevity_penalty = 1.0
    if translation_length < ref_length:
        brevity_penalty = math.exp(1 - ref_length / translation_length) if translation_length > 0 else 0.0

    percents = [0.0] * max_order
    if not any(matches):  # sacrebleu's early exit (its issue 141)
        return 0.0, percents, brevity_penalty, ratio
    order = max_order
    halvings = 1.0
    for n in range(1, max_order + 1):
        correct, total = matches[n - 1], totals[n - 1]
        if method == "add-k" and n > 1:
            correct, total = correct + value, total + value
        if total == 0:
            break
        if settings.scoring.effective_order:
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
        score = brevity_penalty * math.exp(sum([math.log(p) for p in used]) / order)
    return score, percents, brevity_penalty, ratio


def _score_nltk(sums, settings):
    translation_length, ref_length = int(sums.prediction_length), int(sums.reference_length)
    matches, totals = [int(value) for value in sums.matches], [int(value) for value in sums.totals]
    denominators = [int(value) for value in sums.denominators]
    method, order = settings.scoring.smooth_method, settings.statistics.max_order
    ratio = translation_length / ref_length if ref_length else 0.0
    if translation_length > ref_length:
        brevity_penalty = 1.0
    elif translation_length == 0:
        brevity_penalty = 0.0
    else:
        brevity_penalty = math.exp(1 - ref_length / translation_length)
    # NLTK keeps each precision as an unreduced fraction; method2 adds one to both of its terms.
    precisions = [fractions.Fraction(m, d) for m, d in zip(matches[:order], denominators)]
    if matches[0] == 0:  # NLTK returns 0 before it smooths
        return Scored(0.0, 0.0, [float(p) for p in precisions], brevity_penalty, ratio, 1)
    halvings = 1
    for n, (m, d) in enumerate(zip(matches[:order], denominators)):
        if method == "method1" and m == 0:
            precisions[n] = (m + settings.scoring.smooth_value) / d
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
    if method in NLTK_FIFTH_ORDER:
        # Each order averages the one before (already averaged; order 1 counts one more), itself
        # and the next, where the next after the last is the 5-gram precision, whatever the order.
        after = precisions + [fractions.Fraction(matches[4], denominators[4])]
        previous = precisions[0] + 1
        for n in range(order):
            precisions[n] = previous = (previous + after[n] + after[n + 1]) / 3
    if method == "method0":
        # NLTK's method0 stands sys.float_info.min in for a precision of 0, so that the score is
        # tiny (about 1e-78 at four even weights) but not 0; with an uneven weight it can be large.
        precisions_in_mean = [p if p > 0 else sys.float_info.min for p in precisions]
    else:
        precisions_in_mean = precisions
    weights = settings.scoring.weights or (1 / order,) * order
    bleu = brevity_penalty * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions_in_mean) if p > 0))
    return Scored(bleu, bleu, [float(p) for p in precisions], brevity_penalty, ratio, 1)


def score_corpus(statistics: Statistics, settings) -> Dict[str, object]:
    """The result of a corpus: the score of its summed statistics."""
    return score(statistics.sums(), settings)


def for_sentences(settings):
    """The settings of a per-sentence score: the corpus's, but with the effective order that
    per-sentence scores take (``scoring.sentence_effective_order``: sacrebleu's ``sentence_bleu``
    turns it on, so its preset does; ``options.resolve_settings`` states the rule)."""
    scoring = settings.scoring
    if scoring.effective_order == scoring.sentence_effective_order:
        return settings
    return dataclasses.replace(settings, scoring=dataclasses.replace(
        scoring, effective_order=scoring.sentence_effective_order))


def sentence_scores(statistics: Statistics, settings) -> list:
    """Each segment's BLEU, from its own statistics, with the corpus score's settings made
    per-sentence (``for_sentences``); with several weight sets, one such list per set."""
    settings = for_sentences(settings)
    scores = [score(sums, settings)["bleu"] for sums in statistics.segments()]
    if several_weight_sets(settings):
        return [list(column) for column in zip(*scores)]
    return scores


def several_weight_sets(settings) -> bool:
    """Whether the weights are several sets, as NLTK's corpus_bleu takes them: a score for each."""
    weights = settings.scoring.weights
    return weights is not None and isinstance(weights[0], tuple)


def weight_sets(settings) -> tuple:
    """The weight sets: one, or several."""
    return settings.scoring.weights if several_weight_sets(settings) else (settings.scoring.weights,)
