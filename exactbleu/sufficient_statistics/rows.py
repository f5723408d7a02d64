"""``Statistics``: a corpus's rows (``definition`` states one), which add up. The corpus score is a
function of the column sums, so any split of a corpus (batches, processes, machines) sums to the
same numbers. ``Statistics`` owns the layout: nothing else indexes its columns. ``vector()`` is
the fixed-length sum that processes add up, read back here, checked.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .columns import checked_columns
from .counted_with import CountedWith, corpus_fingerprint, whole_corpus_error
from .definition import totals_of
from .sums import Sums

_VECTOR_HEAD = 5  # segments, references, references squared, settings code times parts, parts


class Statistics:
    """The statistics rows of a corpus, one per segment, counting ``orders`` n-gram orders.

    ``a + b`` holds the segments of both (so ``score(a + b)`` is the score of the whole, and
    ``sum(parts)`` works too), a slice or an index array takes some segments, and ``sums()`` gives
    what the corpus score needs. ``vector()`` is the fixed-length sum that processes add up.
    ``counted_with`` names the settings that counted the rows (None for rows made by hand, which
    any settings may score). A few segments are kept as int lists, which cost less than an array
    to make and read.
    """

    __slots__ = ("_rows", "counted_with", "orders", "references")

    def __init__(self, rows: NDArray[np.int64] | list[list[int]], orders: int,
                 references: Sequence[int] | None = None, counted_with: CountedWith | None = None):
        self._rows = rows
        self.orders = orders
        self.references = references  # how many references each segment has, for the signature
        self.counted_with = counted_with

    @classmethod
    def concatenate(cls, parts: Sequence["Statistics"]) -> "Statistics":
        """The segments of every part, in order; the parts must be counted with the same settings."""
        orders = {part.orders for part in parts}
        if len(orders) != 1:
            raise ValueError(f"statistics of different orders {sorted(orders)} do not add up: count them with the "
                             f"same max_order (or weights) and smoothing method")
        counted = [part.counted_with for part in parts if part.counted_with is not None]
        if len(parts) > 1:
            _one_corpus(counted, "add up with others")
        for other in counted[1:]:
            if other != counted[0]:
                first, second = counted[0].difference(other)
                raise ValueError(f"statistics counted with different settings do not add up: one part was counted "
                                 f"with {first}, another with {second}; count every part with the same options")
        references: list[int] | None = None
        if all(part.references is not None for part in parts):
            references = [count for part in parts for count in part.references or ()]
        return cls(np.concatenate([part.array for part in parts]), orders.pop(), references,
                   counted[0] if counted else None)

    @classmethod
    def from_columns(cls, prediction_length: NDArray[np.int64], reference_length: NDArray[np.int64],
                     matches: NDArray[np.int64],
                     totals: NDArray[np.int64], references: Sequence[int] | None = None,
                     counted_with: CountedWith | None = None) -> "Statistics":
        """Statistics from named columns (``matches`` and ``totals`` of shape (segments, orders))."""
        rows = np.column_stack([prediction_length, reference_length, matches, totals]).astype(np.int64, copy=False)
        return cls(rows, matches.shape[1], references, counted_with)

    @classmethod
    def of_lengths(cls, prediction_length: NDArray[np.int64], reference_length: NDArray[np.int64],
                   matches: NDArray[np.int64], references: Sequence[int] | None = None,
                   counted_with: CountedWith | None = None) -> "Statistics":
        """Statistics from each segment's lengths and clipped matches (shape (segments, orders)):
        the totals follow from the prediction lengths."""
        return cls.from_columns(prediction_length, reference_length, matches,
                                totals_of(prediction_length, matches.shape[1]), references, counted_with)

    @property
    def array(self) -> NDArray[np.int64]:
        """The rows as an int64 array of shape (segments, 2 + 2 * orders)."""
        if isinstance(self._rows, np.ndarray):
            return self._rows
        return np.array(self._rows, dtype=np.int64).reshape(len(self._rows), 2 + 2 * self.orders)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: int | slice | NDArray[Any] | Sequence[int]) -> "Statistics":
        _one_corpus([self.counted_with], "be cut into parts")
        references = None if self.references is None else np.asarray(self.references)[index].reshape(-1).tolist()
        return Statistics(self.array[index].reshape(-1, 2 + 2 * self.orders), self.orders, references,
                          self.counted_with)

    def distinct(self) -> tuple["Statistics", NDArray[np.int64]]:
        """The distinct rows (a score is a function of its row: each is then scored once) and where
        each row is among them. Each row is packed into one int64 key, a column at a time; when the
        next column would not fit, the keys so far are replaced by their ranks, which take few bits.
        Sorting keys is several times faster than sorting rows."""
        rows = self.array
        if not len(rows):
            return self, np.zeros(0, dtype=np.int64)
        if rows.min() < 0:  # no count is negative, but rows read back could hold anything
            _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
            return self[first], inverse.reshape(-1)
        key, used = np.zeros(len(rows), dtype=np.int64), 0
        for column, top in enumerate(rows.max(axis=0).tolist()):
            width = int(top).bit_length()
            if used + width > 63:
                key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
                used = int(key.max()).bit_length()
            key, used = (key << width) | rows[:, column], used + width
        _, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.reshape(-1)
        first = np.empty(int(inverse.max()) + 1, dtype=np.int64)
        first[inverse] = np.arange(len(rows))  # a row of each key: equal keys, equal rows
        return self[first], inverse

    def __add__(self, other: "Statistics") -> "Statistics":
        if not isinstance(other, Statistics):
            return NotImplemented
        return Statistics.concatenate([self, other])

    def __radd__(self, other: object) -> "Statistics":
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def first_orders(self, orders: int) -> "Statistics":
        """The rows of the first ``orders`` n-gram orders: what counting with that ``max_order`` gives
        (an order's n-grams do not depend on higher ones), so they score under such settings."""
        if isinstance(orders, bool) or not isinstance(orders, int) or not 1 <= orders <= self.orders:
            raise ValueError(f"orders must be from 1 to the {self.orders} these statistics count, got {orders!r}")
        array = self.array
        rows = np.column_stack([array[:, :2 + orders], array[:, 2 + self.orders : 2 + self.orders + orders]])
        counted = None if self.counted_with is None else self.counted_with._replace(orders=orders, corpus="")
        return Statistics(rows, orders, self.references, counted).sealed()

    def sealed(self) -> "Statistics":
        """The rows of one whole corpus, marked as such where their settings decide which
        references count by the whole corpus (``CountedWith.corpus``): stored and read back, they
        score only whole (``from_dict`` checks the mark)."""
        counted = self.counted_with
        if counted is None or not counted.whole_corpus() or self.references is None:
            return self
        mark = corpus_fingerprint(self.prediction_length, self.reference_length, self.matches, self.totals,
                                  np.asarray(self.references, dtype=np.int64))
        return Statistics(self._rows, self.orders, self.references, counted._replace(corpus=mark))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Statistics) and other.orders == self.orders
                and other.counted_with == self.counted_with and np.array_equal(self.array, other.array))

    def __repr__(self) -> str:
        return f"Statistics({len(self)} segments, {self.orders} orders)"

    @property
    def prediction_length(self) -> NDArray[np.int64]:
        return self.array[:, 0]

    @property
    def reference_length(self) -> NDArray[np.int64]:
        return self.array[:, 1]

    @property
    def matches(self) -> NDArray[np.int64]:
        """Clipped matches, shape (segments, orders)."""
        return self.array[:, 2 : 2 + self.orders]

    @property
    def totals(self) -> NDArray[np.int64]:
        """n-gram positions of each prediction, shape (segments, orders)."""
        return self.array[:, 2 + self.orders :]

    def sums(self) -> Sums:
        """The column sums, and NLTK's denominators."""
        if isinstance(self._rows, np.ndarray):
            columns = self._rows.sum(axis=0).tolist()
            denominators = np.maximum(self.totals, 1).sum(axis=0).tolist()
        else:
            columns = list(zip(*self._rows))
            denominators = [sum(total or 1 for total in column) for column in columns[2 + self.orders :]]
            columns = list(map(sum, columns))
        return self._sums(columns, denominators)

    def segments(self) -> Iterator[Sums]:
        """Each segment's own sums, in order (a sentence score is a score of these)."""
        rows = self._rows.tolist() if isinstance(self._rows, np.ndarray) else self._rows
        for row in rows:
            yield Sums.of_row(row, self.orders)

    def _sums(self, columns: Sequence[Any], denominators: Sequence[Any]) -> Sums:
        orders = self.orders
        return Sums(columns[0], columns[1], columns[2 : 2 + orders], columns[2 + orders : 2 + 2 * orders], denominators)

    def columns(self, denominators: bool = False) -> NDArray[np.int64]:
        """Each segment's row, and with ``denominators`` its NLTK denominators: what the paired
        tests resample and sum (see ``sums_of``)."""
        return np.column_stack([self.array, np.maximum(self.totals, 1)]) if denominators else self.array

    def sums_of(self, columns: Sequence[Any]) -> Sums:
        """Sums read from a sum of ``columns()`` rows (ints, or float32 in sacrebleu's bootstrap);
        without denominators there, NLTK's arithmetic cannot score them."""
        orders = self.orders
        return Sums(columns[0], columns[1], columns[2 : 2 + orders], columns[2 + orders : 2 + 2 * orders],
                    columns[2 + 2 * orders :])

    def vector(self) -> NDArray[np.int64]:
        """The corpus's statistics as one fixed-length 1-D int64 array that adds up with ``+``:
        what ``torch.distributed.all_reduce``, Dask or Ray sum over shards, and ``score`` reads.

        ``[segments, references, references squared, settings code, parts, prediction length,
        reference length, matches per order, totals per order, NLTK's denominators per order]``:
        the reference counts (the number of references, and the sum of their squares) tell whether
        every segment has as many, for the signature; the settings code (``CountedWith.code``, 0
        for rows made by hand) and the number of parts let a sum prove that every part was counted
        with the same settings: its code is then exactly that code times its parts. The
        denominators are what NLTK's arithmetic needs.
        """
        if self.references is None:
            raise ValueError("these statistics do not know how many references each segment has: take them "
                             "from exactbleu.statistics()")
        _one_corpus([self.counted_with], "be summed as vectors")
        references = np.asarray(self.references, dtype=np.int64)
        sums = self.sums()
        code = 0 if self.counted_with is None else self.counted_with.code()
        return np.array([len(self), references.sum(), (references * references).sum(), code, 1,
                         sums.prediction_length, sums.reference_length, *sums.matches, *sums.totals,
                         *sums.denominators], dtype=np.int64)

    @staticmethod
    def vector_length(orders: int) -> int:
        """How many numbers a vector of this many orders holds."""
        return _VECTOR_HEAD + 2 + 3 * orders

    @staticmethod
    def vector_orders(length: int) -> int | None:
        """How many orders a vector of this length holds, or None where no vector has its length."""
        orders, rest = divmod(length - _VECTOR_HEAD - 2, 3)
        return orders if orders >= 1 and rest == 0 else None

    @classmethod
    def from_dict(cls, columns: Mapping[str, Any]) -> "Statistics":
        """Statistics from the columns that ``as_dict`` gives (a dict, or a ``datasets.Dataset``),
        checked where they enter (see ``columns``)."""
        checked = checked_columns(columns)
        return cls.from_columns(checked.prediction_length, checked.reference_length, checked.matches, checked.totals,
                                checked.references.tolist(), checked.counted_with)

    @classmethod
    def from_dicts(cls, parts: Sequence[Mapping[str, Sequence[Any]]]) -> "Statistics":
        """Statistics from several ``as_dict`` outputs in order (a harness's per-sample values, say),
        their columns joined and checked once."""
        if not parts:
            raise ValueError("no statistics to join: no sample was given")
        columns: dict[str, list[Any]] = {name: [] for name in parts[0]}
        for part in parts:
            if part.keys() != columns.keys():
                raise ValueError(f"every part must hold the same columns: {sorted(part)} against {sorted(columns)}")
            for name, values in part.items():
                columns[name].extend(values)
        return cls.from_dict(columns)

    @staticmethod
    def vector_sums(vector: NDArray[np.int64]) -> Sums:
        """The sums that a vector holds (see ``vector``)."""
        values = [int(value) for value in vector[_VECTOR_HEAD:]]
        orders = (len(values) - 2) // 3
        return Sums(values[0], values[1], values[2 : 2 + orders], values[2 + orders : 2 + 2 * orders],
                    values[2 + 2 * orders :])

    @staticmethod
    def vector_references(vector: NDArray[np.int64]) -> int | str:
        """How many references every segment has, or "var" when they differ (Cauchy-Schwarz: n times
        the sum of squares equals the squared sum exactly when all counts are equal)."""
        segments, references, squares = (int(value) for value in vector[:3])
        return references // segments if segments * squares == references * references else "var"

    @staticmethod
    def vector_counted_with(vector: NDArray[np.int64], counted_with: CountedWith) -> bool | None:
        """Whether every part of a summed vector was counted with these settings; None when every
        part was made by hand, so nothing is known."""
        code, parts = int(vector[3]), int(vector[4])
        if code == 0:
            return None
        return code == counted_with.code() * parts

    def as_dict(self) -> dict[str, list[Any]]:
        """The rows as columns of lists, as ``datasets`` stores them."""
        columns: dict[str, list[Any]] = {"prediction_length": self.prediction_length.tolist(),
                                         "reference_length": self.reference_length.tolist(),
                                         "matches": self.matches.tolist(), "totals": self.totals.tolist()}
        if self.references is not None:
            columns["references"] = list(self.references)
        if self.counted_with is not None:
            columns["counted_with"] = [self.counted_with.text()] * len(self)
        return columns


