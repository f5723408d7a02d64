"""A corpus becomes one token text: its tokens separated by whitespace, one segment per line. The
counting engine reads it as bytes, so no string object is made per token.

The tokenizing settings say how: the tokenizer (a registered name, or any callable ``str ->
list[str]``), its own settings, lowercasing and right-stripping.
"""

import collections.abc
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from .registry import TOKENIZERS, Segmenter, UncutText

CustomTokenizer = Callable[[str], Iterable[str]]


class Tokenizing(Protocol):
    """The tokenizing settings (``options.TokenizeSettings``), as this layer reads them."""

    @property
    def tokenizer(self) -> str | CustomTokenizer: ...

    @property
    def lowercase(self) -> bool: ...

    @property
    def rstrip(self) -> bool | None: ...

    @property
    def tokenizer_settings(self) -> tuple[tuple[str, object], ...]: ...


def signature_name(tokenize: Tokenizing) -> str:
    """The tokenizer's name in a signature."""
    if callable(tokenize.tokenizer):
        return f"custom({_function_name(tokenize.tokenizer)})"
    return TOKENIZERS[tokenize.tokenizer].signature_name(dict(tokenize.tokenizer_settings))


def _normalized(segments: Sequence[str], tokenize: Tokenizing) -> list[str]:
    """Lowercase and right-strip first, where the tokenizing settings say so: lowercased as the
    tokenizer's tool lowercases (``Tokenizer.lowercase``)."""
    if tokenize.lowercase and not _lowercases_tokens(tokenize):
        named = tokenize.tokenizer if isinstance(tokenize.tokenizer, str) else None
        segments = list(map(TOKENIZERS[named].lowercase if named else str.lower, segments))
    if tokenize.rstrip:
        segments = list(map(str.rstrip, segments))
    return segments if isinstance(segments, list) else list(segments)


def _segmenter(tokenize: Tokenizing) -> CustomTokenizer:
    """The one place that maps tokenizing settings to a ``str -> list[str]`` function."""
    if callable(tokenize.tokenizer):
        return _checked_callable(tokenize.tokenizer)
    return TOKENIZERS[tokenize.tokenizer].segmenter(dict(tokenize.tokenizer_settings))


def _checked_callable(function: CustomTokenizer) -> CustomTokenizer:
    """A custom tokenizer whose failures name it: an exception it raises becomes a ValueError, and
    an answer that is not a list of tokens a TypeError (checked token by token where the tokens
    are read)."""

    def tokenize(segment: str) -> Iterable[str]:
        try:
            tokens = function(segment)
        except Exception as error:
            raise ValueError(f"the tokenizer {_function_name(function)} raised {type(error).__name__}: {error} "
                             f"on the segment {segment!r:.80}") from error
        if isinstance(tokens, (str, bytes)) or not isinstance(tokens, collections.abc.Iterable):
            raise TypeError(f"a tokenizer must return a list of str, but {_function_name(function)} returned a "
                            f"{type(tokens).__name__} for the segment {segment!r:.80}: {tokens!r:.80}")
        return tokens

    return tokenize


def _function_name(function: object) -> str:
    return str(getattr(function, "__name__", type(function).__name__))


def _lowercases_tokens(tokenize: Tokenizing) -> bool:
    return isinstance(tokenize.tokenizer, str) and TOKENIZERS[tokenize.tokenizer].lowercases_tokens


def make_tokenizer(tokenize: Tokenizing) -> Segmenter:
    """The tokens of one segment under these tokenizing settings: lowercase and right-strip where
    they say, then tokenize (or tokenize, then lowercase the tokens, for a tokenizer that lowercases
    its tokens). Returns a function ``str -> list[str]``."""
    function = _segmenter(tokenize)
    if tokenize.lowercase and _lowercases_tokens(tokenize):
        lowercase = TOKENIZERS[str(tokenize.tokenizer)].lowercase
        return lambda segment: [lowercase(token) for token in function(_normalized([segment], tokenize)[0])]
    return lambda segment: list(function(_normalized([segment], tokenize)[0]))


# str.split() splits on the ASCII whitespace \t \n \v \f \r, \x1c-\x1f and the space, and on these:
OTHER_SPACES = "\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
OTHER_SPACES_TO_SPACE = str.maketrans(OTHER_SPACES, " " * len(OTHER_SPACES))
_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f " + OTHER_SPACES
_ESCAPES = str.maketrans({"\\": "\\\\", **{space: f"\\{number:02}" for number, space in enumerate(_WHITESPACE)}})


def reader_text(segments: list[str], tokenize: Tokenizing) -> str:
    """What the statistics read for these segments: their token text, or, for a tokenizer whose
    tokens the counting engine cuts out of the bytes itself, an ``UncutText`` of the segments."""
    if isinstance(tokenize.tokenizer, str):
        uncut = TOKENIZERS[tokenize.tokenizer].uncut_text
        text: UncutText | None = uncut(_normalized(segments, tokenize)) if uncut else None
        if text is not None:
            return text
    return token_text(segments, tokenize)


def token_text(segments: list[str], tokenize: Tokenizing) -> str:
    """The segments' tokens under these tokenizing settings, as a token text: tokens separated by
    spaces, one line per segment."""
    # Some tokenizers write the token text straight from the text (None when a segment holds a
    # line break of its own).
    direct = TOKENIZERS[tokenize.tokenizer].token_text if isinstance(tokenize.tokenizer, str) else None
    text = direct(_normalized(segments, tokenize)) if direct else None
    if text is not None:
        if tokenize.lowercase and _lowercases_tokens(tokenize):  # its tokens, lowercased
            return TOKENIZERS[str(tokenize.tokenizer)].lowercase(text)
        return text
    tokens = list(map(make_tokenizer(tokenize), segments))
    if callable(tokenize.tokenizer) or TOKENIZERS[tokenize.tokenizer].spaced_tokens:
        return _escaped_token_text(tokens)
    return "\n".join(map(" ".join, tokens))  # the named tokenizers' tokens come from str.split()


def _escaped_token_text(token_lists: list[list[str]]) -> str:
    """A token text of any tokens, such as a custom tokenizer's, which may hold whitespace or be
    empty: each token is escaped, one to one, into a non-empty string without whitespace. Most
    tokens escape to themselves: when all do, the joined text is the answer."""
    try:
        text = "\n".join(map(" ".join, token_lists))
        if "\\" not in text and [line.split() for line in text.split("\n")] == token_lists:
            return text
    except TypeError:  # a token that is not a str: named below
        pass

    def escaped(token: object) -> str:
        if not isinstance(token, str):
            raise TypeError(f"a tokenizer must return a list of str, but it returned a "
                            f"{type(token).__name__} token: {token!r:.80}")
        return token.translate(_ESCAPES) or "\\"  # no escaped token is a lone backslash

    return "\n".join(" ".join(map(escaped, tokens)) for tokens in token_lists)
