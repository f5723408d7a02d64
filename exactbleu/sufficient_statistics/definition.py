"""One segment's row, by the definition: ``[prediction length, reference length, matches_1..
matches_N, totals_1..totals_N]`` (sacrebleu's layout), from the segment's tokens.

A prediction n-gram matches at most as often as it occurs in any single reference of its segment
(clipping); the totals count every n-gram position of the prediction; the reference length is the
shortest reference's (HF) or the closest one's (Papineni et al., sacrebleu, NLTK; a tie goes to the
shorter, or under "closest-first" to the first given, as in torchmetrics; for Self-BLEU, among all
the other texts). The counting engines give exactly these rows,
faster, and count a few segments with these functions.
"""

from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import NDArray


def reference_length(prediction_length: int, lengths: Sequence[int], ref_length: str) -> int:
    """The reference length for the brevity penalty: the shortest (HF), or the closest to the
    prediction's, a tie going to the shorter (Papineni et al., sacrebleu, NLTK) or, under
    "closest-first", to the first given (torchmetrics)."""
    if ref_length == "shortest" or len(lengths) == 1:
        return min(lengths)
    if ref_length == "closest-first":
        return min(lengths, key=lambda length: abs(length - prediction_length))  # min keeps the first of equals
    return min(lengths, key=lambda length: (abs(length - prediction_length), length))


def other_lengths(lengths: np.ndarray, values: np.ndarray, counts: np.ndarray, ref_length: str) -> np.ndarray:
    """Each text's reference length among the others, from the histogram of every text's length
    (``values`` sorted, ``counts`` how many texts have each): the shortest, or the closest, a tie
    going to the shorter."""
    own = np.searchsorted(values, lengths)
    if ref_length == "shortest":
        alone_at_least = (own == 0) & (counts[0] == 1)
        return np.where(alone_at_least, values[np.minimum(1, len(values) - 1)], values[0])
    shared = counts[own] > 1
    below = np.where(own > 0, values[np.maximum(own - 1, 0)], -1)
    above = np.where(own + 1 < len(values), values[np.minimum(own + 1, len(values) - 1)], -1)
    down = np.where(below >= 0, lengths - below, np.iinfo(np.int64).max)
    up = np.where(above >= 0, above - lengths, np.iinfo(np.int64).max)
    return np.where(shared, lengths, np.where(down <= up, below, above))


def segment_row(prediction: Sequence[Hashable], references: Sequence[Sequence[Hashable]], max_order: int,
                ref_length: str = "shortest") -> list[int]:
    """One segment's row from its tokens, by the definition (any hashable tokens: str or bytes)."""
    length = len(prediction)
    totals = _totals(length, max_order)
    return [length, reference_length(length, list(map(len, references)), ref_length),
            *segment_matches(prediction, references, max_order, totals), *totals]


def _totals(length: int, max_order: int) -> list[int]:
    """How many n-grams of each order a prediction of this length holds."""
    return [length - n if length > n else 0 for n in range(max_order)]


def totals_of(lengths: NDArray[np.int64], orders: int) -> NDArray[np.int64]:
    """``_totals`` of many predictions at once: shape (predictions, orders)."""
    totals: NDArray[np.int64] = np.maximum(lengths[:, None] - np.arange(orders), 0)
    return totals


def segment_matches(prediction: Sequence[Hashable], references: Sequence[Sequence[Hashable]], max_order: int,
                    totals: list[int] | None = None) -> list[int]:
    """The clipped matches of each order: each n-gram of the prediction matches at most as often
    as it occurs in any single reference.

    An n-gram that occurs once in the prediction matches once if any reference holds it, so one
    set difference counts all of those. Only an n-gram that occurs more than once is clipped by
    its count: at most as often as one reference holds it."""
    totals = totals or _totals(len(prediction), max_order)
    matched = [0] * max_order
    # The n-grams of a token list are the tuples of its n first shifted copies.
    shifted = [prediction[start:] for start in range(max_order)]
    reference_shifted = [[reference[start:] for start in range(max_order)] for reference in references]
    for n in range(1, max_order + 1):
        unmatched = set(zip(*shifted[:n]) if n > 1 else prediction)
        distinct = len(unmatched)
        for copies in reference_shifted:
            unmatched.difference_update(zip(*copies[:n]) if n > 1 else copies[0])
        matches = distinct - len(unmatched)
        if not matches:
            break  # no longer n-gram can match either
        if distinct < totals[n - 1]:  # an n-gram occurs more than once: clip it by its count
            grams = list(zip(*shifted[:n])) if n > 1 else prediction
            seen: set[Hashable] = set()
            repeated: set[Hashable] = set()  # each one seen before
            for gram in grams:
                if gram in seen:
                    repeated.add(gram)
                else:
                    seen.add(gram)
            repeated.difference_update(unmatched)
            if repeated:
                reference_grams = [list(zip(*copies[:n])) if n > 1 else copies[0] for copies in reference_shifted]
                for count, most in _repeated_counts(repeated, grams, reference_grams):
                    matches += (count if count < most else most) - 1
        matched[n - 1] = matches
    return matched


def _repeated_counts(repeated: set[Hashable], grams: Sequence[Hashable],
                     reference_grams: list[Sequence[Hashable]]) -> list[tuple[int, int]]:
    """For each repeated n-gram: how often the prediction holds it, and the most times one
    reference does. list.count is the fastest for a short segment (with counters, the 8-segment
    benchmark row was measured 5-10% slower), but it takes time in proportion to the repeated
    n-grams times the tokens, so a long segment is counted once per side instead."""
    if len(repeated) * (len(grams) + sum(map(len, reference_grams))) <= 10_000:
        if len(reference_grams) == 1:
            reference = reference_grams[0]
            return [(grams.count(gram), reference.count(gram)) for gram in repeated]
        return [(grams.count(gram), max([reference.count(gram) for reference in reference_grams]))
                for gram in repeated]
    predicted, most = Counter(grams), dict.fromkeys(repeated, 0)
    for reference in reference_grams:
        for gram, count in Counter(reference).items():
            if count > most.get(gram, count):
                most[gram] = count
    return [(predicted[gram], most[gram]) for gram in repeated]
