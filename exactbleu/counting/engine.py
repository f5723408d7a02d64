"""The numpy counting engine: the statistics rows of a chunk of segments, from the token tables of
their token texts (``reading``), without a Python loop over tokens or n-grams. Within a segment,
each distinct reference token gets a small id; n-grams of ids pack exactly into int64 keys, and
counting is sorting them. It gives exactly the rows of the definition
(``sufficient_statistics.segment_row``), which tests/oracles.py restates plainly and the tests hold
every row to, and it counts by that definition a segment whose n-grams its keys cannot hold.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..inputs import starts_of
from ..limits import SEGMENT_BITS, max_token_bits
from ..sufficient_statistics import Statistics, segment_matches
from .reading import TokenTable, fingerprints, token_table, tokens_of_lines

Ints = NDArray[np.int64]
CHUNK_SEGMENTS = 1 << SEGMENT_BITS  # segments counted together: their index within the chunk takes 12 bits
_SEGMENT_SHIFT = 62 - SEGMENT_BITS  # the segment index sits above every n-gram and reference index


def _grouped_sort(keys: Ints) -> Ints:
    """Keys sorted, where they arrive in order of the segment index above their other bits, as
    every key of a chunk's tokens or n-grams does: numpy's stable sort (a timsort for int64) then
    only sorts within segments and merges, two to three times faster here than its quicksort."""
    return np.sort(keys, kind="stable")


def _new_runs(sorted_keys: NDArray[Any]) -> NDArray[np.bool_]:
    """Whether each value of a sorted array starts a run of equal values."""
    return np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))[: len(sorted_keys)]


def _run_starts(sorted_keys: NDArray[Any]) -> Ints:
    """Where each run of equal values in a sorted array starts."""
    return np.flatnonzero(_new_runs(sorted_keys))


def runs(sorted_keys: Ints) -> tuple[Ints, Ints]:
    """The distinct values of a sorted array, and how often each occurs."""
    starts = _run_starts(sorted_keys)
    return sorted_keys[starts], np.diff(np.append(starts, len(sorted_keys)))


def _most_in_one_reference(keys: Ints, references_bits: int) -> tuple[Ints, Ints]:
    """Keys whose low ``references_bits`` bits number a reference, one key per occurrence: each
    distinct key without those bits, and the most times it occurs in one reference."""
    keys, counts = runs(_grouped_sort(keys))
    if references_bits:
        keys = keys >> references_bits
        starts = _run_starts(keys)
        keys, counts = keys[starts], np.maximum.reduceat(counts, starts)
    return keys, counts


def _packed_ngrams(ids: Ints, remaining: Ints, order: int, bits: int) -> tuple[Ints, Ints]:
    """Keys of every n-gram of this order that fits inside its document, and their positions."""
    keys = ids
    for offset in range(1, order):
        keys = (keys[:-1] << bits) | ids[offset:]
    positions = np.flatnonzero(remaining[: len(keys)] >= order)
    return keys[positions], positions


def remaining_tokens(lengths: Ints) -> Ints:
    """For documents of these lengths laid end to end: how many tokens of its document remain
    from each position (an n-gram fits where that is at least n)."""
    ends = np.cumsum(lengths)
    return np.repeat(ends, lengths) - np.arange(ends[-1] if len(ends) else 0)


def _runs_of_known(known: NDArray[np.bool_], remaining: Ints) -> Ints:
    """How many tokens from each position on are known and inside its document: an n-gram can
    match only where that is at least n."""
    index = np.arange(len(known))
    next_unknown = np.minimum.accumulate(np.where(known, len(known), index)[::-1])[::-1]
    return np.minimum(next_unknown - index, remaining)


Text = str | TokenTable


class ReferenceStatistics:
    """The references of one chunk of segments, prepared once and reusable for any predictions:
    their lengths, the token ids of each segment, and what finds a prediction token's id.

    ``text`` is a token text of the chunk's references, segment after segment (or their
    ``reading.id_table``), and ``counts`` says how many references each segment has (at least one).
    """

    def __init__(self, text: Text, reference_counts: Sequence[int], max_order: int):
        counts = np.asarray(reference_counts, dtype=np.int64)
        self.segments = len(counts)
        self.long_tokens: dict[bytes, int] = {}
        table = text if isinstance(text, TokenTable) else token_table(text, self.long_tokens, grow=True)
        self.lengths = table.lengths
        if len(self.lengths) != counts.sum():
            raise ValueError(f"the text holds {len(self.lengths)} references, not {counts.sum()}")
        self.first_reference = starts_of(counts)
        self.segment_of_reference = np.repeat(np.arange(self.segments), counts)
        segment = self.segment_of_reference[table.line]
        ids = self._number_tokens(table, segment, counts, max_order)

        # The packable segments' reference tokens, laid end to end, ready for the n-gram keys.
        kept = self.packable[segment]
        segment, reference, self.ids = segment[kept], table.line[kept], ids[kept]
        self.remaining = remaining_tokens(self.lengths[self.packable[self.segment_of_reference]])
        index = reference - self.first_reference[segment]  # each token's reference within its segment
        self.segment_and_reference = (segment << _SEGMENT_SHIFT) | index
        self.bits = max(1, int(self.vocabulary[self.packable].max(initial=1)).bit_length())
        self.references_bits = int(max(1, counts[self.packable].max(initial=1)) - 1).bit_length()
        # Unigrams are counted by slot, one per (segment, id): slot = offset + id. `most` holds
        # the most times a slot's token occurs in one reference of its segment.
        self.offsets = starts_of(self.vocabulary + 1)
        self.slot_segment = np.repeat(np.arange(self.segments), self.vocabulary + 1)
        self.slots = self.offsets[segment] + self.ids
        if self.references_bits == 0:
            self.most = np.bincount(self.slots, minlength=len(self.slot_segment))
        else:
            slots, most = _most_in_one_reference((self.slots << self.references_bits) | index, self.references_bits)
            self.most = np.zeros(len(self.slot_segment), dtype=np.int64)
            self.most[slots] = most

    def _number_tokens(self, table: TokenTable, segment: Ints, counts: Ints, max_order: int) -> Ints:
        """Each reference token's id within its segment, from sorted (segment, fingerprint) keys;
        sets which segments the packed keys can count, and keeps the others' tokens.

        Each distinct reference token of a segment gets an id from 0 up to the segment's
        vocabulary size; a prediction token that no reference of its segment holds gets that size,
        an "absent" id that can never match. A fingerprint digests a token's identity words into
        50 bits, and sorting only groups the tokens: every token is then compared, by its words,
        with the one that stands for its group. A segment where two different tokens share a
        fingerprint (for 100 distinct tokens, a chance of about 4 in 10^12) takes the plain path.
        Unigrams are then counted by slot, one slot per (segment, id), with no sorting at all."""
        keys = (segment << _SEGMENT_SHIFT) | fingerprints(table.low, table.high, _SEGMENT_SHIFT)
        order = np.argsort(keys, kind="stable")  # see `_grouped_sort`
        sorted_keys = keys[order]
        new_run = _new_runs(sorted_keys)
        starts, run = np.flatnonzero(new_run), np.cumsum(new_run) - 1
        standing = order[starts]  # a token standing for each run
        self.keys, self.low, self.high = sorted_keys[starts], table.low[standing], table.high[standing]
        self.first = np.searchsorted(self.keys >> _SEGMENT_SHIFT, np.arange(self.segments))
        self.vocabulary = np.diff(self.first, append=len(self.keys))  # each segment's absent id
        ids = np.empty(len(keys), dtype=np.int64)
        ids[order] = run - self.first[segment[order]]
        collided = (table.low[order] != table.low[standing][run]) | (table.high[order] != table.high[standing][run])

        # Segments whose keys would not fit, or whose fingerprints collide, are counted by the
        # plain definition instead, from their tokens (see `chunk_statistics`).
        bits_limit = max_token_bits(max_order)
        references_limit = 1 << (62 - SEGMENT_BITS - max_order * bits_limit)
        self.packable = (self.vocabulary < (1 << bits_limit)) & (counts <= references_limit)
        self.packable[segment[order[collided]]] = False
        self.unpacked: dict[int, list[list[Any]]] = {}  # an unpackable segment's references, as lists of tokens
        if not self.packable.all():
            lines = np.flatnonzero(~self.packable[self.segment_of_reference])
            tokens = tokens_of_lines(table.bounds, table.line, lines.tolist())
            for number in np.flatnonzero(~self.packable).tolist():
                first = int(self.first_reference[number])
                self.unpacked[number] = [tokens[line] for line in range(first, first + int(counts[number]))]
        return ids

    def reference_lengths(self, prediction_lengths: Ints, ref_length: str, groups: Ints | None = None) -> Ints:
        """Each prediction's reference length for the brevity penalty (see ``reference_lengths``);
        ``groups``: each prediction's segment here, where predictions share them."""
        if groups is None:
            return reference_lengths(self.lengths, self.first_reference, self.segment_of_reference, prediction_lengths,
                                     ref_length)
        # Each prediction's references, laid end to end as though it had them to itself.
        counts = np.diff(np.append(self.first_reference, len(self.lengths)))[groups]
        first = starts_of(counts)
        own = np.repeat(self.first_reference[groups] - first, counts) + np.arange(counts.sum())
        return reference_lengths(self.lengths[own], first, np.repeat(np.arange(len(groups)), counts),
                                 prediction_lengths, ref_length)

    def prediction_ids(self, segment: Ints, low: NDArray[np.uint64],
                       high: NDArray[np.uint64]) -> tuple[Ints, NDArray[np.bool_]]:
        """Each prediction token's id within its segment (``segment``: each token's), and whether a
        reference of that segment holds it: found by its fingerprint, confirmed by its words."""
        if len(self.keys) == 0:
            return self.vocabulary[segment], np.zeros(len(segment), dtype=bool)
        keys = (segment << _SEGMENT_SHIFT) | fingerprints(low, high, _SEGMENT_SHIFT)
        found = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        known = (self.keys[found] == keys) & (self.low[found] == low) & (self.high[found] == high)
        return np.where(known, found - self.first[segment], self.vocabulary[segment]), known


