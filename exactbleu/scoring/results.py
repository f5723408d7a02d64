"""Results: statistics checked against the settings that score them, and the result dict, HF's
six keys and the extra keys the settings ask for (per-sentence scores, the bootstrap interval,
the signature). Every function of the API that returns a corpus result ends here.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..options import Settings, Signature, check_counted_with, check_micro, counted_orders, counted_with
from ..sufficient_statistics import Statistics, checked_vector
from . import macro_total, result_of_sums, scores_of_rows
from .significance import bootstrap_interval

Result = dict[str, Any]


def checked_statistics(statistics: Statistics, settings: Settings) -> Statistics:
    """Statistics that these settings can score: counted with as many orders, not empty."""
    if not isinstance(statistics, Statistics):
        raise TypeError(f"statistics must be the Statistics that exactbleu.statistics() returns, got "
                        f"{type(statistics).__name__}: {statistics!r:.80}")
    if len(statistics) == 0:
        raise ValueError("statistics is empty: BLEU needs at least one segment")
    if statistics.orders != counted_orders(settings):
        raise ValueError(f"statistics hold {statistics.orders} orders of matches and totals, but max_order is "
                         f"{settings.statistics.max_order} (these options count {counted_orders(settings)} orders); "
                         f"use the same options for both")
    check_counted_with(statistics.counted_with, settings)
    return statistics


def checked_vector_for(vector: object, settings: Settings) -> NDArray[np.int64]:
    """A summed statistics vector that these settings can score, or a ValueError naming what is wrong."""
    array = checked_vector(vector)
    orders = counted_orders(settings)
    if len(array) != Statistics.vector_length(orders):
        raise ValueError(f"the statistics vector holds {len(array)} numbers; with these options it holds "
                         f"{Statistics.vector_length(orders)} ({orders} orders): count and score with the same options")
    if Statistics.vector_counted_with(array, counted_with(settings)) is False:
        raise ValueError(f"the statistics vector was not counted with these settings "
                         f"({counted_with(settings).text()}): "
                         f"its {array[4]} part(s) were counted with other options, or with options that differ from "
                         f"part to part; count every part and score with the same options")
    return array


def result_of_statistics(statistics: Statistics, settings: Settings) -> Result:
    """The result dict of a corpus's statistics, with the extra keys the settings ask for."""
    result = result_of_sums(statistics.sums(), settings)
    macro = settings.scoring.average == "macro"
    scores = scores_of_rows(statistics, settings) if macro or settings.output.sentence_level else None
    if macro and scores is not None:  # each weight set's mean of sentence scores
        means = [macro_total(row) / len(statistics) for row in (scores if scores.ndim == 2 else [scores])]
        result["bleu"] = means if scores.ndim == 2 else means[0]
    if settings.output.sentence_level and scores is not None:
        result["sentence_bleu"] = scores.tolist()
    if settings.output.n_bootstrap:
        result["bleu_ci"] = bootstrap_interval(statistics, settings)
    if settings.output.signature:
        counts = set(statistics.references) if statistics.references is not None else set()
        result["signature"] = Signature(settings, counts.pop() if len(counts) == 1 else "var").format()
    return result


def result_of_vector(vector: NDArray[np.int64], settings: Settings) -> Result:
    """The result dict of a summed statistics vector."""
    output = settings.output
    for asked, key in ((output.sentence_level, "sentence_level"), (output.n_bootstrap, "n_bootstrap")):
        if asked:
            raise ValueError(f"{key} needs each segment's own statistics, which a summed vector does not hold: score "
                             f"the Statistics that exactbleu.statistics() returns (they add up with + too)")
    check_micro(settings, "a summed statistics vector")
    result = result_of_sums(Statistics.vector_sums(vector), settings)
    if settings.output.signature:
        result["signature"] = Signature(settings, Statistics.vector_references(vector)).format()
    return result
