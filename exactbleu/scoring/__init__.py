"""Scoring: summed statistics become a score, in one of ten arithmetics, each a module with its
one-sum and many-rows forms, equal bit for bit: ``arithmetic_hf`` (HF's ``bleu``, tensorflow/nmt),
``arithmetic_sacrebleu`` (sacrebleu's ``compute_bleu``), ``arithmetic_nltk`` (NLTK's ``corpus_bleu``,
``method0`` to ``method7``), ``arithmetic_coco`` (pycocoevalcap's ``Bleu``), ``arithmetic_t2t``
(tensor2tensor's ``compute_bleu``), ``arithmetic_mteval`` (the mteval scripts'),
``arithmetic_codexglue`` (CodeXGLUE's evaluator's), ``arithmetic_ignite`` (pytorch-ignite's),
``arithmetic_fairseq`` (fairseq's ``--scoring bleu``) and ``arithmetic_torchmetrics`` (torchmetrics', in torch);
``arithmetic(settings)`` is the one place that chooses. Every function is pure: a corpus score is
the score of its sums (with ``average="macro"``, the mean of its rows' scores), a sentence score
that of one row's, a resample's that of its resampled sums. ``significance``, ``explanation`` and
``results`` score through it.
"""

import dataclasses
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

from ..options import Settings
from ..options.smoothing import arithmetic_of
from ..sufficient_statistics import ExpectedRows, Statistics, Sums
from . import (
    arithmetic_coco,
    arithmetic_codexglue,
    arithmetic_fairseq,
    arithmetic_hf,
    arithmetic_ignite,
    arithmetic_mteval,
    arithmetic_nltk,
    arithmetic_sacrebleu,
    arithmetic_t2t,
    arithmetic_torchmetrics,
)
from .arithmetic_nltk import rows_scored_once
from .common import Scored, ScoredRows


class Arithmetic(Protocol):
    """What each arithmetic's module holds: its name, the smoothing methods whose formulas it
    states, whether it reads NLTK's denominators, and its one-sum and many-rows forms."""

    NAME: str
    METHODS: frozenset[str]
    DENOMINATORS: bool

    def score(self, sums: Sums, settings: Settings) -> Scored: ...

    def score_rows(self, statistics: Statistics, settings: Settings) -> ScoredRows: ...


# Each arithmetic's module, by the name the smoothing declarations give it.
_ARITHMETIC: dict[str, Arithmetic] = {module.NAME: module for module in (arithmetic_hf, arithmetic_sacrebleu,
                                                                         arithmetic_nltk, arithmetic_coco,
                                                                         arithmetic_t2t, arithmetic_mteval,
                                                                         arithmetic_codexglue, arithmetic_ignite,
                                                                         arithmetic_fairseq, arithmetic_torchmetrics)}

__all__ = [
    "Arithmetic",
    "Scored",
    "ScoredRows",
    "arithmetic",
    "expected_scores",
    "first_weight_set",
    "for_sentences",
    "macro_total",
    "on_percent_scale",
    "result_of_sums",
    "rows_scored_once",
    "scored_rows_of",
    "scored_statistics",
    "scored_sums",
    "scores_of_rows",
    "several_weight_sets",
    "takes_expected_rows",
    "weight_sets",
]


def arithmetic(settings: Settings) -> Arithmetic:
    """The one place that chooses the arithmetic from the settings: HF's (no ``smooth_method``),
    or the one the smoothing method belongs to (NLTK's ``method0`` to ``method7``, sacrebleu's
    four, COCO's ``coco``, tensor2tensor's, mteval's). Corpus scores, sentence scores, every resample of the
    significance tests and the command line all score through it: ``arithmetic(settings).score(sums, settings)``, or
    ``.score_rows(statistics, settings)`` for many rows at once."""
    return _ARITHMETIC[arithmetic_of(settings.scoring.smooth_method)]


def on_percent_scale(settings: Settings) -> bool:
    """Whether the settings' arithmetic states its scores on 0..100 (sacrebleu's)."""
    return arithmetic(settings) is arithmetic_sacrebleu


def scored_sums(sums: Sums, settings: Settings) -> Scored:
    """The score of summed statistics under one weight set (see ``result_of_sums``)."""
    return arithmetic(settings).score(sums, settings)


def result_of_sums(sums: Sums, settings: Settings) -> dict[str, object]:
    """The result of summed statistics: a segment's, or a corpus's (``settings``: ``options.Settings``).

    HF's six keys, in the arithmetic the settings choose (see the modules above), each kept
    operation for operation so the floats are identical. With several weight sets (``weights`` a
    tuple of tuples), ``bleu`` is a list: one score each.
    """
    if several_weight_sets(settings):
        scores = [result_of_sums(sums, one) for one in _each_weight_set(settings)]
        return {**scores[0], "bleu": [one["bleu"] for one in scores]}
    result = scored_sums(sums, settings)
    return {
        "bleu": result.bleu,
        "precisions": [precision / result.scale for precision in result.precisions] if result.scale != 1
        else result.precisions,  # a new list, of this result alone
        "brevity_penalty": result.brevity_penalty,
        "length_ratio": result.length_ratio,
        "translation_length": int(sums.prediction_length),
        "reference_length": int(sums.reference_length),
    }


