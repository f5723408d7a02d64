"""``Sums``: summed statistics, what a score is a function of: a corpus's column sums, or one
segment's own row, read as the sums of a corpus of one."""

from collections.abc import Sequence
from typing import Any, NamedTuple


class Sums(NamedTuple):
    """Summed statistics, what a score is a function of. ``denominators`` are NLTK's: the sum over
    segments of max(1, total) per order (NLTK counts one possible n-gram for a hypothesis shorter
    than n). Counts are ints; in sacrebleu's resampling, matches and totals are float32 sums, as
    sacrebleu has them."""

    prediction_length: int
    reference_length: int
    matches: Sequence[Any]
    totals: Sequence[Any]
    denominators: Sequence[Any]

    @classmethod
    def of_row(cls, row: Sequence[int], orders: int) -> "Sums":
        """One segment's row (a list of ints) read as the sums of a corpus of one: what its
        sentence score is a function of."""
        totals = row[2 + orders : 2 + 2 * orders]
        return cls(row[0], row[1], row[2 : 2 + orders], totals, [total or 1 for total in totals])
