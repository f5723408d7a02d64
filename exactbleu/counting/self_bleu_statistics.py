"""Self-BLEU's statistics, in time linear in the n-grams where the definition,
``sentence_bleu(texts[i], texts[:i] + texts[i + 1:])`` for each i, is quadratic (Zhu et al., 2018,
Texygen). Each n-gram's two largest counts over the texts clip every text's count (``clipped``);
the other texts' lengths are all the lengths but one of this text's own, read from the histogram
(``sufficient_statistics.other_lengths``). Both merge exactly across shards
(``SelfBleuStatistics``: each n-gram's two largest counts, by a key that spells the n-gram out,
and the histogram), so a corpus too big for one machine gets its exact Self-BLEU from its shards.
"""

from typing import NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from ..sufficient_statistics import CountedWith, Statistics, other_lengths
from .ngrams import Tokens, Where, ngram_counts


class TopCounts(NamedTuple):
    """One order's (text, n-gram) counts (see ``ngrams.Counts``), and each n-gram's two largest
    counts over the texts."""

    text: NDArray[np.int64]
    gram: NDArray[np.int64]
    count: NDArray[np.int64]  # type: ignore[assignment]  # the field shadows tuple.count, as it does at runtime
    where: Where | None
    top: NDArray[np.int64]
    second: NDArray[np.int64]


def _orders(tokens: Tokens, orders: int, where: bool = False, threads: int = 1) -> list[TopCounts]:
    """Each order's (text, n-gram) counts with the n-gram's two largest counts over the texts (and
    with ``where``, where each n-gram starts, to spell it out), counted in up to ``threads``."""
    result = []
    for order in ngram_counts(tokens, orders, where, threads):
        if not len(order.gram):
            result.append(TopCounts(*order, order.count, order.count))
            continue
        # The pairs come sorted by n-gram: each n-gram's pairs are a run.
        new = np.concatenate(([True], order.gram[1:] != order.gram[:-1]))
        starts, group = np.flatnonzero(new), np.cumsum(new) - 1
        top = np.maximum.reduceat(order.count, starts)
        at_top = order.count == top[group]
        # Two texts at the top: the second largest count is the top too; else the largest of the rest.
        rest = np.maximum.reduceat(np.where(at_top, 0, order.count), starts)
        second = np.where(np.add.reduceat(at_top, starts) > 1, top, rest)
        result.append(TopCounts(*order, top[group], second[group]))
    return result


def clipped(count: np.ndarray, top: np.ndarray, second: np.ndarray) -> np.ndarray:
    """How often a text's n-gram matches the others: its count below the top, else the second.

    A text's n-gram matches at most as often as the other text that holds it most. Over all the
    texts, let c1 be an n-gram's largest count and c2 its second largest (equal to c1 when two
    texts share the top). A text holding it c < c1 times is clipped by a c1 held by another text,
    so it matches c times; a text holding it c1 times is clipped by the largest among the others,
    c2. Each n-gram's two largest counts are enough."""
    return np.where(count < top, count, second)


def rows_against_the_others(tokens: Tokens, orders: int, ref_length: str, counted_with: CountedWith,
                    threads: int = 1) -> Statistics:
    """Each text's statistics row against all the others, in linear time (in up to ``threads``)."""
    texts = len(tokens.lengths)
    matches = np.zeros((texts, orders), dtype=np.int64)
    for n, order in enumerate(_orders(tokens, orders, threads=threads)):
        matches[:, n] = np.bincount(order.text, weights=clipped(order.count, order.top, order.second),
                                    minlength=texts)
    values, counts = np.unique(tokens.lengths, return_counts=True)
    reference = other_lengths(tokens.lengths, values, counts, ref_length)
    return Statistics.of_lengths(tokens.lengths, reference, matches, [texts - 1] * texts, counted_with)