def reference_lengths(lengths: Ints, first_reference: Ints, segment_of_reference: Ints, prediction_lengths: Ints,
                      ref_length: str) -> Ints:
    """Each segment's reference length for the brevity penalty, from every reference's length
    (each segment's references laid end to end, the first at ``first_reference``): the shortest,
    or the closest to the prediction's, a tie going to the shorter (or, "closest-first", the first)."""
    if ref_length == "shortest":
        return np.minimum.reduceat(lengths, first_reference)
    if ref_length == "closest-first":  # the least (distance, place among the segment's references)
        distance = np.abs(lengths - prediction_lengths[segment_of_reference])
        place = np.arange(len(lengths)) - first_reference[segment_of_reference]
        return lengths[first_reference + (np.minimum.reduceat((distance << 32) | place, first_reference) & 0xFFFFFFFF)]
    # The closest: the least (distance, length), packed into one integer per reference.
    distance = np.abs(lengths - prediction_lengths[segment_of_reference])
    return np.minimum.reduceat((distance << 32) | lengths, first_reference) & 0xFFFFFFFF


def chunk_statistics(text: Text, references: ReferenceStatistics, max_order: int, ref_length: str = "shortest",
                     groups: Ints | None = None) -> Ints:
    """The statistics rows of one chunk, as an ``int64`` array of shape (n, 2 + 2N): ``text`` is
    a token text of its predictions (or their ``reading.id_table``), ``references`` their
    ``ReferenceStatistics``, and ``groups`` each prediction's segment there where predictions share
    their references (a group of samples of one prompt), which are then counted once; None where
    each has its own. Each row is its segment's (see above)."""
    table = text if isinstance(text, TokenTable) else token_table(text, references.long_tokens, grow=False)
    segments = references.segments if groups is None else len(groups)
    if len(table.lengths) != segments:
        raise ValueError(f"the text holds {len(table.lengths)} predictions, not {segments}")
    matches = np.zeros((segments, max_order), dtype=np.int64)
    shared = table.line if groups is None else groups[table.line]  # each token's segment in `references`
    packable = references.packable if groups is None else references.packable[groups]  # each prediction's
    ids, known = references.prediction_ids(shared, table.low, table.high)
    kept = packable[table.line]
    segment, ids, known = table.line[kept], ids[kept], known[kept]
    remaining = remaining_tokens(table.lengths[packable])
    # Unigrams: each (prediction, id) slot's count, clipped by the most in one reference.
    slots = _PredictionSlots(references, groups)
    predicted = np.bincount(slots.first[segment[known]] + ids[known], minlength=len(slots.most))
    matches[:, 0] = np.bincount(slots.segment, weights=np.minimum(predicted, slots.most),
                                minlength=segments).astype(np.int64)
    # Only longer n-grams whose every token occurs on both sides can match: count just those.
    in_group = predicted if groups is None else np.bincount(references.offsets[groups[segment[known]]] + ids[known],
                                                            minlength=len(references.most))
    reference_runs = _runs_of_known(in_group[references.slots] > 0, references.remaining)
    prediction_runs = _runs_of_known(known, remaining)
    for order in range(2, max_order + 1):
        counted = _order_matches(references, reference_runs, ids, segment, prediction_runs, order, groups)
        if counted is None:
            break  # no longer n-gram can match either
        matches[:, order - 1] = counted

    if references.unpacked:  # the plain definition, for the segments the keys cannot hold
        unpacked = np.flatnonzero(~packable).tolist()
        tokens = tokens_of_lines(table.bounds, table.line, unpacked)
        theirs = unpacked if groups is None else groups[unpacked].tolist()
        for number, their in zip(unpacked, theirs):
            matches[number] = segment_matches(tokens[number], references.unpacked[their], max_order)
    chosen = references.reference_lengths(table.lengths, ref_length, groups)
    return Statistics.of_lengths(table.lengths, chosen, matches).array


