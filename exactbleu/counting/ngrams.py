"""Every n-gram of a corpus as a number. A token's number is the same wherever it occurs; an
n-gram's number is that of its (n-1)-gram and its last token, made dense by sorting, so equal
n-grams get equal numbers and different ones different numbers: exact, with no hashing. Self-BLEU
and BLEU matrices count n-grams across texts with these.
"""

from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..inputs import TokenIds
from ..tokenizers import Tokenizing, reader_text
from .engine import remaining_tokens, runs
from .reading import fingerprints, token_table
from .threads import pipelined

# Positions -> what is there: a token's bytes (``Tokens.spell``), or where an n-gram starts (``Counts.where``).
Spell = Callable[[NDArray[np.int64]], list[bytes]]
Where = Callable[[NDArray[np.int64]], NDArray[np.int64]]


class Tokens(NamedTuple):
    """A corpus's tokens end to end: each token's dense id (equal ids, equal tokens), the length of
    each text, and how to spell out the tokens at some positions (for keys that cross shards)."""

    ids: NDArray[np.int64]
    lengths: NDArray[np.int64]
    spell: Spell  # positions -> list of bytes, one per position


def tokens_of_text(texts: list[str], tokenize: Tokenizing) -> Tokens:
    """The tokens of texts under the tokenizing settings. Tokens are grouped by a digest of their
    identity words, then every token is compared with its group's first: two different tokens
    with one digest (a chance of about 1 in 10^9 for a million distinct tokens) take the exact,
    slower grouping by the words themselves."""
    if not texts:  # no text at all: a token text of no lines cannot be written ("" is one empty line)
        return tokens_of_ids(TokenIds(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)))
    table = token_table(reader_text(texts, tokenize), {}, grow=True)
    lengths, low, high, bounds = table.lengths, table.low, table.high, table.bounds
    _, first, ids = np.unique(fingerprints(low, high), return_index=True, return_inverse=True)
    ids = ids.reshape(-1)
    if not ((low[first][ids] == low).all() and (high[first][ids] == high).all()):
        pairs = np.ascontiguousarray(np.stack([low, high], axis=1)).view([("low", np.uint64), ("high", np.uint64)])
        ids = np.unique(pairs.reshape(-1), return_inverse=True)[1].reshape(-1)
    encoded, starts, ends = bounds

    def spell(positions: NDArray[np.int64]) -> list[bytes]:
        return [encoded[start:end] for start, end in zip(starts[positions].tolist(), ends[positions].tolist())]

    return Tokens(ids.reshape(-1).astype(np.int64), np.asarray(lengths, dtype=np.int64), spell)


def tokens_of_ids(token_ids: TokenIds) -> Tokens:
    """Token ids as tokens: an id spells itself (8 bytes)."""
    _, ids = np.unique(token_ids.ids, return_inverse=True)
    raw = token_ids.ids

    def spell(positions: NDArray[np.int64]) -> list[bytes]:
        return [value.to_bytes(8, "little") for value in raw[positions].tolist()]

    return Tokens(ids.reshape(-1).astype(np.int64), token_ids.lengths.astype(np.int64), spell)


class Counts(NamedTuple):
    """One order's n-grams: each (text, n-gram) pair that occurs, sorted by n-gram then text, and
    how often it occurs; ``where`` is a function giving, for some of the pairs, a position where
    their n-gram starts (to spell it out)."""

    text: NDArray[np.int64]
    gram: NDArray[np.int64]
    count: NDArray[np.int64]  # type: ignore[assignment]  # the field shadows tuple.count, as it does at runtime
    where: Where | None


def ngram_counts(tokens: Tokens, orders: int, where: bool = False, threads: int = 1) -> list[Counts]:
    """Each order's (text, n-gram) counts; with ``where``, a way to find where each n-gram starts
    (which keeps each order's positions in memory). With two threads, one counts an order's pairs
    while the other numbers the next order's n-grams."""
    texts = len(tokens.lengths)

    def counted(keyed: tuple[NDArray[np.int64], NDArray[np.int64]]) -> Counts:
        keys, positions = keyed
        pairs, count = runs(np.sort(keys))
        return Counts(pairs % texts, pairs // texts, count, _positions_of(pairs, keys, positions) if where else None)

    return pipelined(_keyed_orders(tokens, orders), counted, threads)


def _keyed_orders(tokens: Tokens, orders: int) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """Each order's n-grams as keys (n-gram number, then text) and the positions where they start."""
    texts = len(tokens.lengths)
    remaining = remaining_tokens(tokens.lengths)
    owner = np.repeat(np.arange(texts, dtype=np.int64), tokens.lengths)
    grams, vocabulary = tokens.ids, int(tokens.ids.max(initial=-1)) + 1
    for n in range(1, orders + 1):
        positions = np.flatnonzero(remaining[: len(tokens.ids) - n + 1] >= n)
        if not len(positions):  # nor are there any of a higher order
            empty = np.zeros(0, dtype=np.int64)
            yield from [(empty, empty)] * (orders - n + 1)
            return
        if n > 1:  # below 2**62: fewer n-grams than tokens, and fewer distinct tokens than tokens
            _, dense = np.unique(grams[positions] * vocabulary + tokens.ids[positions + n - 1], return_inverse=True)
            grams = np.full(len(tokens.ids) - n + 1, -1, dtype=np.int64)
            grams[positions] = dense.reshape(-1)
        yield grams[positions] * texts + owner[positions], positions


def _positions_of(pairs: NDArray[np.int64], keys: NDArray[np.int64], positions: NDArray[np.int64]) -> Where:
    """A function giving a position where each of some pairs' n-gram starts: found only when asked,
    since only shards spell their n-grams out."""
    def where(wanted: NDArray[np.int64]) -> NDArray[np.int64]:
        order = np.argsort(keys, kind="stable")
        return positions[order[np.searchsorted(keys[order], pairs[wanted])]]
    return where
