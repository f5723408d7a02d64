"""exactbleu: BLEU with exactly Hugging Face's, sacrebleu's or NLTK's numbers.

The data flows one way, and the modules follow it:

- ``tokenizers``: a segment becomes tokens, a corpus one token text; each tokenizer declared whole
  in its registry, ``TOKENIZERS``;
- ``sufficient_statistics``: the ``Statistics`` type, one row of integers per segment, and its
  definition (``definition``);
- ``counting`` (with ``reading`` and the numpy ``engine``): a corpus becomes its ``Statistics``;
- ``scoring``, ``significance``, ``explanation``: pure functions of statistics;
- ``options``: every option declared once, checked into ``Settings``; the presets; the signature;
- ``inputs``: the boundary, where text and token ids are checked;
- ``api`` and ``per_sentence``: the functional API below; then the faces over it: ``compat``
  (sacrebleu's API, a drop-in), ``cli`` (the command line) and ``evaluate_metric`` (the metric
  that ``bleu_metric.py`` hands to evaluate).

Every name in ``__all__`` is public: the faces use these and nothing else.
"""

import importlib
from typing import TYPE_CHECKING

from .version import __version__

if TYPE_CHECKING:  # the names, for type checkers; at run time they load when first used
    from . import compat
    from .api import (
        bootstrap,
        compare,
        corpus_bleu,
        count_tokens,
        explain,
        paired_test,
        score,
        scored,
        scored_rows,
        sentence_bleu,
        statistics,
    )
    from .counting import ReferenceCache
    from .declaring import Option
    from .explanation import Explanations
    from .inputs import Corpus, checked_corpus
    from .limits import MAX_CELLS, MAX_ORDER, MAX_SAMPLES, MAX_WEIGHT_SETS, PAIRED_TESTS, packed_token_limit
    from .options import OPTIONS, PRESETS, Preset, Settings, Signature, resolve_settings
    from .per_sentence import bleu_matrix, self_bleu, self_bleu_statistics, sentence_scores
    from .scoring import Scored, ScoredRows
    from .self_statistics import SelfBleuStatistics
    from .significance import Compared, Estimate
    from .smoothing import SMOOTHING, Smoothing
    from .sufficient_statistics import Statistics, Sums
    from .tokenizers import TOKENIZERS, Needs, Price, Tokenizer, tokenizer_for_language

# Each public name and the module that defines it. They load when first used (PEP 562), so that
# `exactbleu --help` and `python -m exactbleu` start without numpy.
_PUBLIC: dict[str, str] = {
    **dict.fromkeys(["bootstrap", "compare", "corpus_bleu", "count_tokens", "explain", "paired_test", "score",
                     "scored", "scored_rows", "sentence_bleu", "statistics"], ".api"),
    **dict.fromkeys(["bleu_matrix", "self_bleu", "self_bleu_statistics", "sentence_scores"], ".per_sentence"),
    **dict.fromkeys(["OPTIONS", "PRESETS", "Preset", "Settings", "Signature", "resolve_settings"], ".options"),
    **dict.fromkeys(["MAX_CELLS", "MAX_ORDER", "MAX_SAMPLES", "MAX_WEIGHT_SETS", "PAIRED_TESTS",
                     "packed_token_limit"], ".limits"),
    **dict.fromkeys(["TOKENIZERS", "Needs", "Price", "Tokenizer", "tokenizer_for_language"], ".tokenizers"),
    **dict.fromkeys(["SMOOTHING", "Smoothing"], ".smoothing"),
    **dict.fromkeys(["Scored", "ScoredRows"], ".scoring"),
    **dict.fromkeys(["Compared", "Estimate"], ".significance"),
    **dict.fromkeys(["Corpus", "checked_corpus"], ".inputs"),
    "Option": ".declaring",
    "ReferenceCache": ".counting",
    "Explanations": ".explanation",
    "SelfBleuStatistics": ".self_statistics",
    **dict.fromkeys(["Statistics", "Sums"], ".sufficient_statistics"),
}

__all__ = ["MAX_CELLS", "MAX_ORDER", "MAX_SAMPLES", "MAX_WEIGHT_SETS", "OPTIONS", "PAIRED_TESTS", "PRESETS",
           "SMOOTHING", "TOKENIZERS", "Compared", "Corpus", "Estimate", "Explanations", "Needs", "Option", "Preset",
           "Price", "ReferenceCache", "Scored", "ScoredRows", "SelfBleuStatistics", "Settings", "Signature",
           "Smoothing", "Statistics", "Sums", "Tokenizer", "__version__", "bleu_matrix", "bootstrap", "checked_corpus",
           "compare", "compat", "corpus_bleu", "count_tokens", "explain", "packed_token_limit", "paired_test",
           "resolve_settings", "score", "scored", "scored_rows", "self_bleu", "self_bleu_statistics", "sentence_bleu",
           "sentence_scores", "statistics", "tokenizer_for_language"]


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use."""
    if name == "compat":
        return importlib.import_module(".compat", __name__)
    if name in _PUBLIC:
        module = importlib.import_module(_PUBLIC[name], __name__)
        loaded = {public: getattr(module, public) for public, where in _PUBLIC.items() if where == _PUBLIC[name]}
        globals().update(loaded)
        return globals()[name]
    raise AttributeError(f"module 'exactbleu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
