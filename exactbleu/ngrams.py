"""Every n-gram of a corpus as a number. A token's number is the same wherever it occurs; an
n-gram's number is that of its (n-1)-gram and its last token, made dense by sorting, so equal
n-grams get equal numbers and different ones different numbers: exact, with no hashing. Self-BLEU
and BLEU matrices count n-grams across texts with these.
"""

from typing import List, NamedTuple

import numpy as np

from .engine import _fingerprints, _remaining, _runs, _token_table
from .tokenizers import reader_text
from .tokenizers.ids import TokenIds


class Tokens(NamedTuple):
    """A corpus's tokens end to end: each token's dense id (equal ids, equal tokens), the length of
    each text, and how to spell out the tokens at some positions (for keys that cross shards)."""

    ids: np.ndarray
    lengths: np.ndarray
    spell: object  # positions -> list of bytes, one per position


def tokens_of_text(texts: List[str], tokenize) -> Tokens:
    """The tokens of texts under the tokenizing settings. Tokens are grouped by a digest of their
    identity words, then every token is compared with its group's first: two different tokens
    with one digest (a chance of about 1 in 10^9 for a million distinct tokens) take the exact,
    slower grouping by the words themselves."""
    lengths, _, low, high, bounds = _token_table(reader_text(texts, tokenize), {}, grow=True)
    _, first, ids = np.unique(_fingerprints(low, high), return_index=True, return_inverse=True)
    ids = ids.reshape(-1)
    if not ((low[first][ids] == low).all() and (high[first][ids] == high).all()):
        pairs = np.ascontiguousarray(np.stack([low, high], axis=1)).view([("low", np.uint64), ("high", np.uint64)])
        ids = np.unique(pairs.reshape(-1), return_inverse=True)[1].reshape(-1)
    encoded, starts, ends = bounds

    def spell(positions):
        return [encoded[start:end] for start, end in zip(starts[positions].tolist(), ends[positions].tolist())]

    return Tokens(ids.reshape(-1).astype(np.int64), np.asarray(lengths, dtype=np.int64), spell)


def tokens_of_ids(token_ids: TokenIds) -> Tokens:
    """Token ids as tokens: an id spells itself (8 bytes)."""
    _, ids = np.unique(token_ids.ids, return_inverse=True)
    raw = token_ids.ids

    def spell(positions):
        return [value.to_bytes(8, "little") for value in raw[positions].tolist()]

    return Tokens(ids.reshape(-1).astype(np.int64), token_ids.lengths.astype(np.int64), spell)


class Counts(NamedTuple):
    """One order's n-grams: each (text, n-gram) pair that occurs, sorted by n-gram then text, and
    how often it occurs; ``where`` is a function giving, for some of the pairs, a position where
    their n-gram starts (to spell it out)."""

    text: np.ndarray
    gram: np.ndarray
    count: np.ndarray
    where: object


def ngram_counts(tokens: Tokens, orders: int, where: bool = False) -> List[Counts]:
    """Each order's (text, n-gram) counts; with ``where``, a way to find where each n-gram starts
    (which keeps each order's positions in memory)."""
    texts = len(tokens.lengths)
    remaining = _remaining(tokens.lengths)
    owner = np.repeat(np.arange(texts, dtype=np.int64), tokens.lengths)
    grams, vocabulary = tokens.ids, int(tokens.ids.max(initial=-1)) + 1
    result = []
    for n in range(1, orders + 1):
        positions = np.flatnonzero(remaining[: len(tokens.ids) - n + 1] >= n)
        if n > 1:  # below 2**62: fewer n-grams than tokens, and fewer distinct tokens than tokens
            _, dense = np.unique(grams[positions] * vocabulary + tokens.ids[positions + n - 1], return_inverse=True)
            grams = np.full(len(tokens.ids) - n + 1, -1, dtype=np.int64)
            grams[positions] = dense.reshape(-1)
        if not len(positions):
            empty = np.zeros(0, dtype=np.int64)
            result += [Counts(empty, empty, empty, lambda pairs: empty)] * (orders - n + 1)
            break
        keys = grams[positions] * texts + owner[positions]
        pairs, count = _runs(np.sort(keys))
        result.append(Counts(pairs % texts, pairs // texts, count, _positions_of(pairs, keys, positions) if where else None))
    return result


def _positions_of(pairs, keys, positions):
    """A function giving a position where each of some pairs' n-gram starts: found only when asked,
    since only shards spell their n-grams out."""
    def where(wanted):
        order = np.argsort(keys, kind="stable")
        return positions[order[np.searchsorted(keys[order], pairs[wanted])]]
    return where