class SelfBleuStatistics:
    """What Self-BLEU needs of a corpus, in a form that adds up across shards: for each order,
    every n-gram (spelled out, so that keys agree between machines) with its two largest counts
    over the texts, and the histogram of the texts' lengths. ``a + b`` is the statistics of both
    shards together. ``in_key_order`` says whether each order's n-grams are sorted by their keys,
    as ``rows_of`` searches them: a sum's are, one shard's are sorted when first searched."""

    def __init__(self, grams: list[tuple[np.ndarray, np.ndarray, np.ndarray]], lengths: dict[int, int],
                 counted_with: CountedWith, in_key_order: bool = False):
        self.grams, self.lengths, self.counted_with = grams, lengths, counted_with
        self.in_key_order = in_key_order

    @classmethod
    def of(cls, tokens: Tokens, orders: int, counted_with: CountedWith, threads: int = 1) -> "SelfBleuStatistics":
        """The Self-BLEU statistics of a corpus (or of a shard of it) up to ``orders`` orders, in the
        order of the n-grams' numbers (their keys' order costs a sort of the spelled keys, which
        summing shards makes anyway)."""
        grams = []
        for n, order in enumerate(_orders(tokens, orders, True, threads), start=1):
            _distinct, where = np.unique(order.gram, return_index=True)
            keys = _spelled(tokens, cast(Where, order.where)(where), n)  # set: counted with where=True
            grams.append((keys, order.top[where], order.second[where]))
        values, counts = np.unique(tokens.lengths, return_counts=True)
        return cls(grams, dict(zip(values.tolist(), counts.tolist())), counted_with)

    def _in_key_order(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each order's n-grams sorted by their keys (one shard's, sorted once: the order of their
        numbers is not their spellings')."""
        if not self.in_key_order:
            grams = []
            for keys, top, second in self.grams:
                by_key = np.argsort(keys, kind="stable")
                grams.append((keys[by_key], top[by_key], second[by_key]))
            self.grams, self.in_key_order = grams, True
        return self.grams

    def __add__(self, other: "SelfBleuStatistics") -> "SelfBleuStatistics":
        if not isinstance(other, SelfBleuStatistics):
            return NotImplemented
        if other.counted_with != self.counted_with:
            ours, theirs = self.counted_with.difference(other.counted_with)
            raise ValueError(f"Self-BLEU statistics counted with different settings do not add up: one with {ours}, "
                             f"the other with {theirs}")
        grams = []
        for (keys, top, second), (other_keys, other_top, other_second) in zip(self.grams, other.grams):
            every = np.concatenate([keys, other_keys])
            distinct, group = np.unique(every, return_inverse=True)
            group = group.reshape(-1)
            counts = np.concatenate([top, other_top, second, other_second])
            owners = np.concatenate([group, group])
            order = np.lexsort((-counts, owners))
            starts = np.searchsorted(owners[order], np.arange(len(distinct)))
            grams.append((distinct, counts[order][starts], counts[order][starts + 1]))
        lengths = dict(self.lengths)
        for length, count in other.lengths.items():
            lengths[length] = lengths.get(length, 0) + count
        return SelfBleuStatistics(grams, lengths, self.counted_with, in_key_order=True)

    def __radd__(self, other: object) -> "SelfBleuStatistics":
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def __len__(self) -> int:
        """How many texts the statistics count."""
        return sum(self.lengths.values())

    def rows_of(self, tokens: Tokens, ref_length: str) -> Statistics:
        """The statistics rows of some of the corpus's texts (a shard of it) against all the others."""
        texts, orders = len(tokens.lengths), len(self.grams)
        matches = np.zeros((texts, orders), dtype=np.int64)
        counted = _orders(tokens, orders, where=True)
        for n, (order, (keys, top, second)) in enumerate(zip(counted, self._in_key_order()), start=1):
            if not len(order.text):
                continue
            _distinct, where, back = np.unique(order.gram, return_index=True, return_inverse=True)
            spelled = _spelled(tokens, cast(Where, order.where)(where), n)  # set: counted with where=True
            found = np.searchsorted(keys, spelled)
            found = np.minimum(found, len(keys) - 1)
            if not (len(keys) and (keys[found] == spelled).all()):
                raise ValueError("these texts hold an n-gram that the corpus's Self-BLEU statistics do not: give the "
                                 "statistics of the whole corpus, these texts included")
            place = found[back.reshape(-1)]
            matches[:, n - 1] = np.bincount(order.text, weights=clipped(order.count, top[place], second[place]),
                                            minlength=texts)
        values = np.array(sorted(self.lengths), dtype=np.int64)
        counts = np.array([self.lengths[value] for value in values.tolist()], dtype=np.int64)
        if not np.isin(tokens.lengths, values).all():
            raise ValueError("these texts have a length that the corpus's Self-BLEU statistics do not: give the "
                             "statistics of the whole corpus, these texts included")
        reference = other_lengths(tokens.lengths, values, counts, ref_length)
        total = len(self)
        return Statistics.of_lengths(tokens.lengths, reference, matches, [total - 1] * texts, self.counted_with)


def _spelled(tokens: Tokens, starts: np.ndarray, n: int) -> np.ndarray:
    """The n-grams that start at these positions, spelled out (an object array of bytes): their
    tokens' bytes, with a space between (no token holds one; token ids are 8 bytes each)."""
    parts = [tokens.spell(starts + offset) for offset in range(n)]
    spelled = np.empty(len(starts), dtype=object)
    spelled[:] = [b" ".join(gram) for gram in zip(*parts)]
    return spelled
