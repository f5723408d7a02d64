"""Scoring: summed statistics become a score, in one of three arithmetics.

Every function here is pure: a function of ``Sums`` (or of many rows at once) and the settings.
A corpus score is the score of the corpus's sums, a sentence score that of one segment's, and a
bootstrap sample's that of its resampled sums. Each arithmetic lives in a module of its own, with
its one-sum and its many-rows forms side by side, equal bit for bit:

- ``arithmetic_hf``: HF's ``bleu`` (tensorflow/nmt), no ``smooth_method``;
- ``arithmetic_sacrebleu``: sacrebleu's ``compute_bleu``, its four smoothing methods;
- ``arithmetic_nltk``: NLTK's ``corpus_bleu``/``sentence_bleu``, its ``method0`` to ``method7``.

``arithmetic(settings)`` is the one place that chooses among them.
"""

import dataclasses
from types import ModuleType
from typing import Dict, NamedTuple, Optional

import numpy as np

from ..sufficient_statistics import Statistics, Sums
from . import arithmetic_hf, arithmetic_nltk, arithmetic_sacrebleu
from .arithmetic_nltk import NLTK_FIFTH_ORDER
from .arithmetic_sacrebleu import sacrebleu_percent
from .common import Scored, ScoredRows


class Smoothing(NamedTuple):
    """A smoothing method, declared once: its name, the arithmetic it belongs to, the default of
    its ``smooth_value`` (None: it takes none) and what it does, for the docs."""

    name: str
    arithmetic: ModuleType
    default: Optional[float]
    describe: str


SMOOTHING: Dict[str, Smoothing] = {method.name: method for method in (
    # sacrebleu's methods (Chen & Cherry, 2014, as sacrebleu states them).
    Smoothing("none", arithmetic_sacrebleu, None, "no smoothing: an order without a match makes the score 0"),
    Smoothing("floor", arithmetic_sacrebleu, 0.1, "an order without a match gets precision `smooth_value` / total"),
    Smoothing("add-k", arithmetic_sacrebleu, 1, "adds `smooth_value` to matches and totals from order 2 on"),
    Smoothing("exp", arithmetic_sacrebleu, None, "the k-th order without a match gets precision 1 / (2^k total)"),
    # NLTK's SmoothingFunction methods; method0 is its name for no smoothing, the "nltk" preset's.
    Smoothing("method0", arithmetic_nltk, None, "no smoothing: a precision of 0 counts as `sys.float_info.min`"),
    Smoothing("method1", arithmetic_nltk, 0.1, "an order without a match gets `smooth_value` (epsilon) / total"),
    Smoothing("method2", arithmetic_nltk, None, "adds 1 to matches and totals from order 2 on (Lin & Och, 2004)"),
    Smoothing("method3", arithmetic_nltk, None, "the k-th order without a match gets 1 / (2^k total) (NIST)"),
    Smoothing("method4", arithmetic_nltk, None, "as method3, scaled by k / log(hypothesis length), k = 5"),
    Smoothing("method5", arithmetic_nltk, None, "each precision averaged with its neighbours, the 5-gram's included"),
    Smoothing("method6", arithmetic_nltk, None, "interpolates with the previous orders' ratio, alpha = 5"),
    Smoothing("method7", arithmetic_nltk, None, "methods 4 and 5 together"),
)}


def methods_of(module: ModuleType) -> Dict[str, Optional[float]]:
    """The smoothing methods of one arithmetic, with their default values."""
    return {method.name: method.default for method in SMOOTHING.values() if method.arithmetic is module}


SMOOTH_DEFAULTS = methods_of(arithmetic_sacrebleu)
NLTK_SMOOTHING = methods_of(arithmetic_nltk)


def markdown_table() -> str:
    """The docs' table of the smoothing methods."""
    lines = ["| `smooth_method` | arithmetic | what it does | `smooth_value` |", "|---|---|---|---|",
             "| `None` | HF | no smoothing (`smooth=True`: add one at every order) | - |"]
    for method in SMOOTHING.values():
        default = "-" if method.default is None else f"default {method.default:g}"
        lines.append(f"| `\"{method.name}\"` | {method.arithmetic.NAME} | {method.describe} | {default} |")
    return "\n".join(lines)

