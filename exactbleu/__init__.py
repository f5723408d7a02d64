"""exactbleu: BLEU with exactly Hugging Face's, sacrebleu's, NLTK's or COCO's numbers.

The data flows one way. Each stage is a folder (or a module), and imports only from those above it:

- ``registry``, ``limits``, ``version``: how a choice is declared; the bounds every face shares;
- ``inputs``: the boundary, where text, token ids and tensors are told apart (``Corpus.kind``);
- ``tokenizers``: a segment becomes tokens, a corpus one token text (``TOKENIZERS``);
- ``sufficient_statistics``: a segment's row by its definition; ``Statistics``, rows that add up;
- ``options``: every option, preset and smoothing method declared once; ``Settings``;
- ``counting``: the host counts: the numpy engine, threads, n-grams across texts;
- ``device``: torch counts tensors on their device (imported only when a tensor arrives);
- ``scoring``: pure functions of statistics, in each tool's arithmetic; significance; explanation;
- ``dispatch``: the one place that sends an input to ``counting`` or to ``device``;
- ``api``, ``per_sentence``: the functional API (corpus scores; per-sentence scores at scale, MBR);
- ``which_bleu``: every convention's score at once (``conventions``), and those that give a score (``identify``);
- ``compat``, ``cli``, ``metric``, ``torchmetrics``, ``lm_eval``, ``lighteval``, ``mbrs``, ``rewards``, ``verl``,
  ``coco``: the faces: sacrebleu's API, the command line, the evaluate metric, and those of torchmetrics,
  lm-eval, LightEval, mbrs, the RL trainers, verl and the COCO caption evaluation.

Every name in ``__all__`` is public: the faces use these and nothing else.
"""

import importlib
from typing import TYPE_CHECKING

from .version import __version__

if TYPE_CHECKING:  # the names, for type checkers; at run time they load when first used
    from . import compat
    from .api import (
        HARNESS_PRESET,
        HARNESS_RESAMPLES,
        SampleScore,
        bootstrap,
        compare,
        corpus_bleu,
        count_tokens,
        explain,
        paired_test,
        resolve_harness_settings,
        score,
        score_samples,
        scored,
        scored_rows,
        sentence_bleu,
        statistics,
    )
    from .counting import ReferenceCache, Run, SelfBleuStatistics
    from .dispatch import checked_corpus, cpu_tensor_kernels
    from .inputs import Corpus, kind_of
    from .limits import MAX_CELLS, MAX_ORDER, MAX_SAMPLES, MAX_WEIGHT_SETS, PAIRED_TESTS, packed_token_limit
    from .options import (
        OPTIONS,
        PRESETS,
        SMOOTHING,
        Preset,
        Settings,
        Signature,
        Smoothing,
        check_whole_corpus,
        resolve_settings,
        resolve_settings_for_language,
    )
    from .per_sentence import MBR, bleu_matrix, mbr, self_bleu, self_bleu_statistics, sentence_scores
    from .registry import MissingExtra, Option, did_you_mean
    from .scoring import Scored, ScoredRows
    from .scoring.explanation import Explanations
    from .scoring.significance import Compared, Estimate
    from .sufficient_statistics import Statistics, Sums
    from .tokenizers import TOKENIZERS, Needs, Price, Tokenizer, ptb_tokens, tokenizer_for_language
    from .which_bleu import Convention, Identified, convention_tokenizers, conventions, identify

# Each public name and the module that defines it. They load when first used (PEP 562), so that
# `exactbleu --help` and `python -m exactbleu` start without numpy.
_PUBLIC: dict[str, str] = {
    **dict.fromkeys(["HARNESS_PRESET", "HARNESS_RESAMPLES", "SampleScore", "bootstrap", "compare", "corpus_bleu",
                     "count_tokens", "explain", "paired_test", "resolve_harness_settings", "score", "score_samples",
                     "scored", "scored_rows", "sentence_bleu", "statistics"], ".api"),
    **dict.fromkeys(["MBR", "bleu_matrix", "mbr", "self_bleu", "self_bleu_statistics", "sentence_scores"],
                    ".per_sentence"),
    **dict.fromkeys(["Convention", "Identified", "convention_tokenizers", "conventions", "identify"], ".which_bleu"),
    **dict.fromkeys(["OPTIONS", "PRESETS", "SMOOTHING", "Preset", "Settings", "Signature", "Smoothing",
                     "check_whole_corpus", "resolve_settings", "resolve_settings_for_language"], ".options"),
    **dict.fromkeys(["MAX_CELLS", "MAX_ORDER", "MAX_SAMPLES", "MAX_WEIGHT_SETS", "PAIRED_TESTS",
                     "packed_token_limit"], ".limits"),
    **dict.fromkeys(["TOKENIZERS", "Needs", "Price", "Tokenizer", "ptb_tokens", "tokenizer_for_language"],
                    ".tokenizers"),
    **dict.fromkeys(["Scored", "ScoredRows"], ".scoring"),
    **dict.fromkeys(["Compared", "Estimate"], ".scoring.significance"),
    **dict.fromkeys(["checked_corpus", "cpu_tensor_kernels"], ".dispatch"),
    **dict.fromkeys(["Corpus", "kind_of"], ".inputs"),
    **dict.fromkeys(["MissingExtra", "Option", "did_you_mean"], ".registry"),
    **dict.fromkeys(["ReferenceCache", "Run", "SelfBleuStatistics"], ".counting"),
    "Explanations": ".scoring.explanation",
    **dict.fromkeys(["Statistics", "Sums"], ".sufficient_statistics"),
}

__all__ = [
    "HARNESS_PRESET",
    "HARNESS_RESAMPLES",
    "MAX_CELLS",
    "MAX_ORDER",
    "MAX_SAMPLES",
    "MAX_WEIGHT_SETS",
    "MBR",
    "OPTIONS",
    "PAIRED_TESTS",
    "PRESETS",
    "SMOOTHING",
    "TOKENIZERS",
    "Compared",
    "Convention",
    "Corpus",
    "Estimate",
    "Explanations",
    "Identified",
    "MissingExtra",
    "Needs",
    "Option",
    "Preset",
    "Price",
    "ReferenceCache",
    "Run",
    "SampleScore",
    "Scored",
    "ScoredRows",
    "SelfBleuStatistics",
    "Settings",
    "Signature",
    "Smoothing",
    "Statistics",
    "Sums",
    "Tokenizer",
    "__version__",
    "bleu_matrix",
    "bootstrap",
    "check_whole_corpus",
    "checked_corpus",
    "compare",
    "compat",
    "convention_tokenizers",
    "conventions",
    "corpus_bleu",
    "count_tokens",
    "cpu_tensor_kernels",
    "did_you_mean",
    "explain",
    "identify",
    "kind_of",
    "mbr",
    "packed_token_limit",
    "paired_test",
    "ptb_tokens",
    "resolve_harness_settings",
    "resolve_settings",
    "resolve_settings_for_language",
    "score",
    "score_samples",
    "scored",
    "scored_rows",
    "self_bleu",
    "self_bleu_statistics",
    "sentence_bleu",
    "sentence_scores",
    "statistics",
    "tokenizer_for_language",
]


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
