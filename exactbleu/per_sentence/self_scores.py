"""Self-BLEU: how alike a set of texts is, each text scored against all the others, in time linear
in the n-grams (``counting.self_bleu_statistics`` says how), on a corpus or on its shards."""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..counting import Run, SelfBleuStatistics
from ..dispatch import (
    checked_texts,
    returned,
    self_rows,
    self_rows_against,
    settings_for,
    shard_statistics,
)
from ..options import (
    PresetChoice,
    check_all_references,
    check_counted_with,
    check_no_id_rules,
    check_no_output_options,
    resolve_settings,
)
from ..scoring import scores_of_rows


def self_bleu(texts: Sequence[Any], preset: PresetChoice = "default", *, corpus: SelfBleuStatistics | None = None,
              ignore_ids: Sequence[int] | None = None, threads: int | None = None, **options: Any) -> dict[str, Any]:
    """Self-BLEU: each text scored against all the other texts as its references, by index,
    duplicates included, and the mean of those scores.

    ``scores[i]`` is exactly ``sentence_bleu(texts[i], texts[:i] + texts[i + 1:], preset,
    **options)["bleu"]``, but the work is linear in the n-grams. Texygen's and fast-bleu's
    Self-BLEU is ``preset="nltk", smooth_method="method1"`` with uniform weights of the chosen
    order; ``preset="sacrebleu"`` gives sacrebleu's sentence scores (with effective order); the
    default, HF's.

    Args:
        texts: the texts, as strings or token ids (see ``corpus_bleu``).
        corpus: the ``self_bleu_statistics`` of the whole corpus these texts are a shard of,
            summed over the shards; the texts are then scored against every other text of the
            corpus. By default the texts are the whole corpus.
        threads: the threads that count the n-grams (None: two where two cores are); for
            tensors, the counting runs on their device.
    Returns:
        ``{"self_bleu": the mean score, "scores": a float64 array of one score per text}`` (with
        several weight sets, a mean per set and a row of scores per set).
    """
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "self_bleu")
    check_no_id_rules(settings, "self_bleu")
    check_all_references(settings, "self_bleu")
    threads = Run(threads=threads).checked().threads
    if corpus is not None and not isinstance(corpus, SelfBleuStatistics):
        raise TypeError(f"corpus must be the SelfBleuStatistics that self_bleu_statistics() returns (summed over "
                        f"shards), got {type(corpus).__name__}")
    given = checked_texts(texts, "texts", ignore_ids)
    settings = settings_for(given.kind, settings)
    if corpus is None:
        if given.size < 2:
            raise ValueError(f"texts holds {given.size} text(s); Self-BLEU scores each text against the others, so "
                             f"it needs at least two")
        rows = self_rows(given, settings, threads)
    else:
        check_counted_with(corpus.counted_with, settings)
        if len(corpus) < 2:
            raise ValueError("corpus counts fewer than two texts; Self-BLEU scores each text against the others")
        rows = self_rows_against(given, corpus, settings)
    scores = scores_of_rows(rows, settings)
    means = [math.fsum(row) / len(row) for row in np.atleast_2d(scores).tolist()]
    return {"self_bleu": means if scores.ndim == 2 else means[0], "scores": returned(scores, given)}


def self_bleu_statistics(texts: Sequence[Any], preset: PresetChoice = "default", *,
                         ignore_ids: Sequence[int] | None = None, threads: int | None = None,
                         **options: Any) -> SelfBleuStatistics:
    """What Self-BLEU needs of a shard of a corpus: each n-gram's two largest counts and the
    lengths' histogram. They add up with ``+`` and ``sum()`` across shards (and machines); pass the
    sum as ``self_bleu(shard, corpus=...)`` to score each shard's texts against the whole corpus."""
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "self_bleu_statistics")
    check_no_id_rules(settings, "self_bleu_statistics")
    check_all_references(settings, "self_bleu_statistics")
    threads = Run(threads=threads).checked().threads
    given = checked_texts(texts, "texts", ignore_ids)
    return shard_statistics(given, settings_for(given.kind, settings), threads)
