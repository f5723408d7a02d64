"""Per-sentence scores at scale: every prediction's sentence BLEU at once, Self-BLEU in linear
time, and BLEU matrices by sparse products. Each is ``sentence_bleu``'s number, entry for entry,
bit for bit, under every preset and option; they take text or token ids, as ``corpus_bleu`` does.
"""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .api import Preset, checked, counted, settings_of
from .counting import ReferenceCache
from .inputs import checked_texts
from .limits import MAX_CELLS
from .matrix import bleu_matrix_of
from .ngrams import Tokens, tokens_of_ids, tokens_of_text
from .on_device import host_ids, joined_texts, matrix_scores, on_device_of, on_host, self_statistics_of, size_of
from .options import (
    Settings,
    check_counted_with,
    check_int,
    check_no_output_options,
    counted_orders,
    counted_with,
    for_token_ids,
    resolve_settings,
)
from .scoring import sentence_scores as score_sentences
from .self_statistics import SelfBleuStatistics, self_statistics
from .tensor_ids import TensorIds
from .threads import thread_count
from .tokenizers.ids import TokenIds

Scores = Any  # a float64 array, or for tensors a float64 tensor on their device


def sentence_scores(predictions: Any, references: Sequence[Any] | None, preset: Preset = "default", *,
                    ignore_ids: Sequence[int] | None = None, threads: int | None = None,
                    max_tokens: int | None = None, cache: ReferenceCache | None = None,
                    **options: Any) -> Scores:
    """Every prediction's per-sentence BLEU at once: a float64 array with one score per prediction
    (or one row of them per weight set, with several). Entry ``i`` is
    ``sentence_bleu(predictions[i], references[i], preset, **options)["bleu"]`` bit for bit, under
    every preset and option (so under "sacrebleu", ``sacrebleu.sentence_bleu``'s score / 100, up to
    the last bit that the division by 100 may round), computed with numpy over the rows of the
    statistics, not a loop of ``sentence_bleu``. Takes text or token ids, as ``corpus_bleu`` does;
    for torch tensors, the counting runs on their device, and the scores are a float64 tensor
    there."""
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "sentence_scores")
    corpus = checked(predictions, references, ignore_ids)
    settings = settings_of(corpus, settings)
    scores = score_sentences(counted(corpus, settings, threads, max_tokens, cache), settings)
    return on_device_of(scores, corpus.predictions.ids) if isinstance(corpus.predictions, TensorIds) else scores


def _self_bleu_tokens(checked: list[str] | TokenIds | TensorIds, settings: Settings) -> tuple[Settings, Tokens]:
    """The settings and the tokens of Self-BLEU's texts, checked (tensors' ids copied to the host)."""
    if isinstance(checked, TensorIds):
        checked = host_ids(checked)
    if isinstance(checked, TokenIds):
        return for_token_ids(settings), tokens_of_ids(checked)
    return settings, tokens_of_text(checked, settings.tokenize)


def self_bleu(texts: Sequence[Any], preset: Preset = "default", *, corpus: SelfBleuStatistics | None = None,
              ignore_ids: Sequence[int] | None = None, threads: int | None = None, **options: Any) -> dict[str, Any]:
    """Self-BLEU: each text scored against all the other texts as its references, by index,
    duplicates included, and the mean of those scores.

    ``scores[i]`` is exactly ``sentence_bleu(texts[i], texts[:i] + texts[i + 1:], preset,
    **options)["bleu"]``, but the work is linear in the n-grams (see ``exactbleu.self_statistics``'s
    module). Texygen's and fast-bleu's Self-BLEU is ``preset="nltk", smooth_method="method1"``
    with uniform weights of the chosen order; ``preset="sacrebleu"`` gives sacrebleu's sentence
    scores (with effective order); the default, HF's.

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
    _check_threads(threads)
    given = checked_texts(texts, "texts", ignore_ids)
    if corpus is None and size_of(given) < 2:
        raise ValueError(f"texts holds {size_of(given)} text(s); Self-BLEU scores each text against the others, so "
                         f"it needs at least two")
    if corpus is None and isinstance(given, TensorIds) and not on_host(given):  # counted on the tensors' device
        settings = for_token_ids(settings)
        rows = self_statistics_of(given, counted_orders(settings), settings.statistics.ref_length,
                                  counted_with(settings))
    elif corpus is None:
        settings, tokens = _self_bleu_tokens(given, settings)
        rows = self_statistics(tokens, counted_orders(settings), settings.statistics.ref_length, counted_with(settings),
                               thread_count(threads, len(tokens.ids)))
    else:
        settings, tokens = _self_bleu_tokens(given, settings)
        if not isinstance(corpus, SelfBleuStatistics):
            raise TypeError(f"corpus must be the SelfBleuStatistics that self_bleu_statistics() returns (summed over "
                            f"shards), got {type(corpus).__name__}")
        check_counted_with(corpus.counted_with, settings)
        if len(corpus) < 2:
            raise ValueError("corpus counts fewer than two texts; Self-BLEU scores each text against the others")
        rows = corpus.rows_of(tokens, settings.statistics.ref_length)
    scores = score_sentences(rows, settings)
    means = [math.fsum(row) / len(row) for row in np.atleast_2d(scores).tolist()]
    shown = on_device_of(scores, given.ids) if isinstance(given, TensorIds) else scores
    return {"self_bleu": means if scores.ndim == 2 else means[0], "scores": shown}


def self_bleu_statistics(texts: Sequence[Any], preset: Preset = "default", *, ignore_ids: Sequence[int] | None = None,
                         threads: int | None = None, **options: Any) -> SelfBleuStatistics:
    """What Self-BLEU needs of a shard of a corpus: each n-gram's two largest counts and the
    lengths' histogram. They add up with ``+`` and ``sum()`` across shards (and machines); pass the
    sum as ``self_bleu(shard, corpus=...)`` to score each shard's texts against the whole corpus."""
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "self_bleu_statistics")
    _check_threads(threads)
    settings, tokens = _self_bleu_tokens(checked_texts(texts, "texts", ignore_ids), settings)
    return SelfBleuStatistics.of(tokens, counted_orders(settings), counted_with(settings),
                                 thread_count(threads, len(tokens.ids)))


