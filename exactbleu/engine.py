"""The numpy counting engine: the statistics rows of a chunk of segments, read off the bytes of
their token texts, without a Python loop over tokens or n-grams.

It gives exactly the rows of the definition (``sufficient_statistics.segment_row``), which
tests/oracles.py restates plainly and the tests hold every row to, and it falls back to that
definition for a segment whose n-grams its keys cannot hold.

Token identity. A token is its UTF-8 bytes. One of up to 15 bytes is two int64 words: its first
8 bytes, and the next 7 with its length in the top byte. A longer token is numbered by a
dictionary of the chunk's longer reference tokens, with a length byte no short token has. Equal
tokens have equal words and unequal tokens unequal words, so comparing words is comparing tokens.

Token ids. Within one segment, each distinct reference token gets a small id, 0 up to the
segment's vocabulary size; a prediction token that no reference of its segment holds gets that
size, an "absent" id that can never match. Ids come from sorting (segment, fingerprint) keys,
where a fingerprint digests a token's words into 50 bits. Sorting only groups the tokens: every
token is then compared, by its words, with the one that stands for its group. A segment where
two different tokens share a fingerprint (for 100 distinct tokens, a chance of about 4 in 10^12)
takes the plain path.

Unigrams are counted by slot, one slot per (segment, id), with no sorting at all.

N-gram keys. With ids of `bits` bits, a longer n-gram packs exactly into an int64 key beside a
segment index and a reference index: no hashing, so nothing can collide. Counting is sorting:
equal keys are neighbours. A segment whose keys would not fit in 62 bits takes the plain path.
"""

from typing import Sequence

import numpy as np

from .sufficient_statistics import rows_of, segment_matches
from .tokenizers import OTHER_SPACES, OTHER_SPACES_TO_SPACE
from .tokenizers.tokenizer_13a import MtevalText, cuts_13a

