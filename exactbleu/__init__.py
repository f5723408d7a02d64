"""exactbleu: BLEU with exactly Hugging Face's, sacrebleu's or NLTK's numbers.

The data flows one way, and the modules follow it:

- ``tokenizers``: a segment becomes tokens; a corpus becomes one token text;
- ``sufficient_statistics``: the ``Statistics`` type, one row of integers per segment, and its
  definition;
- ``counting`` (with the numpy ``engine``): a corpus becomes its ``Statistics``;
- ``scoring``, ``significance``, ``explanation``: pure functions of statistics;
- ``options``: every option, declared once, checked into ``Settings``;
- ``api``: the functional API below; ``compat``: sacrebleu's API over it, as a drop-in;
  ``cli``: the command line.

``bleu_metric.py``, beside this package, is the evaluate metric over it.
"""

import importlib
from typing import List

from .version import __version__

# Each public name and the module that defines it. They load when first used (PEP 562), so that
# `exactbleu --help` and `python -m exactbleu` start without numpy.
_PUBLIC = {
    **dict.fromkeys(["bleu_matrix", "corpus_bleu", "explain", "paired_test", "score", "self_bleu",
                     "self_bleu_statistics", "sentence_bleu", "sentence_scores", "statistics"], ".api"),
    **dict.fromkeys(["OPTIONS", "PRESETS", "Settings", "resolve_settings"], ".options"),
    "Statistics": ".sufficient_statistics",
}

__all__ = ["bleu_matrix", "compat", "corpus_bleu", "sentence_bleu", "sentence_scores", "self_bleu",
           "self_bleu_statistics", "statistics", "score", "paired_test", "explain", "Statistics", "Settings",
           "resolve_settings", "OPTIONS", "PRESETS", "__version__"]


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use."""
    if name == "compat":
        return importlib.import_module(".compat", __name__)
    if name in _PUBLIC:
        module = importlib.import_module(_PUBLIC[name], __name__)
        globals().update({public: getattr(module, public) for public, where in _PUBLIC.items() if where == _PUBLIC[name]})
        return globals()[name]
    raise AttributeError(f"module 'exactbleu' has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