def bleu_matrix(predictions: Sequence[Any], references: Sequence[Any], preset: Preset = "default", *,
                ignore_ids: Sequence[int] | None = None, threads: int | None = None, **options: Any) -> Scores:
    """Every prediction against every reference: entry ``[i, j]`` is exactly
    ``sentence_bleu(predictions[i], [references[j]], preset, **options)["bleu"]``.

    The clipped matches of all pairs come from sparse matrix products, a block of predictions at
    a time (see ``exactbleu.matrix``), so memory stays bounded; the matrix itself holds at most
    ``MAX_CELLS`` (10**8) entries. Needs scipy (``pip install "exactbleu[matrix]"``). ``threads``
    bounds the threads that work the blocks out (None: two where two cores are); for tensors,
    the work runs on their device.

    Args:
        predictions, references: lists of texts, or of token ids (see ``corpus_bleu``); here
            ``references`` is one reference per column, not a list per prediction.
    Returns:
        a float64 array of shape (len(predictions), len(references)); with several weight sets,
        one such matrix per set.
    """
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "bleu_matrix")
    _check_threads(threads)
    rows = checked_texts(predictions, "predictions", ignore_ids)
    columns = checked_texts(references, "references", ignore_ids)
    sizes = size_of(rows), size_of(columns)
    if not sizes[0] or not sizes[1]:
        raise ValueError(f"bleu_matrix needs at least one prediction and one reference, got {sizes[0]} and {sizes[1]}")
    if sizes[0] * sizes[1] > MAX_CELLS:
        raise ValueError(f"a BLEU matrix of {sizes[0]:,} predictions x {sizes[1]:,} references has "
                         f"{sizes[0] * sizes[1]:,} entries, more than the {MAX_CELLS:,} (800 MB) one call makes: "
                         f"score it in blocks of predictions (bleu_matrix(predictions[i:j], references)), as the "
                         f"blocks of a matrix are its rows")
    if isinstance(rows, TensorIds) or isinstance(columns, TensorIds):
        if not (isinstance(rows, TensorIds) and isinstance(columns, TensorIds)):
            raise TypeError("predictions and references must both be tensors, or neither")
        texts, settings = joined_texts(rows, columns), for_token_ids(settings)
        if not on_host(texts):
            return matrix_scores(texts, sizes[0], settings, counted_with(settings))
        return on_device_of(bleu_matrix_of(tokens_of_ids(host_ids(texts)), sizes[0], settings, counted_with(settings),
                                           thread_count(threads)), texts.ids)
    tokens = _matrix_tokens(rows, columns, settings)
    if isinstance(rows, TokenIds):
        settings = for_token_ids(settings)
    return bleu_matrix_of(tokens, sizes[0], settings, counted_with(settings), thread_count(threads))


def _check_threads(threads: int | None) -> None:
    if threads is not None:
        check_int("threads", threads, 1)


def _matrix_tokens(rows: list[str] | TokenIds, columns: list[str] | TokenIds, settings: Settings) -> Tokens:
    """The tokens of a matrix's predictions, then its references (both text, or both ids)."""
    if isinstance(rows, TokenIds) != isinstance(columns, TokenIds):
        raise TypeError("predictions and references must both be text or both be token ids")
    if isinstance(rows, TokenIds) and isinstance(columns, TokenIds):
        return tokens_of_ids(TokenIds(np.concatenate([rows.ids, columns.ids]),
                                      np.concatenate([rows.lengths, columns.lengths])))
    assert isinstance(rows, list) and isinstance(columns, list)
    return tokens_of_text(rows + columns, settings.tokenize)
