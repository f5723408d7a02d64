"""Expected rows: a prediction against a distribution of references rather than one (DeNero et al.,
2009). Each reference n-gram's count is its expected count over the references, so the clipped
matches and the reference length are fractions; the prediction's side stays whole. The same
arithmetic scores them as it scores whole rows."""

import numpy as np
from numpy.typing import NDArray

from .counted_with import CountedWith
from .definition import totals_of


class ExpectedRows:
    """Per prediction: its length and totals per order (ints), its clipped matches against the
    expected reference counts and the expected reference length (floats)."""

    __slots__ = ("counted_with", "matches", "prediction_length", "reference_length", "totals")

    def __init__(self, prediction_length: NDArray[np.int64], reference_length: NDArray[np.float64],
                 matches: NDArray[np.float64], totals: NDArray[np.int64], counted_with: CountedWith):
        self.prediction_length, self.reference_length = prediction_length, reference_length
        self.matches, self.totals, self.counted_with = matches, totals, counted_with

    @classmethod
    def of_lengths(cls, prediction_length: NDArray[np.int64], reference_length: NDArray[np.float64],
                   matches: NDArray[np.float64], counted_with: CountedWith) -> "ExpectedRows":
        """Expected rows from each prediction's length, its expected reference length and its
        clipped matches (shape (predictions, orders)): the totals follow from the prediction lengths."""
        return cls(prediction_length, reference_length, matches, totals_of(prediction_length, matches.shape[1]),
                   counted_with)

    def __len__(self) -> int:
        return len(self.prediction_length)
