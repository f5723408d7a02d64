"""Sufficient statistics: all that BLEU needs of a segment, as one row of integers.

A segment's row is ``[prediction length, reference length, matches_1..matches_N, totals_1..totals_N]``
(sacrebleu's layout). A prediction n-gram matches at most as often as it occurs in any single
reference of its segment (clipping); the totals count every n-gram position of the prediction; the
reference length is the shortest reference's (HF) or the closest one's (Papineni et al., sacrebleu,
NLTK; a tie goes to the shorter). ``segment_row`` states that definition; the counting engines give
exactly its rows, faster.

Rows add up: the corpus score is a function of the column sums, so any split of a corpus
(batches, processes, machines) sums to the same numbers. ``Statistics`` owns the layout: nothing
else indexes its columns.

Rows mean something only under the settings that counted them: the same corpus lowercased, or
with another tokenizer, gives other rows. So statistics carry those settings (``CountedWith``),
parts counted differently refuse to add up, and scoring under other settings is refused.
"""

import hashlib
import itertools
from collections import Counter
from typing import Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np


def reference_length(prediction_length: int, lengths: Sequence[int], ref_length: str) -> int:
    """The reference length for the brevity penalty: the shortest (HF), or the closest to the
    prediction's, a tie going to the shorter (Papineni et al., sacrebleu, NLTK)."""
    if ref_length == "shortest":
        return min(lengths)
    return min(lengths, key=lambda length: (abs(length - prediction_length), length))


def segment_row(prediction: Sequence, references: Sequence[Sequence], max_order: int,
                ref_length: str = "shortest") -> List[int]:
    """One segment's row from its tokens, by the definition (any hashable tokens: str or bytes)."""
    length = len(prediction)
    totals = _totals(length, max_order)
    return ([length, reference_length(length, list(map(len, references)), ref_length)]
            + segment_matches(prediction, references, max_order, totals) + totals)


def _totals(length: int, max_order: int) -> List[int]:
    """How many n-grams of each order a prediction of this length holds."""
    return [length - n if length > n else 0 for n in range(max_order)]


def segment_matches(prediction: Sequence, references: Sequence[Sequence], max_order: int,
                    totals: Optional[List[int]] = None) -> List[int]:
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
        unmatched.difference_update(*(zip(*copies[:n]) if n > 1 else copies[0] for copies in reference_shifted))
        matches = distinct - len(unmatched)
        if distinct < totals[n - 1]:  # an n-gram occurs more than once: clip it by its count
            grams = list(zip(*shifted[:n])) if n > 1 else prediction
            seen = set()
            repeated = {gram for gram in grams if gram in seen or seen.add(gram)}  # each one seen before
            repeated.difference_update(unmatched)
            if repeated:
                reference_grams = [list(zip(*copies[:n])) if n > 1 else copies[0] for copies in reference_shifted]
                matches += sum(min(count, most) - 1 for count, most in _repeated_counts(repeated, grams, reference_grams))
        if not matches:
            break  # no longer n-gram can match either
        matched[n - 1] = matches
    return matched


def _repeated_counts(repeated, grams, reference_grams):
    """For each repeated n-gram: how often the prediction holds it, and the most times one
    reference does. list.count is the fastest for a short segment (with counters, the 8-segment
    benchmark row was measured 5-10% slower), but it takes time in proportion to the repeated
    n-grams times the tokens, so a long segment is counted once per side instead."""
    if len(repeated) * (len(grams) + sum(map(len, reference_grams))) <= 10_000:
        return [(grams.count(gram), max(reference.count(gram) for reference in reference_grams)) for gram in repeated]
    predicted, most = Counter(grams), dict.fromkeys(repeated, 0)
    for reference in reference_grams:
        for gram, count in Counter(reference).items():
            if count > most.get(gram, count):
                most[gram] = count
    return [(predicted[gram], most[gram]) for gram in repeated]


