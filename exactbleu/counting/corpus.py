"""A corpus's predictions and references become its ``Statistics``, on the host.

``count`` is the one entry. A few segments are counted by the definition itself
(``sufficient_statistics.segment_row``, with Python's sets): numpy's fixed cost per call, which the
engine spreads over many tokens, would be most of the time there. Every other corpus goes to the
numpy engine (``engine``), a chunk of segments at a time, in up to two threads, with the
references' statistics kept in a ``ReferenceCache`` where one is given, and references that
neighbouring segments share (the samples of one prompt) counted once.
"""

import itertools
import operator
import threading
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ..inputs import TokenIds
from ..options import Settings, counted_with
from ..sufficient_statistics import CountedWith, Statistics, Sums, segment_row
from ..tokenizers import TOKENIZERS, reader_text, token_text
from .cache import cache_key
from .engine import CHUNK_SEGMENTS, ReferenceStatistics, chunk_statistics
from .reading import TokenTable, id_table, token_count
from .run import Run
from .threads import THREADS_MIN_TOKENS, in_threads, thread_count

Predictions = list[str] | TokenIds
References = list[list[str]] | TokenIds
Rows = NDArray[np.int64] | list[list[int]]
Prepared = tuple[ReferenceStatistics, NDArray[np.int64] | None]  # a chunk's references, and each segment's there

# A few segments: at most this many characters of token text, predictions and references (about
# 32 segments of 25 tokens), and at most this many documents.
_FEW_SEGMENTS_TEXT = 10_000
_FEW_DOCUMENTS = 256


def count(predictions: Predictions, references: References, settings: Settings, counted: CountedWith,
          run: Run = Run()) -> Statistics:
    """The statistics of a corpus (``references``: a list of references per prediction, or token
    ids grouped by prediction) under the settings' tokenizing and reference length; ``counted``
    names those settings, the number of orders among them, as the statistics carry them. ``run``
    says how the count runs (``Run``): its ``max_tokens`` bounds the work, a ValueError as soon as
    the tokens (predictions and references) exceed it, before their n-grams are counted.

    The statistics carry how many references each segment has, and the settings that counted them.
    """
    orders = counted.orders
    counts = _group_sizes(references)
    rows: Rows | None = None
    if len(predictions) + sum(counts) <= _FEW_DOCUMENTS:
        if isinstance(predictions, TokenIds) and isinstance(references, TokenIds):
            rows = _few_id_rows(predictions, references, settings, orders, run.max_tokens)
        elif isinstance(predictions, list) and isinstance(references, list):
            rows = _few_segments(predictions, references, settings, orders, run.max_tokens)
        if rows is not None and run.progress:
            run.progress(len(predictions))
    if rows is None:
        rows = _chunked_rows(predictions, references, settings, orders, run)
    return Statistics(rows, orders, counts, counted)


def _group_sizes(references: References) -> list[int]:
    """How many references each prediction has."""
    if isinstance(references, TokenIds):
        assert references.groups is not None  # references are always grouped
        sizes: list[int] = references.groups.tolist()
        return sizes
    return list(map(len, references))


def corpus_tokens(texts: list[str], settings: Settings) -> int:
    """How many tokens the texts hold under the settings' tokenizing: what ``max_tokens`` bounds."""
    return token_count(reader_text(texts, settings.tokenize))


def _few_segments(predictions: list[str], references: list[list[str]], settings: Settings, orders: int,
                  max_tokens: int | None) -> list[list[int]] | None:
    """The statistics rows of a few segments by the definition, or None where the corpus is not few."""
    texts = predictions + list(itertools.chain.from_iterable(references))
    if sum(map(len, texts)) > _FEW_SEGMENTS_TEXT:
        return None  # decided on the raw text first, at no cost: both paths give the same rows
    text = token_text(texts, settings.tokenize)  # one pass of the tokenizer over both sides
    if len(text) > _FEW_SEGMENTS_TEXT:
        return None
    if max_tokens is not None and token_count(text) > max_tokens:
        return None  # the chunked path raises the error
    return few_segment_rows(text, list(map(len, references)), orders, settings.statistics.ref_length)


