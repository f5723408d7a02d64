"""The splits of evaluation frameworks that tokenize their own way.

- ``codexglue``: CodeXGLUE's code-to-text evaluator (``evaluator.py``, the smoothed BLEU-4 that
  CodeBERT, GraphCodeBERT, CodeT5 and UniXcoder report): it lowercases a line, keeps each run of
  word characters and makes every other character that is no whitespace a token of its own, then
  normalizes the result as NIST's mteval does, which is 13a on a text that has no entity, no
  ``<skipped>`` and no line break left to read. So an underscore, which 13a splits off, parts
  ``snake_case`` into three tokens.
"""

import re

from .registry import PUNCTUATION_AND_TENTHS, Price, Tokenizer, fixed
from .tokenizer_13a import tokenize_13a

# A run of word characters, or one character that is neither a word's nor whitespace.
_WORDS_OR_MARKS = re.compile(r"\w+|[^\s\w]")


def tokenize_codexglue(line: str) -> list[str]:
    """CodeXGLUE's tokens of a line: lowercased, words and single marks apart, then 13a."""
    return tokenize_13a(" ".join(_WORDS_OR_MARKS.findall(line.strip().lower())))


TOKENIZERS = (
    Tokenizer("codexglue", fixed(tokenize_codexglue),
              "CodeXGLUE's code-to-text evaluator's: lowercased, runs of word characters and single marks apart, "
              "then 13a (so an underscore splits)",
              Price(character=0.35e-6, line=1e-6, dear=1.6e-6, dear_characters=PUNCTUATION_AND_TENTHS),
              rstrip=False, script="CodeXGLUE evaluator.py"),
)
