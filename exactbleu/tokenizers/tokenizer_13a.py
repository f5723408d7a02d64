"""mteval-v13a, WMT's standard tokenizer, as Hugging Face's ``bleu`` and sacrebleu's ``13a`` run it.

The rules are stated once, as mteval states them: ``split_mteval_punctuation``, which
``tokenize_13a`` runs on one segment. Two faster forms stand beside that statement, each for the
place where it is measured to win, and tests/tokenizers/test_tokenizer_13a.py holds both to it:

- ``text_13a`` cuts a few segments at once, visiting only the periods, commas and hyphens:
  17 us for 8 WMT segments where the regular expressions take 88 us, which would make the
  8-segment benchmark row about 14% slower;
- ``cuts_13a`` reads the same boundaries off a corpus's UTF-8 bytes in numpy, for the counting
  engine, which then never makes a string per token (``uncut_13a`` prepares that text).
"""

import re
from typing import TYPE_CHECKING

from .registry import PUNCTUATION_AND_TENTHS, Price, Tokenizer, UncutText, fixed

if TYPE_CHECKING:  # only the counting engine's form needs numpy, and imports it when it runs
    import numpy as np
    from numpy.typing import NDArray

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
_ASCII_DIGITS = frozenset("0123456789")


def _pad_symbols(text: str) -> str:
    """Surround every 13a symbol with spaces (one C-level pass per symbol that occurs)."""
    for symbol in _13A_SYMBOLS:
        if symbol in text:
            text = text.replace(symbol, f" {symbol} ")
    return text


def split_mteval_punctuation(text: str) -> list[str]:
    """The language-dependent part of mteval-v13a, as stated: every symbol splits off, then the
    three context rules for periods, commas and hyphens. The zh tokenizer runs it too."""
    text = _pad_symbols(text)
    for pattern, replacement in _13A_CONTEXT_RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def tokenize_13a(line: str) -> list[str]:
    """mteval-v13a, exactly as HF's ``bleu`` (and sacrebleu's ``13a`` class) tokenizes.

    >>> tokenize_13a("Hello, &quot;world&quot;! It costs $3.50-4.")
    ['Hello', ',', '"', 'world', '"', '!', 'It', 'costs', '$', '3.50', '-', '4', '.']
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, character in _13A_ENTITIES:
            line = line.replace(entity, character)
    return split_mteval_punctuation(f" {line} ")


# ---------------------------------------------------------------------------------------------
# The fast string form: a few segments at once
# ---------------------------------------------------------------------------------------------


def _split_periods_commas_hyphens(text: str) -> str:
    """The three context rules, with the same tokens, visiting only the periods, commas and
    hyphens. ``text`` must start and end with a space, as 13a pads every segment.

    Worked out from the non-overlapping matches: a lone . or , splits off unless it stands
    between two digits. In a run of two or more, every mark is its own token, and the last one
    stays joined to a following digit when the run's length is odd after a digit, or even after
    anything else. A hyphen splits off when a digit precedes it.
    """
    marks = sorted(_find_all(text, ".") + _find_all(text, ","))
    if marks:
        pieces, done, first, last = [], 0, 0, len(marks) - 1
        for index, position in enumerate(marks):
            if index < last and marks[index + 1] == position + 1:
                continue  # the run goes on
            start, stop = marks[first], position + 1
            first = index + 1
            digit_before, digit_after = text[start - 1] in _ASCII_DIGITS, text[stop] in _ASCII_DIGITS
            if start == position:  # a lone mark
                if digit_before and digit_after:
                    continue  # it stays inside its number
                spaced = f" {text[start]} "
            else:
                spaced = " " + " ".join(text[start:stop])
                if not (digit_after and digit_before == ((stop - start) % 2 == 1)):
                    spaced += " "
            pieces.append(text[done:start])
            pieces.append(spaced)
            done = stop
        text = "".join(pieces) + text[done:]
    hyphens = [position for position in _find_all(text, "-") if text[position - 1] in _ASCII_DIGITS] \
        if "-" in text else []
    if hyphens:
        pieces, done = [], 0
        for position in hyphens:
            pieces += [text[done:position], " - "]
            done = position + 1
        text = "".join(pieces) + text[done:]
    return text


def _find_all(text: str, character: str) -> list[int]:
    """Every position of ``character`` in ``text`` (str.find runs at memchr speed)."""
    positions, position = [], text.find(character)
    while position != -1:
        positions.append(position)
        position = text.find(character, position + 1)
    return positions


def one_per_line(lines: list[str]) -> str | None:
    """The lines joined by line breaks, or None when a line holds a line break of its own."""
    text = "\n".join(lines)
    return text if text.count("\n") == len(lines) - 1 else None


def uncut_13a(lines: list[str]) -> UncutText | None:
    """The lines as an ``UncutText``, for the counting engine to cut by 13a's rules
    (``cuts_13a``; None when a line holds a line break of its own): only the entities and
    <skipped> are replaced here."""
    text = one_per_line(lines)
    if text is None:
        return None
    if "<skipped>" in text:
        text = text.replace("<skipped>", "")
    if "&" in text:
        for entity, character in _13A_ENTITIES:
            text = text.replace(entity, character)
    return UncutText(text, cuts_13a)


def text_13a(lines: list[str]) -> str | None:
    """13a's tokens of every line as one token text (see ``token_text``), or None when a line
    holds a line break of its own. Each line is padded with spaces, so no rule can match across
    a line break, and every line tokenizes as it would alone."""
    text = uncut_13a(lines)  # <skipped> and the entities go there, in 13a's order
    return None if text is None else _split_periods_commas_hyphens(_pad_symbols(" " + text.replace("\n", " \n ") + " "))


# ---------------------------------------------------------------------------------------------
# The byte-level form: the counting engine's
# ---------------------------------------------------------------------------------------------


def cuts_13a(octets: "NDArray[np.uint8]") -> "NDArray[np.bool_]":
    """Where 13a splits a run of non-space bytes: ``cut[i]`` when a token boundary falls between
    bytes i-1 and i. The rules of ``text_13a``, read off the bytes (every
    rule's context is ASCII): a symbol is a token of its own; a hyphen after a digit too; a lone
    period or comma unless it stands between two digits; every mark of a run of them, the last one
    staying joined to a following digit when the run's length is odd after a digit, or even after
    anything else. ``octets`` starts with a space and ends with spare bytes, so i-1 and i+1 exist."""
    import numpy as np

    # 13a's symbols are the ASCII punctuation but ' , - and .: ! to &, ( to +, /, : to @, [ to `, { to ~.
    symbol = ((octets - np.uint8(0x21) < 6) | (octets - np.uint8(0x28) < 4) | (octets == 0x2F)
              | (octets - np.uint8(0x3A) < 7) | (octets - np.uint8(0x5B) < 6) | (octets - np.uint8(0x7B) < 4))
    cut: NDArray[np.bool_] = symbol.copy()
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




TOKENIZER = Tokenizer("13a", fixed(tokenize_13a), "mteval-v13a: HF's `bleu`, sacrebleu's default and WMT's",
                      Price(character=0.05e-6, line=1.5e-6, dear=1.7e-6, dear_characters=PUNCTUATION_AND_TENTHS,
                            tokens=(1, 2)), rstrip=False, token_text=text_13a, uncut_text=uncut_13a)
