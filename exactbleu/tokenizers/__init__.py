"""Tokenizers: a segment becomes a list of tokens, and a corpus becomes one token text.

Every tokenizer is sacrebleu's, HF's or sacremoses', token for token, and each family lives in a
module of its own with its name for the signature: ``tokenizer_13a`` (HF's default and WMT's),
``simple`` (sacrebleu's zh, intl, char and none), ``moses``, ``mecab`` (Korean and Japanese) and
``spm`` (SentencePiece, spBLEU). ``TOKENIZERS`` names them all.

A token text holds a corpus's tokens as one string: tokens separated by whitespace, one segment per
line. The counting engine reads it as bytes, so no string object is made per token.
"""

import collections.abc
import functools
from typing import Callable, List, NamedTuple

from . import mecab, moses, simple, spm, tokenizer_13a
from .tokenizer_13a import one_per_line


class Family(NamedTuple):
    """A named tokenizer: its function of one segment, whether sacrebleu right-strips segments
    before it, and its name in a signature, given the tokenizing settings."""

    function: Callable
    rstrip: bool
    signature: Callable


def _named(name):
    return lambda tokenize: name


TOKENIZERS = {
    "13a": Family(tokenizer_13a.tokenize_13a, False, _named("13a")),
    "intl": Family(simple.tokenize_intl, True, _named("intl")),
    "zh": Family(simple.tokenize_zh, True, _named("zh")),
    "char": Family(simple.tokenize_char, True, _named("char")),
    "none": Family(simple.tokenize_none, True, _named("none")),
    "moses": Family(moses.tokenize_moses, False, lambda tokenize: moses.signature_name(tokenize.lang)),
    **{name: Family(function, True, lambda tokenize, name=name: mecab.signature_name(name))
       for name, function in (("ko-mecab", mecab.tokenize_ko_mecab), ("ja-mecab", mecab.tokenize_ja_mecab))},
    **{name: Family(spm.tokenize_spm, True,
                    lambda tokenize, name=name: spm.signature_name(name, tokenize.spm_model))
       for name in spm.SPM_MODELS},
}
MECAB = mecab.MECAB
SPM_MODELS = spm.SPM_MODELS
# sacrebleu's tokenizer for a target language (its -l, and BLEU(trg_lang=)); 13a for the others.
TOKENIZER_OF_LANGUAGE = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def rstripped_by_default(tokenizer) -> bool:
    """Whether sacrebleu right-strips a segment before this tokenizer: its own ones, yes; HF's
    13a, sacremoses and a callable, no. (13a's tokens differ only for a segment that ends in a
    hyphen and a line break.)"""
    return not callable(tokenizer) and TOKENIZERS[tokenizer].rstrip


def signature_name(tokenize) -> str:
    """The tokenizer's name in a signature (``tokenize``: the tokenizing settings)."""
    if callable(tokenize.tokenizer):
        function = tokenize.tokenizer
        return f"custom({_function_name(function)})"
    return TOKENIZERS[tokenize.tokenizer].signature(tokenize)


def _normalized(segments, tokenize):
    """Lowercase and right-strip first, where the tokenizing settings say so."""
    if tokenize.lowercase:
        segments = [segment.lower() for segment in segments]
    if tokenize.rstrip:
        segments = [segment.rstrip() for segment in segments]
    return segments


def _segment_tokenizer(tokenize):
    """The one place that maps tokenizing settings to a ``str -> list[str]`` function."""
    if callable(tokenize.tokenizer):
        return _checked_callable(tokenize.tokenizer)
    if tokenize.tokenizer == "moses":
        return functools.partial(moses.tokenize_moses, lang=tokenize.lang)
    if tokenize.tokenizer in spm.SPM_MODELS:
        return functools.partial(spm.tokenize_spm, model=tokenize.spm_model)
    return TOKENIZERS[tokenize.tokenizer].function


def _checked_callable(function):
    """A custom tokenizer whose failures name it: an exception it raises becomes a ValueError, and
    an answer that is not a list of tokens a TypeError (checked token by token where the tokens
    are read)."""

    def tokenize(segment):
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


def _function_name(function) -> str:
    return getattr(function, "__name__", type(function).__name__)


def make_tokenizer(tokenize) -> Callable[[str], List[str]]:
    """The tokens of one segment under these tokenizing settings (``options.TokenizeSettings``):
    lowercase and right-strip where they say, then tokenize. Returns a function ``str -> list[str]``."""
    function = _segment_tokenizer(tokenize)
    return lambda segment: list(function(_normalized([segment], tokenize)[0]))


def _char_text(lines):
    text = one_per_line(lines)
    return None if text is None else " ".join(text)


# A token text holds a corpus's tokens as one string: tokens separated by whitespace, one segment
# per line. The statistics read it as bytes, so no string object is made per token. These
# tokenizers write it straight from the text (None when a segment holds a line break of its own).
_TOKEN_TEXTS = {"13a": tokenizer_13a.text_13a, "none": one_per_line, "char": _char_text}
# str.split() splits on the ASCII whitespace \t \n \v \f \r, \x1c-\x1f and the space, and on these:
OTHER_SPACES = "\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
OTHER_SPACES_TO_SPACE = str.maketrans(OTHER_SPACES, " " * len(OTHER_SPACES))
_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f " + OTHER_SPACES
_ESCAPES = str.maketrans({"\\": "\\\\", **{space: f"\\{number:02}" for number, space in enumerate(_WHITESPACE)}})


def reader_text(segments: List[str], tokenize) -> str:
    """What the statistics read for these segments: their token text, or for 13a the segments
    themselves as an ``MtevalText``, which the statistics cut into the same tokens."""
    if tokenize.tokenizer == "13a":
        text = tokenizer_13a.uncut_13a(_normalized(segments, tokenize))
        if text is not None:
            return text
    return token_text(segments, tokenize)


def token_text(segments: List[str], tokenize) -> str:
    """The segments' tokens under these tokenizing settings, as a token text: tokens separated by
    spaces, one line per segment."""
    direct = _TOKEN_TEXTS.get(tokenize.tokenizer) if isinstance(tokenize.tokenizer, str) else None
    text = direct(_normalized(segments, tokenize)) if direct else None
    if text is not None:
        return text
    tokens = list(map(make_tokenizer(tokenize), segments))
    if callable(tokenize.tokenizer):
        return _escaped_token_text(tokens)
    return "\n".join(map(" ".join, tokens))  # the named tokenizers' tokens come from str.split()


def _escaped_token_text(token_lists):
    """A token text of any tokens, such as a custom tokenizer's, which may hold whitespace or be
    empty: each token is escaped, one to one, into a non-empty string without whitespace. Most
    tokens escape to themselves: when all do, the joined text is the answer."""
    try:
        text = "\n".join(map(" ".join, token_lists))
        if "\\" not in text and [line.split() for line in text.split("\n")] == token_lists:
            return text
    except TypeError:  # a token that is not a str: named below
        pass

    def escaped(token):
        if not isinstance(token, str):
            raise TypeError(f"a tokenizer must return a list of str, but it returned a "
                            f"{type(token).__name__} token: {token!r:.80}")
        return token.translate(_ESCAPES) or "\\"  # no escaped token is a lone backslash

    return "\n".join(" ".join(map(escaped, tokens)) for tokens in token_lists)
