"""The MT scripts' own splits, and how each lowercases: Moses's multi-bleu.perl and
``multi-bleu-detok.perl``, tensor2tensor's ``t2t-bleu``. Each script's preset is the rest of it.

- ``ascii-whitespace``: multi-bleu.perl reads bytes: it splits at ASCII whitespace only (a no-break
  space stays inside its word), and its ``-lc`` lowercases A to Z only.
- ``13a-perl``: multi-bleu-detok.perl's 13a in Perl's Unicode, where U+001C to U+001F are no
  whitespace, and its ``-lc`` is Perl's ``lc``, which has no final sigma (ΟΔΟΣ: οδοσ).
- ``t2t``: tensor2tensor's ``bleu_tokenize``, by the running Python's Unicode categories. Its
  classes are pasted from raw characters, where the backslash escapes the ``]`` after it, so a
  backslash never splits off (``a\\b`` is one token).
"""

import functools
import re
import string
import sys
import unicodedata
from typing import TYPE_CHECKING

from .registry import NON_ASCII, PUNCTUATION_AND_TENTHS, SYMBOLS, Price, Tokenizer, UncutText, fixed
from .tokenizer_13a import one_per_line, text_13a, tokenize_13a, uncut_13a
from .tokenizing import OTHER_SPACES

if TYPE_CHECKING:
    import regex

# str.split() splits on these, a Perl byte string's split does not.
_NOT_ASCII_SPACE = re.compile("[\x1c-\x1f" + OTHER_SPACES + "]")
_ASCII_SPACES = re.compile("[ \t\n\x0b\x0c\r]+")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
# Perl's \s on a character string: str.split()'s whitespace but U+001C to U+001F.
PERL_SPACE = "\t\n\x0b\x0c\r " + OTHER_SPACES
_UNIT_SEPARATORS = re.compile("[\x1c-\x1f]")
# What 13a reads in lower case only.
_CASE_SENSITIVE = re.compile("<skipped>|&quot;|&amp;|&lt;|&gt;")


def tokenize_ascii_whitespace(line: str) -> list[str]:
    """multi-bleu.perl's words: runs of anything but ASCII whitespace.

    >>> tokenize_ascii_whitespace("a\\xa0b c")
    ['a\\xa0b', 'c']
    """
    if _NOT_ASCII_SPACE.search(line) is None:
        return line.split()
    return [word for word in _ASCII_SPACES.split(line) if word]


def lowercase_ascii(text: str) -> str:
    """Perl's ``lc`` on bytes, as ``multi-bleu.perl -lc``: A to Z only."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def ascii_whitespace_text(lines: list[str]) -> str | None:
    """The token text of lines that hold no whitespace but ASCII's: the lines themselves."""
    text = one_per_line(lines)
    return None if text is None or _NOT_ASCII_SPACE.search(text) else text


def tokenize_13a_perl(line: str) -> list[str]:
    """``multi-bleu-detok.perl``'s tokens: 13a's, where U+001C to U+001F stay inside their words.

    >>> tokenize_13a_perl("a\\x1cb, c")
    ['a\\x1cb', ',', 'c']
    """
    separators = set(_UNIT_SEPARATORS.findall(line))
    if not separators:
        return tokenize_13a(line)
    # 13a's rules read neither them nor a private-use character: stand-ins carry them through the split.
    stand_ins = (chr(point) for point in range(0xF0000, 0x110000) if chr(point) not in line)
    swap: dict[str, str] = {separator: next(stand_ins) for separator in sorted(separators)}
    back: dict[str, str] = {stand_in: separator for separator, stand_in in swap.items()}
    there, home = str.maketrans(swap), str.maketrans(back)
    return [token.translate(home) for token in tokenize_13a(line.translate(there))]


def perl_lc(text: str) -> str:
    """Perl's ``lc`` on a character string: Unicode's full lowercasing, with no final sigma."""
    return (text.replace("Σ", "σ") if "Σ" in text else text).lower()


def lowercase_perl(text: str) -> str:
    """Perl's ``lc`` on a character string: Unicode's full lowercasing, with no final sigma.

    ``multi-bleu-detok.perl -lc`` lowercases a hypothesis before tokenizing and a reference after,
    and its tokenizing deletes ``<skipped>`` and reads four entities in lower case only: a text
    whose lowercasing makes one of those (``<SKIPPED>``, ``&QUOT;``) counts differently on each
    side, so it is refused rather than counted as one side would."""
    lowered = perl_lc(text)
    if "&" in lowered or "<" in lowered:
        made = len(_CASE_SENSITIVE.findall(lowered)) - len(_CASE_SENSITIVE.findall(text))
        if made:
            raise ValueError(f"lowercase=True under the 13a-perl tokenizer (multi-bleu-detok.perl -lc) cannot count "
                             f"{text!r:.80}: the script deletes <skipped> and reads &quot; &amp; &lt; &gt; after "
                             f"lowercasing a hypothesis but before lowercasing a reference, so this text has no one "
                             f"count; lowercase it yourself, or use lowercase=False")
    return lowered


