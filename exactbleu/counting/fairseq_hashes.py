"""fairseq's counts (libbleu's ``bleu_addngram``): an n-gram is known by a 64-bit FNV-1a hash of its
ids' bytes, so two n-grams whose hashes are equal match. Each id is a C int's four bytes, little
endian, and each byte is read as a signed ``char``, as on x86-64, where a byte of 0x80 or more
flips the hash's high bits too: whole families of different n-grams share a hash there (ids 0 and
65278, 32510 and 32768), and libbleu counts them as matches. This is that count, exactly.

A segment's row: its length, its reference's, and per order the clipped matches of its n-gram
hashes (the least of the two counts of each hash, summed) and its number of n-grams. One reference
a prediction, as fairseq's scorer takes one.
"""

import numpy as np
from numpy.typing import NDArray

from ..inputs import TokenIds
from ..sufficient_statistics import CountedWith, Statistics

_OFFSET = np.uint64(14695981039346656037)
_PRIME = np.uint64(0x100000001B3)


def fairseq_statistics(predictions: TokenIds, references: TokenIds, orders: int,
                       counted_with: CountedWith) -> Statistics:
    """The rows of predictions against one reference each, as libbleu counts them (ids as fairseq
    reads them already: ``inputs.read_as_fairseq``)."""
    size = len(predictions)
    matches = np.zeros((size, orders), dtype=np.int64)
    totals = np.zeros((size, orders), dtype=np.int64)
    mine, theirs = _Hashes(predictions), _Hashes(references)
    for order in range(1, orders + 1):
        mine.extend(order)
        theirs.extend(order)
        own, other = mine.ngrams(order), theirs.ngrams(order)
        totals[:, order - 1] = np.bincount(own[0], minlength=size)
        matches[:, order - 1] = _clipped(own, other, size)
    return Statistics.from_columns(predictions.lengths, references.lengths, matches, totals, [1] * size, counted_with)


class _Hashes:
    """The hash of the n-gram that starts at each position, one order longer at each ``extend``."""

    def __init__(self, segments: TokenIds):
        lengths = segments.lengths
        self.owner = np.repeat(np.arange(len(lengths)), lengths)  # each position's segment
        # How many ids each position has from it to its segment's end: an n-gram starts there if n fit.
        self.room = np.repeat(segments.offsets[1:], lengths) - np.arange(len(self.owner))
        # Each id's four bytes, each as a signed char widened to 64 bits (as C's ``h ^= *b`` does).
        octets = segments.ids.astype("<i4").view(np.int8).reshape(-1, 4)
        self.octets = octets.astype(np.int64).view(np.uint64)
        self.hashes = np.full(len(segments.ids), _OFFSET, dtype=np.uint64)

    def extend(self, order: int) -> None:
        """The hashes of n-grams of ``order`` from those of ``order - 1``: FNV-1a goes on from where it
        stopped, with the bytes of the id ``order - 1`` places on (none past the end: not read)."""
        shift = order - 1
        count = len(self.hashes) - shift
        if count <= 0:
            return
        with np.errstate(over="ignore"):
            for byte in range(4):
                self.hashes[:count] ^= self.octets[shift:, byte]
                self.hashes[:count] *= _PRIME

    def ngrams(self, order: int) -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
        """The segment and the hash of each n-gram of ``order`` that lies within its segment."""
        inside = self.room >= order
        return self.owner[inside], self.hashes[inside]


def _clipped(own: tuple[NDArray[np.int64], NDArray[np.uint64]], other: tuple[NDArray[np.int64], NDArray[np.uint64]],
             size: int) -> NDArray[np.int64]:
    """Per segment, the least of the prediction's and the reference's counts of each hash, summed."""
    mine, theirs = _counted(*own), _counted(*other)
    segments = np.concatenate([mine[0], theirs[0]])
    hashes = np.concatenate([mine[1], theirs[1]])
    counts = np.concatenate([mine[2], theirs[2]])
    order = np.lexsort((hashes, segments))
    segments, hashes, counts = segments[order], hashes[order], counts[order]
    # Each (segment, hash) is once on each side: where two neighbours are equal, one is each side's.
    pair = (segments[1:] == segments[:-1]) & (hashes[1:] == hashes[:-1])
    least = np.minimum(counts[1:], counts[:-1])[pair]
    return np.bincount(segments[1:][pair], weights=least, minlength=size).astype(np.int64)


def _counted(segments: NDArray[np.int64], hashes: NDArray[np.uint64]) -> tuple[NDArray[np.int64], NDArray[np.uint64],
                                                                                   NDArray[np.int64]]:
    """Each distinct (segment, hash) and how often it occurs."""
    if not len(segments):
        return segments, hashes, np.zeros(0, dtype=np.int64)
    order = np.lexsort((hashes, segments))
    segments, hashes = segments[order], hashes[order]
    starts = np.flatnonzero(np.concatenate(([True], (segments[1:] != segments[:-1]) | (hashes[1:] != hashes[:-1]))))
    counts = np.diff(np.append(starts, len(segments)))
    return segments[starts], hashes[starts], counts.astype(np.int64)
