"""sacrebleu's simpler tokenizers: ``zh``, ``intl``, ``char`` and ``none``. Each right-strips the
segment first, as sacrebleu does (the registry applies that)."""

import functools
import re
from typing import TYPE_CHECKING

from .registry import NON_ASCII, NOT_PLAIN_ASCII, SYMBOLS, Price, Tokenizer, fixed
from .tokenizer_13a import one_per_line, split_mteval_punctuation

if TYPE_CHECKING:
    import regex

# sacrebleu's zh table as it stands, quirk included: it writes the Extension B range as
# '\u20000'..'\u2a6d6' and the Compatibility Supplement as '\u2f800'..'\u2fa1d', which Python
# reads as two characters each. Compared with one character, those bounds
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


def tokenize_zh(line: str) -> list[str]:
    """sacrebleu's ``zh``: every CJK character (by its table) is a token; the rest is 13a-like."""
    return split_mteval_punctuation(_ZH_CHARACTER.sub(r" \1 ", line.strip()))


@functools.cache
def _intl_rules() -> tuple[tuple["regex.Pattern[str]", str], ...]:
    """intl's rules, compiled once, when first used (Unicode property classes need ``regex``)."""
    import regex

    return ((regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "), (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "))


def tokenize_intl(line: str) -> list[str]:
    """sacrebleu's ``intl`` (mteval-v14 international): Unicode punctuation and symbols split off,
    except punctuation between digits."""
    for pattern, replacement in _intl_rules():
        line = pattern.sub(replacement, line)
    return line.split()


def tokenize_char(line: str) -> list[str]:
    """sacrebleu's ``char``: every non-whitespace character is a token."""
    return " ".join(line).split()


def tokenize_none(line: str) -> list[str]:
    """sacrebleu's ``none``, and NLTK's usual input: the whitespace-separated words."""
    return line.split()


def char_text(lines: list[str]) -> str | None:
    """``char``'s token text of the lines, written at once (None when a line holds a line break)."""
    text = one_per_line(lines)
    return None if text is None else " ".join(text)


TOKENIZERS = (
    Tokenizer("intl", fixed(tokenize_intl),
              "sacrebleu's mteval-v14 international: Unicode punctuation and symbols split off",
              Price(character=0.64e-6, line=4e-6, dear=2.1e-6, dear_characters=SYMBOLS, tokens=(1, 2))),
    Tokenizer("zh", fixed(tokenize_zh), "sacrebleu's Chinese: a token per CJK character",
              Price(character=0.4e-6, line=18e-6, dear=5.4e-6, dear_characters=NOT_PLAIN_ASCII, tokens=(1, 2)),
              languages=("zh",)),
    Tokenizer("char", fixed(tokenize_char), "sacrebleu's: a token per character",
              Price(character=0.033e-6, line=1.2e-6, dear=0.19e-6, dear_characters=NON_ASCII,
                    distinct_tokens=lambda text: len(set(text))),
              token_text=char_text),
    Tokenizer("none", fixed(tokenize_none), "sacrebleu's: whitespace-separated words (NLTK's usual input)",
              Price(character=0.045e-6, line=1e-6, dear=0.15e-6, dear_characters=NON_ASCII, tokens=(1, 0)),
              token_text=one_per_line),
)
# The whitespace tokenizer: token ids are scored as their ids written as words under it.
WORDS = TOKENIZERS[-1].name
