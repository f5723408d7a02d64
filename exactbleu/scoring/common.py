"""What every arithmetic shares: how a score is returned, for one sum or for many rows at once, and
the logarithms and exponentials of many rows.

Each arithmetic scores one sum (``score``) and many rows at once (``score_rows``, numpy over the
rows), and the two give the same floats bit for bit: the row form does the same IEEE operations in
the same order, and takes its logarithms and exponentials from the C library's ``math.log`` and
``math.exp``, as the one-sum form does (numpy's own may differ in the last bit on some CPUs).
"""

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, overload

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ..options import Settings
    from ..sufficient_statistics import Statistics, Sums


class Scored(NamedTuple):
    """One score as its arithmetic gives it: ``bleu`` on 0..1; ``value`` and ``precisions`` on the
    arithmetic's own ``scale`` (100 for sacrebleu's percent, 1 for HF's and NLTK's), as its
    significance tests compare them and sacrebleu prints them."""

    bleu: float
    value: float
    precisions: list[float]
    brevity_penalty: float
    length_ratio: float
    scale: int

    def percent(self) -> float:
        """``value`` on 0..100: sacrebleu's own score in its arithmetic, 100 times the others'."""
        return percent(self.value, self.scale)

    def percent_precisions(self) -> list[float]:
        """``precisions`` on 0..100, as ``percent`` gives the value."""
        return [percent(precision, self.scale) for precision in self.precisions]


@overload
def percent(value: float, scale: int) -> float: ...


@overload
def percent(value: NDArray[np.float64], scale: int) -> NDArray[np.float64]: ...


def percent(value: Any, scale: int) -> Any:
    """A value (or an array of them) on an arithmetic's ``scale`` (100 or 1), on 0..100: the one
    rule by which every face states a score in percent."""
    return (100 // scale) * value  # exact: 1 * value on sacrebleu's scale


class ScoredRows(NamedTuple):
    """Many rows' scores at once, each as ``Scored`` has it: arrays of one entry per row
    (``precisions``: one row of orders per row)."""

    bleu: NDArray[np.float64]
    value: NDArray[np.float64]
    precisions: NDArray[np.float64]
    brevity_penalty: NDArray[np.float64]
    length_ratio: NDArray[np.float64]
    scale: int

    def percents(self) -> NDArray[np.float64]:
        """Each row's ``value`` on 0..100 (see ``Scored.percent``)."""
        return percent(self.value, self.scale)

    def percent_precisions(self) -> NDArray[np.float64]:
        """Each row's ``precisions`` on 0..100."""
        return percent(self.precisions, self.scale)


def logarithms(values: NDArray[np.float64], where: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``math.log`` of ``values`` where ``where`` holds (0.0 elsewhere), taken once per distinct
    value: precisions are ratios of small counts, so a corpus has few distinct ones."""
    result = np.zeros(values.shape)
    wanted = values[where]
    if wanted.size:
        distinct, inverse = np.unique(wanted, return_inverse=True)
        result[where] = np.fromiter(map(math.log, distinct.tolist()), np.float64, len(distinct))[inverse]
    return result


def exponentials(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """``math.exp`` of each value of a 1-D array."""
    return np.fromiter(map(math.exp, values.tolist()), np.float64, len(values))


def brevity_ratio(prediction_length: NDArray[np.int64],
                  reference_length: NDArray[np.int64] | NDArray[np.float64]) -> NDArray[np.float64]:
    """c / r of each row where r > 0, as ``float(c) / r`` gives it (both exact in float64); 0.0
    elsewhere."""
    ratio: NDArray[np.float64] = np.divide(prediction_length, reference_length, out=np.zeros(len(prediction_length)),
                                           where=reference_length > 0)
    return ratio


def weight_array(weights: Sequence[float], orders: int) -> NDArray[np.float64]:
    """One weight set as an array over ``orders`` orders: a shorter set (one of several, as NLTK
    takes them) weighs the orders past its end 0, as zipping it with the precisions drops them."""
    return np.array(list(weights) + [0.0] * (orders - len(weights)), dtype=np.float64)


def rows_one_by_one(score: "Callable[[Sums, Settings], Scored]", statistics: "Statistics",
                    settings: "Settings") -> ScoredRows:
    """Each row's score by an arithmetic's one-sum form, a row at a time: equal to it by
    construction, for arithmetics whose scripts score corpora, so their rows are few."""
    scored = [score(sums, settings) for sums in statistics.segments()]
    bleu = np.array([one.bleu for one in scored], dtype=np.float64)
    values = np.array([one.value for one in scored], dtype=np.float64)
    precisions = np.array([one.precisions for one in scored]).reshape(-1, settings.statistics.max_order)
    return ScoredRows(bleu, values, precisions, np.array([one.brevity_penalty for one in scored]),
                      np.array([one.length_ratio for one in scored]), scored[0].scale if scored else 1)
