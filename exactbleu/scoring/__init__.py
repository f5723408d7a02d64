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
from typing import Dict

import numpy as np

from ..smoothing import NLTK_FIFTH_ORDER, NLTK_SMOOTHING, SMOOTH_DEFAULTS, SMOOTHING, Smoothing, markdown_table
from ..sufficient_statistics import Statistics, Sums
from . import arithmetic_hf, arithmetic_nltk, arithmetic_sacrebleu
from .arithmetic_sacrebleu import sacrebleu_percent
from .common import Scored, ScoredRows


# Each arithmetic's module, by the name the smoothing declarations give it.
_ARITHMETIC = {module.NAME: module for module in (arithmetic_hf, arithmetic_sacrebleu, arithmetic_nltk)}


__all__ = ["NLTK_FIFTH_ORDER", "NLTK_SMOOTHING", "SMOOTHING", "SMOOTH_DEFAULTS", "Scored", "Smoothing", "ScoredRows", "arithmetic",
           "markdown_table",
           "for_sentences", "on_percent_scale", "sacrebleu_percent", "score", "score_corpus", "scored",
           "first_weight_set", "sentence_results", "sentence_scores", "several_weight_sets", "weight_sets"]


def arithmetic(settings) -> ModuleType:
    """The one place that chooses the arithmetic from the settings: HF's (no ``smooth_method``),
    NLTK's (its ``method0`` to ``method7``) or sacrebleu's (its four methods). Corpus scores,
    sentence scores, every resample of the significance tests and the command line all score
    through it: ``arithmetic(settings).score(sums, settings)``, or ``.score_rows(statistics,
    settings)`` for many rows at once."""
    method = settings.scoring.smooth_method
    return arithmetic_hf if method is None else _ARITHMETIC[SMOOTHING[method].arithmetic]


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