def _one_corpus(counted: Sequence[CountedWith | None], what: str) -> None:
    """A ValueError where statistics were counted keeping as many references as the segment with the
    fewest has: that number is the whole corpus's, so its statistics cannot ``what``."""
    if any(one is not None and one.whole_corpus() for one in counted):
        raise whole_corpus_error(f"cannot {what}")


def checked_vector(vector: object) -> NDArray[np.int64]:
    """A summed statistics vector (``Statistics.vector``, summed over parts) as int64, checked: a
    1-D integer array of a vector's length, of non-negative counts of at least one segment with at
    least one reference each, its matches at most its totals and its totals at most its
    denominators; else a TypeError or ValueError that says what is wrong."""
    if not isinstance(vector, np.ndarray) and hasattr(vector, "ndim") and hasattr(vector, "tolist"):
        try:  # a tensor on any device, say, as torch.distributed.all_reduce sums it
            vector = vector.tolist()
        except (RuntimeError, NotImplementedError, ValueError, TypeError) as error:
            raise TypeError(f"statistics must be a summed vector of Statistics.vector() whose values can be read, "
                            f"got a {type(vector).__name__} that cannot list them ({error})") from None
    array = np.asarray(vector)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or (array.dtype == object and len(array) == 0)):
        raise TypeError(f"statistics must be the Statistics from exactbleu.statistics(), or the 1-D integer vector "
                        f"of Statistics.vector(), got {type(vector).__name__}: {vector!r:.80}")
    if Statistics.vector_orders(len(array)) is None:
        raise ValueError(f"the statistics vector holds {len(array)} numbers, which no vector of Statistics.vector() "
                         f"holds: sum the vectors of statistics counted with the same options")
    array = array.astype(np.int64)
    if (array < 0).any() or array[0] < 1 or array[1] < array[0] or array[4] < 1:
        raise ValueError(f"the statistics vector must hold non-negative counts of at least one segment with at "
                         f"least one reference each, got {array.tolist()!r:.200}")
    sums = Statistics.vector_sums(array)
    if any(m > t for m, t in zip(sums.matches, sums.totals)) or \
            any(t > d for t, d in zip(sums.totals, sums.denominators)):
        raise ValueError("the statistics vector's matches exceed its totals, or its totals its denominators: it "
                         "is not a sum of Statistics.vector()s")
    return array
