"""BLEU matrices: every prediction against every reference, each entry a sentence score, from
sparse products on the host (``counting.matrix_matches``) or sorts on a device, in blocks of
predictions so that memory stays bounded."""

import functools
from collections.abc import Sequence
from typing import Any, cast

from ..counting import Run
from ..dispatch import checked_texts, matrix, returned, settings_for
from ..limits import MAX_CELLS
from ..options import (
    PresetChoice,
    check_no_id_rules,
    check_no_output_options,
    check_whole_corpus,
    resolve_settings,
)
from ..scoring import scored_rows_of, scores_of_rows, several_weight_sets
from ..sufficient_statistics import Statistics
from .scores import Scores


def bleu_matrix(predictions: Sequence[Any], references: Sequence[Any], preset: PresetChoice = "default", *,
                ignore_ids: Sequence[int] | None = None, threads: int | None = None, own_scale: bool = False,
                **options: Any) -> Scores:
    """Every prediction against every reference: entry ``[i, j]`` is exactly
    ``sentence_bleu(predictions[i], [references[j]], preset, **options)["bleu"]``.

    The clipped matches of all pairs come from sparse matrix products, a block of predictions at
    a time, so memory stays bounded; the matrix itself holds at most ``MAX_CELLS`` (10**8)
    entries. Needs scipy (``pip install "exactbleu[matrix]"``). ``threads`` bounds the threads
    that work the blocks out (None: two where two cores are); for tensors, the work runs on
    their device. With ``own_scale``, each entry is the score on its arithmetic's own scale (``value``) rather
    than ``bleu``: under sacrebleu's, 0..100, exactly ``BLEU(effective_order=True).sentence_score(
    predictions[i], [references[j]]).score`` (in the other two, the same number as ``bleu``).

    Args:
        predictions, references: lists of texts, or of token ids (see ``corpus_bleu``); here
            ``references`` is one reference per column, not a list per prediction.
    Returns:
        a float64 array of shape (len(predictions), len(references)); with several weight sets,
        one such matrix per set.
    """
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "bleu_matrix")
    check_no_id_rules(settings, "bleu_matrix")
    check_whole_corpus(settings, "bleu_matrix")  # one reference an entry: "first" keeps it
    threads = Run(threads=threads).checked().threads
    rows = checked_texts(predictions, "predictions", ignore_ids)
    columns = checked_texts(references, "references", ignore_ids)
    if not rows.size or not columns.size:
        raise ValueError(f"bleu_matrix needs at least one prediction and one reference, got {rows.size} and "
                         f"{columns.size}")
    if rows.size * columns.size > MAX_CELLS:
        raise ValueError(f"a BLEU matrix of {rows.size:,} predictions x {columns.size:,} references has "
                         f"{rows.size * columns.size:,} entries, more than the {MAX_CELLS:,} (800 MB) one call makes: "
                         f"score it in blocks of predictions (bleu_matrix(predictions[i:j], references)), as the "
                         f"blocks of a matrix are its rows")
    if rows.kind != columns.kind:
        both = "tensors, or neither" if "tensor" in (rows.kind, columns.kind) else "text or both be token ids"
        raise TypeError(f"predictions and references must both be {both}")
    settings = settings_for(rows.kind, settings)
    sets = len(cast("tuple[Any, ...]", settings.scoring.weights)) if several_weight_sets(settings) else None
    if not isinstance(own_scale, bool):
        raise TypeError(f"own_scale must be True or False, got {own_scale!r:.80}")
    if own_scale and sets:
        raise ValueError("own_scale takes one set of n-gram weights, got several")
    score = functools.partial(_own_scale if own_scale else scores_of_rows, settings=settings)
    return returned(matrix(rows, columns, settings, score, sets, threads), rows)


def _own_scale(statistics: Statistics, settings: Any) -> Any:
    """The rows' per-sentence scores on their arithmetic's own scale."""
    return scored_rows_of(statistics, settings).value