__all__ = ["NLTK_FIFTH_ORDER", "NLTK_SMOOTHING", "SMOOTHING", "SMOOTH_DEFAULTS", "Scored", "Smoothing", "ScoredRows", "arithmetic",
           "for_sentences", "on_percent_scale", "sacrebleu_percent", "score", "score_corpus", "scored",
           "first_weight_set", "sentence_results", "sentence_scores", "several_weight_sets", "weight_sets"]


def arithmetic(settings) -> ModuleType:
    """The one place that chooses the arithmetic from the settings: HF's (no ``smooth_method``),
    NLTK's (its ``method0`` to ``method7``) or sacrebleu's (its four methods). Corpus scores,
    sentence scores, every resample of the significance tests and the command line all score
    through it: ``arithmetic(settings).score(sums, settings)``, or ``.score_rows(statistics,
    settings)`` for many rows at once."""
    method = settings.scoring.smooth_method
    return arithmetic_hf if method is None else SMOOTHING[method].arithmetic


def on_percent_scale(settings) -> bool:
    """Whether the settings' arithmetic states its scores on 0..100 (sacrebleu's)."""
    return arithmetic(settings) is arithmetic_sacrebleu


def scored(sums: Sums, settings) -> Scored:
    """The score of summed statistics under one weight set (see ``score``)."""
    return arithmetic(settings).score(sums, settings)


def score(sums: Sums, settings) -> Dict[str, object]:
    """The result of summed statistics: a segment's, or a corpus's (``settings``: ``options.Settings``).

    HF's six keys, in the arithmetic the settings choose (see the modules above), each kept
    operation for operation so the floats are identical. With several weight sets (``weights`` a tuple of tuples), ``bleu`` is a list: one score each.
    """
    if several_weight_sets(settings):
        scores = [score(sums, one) for one in _each_weight_set(settings)]
        return {**scores[0], "bleu": [one["bleu"] for one in scores]}
    result = scored(sums, settings)
    return {
        "bleu": result.bleu,
        "precisions": [precision / result.scale for precision in result.precisions],
        "brevity_penalty": result.brevity_penalty,
        "length_ratio": result.length_ratio,
        "translation_length": int(sums.prediction_length),
        "reference_length": int(sums.reference_length),
    }


def score_corpus(statistics: Statistics, settings) -> Dict[str, object]:
    """The result of a corpus: the score of its summed statistics."""
    return score(statistics.sums(), settings)


def for_sentences(settings):
    """The settings of a per-sentence score: the corpus's, but with the effective order that
    per-sentence scores take (``scoring.sentence_effective_order``: sacrebleu's ``sentence_bleu``
    turns it on, so its preset does; ``options.resolve_settings`` states the rule)."""
    scoring = settings.scoring
    if scoring.effective_order == scoring.sentence_effective_order:
        return settings
    return dataclasses.replace(settings, scoring=dataclasses.replace(
        scoring, effective_order=scoring.sentence_effective_order))


def sentence_scores(statistics: Statistics, settings) -> np.ndarray:
    """Each segment's BLEU, from its own row, with the corpus score's settings made per-sentence
    (``for_sentences``), all rows at once: a float64 array of one score per segment, or with
    several weight sets one row of them per set. Each is what ``score`` gives for that segment
    alone, bit for bit."""
    return sentence_results(statistics, settings).bleu if not several_weight_sets(settings) else np.array(
        [sentence_results(statistics, one).bleu for one in _each_weight_set(settings)])


def sentence_results(statistics: Statistics, settings) -> ScoredRows:
    """Each segment's per-sentence score with its precisions, brevity penalty and ratio (one
    weight set)."""
    settings = for_sentences(settings)
    return arithmetic(settings).score_rows(statistics, settings)


def first_weight_set(settings):
    """The settings with their first weight set only, where there are several."""
    return _each_weight_set(settings)[0] if several_weight_sets(settings) else settings


def _each_weight_set(settings):
    return [dataclasses.replace(settings, scoring=dataclasses.replace(settings.scoring, weights=one))
            for one in settings.scoring.weights]


def several_weight_sets(settings) -> bool:
    """Whether the weights are several sets, as NLTK's corpus_bleu takes them: a score for each."""
    weights = settings.scoring.weights
    return weights is not None and isinstance(weights[0], tuple)


def weight_sets(settings) -> tuple:
    """The weight sets: one, or several."""
    return settings.scoring.weights if several_weight_sets(settings) else (settings.scoring.weights,)
