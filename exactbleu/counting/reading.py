"""Reading a token text: its UTF-8 bytes become a token table, with no Python object per token.

A token text holds a corpus's tokens as one string: tokens separated by whitespace, one segment
per line (``tokenizers.tokenizing``). A token is its UTF-8 bytes. One of up to 15 bytes is two 64-bit
identity words: its first 8 bytes, and the next 7 with its length in the top byte. A longer token
is numbered by a dictionary of the longer reference tokens, with a length byte no short token has.
Equal tokens have equal words and unequal tokens unequal words, so comparing words is comparing
tokens. Token ids are read the same way: an id is its own identity word.
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..tokenizers import OTHER_SPACES, OTHER_SPACES_TO_SPACE, UncutText

SHORT_TOKEN_BYTES = 15
_LONG_TOKEN = np.uint64(0xFF << 56)  # the length byte of a numbered long token
_BYTE_MASKS = np.array([(1 << (8 * size)) - 1 for size in range(8)] + [(1 << 64) - 1], dtype=np.uint64)

# Where each token is: the bytes with each token's start and end, or the token ids themselves.
Bounds = tuple[bytes, NDArray[np.int64], NDArray[np.int64]] | NDArray[np.int64]


class TokenTable(NamedTuple):
    """A token text read: how many tokens each line holds, each token's line, its two identity
    words, and where each token is (see ``tokens_of_lines``)."""

    lengths: NDArray[np.int64]
    line: NDArray[np.int64]
    low: NDArray[np.uint64]
    high: NDArray[np.uint64]
    bounds: Bounds


def token_table(text: str, long_tokens: dict[bytes, int], grow: bool) -> TokenTable:
    """Read a token text as bytes (see the module). ``long_tokens`` numbers the tokens longer than
    15 bytes: the references' table adds theirs (``grow``); a prediction's long token that no
    reference holds gets a number none has."""
    encoded, padded, octets, starts, ends = token_bounds(text)
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
    long = np.flatnonzero(size > SHORT_TOKEN_BYTES)
    if len(long):
        if grow:
            low[long] = [long_tokens.setdefault(encoded[start:end], len(long_tokens))
                         for start, end in zip(starts[long].tolist(), ends[long].tolist())]
        else:
            low[long] = [long_tokens.get(encoded[start:end], len(long_tokens))
                         for start, end in zip(starts[long].tolist(), ends[long].tolist())]
        high[long] = _LONG_TOKEN
    return TokenTable(per_line, line, low, high, (encoded, starts, ends))


def id_table(ids: NDArray[Any], lengths: NDArray[Any]) -> TokenTable:
    """A token table of token ids (``ids``: every line's ids end to end, ``lengths``: how many each
    line holds), as ``token_table`` reads a text: an id is its own identity word, so equal ids
    are equal tokens. Its bounds are the ids themselves."""
    ids = np.asarray(ids, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    line = np.repeat(np.arange(len(lengths)), lengths)
    return TokenTable(lengths, line, ids.astype(np.uint64), np.zeros(len(ids), dtype=np.uint64), ids)


def tokens_of_lines(bounds: Bounds, token_line: NDArray[np.int64], lines: Sequence[int]) -> dict[int, list[Any]]:
    """The tokens of some lines of a token table, as UTF-8 bytes or ids (equal exactly when the
    tokens are): ``{line: [token, ...]}``, from the table's bounds and each token's line."""
    lines = [int(line) for line in lines]
    tokens: dict[int, list[Any]] = {line: [] for line in lines}
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
TokenBytes = tuple[bytes, bytes, NDArray[np.uint8], NDArray[np.bool_]]


def _token_bytes(text: str) -> TokenBytes:
    """A token text's UTF-8 bytes after a space, the same padded to whole 8-byte words (two of
    them spare) as bytes and as an array, and which of those bytes are whitespace."""
    encoded = b" " + text.encode("utf-8", "surrogatepass")
    padded = encoded + bytes(24 - len(encoded) % 8)
    octets = np.frombuffer(padded, dtype=np.uint8)
    if not text.isascii() and _other_spaces(octets):
        return _token_bytes(text.translate(OTHER_SPACES_TO_SPACE))  # the same tokens, cut where they were
    # str.split()'s ASCII whitespace: \t \n \v \f \r, \x1c-\x1f and the space (the rest is gone).
    space = (octets == 32) | (octets - np.uint8(9) < 5) | (octets - np.uint8(28) < 4)
    space[len(encoded):] = True
    return encoded, padded, octets, space


def _other_spaces(octets: NDArray[np.uint8]) -> bool:
    """Whether UTF-8 bytes hold a space other than ASCII's, which str.split() splits on too."""
    leads = np.flatnonzero((octets == 0xC2) | (octets - np.uint8(0xE1) < 3))
    codes = (octets[leads].astype(np.int64) << 16) | (octets[leads + 1].astype(np.int64) << 8) | octets[leads + 2]
    return bool(np.isin(codes, _OTHER_SPACE_CODES).any() or np.isin(codes >> 8, _OTHER_SPACE_CODES).any())


def token_bounds(text: str) -> tuple[bytes, bytes, NDArray[np.uint8], NDArray[np.int64], NDArray[np.int64]]:
    """Where each token of a token text starts and ends in its bytes (see ``_token_bytes``); an
    ``UncutText``'s tokens are cut out of its runs of non-space bytes by its tokenizer's rules."""
    encoded, padded, octets, space = _token_bytes(text)
    if isinstance(text, UncutText):
        cut: NDArray[np.bool_] = text.cuts(octets)  # type: ignore[assignment]  # the tokenizer's boundaries
        solid = ~space
        starts = np.flatnonzero(solid[1:] & (space[:-1] | cut[1:])) + 1
        ends = np.flatnonzero(solid[:-1] & (space[1:] | cut[1:])) + 1
    else:
        edges = np.flatnonzero(space[1:] != space[:-1]) + 1  # a space before the first token and after the last
        starts, ends = edges[0::2], edges[1::2]
    return encoded, padded, octets, starts, ends


def token_count(text: str) -> int:
    """How many tokens a token text holds, read from its bytes: no string is made per token."""
    return len(token_bounds(text)[3])


def fingerprints(low: NDArray[np.uint64], high: NDArray[np.uint64], bits: int = 50) -> NDArray[np.int64]:
    """A ``bits``-bit digest of each token's identity words. The second word is mixed whole before
    it meets the first: a token of 7 bytes and its extension by an eighth ("Energie", "Energie-")
    differ only in the top byte of each word, which a product of the words keeps in one byte."""
    digest: NDArray[np.int64] = (_mixed(low ^ _mixed(high)) >> np.uint64(64 - bits)).astype(np.int64)
    return digest


def _mixed(words: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finalizer: a bijection of 64-bit words in which every input bit moves every output bit."""
    words = (words ^ (words >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    words = (words ^ (words >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: NDArray[np.uint64] = words ^ (words >> np.uint64(31))
    return mixed