def text_13a_perl(lines: list[str]) -> str | None:
    """13a's fast token text, where no line holds U+001C to U+001F."""
    return None if any(map(_UNIT_SEPARATORS.search, lines)) else text_13a(lines)


def uncut_13a_perl(lines: list[str]) -> UncutText | None:
    """13a's text for the counting engine to cut, where no line holds U+001C to U+001F."""
    return None if any(map(_UNIT_SEPARATORS.search, lines)) else uncut_13a(lines)


# mteval reads a document's text with every run of Perl's whitespace made one space.
_PERL_SPACES = re.compile(f"[{PERL_SPACE}]+")
_INTL_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'"))


def tokenize_mteval(line: str) -> list[str]:
    """mteval-v13a.pl's and mteval-v14.pl's tokens of a segment (``tokenization``): its whitespace
    squeezed, then 13a; their A to Z lowercasing comes after the entities, on the tokens."""
    return tokenize_13a_perl(_PERL_SPACES.sub(" ", line))


@functools.cache
def _international_rules() -> tuple[tuple["regex.Pattern[str]", str], ...]:
    import regex

    return ((regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "), (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "), (regex.compile(r"\p{Z}+"), " "))


def tokenize_mteval_international(line: str) -> list[str]:
    """mteval's ``--international-tokenization`` (``tokenization_international``): its whitespace
    squeezed, <skipped> deleted, five entities read (``&apos;`` too), Unicode punctuation split off
    unless a number stands on both sides, symbols always; then split at Perl's whitespace."""
    line = _PERL_SPACES.sub(" ", line).replace("<skipped>", "")
    if "&" in line:
        for entity, character in _INTL_ENTITIES:
            line = line.replace(entity, character)
    for pattern, replacement in _international_rules():
        line = pattern.sub(replacement, line)
    return tokenize_13a_perl_words(line)


# Perl's whitespace outside Unicode's separators (\p{Z}), which the international tokenization keeps.
_NOT_SEPARATORS = "\t\n\x0b\x0c\r\x85"
_LEADING_NOT_SEPARATOR = re.compile(f"[{PERL_SPACE.translate(dict.fromkeys(map(ord, _NOT_SEPARATORS)))}]*"
                                    f"[{_NOT_SEPARATORS}]")


def _joined(text: str, hyphenated: str) -> str:
    """The text with a hyphen at a line's end joined to the next line, after <skipped> is gone, as
    mteval joins them; a ValueError where joining makes another <skipped>."""
    if hyphenated not in text:
        return text
    text = text.replace("<skipped>", "").replace(hyphenated, "")
    if "<skipped>" in text:
        raise ValueError("joining its lines makes a <skipped>, which mteval keeps")
    return text


def xml_text_mteval(text: str, script: str) -> str:
    """A segment of mteval's XML, whose whitespace mteval does not squeeze, as the text whose
    squeezed tokens are its own: 13a joins a hyphen to a line break's next line."""
    return _joined(text, "-\n")


def xml_text_mteval_international(text: str, script: str) -> str:
    """The same for its international tokenization: Moses's v13a joins a hyphen to the next line
    after U+2028; a tab or line break that starts a segment is an empty word to it."""
    if _LEADING_NOT_SEPARATOR.match(text):
        raise ValueError("it starts with a tab or a line break, where mteval's international tokenization counts "
                         "an empty word; exactbleu does not count one")
    return _joined(text, "-\u2028") if script == "mteval-v13a.pl" else text


def tokenize_13a_perl_words(line: str) -> list[str]:
    """Words between Perl's whitespace (U+001C to U+001F stay inside them)."""
    return [word for word in _PERL_SPACES.split(line) if word]


# Every punctuation mark and symbol is below U+20000: planes 2 and 3 hold ideographs, 14 tags and
# selectors, 15 and 16 private use (tests/tokenizers/test_scripts.py checks the running Python's).
_CATEGORIES_END = 0x20000


@functools.cache
def _t2t_classes(astral: bool) -> tuple["re.Pattern[str]", "re.Pattern[str]"]:
    """t2t's punctuation and symbols, by the running Python's categories (built when first used).
    Without the ``astral`` planes' (past U+FFFF), ``re`` tests a character against a bitmap, where
    with them it would walk hundreds of ranges: the text says which it needs."""
    punctuation, symbols = [], []
    for point in range(_CATEGORIES_END if astral else 0x10000):
        category = unicodedata.category(chr(point))[0]
        if category == "P" and point != 0x5C:  # the backslash: see the module's note
            punctuation.append(point)
        elif category == "S":
            symbols.append(point)
    return re.compile(_character_class(punctuation)), re.compile(f"({_character_class(symbols)})")


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _character_class(points: list[int]) -> str:
    """A regular expression's class of these code points, in ranges."""
    ranges: list[list[int]] = []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return "[" + "".join(re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
                         for low, high in ranges) + "]"