def scored_statistics(statistics: Statistics, settings: Settings) -> Scored:
    """The corpus score of statistics (one weight set): their sums' (``average="micro"``), or the
    mean of each segment's per-sentence score (``"macro"``: the scores added in order, times the
    arithmetic's scale, over their number), with the sums' precisions, brevity penalty and ratio."""
    summed = scored_sums(statistics.sums(), settings)
    if settings.scoring.average == "micro":
        return summed
    total = macro_total(scores_of_rows(statistics, settings))
    return summed._replace(bleu=total / len(statistics), value=total * summed.scale / len(statistics))


def macro_total(scores: NDArray[np.float64]) -> float:
    """Sentence scores added one after another, as a framework's loop adds them (not numpy's
    pairwise sum, whose last bits differ)."""
    total = 0.0
    for score in scores.tolist():
        total += score
    return total


def for_sentences(settings: Settings) -> Settings:
    """The settings of a per-sentence score (``Settings.per_sentence``)."""
    return settings.per_sentence()


# Up to this many rows, each is scored by its arithmetic's one-sum form: numpy's fixed cost per
# operation would be most of the time of the many-rows form (one row: about 300 us against 15 us).
FEW_ROWS = 16


def scores_of_rows(statistics: Statistics, settings: Settings) -> NDArray[np.float64]:
    """Each segment's BLEU, from its own row, with the corpus score's settings made per-sentence
    (``for_sentences``), all rows at once: a float64 array of one score per segment, or with
    several weight sets one row of them per set. Each is what ``result_of_sums`` gives for that segment
    alone, bit for bit (a few rows are scored that way, one by one)."""
    if several_weight_sets(settings):
        return np.array([scores_of_rows(statistics, one) for one in _each_weight_set(settings)])
    if len(statistics) <= FEW_ROWS:
        settings = for_sentences(settings)
        score = arithmetic(settings).score
        return np.array([score(sums, settings).bleu for sums in statistics.segments()], dtype=np.float64)
    return scored_rows_of(statistics, settings).bleu


def scored_rows_of(statistics: Statistics, settings: Settings) -> ScoredRows:
    """Each segment's per-sentence score with its precisions, brevity penalty and ratio (one
    weight set)."""
    settings = for_sentences(settings)
    return arithmetic(settings).score_rows(statistics, settings)


# The arithmetics whose rows may hold expected counts (fractions): NLTK's counts are whole numbers.
_EXPECTED_ROWS = {module.NAME: module.score_rows for module in (arithmetic_hf, arithmetic_sacrebleu)}


def takes_expected_rows(settings: Settings) -> bool:
    """Whether the settings' arithmetic scores rows of expected counts (HF's and sacrebleu's do)."""
    return arithmetic(settings).NAME in _EXPECTED_ROWS


def expected_scores(rows: ExpectedRows, settings: Settings, own_scale: bool = False) -> NDArray[np.float64]:
    """Each expected row's per-sentence BLEU, in the settings' arithmetic, as a row of whole counts
    is scored (``scores_of_rows``), one weight set; with ``own_scale``, on the arithmetic's own
    scale (``value``)."""
    settings = for_sentences(settings)
    scored: ScoredRows = _EXPECTED_ROWS[arithmetic(settings).NAME](rows, settings)
    return scored.value if own_scale else scored.bleu


def first_weight_set(settings: Settings) -> Settings:
    """The settings with their first weight set only, where there are several."""
    return _each_weight_set(settings)[0] if several_weight_sets(settings) else settings


def _each_weight_set(settings: Settings) -> list[Settings]:
    sets = cast("tuple[tuple[float, ...], ...]", settings.scoring.weights)  # called where there are several
    return [dataclasses.replace(settings, scoring=dataclasses.replace(settings.scoring, weights=one))
            for one in sets]


def several_weight_sets(settings: Settings) -> bool:
    """Whether the weights are several sets, as NLTK's corpus_bleu takes them: a score for each."""
    weights = settings.scoring.weights
    return weights is not None and isinstance(weights[0], tuple)


def weight_sets(settings: Settings) -> tuple[tuple[float, ...] | None, ...]:
    """The weight sets: one (None where no weights are given), or several."""
    weights = settings.scoring.weights
    if several_weight_sets(settings):
        return cast("tuple[tuple[float, ...], ...]", weights)
    return (cast("tuple[float, ...] | None", weights),)