_CHUNK_SEGMENTS = 4096  # segments counted together; their index within the chunk takes 12 bits
_SEGMENT_BITS = 12
_SEGMENT_SHIFT = 62 - _SEGMENT_BITS  # the segment index sits above every n-gram and reference index
_SHORT_TOKEN_BYTES = 15
_LONG_TOKEN = np.uint64(0xFF << 56)  # the length byte of a numbered long token
_BYTE_MASKS = np.array([(1 << (8 * size)) - 1 for size in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _max_token_bits(max_order):
    """The widest token id that keeps every packed key of this order within 62 bits."""
    return (62 - _SEGMENT_BITS) // (max_order + 1)


def packed_token_limit(max_order: int) -> int:
    """How many distinct tokens a segment's references may hold for the packed keys at this
    order: a segment with more is counted by the plain definition, which costs more per token."""
    return 1 << _max_token_bits(max_order)


def _token_table(text, long_tokens, grow):
    """Read a token text as bytes: how many tokens each line holds, and each token's line (a
    reference, or a segment, as the text holds) and two identity words (equal exactly when the
    tokens are equal), and where in the bytes each token is (see ``_tokens_of_lines``).

    ``long_tokens`` numbers the tokens longer than 15 bytes: the references' table adds theirs
    (``grow``); a prediction's long token that no reference holds gets a number none has."""
    encoded, padded, octets, starts, ends = _token_bounds(text)
    line_breaks = np.flatnonzero(octets == 10)
    per_line = np.diff(np.searchsorted(starts, line_breaks), prepend=0, append=len(starts))
    line = np.repeat(np.arange(len(per_line)), per_line)

    words = np.frombuffer(padded, dtype="<u8")
    word, shift = starts >> 3, ((starts & 7) << 3).astype(np.uint64)
    size = ends - starts
    low = (words[word] >> shift) | (words[word + 1] << (np.uint64(64) - shift))  # a shift by 64 gives 0
    low &= _BYTE_MASKS[np.minimum(size, 8)]
    high = size.astype(np.uint64) << np.uint64(56)
    longer = np.flatnonzero(size > 8)  # only these have bytes beyond the first word
    word, shift = word[longer] + 1, shift[longer]
    high[longer] |= ((words[word] >> shift) | (words[word + 1] << (np.uint64(64) - shift))) & _BYTE_MASKS[
        np.minimum(size[longer] - 8, 7)]
    long = np.flatnonzero(size > _SHORT_TOKEN_BYTES)
    if len(long):
        number = long_tokens.setdefault if grow else long_tokens.get
        low[long] = [number(encoded[start:end], len(long_tokens))
                     for start, end in zip(starts[long].tolist(), ends[long].tolist())]
        high[long] = _LONG_TOKEN
    return per_line, line, low, high, (encoded, starts, ends)


def id_table(ids: np.ndarray, lengths: np.ndarray):
    """A token table of token ids (``ids``: every line's ids end to end, ``lengths``: how many each
    line holds), as ``_token_table`` reads a text: an id is its own identity word, so equal ids
    are equal tokens. Its bounds are the ids themselves."""
    ids = np.asarray(ids, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    line = np.repeat(np.arange(len(lengths)), lengths)
    return lengths, line, ids.astype(np.uint64), np.zeros(len(ids), dtype=np.uint64), ids


def _tokens_of_lines(bounds, token_line, lines):
    """The tokens of some lines of a token table, as UTF-8 bytes or ids (equal exactly when the
    tokens are): ``{line: [token, ...]}``, from the table's bounds and each token's line."""
    lines = [int(line) for line in lines]
    tokens = {line: [] for line in lines}
    wanted = np.isin(token_line, lines)
    if isinstance(bounds, np.ndarray):  # token ids
        for line, token in zip(token_line[wanted].tolist(), bounds[wanted].tolist()):
            tokens[line].append(token)
        return tokens
    encoded, starts, ends = bounds
    for line, start, end in zip(token_line[wanted].tolist(), starts[wanted].tolist(), ends[wanted].tolist()):
        tokens[line].append(encoded[start:end])
    return tokens


# The other spaces' UTF-8 codes, each as an int of its bytes: two bytes for \x85 and \xa0, three
# for the rest. Their lead bytes are C2 and E1 to E3.
_OTHER_SPACE_CODES = np.array([int.from_bytes(space.encode(), "big") for space in OTHER_SPACES])


def _token_bytes(text):
    """A token text's UTF-8 bytes after a space, the same padded to whole 8-byte words (two of
    them spare) as bytes and as an array, and which of those bytes are whitespace."""
    encoded = b" " + text.encode("utf-8", "surrogatepass")
    padded = encoded + bytes(24 - len(encoded) % 8)
    octets = np.frombuffer(padded, dtype=np.uint8)
    if not text.isascii() and _other_spaces(octets):
        return _token_bytes(text.translate(OTHER_SPACES_TO_SPACE))
    # str.split()'s ASCII whitespace: \t \n \v \f \r, \x1c-\x1f and the space (the rest is gone).
    space = (octets == 32) | (octets - np.uint8(9) < 5) | (octets - np.uint8(28) < 4)
    space[len(encoded):] = True
    return encoded, padded, octets, space


def _other_spaces(octets):
    """Whether UTF-8 bytes hold a space other than ASCII's, which str.split() splits on too."""
    leads = np.flatnonzero((octets == 0xC2) | (octets - np.uint8(0xE1) < 3))
    codes = (octets[leads].astype(np.int64) << 16) | (octets[leads + 1].astype(np.int64) << 8) | octets[leads + 2]
    return bool(np.isin(codes, _OTHER_SPACE_CODES).any() or np.isin(codes >> 8, _OTHER_SPACE_CODES).any())


def _token_bounds(text):
    """Where each token of a token text starts and ends in its bytes (see ``_token_bytes``)."""
    encoded, padded, octets, space = _token_bytes(text)
    if isinstance(text, MtevalText):
        cut = cuts_13a(octets)  # a token boundary inside a run of non-space bytes
        solid = ~space
        starts = np.flatnonzero(solid[1:] & (space[:-1] | cut[1:])) + 1
        ends = np.flatnonzero(solid[:-1] & (space[1:] | cut[1:])) + 1
    else:
        edges = np.flatnonzero(space[1:] != space[:-1]) + 1  # a space before the first token and after the last
        starts, ends = edges[0::2], edges[1::2]
    return encoded, padded, octets, starts, ends


def count_tokens(text: str) -> int:
    """How many tokens a token text holds, read from its bytes: no string is made per token."""
    return len(_token_bounds(text)[3])


def _fingerprints(low, high):
    """A 50-bit digest of each token's identity words (a multiply-xorshift mix)."""
    mixed = low * np.uint64(0x9E3779B97F4A7C15) ^ high * np.uint64(0xC2B2AE3D27D4EB4F)
    mixed ^= mixed >> np.uint64(29)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(32)
    return (mixed >> np.uint64(64 - _SEGMENT_SHIFT)).astype(np.int64)


def _grouped_sort(keys):
    """Keys sorted, where they arrive in order of the segment index above their other bits, as
    every key of a chunk's tokens or n-grams does: numpy's stable sort (a timsort for int64) then
    only sorts within segments and merges, two to three times faster here than its quicksort."""
    return np.sort(keys, kind="stable")


def _new_runs(sorted_keys):
    """Whether each value of a sorted array starts a run of equal values."""
    return np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))[: len(sorted_keys)]


def _run_starts(sorted_keys):
    """Where each run of equal values in a sorted array starts."""
    return np.flatnonzero(_new_runs(sorted_keys))


def _runs(sorted_keys):
    """The distinct values of a sorted array, and how often each occurs."""
    starts = _run_starts(sorted_keys)
    return sorted_keys[starts], np.diff(np.append(starts, len(sorted_keys)))


def _most_in_one_reference(keys, references_bits):
    """Keys whose low ``references_bits`` bits number a reference, one key per occurrence: each
    distinct key without those bits, and the most times it occurs in one reference."""
    keys, counts = _runs(_grouped_sort(keys))
    if references_bits:
        keys = keys >> references_bits
        starts = _run_starts(keys)
        keys, counts = keys[starts], np.maximum.reduceat(counts, starts)
    return keys, counts


def _packed_ngrams(ids, remaining, order, bits):
    """Keys of every n-gram of this order that fits inside its document, and their positions."""
    keys = ids
    for offset in range(1, order):
        keys = (keys[:-1] << bits) | ids[offset:]
    positions = np.flatnonzero(remaining[: len(keys)] >= order)
    return keys[positions], positions


def _remaining(lengths):
    """For documents of these lengths laid end to end: how many tokens of its document remain
    from each position (an n-gram fits where that is at least n)."""
    ends = np.cumsum(lengths)
    return np.repeat(ends, lengths) - np.arange(ends[-1] if len(ends) else 0)


def _runs_of_known(known, remaining):
    """How many tokens from each position on are known and inside its document: an n-gram can
    match only where that is at least n."""
    index = np.arange(len(known))
    next_unknown = np.minimum.accumulate(np.where(known, len(known), index)[::-1])[::-1]
    return np.minimum(next_unknown - index, remaining)


class ReferenceStatistics:
    """The references of one chunk of segments, prepared once and reusable for any predictions:
    their lengths, the token ids of each segment, and what finds a prediction token's id.

    ``text`` is a token text of the chunk's references, segment after segment (or their
    ``id_table``), and ``counts`` says how many references each segment has (at least one).
    """

    def __init__(self, text, counts: Sequence[int], max_order: int):
        counts = np.asarray(counts, dtype=np.int64)
        self.segments = len(counts)
        self.long_tokens = {}
        table = text if isinstance(text, tuple) else _token_table(text, self.long_tokens, grow=True)
        self.lengths, reference, low, high, bounds = table
        if len(self.lengths) != counts.sum():
            raise ValueError(f"the text holds {len(self.lengths)} references, not {counts.sum()}")
        self.first_reference = np.cumsum(counts) - counts
        self.segment_of_reference = np.repeat(np.arange(self.segments), counts)
        segment = self.segment_of_reference[reference]

        # Sort (segment, fingerprint): each run is one distinct token of one segment.
        keys = (segment << _SEGMENT_SHIFT) | _fingerprints(low, high)
        order = np.argsort(keys, kind="stable")  # see `_grouped_sort`
        sorted_keys = keys[order]
        new_run = _new_runs(sorted_keys)
        starts, run = np.flatnonzero(new_run), np.cumsum(new_run) - 1
        standing = order[starts]  # a token standing for each run
        self.keys, self.low, self.high = sorted_keys[starts], low[standing], high[standing]
        self.first = np.searchsorted(self.keys >> _SEGMENT_SHIFT, np.arange(self.segments))
        self.vocabulary = np.diff(self.first, append=len(self.keys))  # each segment's absent id
        ids = np.empty(len(keys), dtype=np.int64)
        ids[order] = run - self.first[segment[order]]
        collided = (low[order] != low[standing][run]) | (high[order] != high[standing][run])

        # Segments whose keys would not fit, or whose fingerprints collide, are counted by the
        # plain definition instead, from their tokens (see `chunk_statistics`).
        bits_limit = _max_token_bits(max_order)
        references_limit = 1 << (62 - _SEGMENT_BITS - max_order * bits_limit)
        self.packable = (self.vocabulary < (1 << bits_limit)) & (counts <= references_limit)
        self.packable[segment[order[collided]]] = False
        self.unpacked = {}  # an unpackable segment's references, as lists of tokens
        if not self.packable.all():
            unpacked = np.flatnonzero(~self.packable)
            lines = np.flatnonzero(~self.packable[self.segment_of_reference])
            tokens = _tokens_of_lines(bounds, reference, lines)
            for number in unpacked.tolist():
                first = int(self.first_reference[number])
                self.unpacked[number] = [tokens[line] for line in range(first, first + int(counts[number]))]

        # The packable segments' reference tokens, laid end to end, ready for the n-gram keys.
        kept = self.packable[segment]
        segment, reference, self.ids = segment[kept], reference[kept], ids[kept]
        self.remaining = _remaining(self.lengths[self.packable[self.segment_of_reference]])
        index = reference - self.first_reference[segment]  # each token's reference within its segment
        self.segment_and_reference = (segment << _SEGMENT_SHIFT) | index
        self.bits = max(1, int(self.vocabulary[self.packable].max(initial=1)).bit_length())
        self.references_bits = int(max(1, counts[self.packable].max(initial=1)) - 1).bit_length()
        # Unigrams are counted by slot, one per (segment, id): slot = offset + id. `most` holds
        # the most times a slot's token occurs in one reference of its segment.
        self.offsets = np.cumsum(self.vocabulary + 1) - (self.vocabulary + 1)
        self.slot_segment = np.repeat(np.arange(self.segments), self.vocabulary + 1)
        self.slots = self.offsets[segment] + self.ids
        if self.references_bits == 0:
            self.most = np.bincount(self.slots, minlength=len(self.slot_segment))
        else:
            slots, most = _most_in_one_reference((self.slots << self.references_bits) | index, self.references_bits)
            self.most = np.zeros(len(self.slot_segment), dtype=np.int64)
            self.most[slots] = most

    def reference_lengths(self, prediction_lengths, ref_length):
        """Each segment's reference length for the brevity penalty (see ``_reference_lengths``)."""
        return _reference_lengths(self.lengths, self.first_reference, self.segment_of_reference, prediction_lengths,
                                  ref_length)

    def prediction_ids(self, segment, low, high):
        """Each prediction token's id within its segment (``segment``: each token's), and whether a
        reference of that segment holds it: found by its fingerprint, confirmed by its words."""
        if len(self.keys) == 0:
            return self.vocabulary[segment], np.zeros(len(segment), dtype=bool)
        keys = (segment << _SEGMENT_SHIFT) | _fingerprints(low, high)
        found = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        known = (self.keys[found] == keys) & (self.low[found] == low) & (self.high[found] == high)
        return np.where(known, found - self.first[segment], self.vocabulary[segment]), known


def _reference_lengths(lengths, first_reference, segment_of_reference, prediction_lengths, ref_length):
    """Each segment's reference length for the brevity penalty, from every reference's length
    (each segment's references laid end to end, the first at ``first_reference``): the shortest,
    or the closest to the prediction's, a tie going to the shorter."""
    if ref_length == "shortest":
        return np.minimum.reduceat(lengths, first_reference)
    # The closest: the least (distance, length), packed into one integer per reference.
    distance = np.abs(lengths - prediction_lengths[segment_of_reference])
    return np.minimum.reduceat((distance << 32) | lengths, first_reference) & 0xFFFFFFFF


def chunk_statistics(text: str, references: "ReferenceStatistics", max_order: int,
                     ref_length: str = "shortest") -> np.ndarray:
    """The statistics rows of one chunk, as an ``int64`` array of shape (n, 2 + 2N): ``text`` is
    a token text of its predictions (or their ``id_table``), ``references`` their
    ``ReferenceStatistics``. Each row is its segment's (see above)."""
    table = text if isinstance(text, tuple) else _token_table(text, references.long_tokens, grow=False)
    prediction_lengths, token_segment, low, high, bounds = table
    if len(prediction_lengths) != references.segments:
        raise ValueError(f"the text holds {len(prediction_lengths)} predictions, not {references.segments}")
    matches = np.zeros((references.segments, max_order), dtype=np.int64)

    ids, known = references.prediction_ids(token_segment, low, high)
    kept = references.packable[token_segment]
    segment, ids, known = token_segment[kept], ids[kept], known[kept]
    remaining = _remaining(prediction_lengths[references.packable])
    # Unigrams: each slot's count in the prediction, clipped by its most in one reference.
    predicted = np.bincount(references.offsets[segment[known]] + ids[known], minlength=len(references.most))
    matches[:, 0] = np.bincount(references.slot_segment, weights=np.minimum(predicted, references.most),
                             minlength=references.segments)
    # Only longer n-grams whose every token occurs on both sides can match: count just those.
    reference_runs = _runs_of_known(predicted[references.slots] > 0, references.remaining)
    prediction_runs = _runs_of_known(known, remaining)
    bits, references_bits = references.bits, references.references_bits
    segment_shift = _SEGMENT_SHIFT - references_bits
    for order in range(2, max_order + 1):
        # Reference keys are (segment, n-gram, reference), high bits to low: equal keys count
        # one n-gram in one reference, and the runs of one (segment, n-gram) are adjacent, so
        # the largest count over the references is a reduction over neighbours.
        keys, positions = _packed_ngrams(references.ids, reference_runs, order, bits)
        if len(keys) == 0:
            break  # no longer n-gram can match either
        reference_keys, reference_counts = _most_in_one_reference(
            references.segment_and_reference[positions] | (keys << references_bits), references_bits)
        keys, positions = _packed_ngrams(ids, prediction_runs, order, bits)
        keys, counts = _runs(_grouped_sort(keys | (segment[positions] << segment_shift)))
        found = np.minimum(np.searchsorted(reference_keys, keys), len(reference_keys) - 1)
        clipped = np.where(reference_keys[found] == keys, np.minimum(counts, reference_counts[found]), 0)
        matches[:, order - 1] = np.bincount(keys >> segment_shift, weights=clipped, minlength=references.segments)

    if references.unpacked:  # the plain definition, for the segments the keys cannot hold
        tokens = _tokens_of_lines(bounds, token_segment, list(references.unpacked))
        for number, reference_tokens in references.unpacked.items():
            matches[number] = segment_matches(tokens[number], reference_tokens, max_order)
    return rows_of(prediction_lengths, references.reference_lengths(prediction_lengths, ref_length), matches)