def _spaced_pairs(text: str, marks: "re.Pattern[str]", after: bool) -> str:
    """t2t's ``([^\\d])(P)`` -> ``\\1 \\2 `` (``after``: ``(P)([^\\d])`` -> `` \\1 \\2``), visiting only the
    marks: a substitution matches pairs left to right without overlap, so a mark pairs with the
    character before it (after it) where that is no digit and no earlier pair took it."""
    pieces, done, taken = [], 0, -1
    for match in marks.finditer(text):
        mark = match.start()
        other = mark + 1 if after else mark - 1
        first = mark if after else other
        if first <= taken or not 0 <= other < len(text) or text[other].isdecimal():
            continue
        pieces += [text[done:first], f" {text[mark]} {text[other]}" if after else f"{text[other]} {text[mark]} "]
        done, taken = first + 2, first + 1
    return "".join(pieces) + text[done:] if pieces else text


def tokenize_t2t(line: str) -> list[str]:
    """tensor2tensor's ``bleu_tokenize``: its three substitutions, then Python's split.

    >>> tokenize_t2t("It's 3.5% (a\\\\b).")
    ['It', "'", 's', '3.5', '%', '(', 'a\\\\b', ')', '.']
    """
    marks, signs = _t2t_classes(not line.isascii() and _ASTRAL.search(line) is not None)
    line = _spaced_pairs(_spaced_pairs(line, marks, False), marks, True)
    return signs.sub(r" \1 ", line).split()


assert sys.maxunicode >= _CATEGORIES_END

TOKENIZERS = (
    Tokenizer("ascii-whitespace", fixed(tokenize_ascii_whitespace),
              "multi-bleu.perl's: words between ASCII whitespace (it reads bytes); its `lowercase` lowercases A-Z only",
              Price(character=0.045e-6, line=1.3e-6, dear=0.23e-6, dear_characters=NON_ASCII, tokens=(1, 0)),
              rstrip=False, token_text=ascii_whitespace_text, lowercase=lowercase_ascii, spaced_tokens=True,
              script="multi-bleu.perl"),
    Tokenizer("13a-perl", fixed(tokenize_13a_perl),
              "multi-bleu-detok.perl's: 13a in Perl's Unicode (U+001C-001F stay in their words); its `lowercase` "
              "is Perl's `lc`, without a final sigma",
              Price(character=0.05e-6, line=0.97e-6, dear=1.6e-6, dear_characters=PUNCTUATION_AND_TENTHS,
                    tokens=(1, 2)),
              rstrip=False, token_text=text_13a_perl, uncut_text=uncut_13a_perl, lowercase=lowercase_perl,
              spaced_tokens=True, script="multi-bleu-detok.perl"),
    Tokenizer("t2t", fixed(tokenize_t2t),
              "tensor2tensor's `bleu_tokenize` (t2t-bleu): Unicode punctuation and symbols split off, but never a "
              "backslash", Price(character=0.24e-6, line=6.1e-6, dear=3.3e-6, dear_characters=SYMBOLS, tokens=(1, 2)),
              rstrip=False, script="t2t-bleu"),
    Tokenizer("mteval-13a", fixed(tokenize_mteval),
              "mteval-v13a.pl's and mteval-v14.pl's: 13a in Perl's Unicode; its `lowercase` is theirs, A-Z on the "
              "tokens (their default; `-c` is `lowercase=False`)",
              Price(character=0.05e-6, line=1.3e-6, dear=1.6e-6, dear_characters=PUNCTUATION_AND_TENTHS,
                    tokens=(1, 2)),
              # Its token text is 13a-perl's where no line holds a line break of its own (squeezing the
              # whitespace first changes a segment's tokens only where a line break follows a hyphen).
              rstrip=False, token_text=text_13a_perl, lowercase=lowercase_ascii, lowercases_tokens=True,
              spaced_tokens=True, script="mteval", xml_text=xml_text_mteval),
    Tokenizer("mteval-intl", fixed(tokenize_mteval_international),
              "mteval's --international-tokenization: Unicode punctuation and symbols split off, entities read; its "
              "`lowercase` is Perl's `lc`, on the tokens",
              Price(character=1.05e-6, line=8.5e-6, dear=0.96e-6, dear_characters=SYMBOLS, tokens=(1, 2)),
              rstrip=False, lowercase=perl_lc, lowercases_tokens=True, spaced_tokens=True, script="mteval",
              xml_text=xml_text_mteval_international),
)