def _few_id_rows(predictions: TokenIds, references: TokenIds, settings: Settings, orders: int,
                 max_tokens: int | None) -> list[list[int]] | None:
    """The statistics rows of a few segments of token ids by the definition, or None where they
    are not few."""
    tokens = len(predictions.ids) + len(references.ids)
    if tokens > _FEW_SEGMENTS_TEXT // 4 or (max_tokens is not None and tokens > max_tokens):
        return None  # the chunked path raises the max_tokens error
    reference_lists, rows, first = references.as_lists(), [], 0
    for prediction, count in zip(predictions.as_lists(), _group_sizes(references)):
        rows.append(segment_row(prediction, reference_lists[first : first + count], orders,
                                settings.statistics.ref_length))
        first += count
    return rows


def few_segment_rows(text: str, counts: Sequence[int], max_order: int, ref_length: str = "shortest") -> list[list[int]]:
    """The statistics rows of a few segments from their token text, a line per prediction and then
    a line per reference (``counts``: how many references each segment has), one ``segment_row``
    each, as lists: an array would cost more than the counting here."""
    lines = [line.split() for line in text.split("\n")]
    references = lines[len(counts):]
    rows, first = [], 0
    for prediction, count in zip(lines, counts):
        rows.append(segment_row(prediction, references[first : first + count], max_order, ref_length))
        first += count
    return rows


def sentence_sums(prediction: str, references: list[str], settings: Settings) -> Sums:
    """The sums a sentence score reads: one segment of text, its texts tokenized in one pass and
    counted by the definition (``segment_row``), its row read as the sums of a corpus of one, with
    no corpus around it."""
    predicted, *referenced = token_text([prediction, *references], settings.tokenize).split("\n")
    orders = counted_with(settings).orders
    return Sums.of_row(segment_row(predicted.split(), list(map(str.split, referenced)), orders,
                                   settings.statistics.ref_length), orders)


def _chunked_rows(predictions: Predictions, references: References, settings: Settings, orders: int,
                  run: Run) -> NDArray[np.int64]:
    """The statistics rows of a corpus by the numpy engine, as an int64 array.

    The corpus is counted a chunk of segments at a time, each chunk's token texts dropped once
    counted, so memory stays bounded and time linear. A big corpus is counted in up to ``threads``
    threads: worker threads count the later chunks while this one counts the first, since the time
    goes to numpy's sorting and searching, which run outside the GIL. The workers end before this
    returns, even when it is interrupted.
    """
    reference_count = len(references)
    if isinstance(references, list):
        reference_count = sum(map(len, references))
    ids = len(predictions.ids) + len(references.ids) if isinstance(predictions, TokenIds) and isinstance(
        references, TokenIds) else 0
    cache, progress = run.cache, run.progress
    threads = _thread_count(run.threads, len(predictions) + reference_count, ids, settings)
    bounds = _chunk_bounds(len(predictions), threads, _chunk_segments(len(predictions), ids))
    key = cache_key(references, reference_count, settings, orders, len(bounds)) if cache is not None else None
    cached = cache.get(key) if cache is not None and key is not None else None
    prepared: list[Prepared | None] = list(cached) if cached else [None] * len(bounds)
    rows: list[NDArray[np.int64]] = [np.zeros((0, 2 + 2 * orders), dtype=np.int64)] * len(bounds)
    budget = _Budget(run.max_tokens)

    def count(numbers: Sequence[int], stop: threading.Event) -> None:
        for number in numbers:
            if stop.is_set():
                return
            start, end = bounds[number]
            text = _prediction_text(predictions, start, end, settings)
            budget.spend(text)
            chunk_references = prepared[number]
            if chunk_references is None:
                reference_text, counts, groups = _reference_text(references, start, end, settings)
                budget.spend(reference_text)
                chunk_references = ReferenceStatistics(reference_text, counts, orders), groups
                if key:  # kept for the cache; otherwise dropped with this chunk, so memory stays bounded
                    prepared[number] = chunk_references
            reference_statistics, groups = chunk_references
            rows[number] = chunk_statistics(text, reference_statistics, orders, settings.statistics.ref_length, groups)
            if progress:
                progress(end - start)

    in_threads(count, list(range(len(bounds))), threads)
    if cache is not None and key and not cached:
        cache.put(key, prepared)
    return np.concatenate(rows) if rows else np.zeros((0, 2 + 2 * orders), dtype=np.int64)


def _prediction_text(predictions: Predictions, start: int, end: int, settings: Settings) -> str | TokenTable:
    """What the engine reads of a chunk's predictions: their token text, or their ids' table."""
    if isinstance(predictions, TokenIds):
        part = predictions.segments(start, end)
        return id_table(part.ids, part.lengths)
    return reader_text(predictions[start:end], settings.tokenize)