def rows_of(prediction_lengths: np.ndarray, reference_lengths: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """The rows of segments from their lengths and clipped matches (shape (segments, orders)); the
    totals follow from the prediction lengths."""
    orders = matches.shape[1]
    totals = np.maximum(prediction_lengths[:, None] - np.arange(orders), 0)
    return np.column_stack([prediction_lengths, reference_lengths, matches, totals]).astype(np.int64, copy=False)


class CountedWith(NamedTuple):
    """The settings that decide a corpus's statistics rows: the tokenizer by its signature name
    (which names the ``moses`` language and the SentencePiece model), lowercasing, right-stripping,
    the reference length and how many orders are counted."""

    tokenizer: str
    lowercase: bool
    rstrip: bool
    ref_length: str
    orders: int

    def text(self) -> str:
        """One line that names every field, as a column of statistics stores it."""
        return "|".join(f"{name}={value}" for name, value in zip(self._fields, self))

    @classmethod
    def from_text(cls, text: str) -> "CountedWith":
        """The settings that ``text()`` wrote, or a ValueError naming the text."""
        try:
            fields = dict(field.split("=", 1) for field in text.split("|"))
            return cls(fields["tokenizer"], fields["lowercase"] == "True", fields["rstrip"] == "True",
                       fields["ref_length"], int(fields["orders"]))
        except (KeyError, ValueError, AttributeError):
            raise ValueError(f"statistics column 'counted_with' must hold the settings that counted the rows, as "
                             f"statistics() writes them, got {text!r:.120}") from None

    def code(self) -> int:
        """A number from 1 to 2**31 - 1 that stands for these settings in a summed vector, the same
        in every process and on every machine."""
        digest = hashlib.blake2b(self.text().encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big") % (2**31 - 1) + 1

    def difference(self, other: "CountedWith") -> Tuple[str, str]:
        """The first setting where these differ from ``other``, as "name=this" and "name=that"."""
        for name, mine, theirs in zip(self._fields, self, other):
            if mine != theirs:
                return f"{name}={mine!r}", f"{name}={theirs!r}"
        return "", ""


class Sums(NamedTuple):
    """Summed statistics, what a score is a function of. ``denominators`` are NLTK's: the sum over
    segments of max(1, total) per order (NLTK counts one possible n-gram for a hypothesis shorter
    than n)."""

    prediction_length: int
    reference_length: int
    matches: List[int]
    totals: List[int]
    denominators: List[int]


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

    __slots__ = ("_rows", "orders", "references", "counted_with")

    def __init__(self, rows: Union[np.ndarray, List[List[int]]], orders: int,
                 references: Optional[Sequence[int]] = None, counted_with: Optional[CountedWith] = None):
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
        for other in counted[1:]:
            if other != counted[0]:
                first, second = counted[0].difference(other)
                raise ValueError(f"statistics counted with different settings do not add up: one part was counted "
                                 f"with {first}, another with {second}; count every part with the same options")
        references = None
        if all(part.references is not None for part in parts):
            references = list(itertools.chain.from_iterable(part.references for part in parts))
        return cls(np.concatenate([part.array for part in parts]), orders.pop(), references,
                   counted[0] if counted else None)

    @classmethod
    def from_columns(cls, prediction_length: np.ndarray, reference_length: np.ndarray, matches: np.ndarray,
                     totals: np.ndarray, references: Optional[Sequence[int]] = None,
                     counted_with: Optional[CountedWith] = None) -> "Statistics":
        """Statistics from named columns (``matches`` and ``totals`` of shape (segments, orders))."""
        rows = np.column_stack([prediction_length, reference_length, matches, totals]).astype(np.int64, copy=False)
        return cls(rows, matches.shape[1], references, counted_with)

    @property
    def array(self) -> np.ndarray:
        """The rows as an int64 array of shape (segments, 2 + 2 * orders)."""
        if isinstance(self._rows, np.ndarray):
            return self._rows
        return np.array(self._rows, dtype=np.int64).reshape(len(self._rows), 2 + 2 * self.orders)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index) -> "Statistics":
        references = None if self.references is None else np.asarray(self.references)[index].reshape(-1).tolist()
        return Statistics(self.array[index].reshape(-1, 2 + 2 * self.orders), self.orders, references,
                          self.counted_with)

    def __add__(self, other: "Statistics") -> "Statistics":
        if not isinstance(other, Statistics):
            return NotImplemented
        return Statistics.concatenate([self, other])

    def __radd__(self, other) -> "Statistics":
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def __eq__(self, other) -> bool:
        return (isinstance(other, Statistics) and other.orders == self.orders
                and other.counted_with == self.counted_with and np.array_equal(self.array, other.array))

    def __repr__(self) -> str:
        return f"Statistics({len(self)} segments, {self.orders} orders)"

    @property
    def prediction_length(self) -> np.ndarray:
        return self.array[:, 0]

    @property
    def reference_length(self) -> np.ndarray:
        return self.array[:, 1]

    @property
    def matches(self) -> np.ndarray:
        """Clipped matches, shape (segments, orders)."""
        return self.array[:, 2 : 2 + self.orders]

    @property
    def totals(self) -> np.ndarray:
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
            yield self._sums(row, [total or 1 for total in row[2 + self.orders :]])

    def _sums(self, columns, denominators) -> Sums:
        orders = self.orders
        return Sums(columns[0], columns[1], columns[2 : 2 + orders], columns[2 + orders : 2 + 2 * orders], denominators)

    def columns(self, denominators: bool = False) -> np.ndarray:
        """Each segment's row, and with ``denominators`` its NLTK denominators: what the paired
        tests resample and sum (see ``sums_of``)."""
        return np.column_stack([self.array, np.maximum(self.totals, 1)]) if denominators else self.array

    def sums_of(self, columns: Sequence) -> Sums:
        """Sums read from a sum of ``columns()`` rows (ints, or float32 in sacrebleu's bootstrap);
        without denominators there, NLTK's arithmetic cannot score them."""
        orders = self.orders
        return Sums(columns[0], columns[1], columns[2 : 2 + orders], columns[2 + orders : 2 + 2 * orders],
                    columns[2 + 2 * orders :])

    def vector(self) -> np.ndarray:
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
    def vector_sums(vector: np.ndarray) -> Sums:
        """The sums that a vector holds (see ``vector``)."""
        values = [int(value) for value in vector[_VECTOR_HEAD:]]
        orders = (len(values) - 2) // 3
        return Sums(values[0], values[1], values[2 : 2 + orders], values[2 + orders : 2 + 2 * orders],
                    values[2 + 2 * orders :])

    @staticmethod
    def vector_references(vector: np.ndarray):
        """How many references every segment has, or "var" when they differ (Cauchy-Schwarz: n times
        the sum of squares equals the squared sum exactly when all counts are equal)."""
        segments, references, squares = (int(value) for value in vector[:3])
        return references // segments if segments * squares == references * references else "var"

    @staticmethod
    def vector_counted_with(vector: np.ndarray, counted_with: CountedWith) -> Optional[bool]:
        """Whether every part of a summed vector was counted with these settings; None when every
        part was made by hand, so nothing is known."""
        code, parts = int(vector[3]), int(vector[4])
        if code == 0:
            return None
        return code == counted_with.code() * parts

    def as_dict(self) -> dict:
        """The rows as columns of lists, as ``datasets`` stores them."""
        array = self.array
        columns = {"prediction_length": array[:, 0].tolist(), "reference_length": array[:, 1].tolist(),
                   "matches": self.matches.tolist(), "totals": self.totals.tolist()}
        if self.references is not None:
            columns["references"] = list(self.references)
        if self.counted_with is not None:
            columns["counted_with"] = [self.counted_with.text()] * len(self)
        return columns