class _PredictionSlots:
    """Where each prediction counts its unigrams: a slot per (prediction, id) from ``first``, the
    slot's prediction (``segment``), and the most times one reference holds its id (``most``).
    Without groups, the references' own slots, one segment each."""

    def __init__(self, references: ReferenceStatistics, groups: Ints | None):
        if groups is None:
            self.first, self.segment, self.most = references.offsets, references.slot_segment, references.most
            return
        sizes = references.vocabulary[groups] + 1
        self.first = starts_of(sizes)
        self.segment = np.repeat(np.arange(len(groups)), sizes)
        self.most = references.most[np.repeat(references.offsets[groups] - self.first, sizes) + np.arange(sizes.sum())]


def _order_matches(references: ReferenceStatistics, reference_runs: Ints, ids: Ints, segment: Ints,
                   prediction_runs: Ints, order: int, groups: Ints | None = None) -> "Ints | None":
    """Each segment's clipped matches of one order above the first, or None where no reference
    n-gram of this order can match. With ids of ``bits`` bits, an n-gram packs exactly into an
    int64 key beside a segment index and a reference index: no hashing, so nothing can collide.
    Counting is sorting: equal keys are neighbours. (A segment whose keys would not fit in 62 bits
    takes the plain path.)"""
    bits, references_bits = references.bits, references.references_bits
    # Reference keys are (segment, n-gram, reference), high bits to low: equal keys count one
    # n-gram in one reference, and the runs of one (segment, n-gram) are adjacent, so the largest
    # count over the references is a reduction over neighbours.
    keys, positions = _packed_ngrams(references.ids, reference_runs, order, bits)
    if len(keys) == 0:
        return None
    reference_keys, reference_counts = _most_in_one_reference(
        references.segment_and_reference[positions] | (keys << references_bits), references_bits)
    segment_shift = _SEGMENT_SHIFT - references_bits
    keys, positions = _packed_ngrams(ids, prediction_runs, order, bits)
    keys, counts = runs(_grouped_sort(keys | (segment[positions] << segment_shift)))
    owner = keys >> segment_shift
    if groups is not None:  # each prediction's n-grams are looked up among its group's references
        keys = (keys & ((1 << segment_shift) - 1)) | (groups[owner] << segment_shift)
    found = np.minimum(np.searchsorted(reference_keys, keys), len(reference_keys) - 1)
    clipped = np.where(reference_keys[found] == keys, np.minimum(counts, reference_counts[found]), 0)
    segments = references.segments if groups is None else len(groups)
    matched: Ints = np.bincount(owner, weights=clipped, minlength=segments).astype(np.int64)
    return matched