def _reference_text(references: References, start: int, end: int,
                    settings: Settings) -> tuple[str | TokenTable, list[int], NDArray[np.int64] | None]:
    """What the engine reads of a chunk's references, how many each of its segments has, and where
    predictions share their references (the samples of one prompt, say), each prediction's segment:
    the shared references are read and counted once."""
    if isinstance(references, TokenIds):
        chunk = references.grouped(start, end)
        return id_table(chunk.ids, chunk.lengths), _group_sizes(chunk), None
    segments, groups = shared_references(references[start:end])
    return (reader_text(list(itertools.chain.from_iterable(segments)), settings.tokenize), list(map(len, segments)),
            groups)


# Shared references are counted once where at least this share of a chunk's first segments
# repeats the references of the segment before it, as the samples of one prompt come: numbering
# every distinct list costs about 0.5 ms per 1,000 segments, which a test set would pay for nothing.
_SHARED_AT_LEAST = 0.25
_SHARED_LOOK = 256  # the first segments looked at (the samples of a batch come alike throughout)


def shared_references(segments: list[list[str]]) -> tuple[list[list[str]], NDArray[np.int64] | None]:
    """Each distinct list of references once, and each segment's among them; or the segments as
    they are, and None, where few of the first segments share their neighbour's."""
    first = segments[: _SHARED_LOOK + 1]
    if sum(map(operator.eq, first, itertools.islice(first, 1, None))) < (len(first) - 1) * _SHARED_AT_LEAST:
        return segments, None  # as in a test set, where every segment has its own
    keys = list(map(tuple, segments))
    distinct = dict.fromkeys(keys)  # in order of first sight
    if len(distinct) == len(segments):
        return segments, None
    numbers = {key: number for number, key in enumerate(distinct)}
    return [list(key) for key in distinct], np.fromiter(map(numbers.__getitem__, keys), np.int64, len(keys))


class _Budget:
    """``max_tokens`` spent, chunk by chunk, by every thread: a ValueError as soon as the tokens
    (predictions and references) exceed it, before their n-grams are counted."""

    def __init__(self, max_tokens: int | None):
        self.max_tokens, self.spent, self.lock = max_tokens, 0, threading.Lock()

    def spend(self, text: str | TokenTable) -> None:
        if self.max_tokens is None:
            return
        tokens = len(text.low) if isinstance(text, TokenTable) else token_count(text)
        with self.lock:
            self.spent += tokens
            if self.spent > self.max_tokens:
                raise ValueError(f"the corpus holds more than {self.max_tokens:,} tokens, the most this metric "
                                 f"takes (max_tokens={self.max_tokens}); score it in parts, or without max_tokens")


def _chunk_segments(segments: int, ids: int) -> int:
    """How many segments a chunk holds: CHUNK_SEGMENTS, or for long segments of token ids (a
    reinforcement learning batch's), as many as make about _CHUNK_IDS ids, whose work arrays stay
    in the processor's caches (8192 rows of 256 ids: 17% faster in one thread, and two threads
    take 0.52 of one's time instead of 0.57)."""
    if not ids or not segments:
        return CHUNK_SEGMENTS
    return max(1, min(CHUNK_SEGMENTS, _CHUNK_IDS * segments // ids))


_CHUNK_IDS = 1 << 18


def _chunk_bounds(segments: int, threads: int, per_chunk: int = CHUNK_SEGMENTS) -> list[tuple[int, int]]:
    """(start, stop) of each chunk: at most ``per_chunk`` segments, as many chunks for each thread,
    and the same size give or take one."""
    chunks = -(-segments // per_chunk)
    chunks = -(-chunks // threads) * threads if segments >= threads else chunks
    edges = [segments * number // chunks for number in range(chunks + 1)] if chunks else [0]
    return list(itertools.pairwise(edges))


def _thread_count(asked: int | None, documents: int, ids: int, settings: Settings) -> int:
    """How many threads count a corpus of this many documents (predictions plus references) and
    token ids (none for text): one for a small corpus (a thread would cost more than it saves), for
    a custom tokenizer (the user's function may not be thread-safe) and for a tokenizer not
    declared thread-safe; else as asked, by default two where two cores are."""
    tokenizer = settings.tokenize.tokenizer
    small = documents < _THREADS_MIN_DOCUMENTS and ids < THREADS_MIN_TOKENS
    if small or callable(tokenizer) or not TOKENIZERS[tokenizer].thread_safe:
        return 1
    return thread_count(asked)


_THREADS_MIN_DOCUMENTS = 2_000  # predictions plus references
