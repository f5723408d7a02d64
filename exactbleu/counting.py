"""Counting: a corpus's predictions and references become its ``Statistics``.

``count`` is the one entry. A few segments are counted by the definition itself
(``statistics.segment_row``, with Python's sets): numpy's fixed cost per call, which the engine
spreads over many tokens, would be most of the time there. Every other corpus goes to the numpy
engine (``engine.py``), a chunk of segments at a time, in up to two threads, with the references'
statistics kept for the next call with the same references (a training loop scores new
predictions against the same references every epoch).
"""

import collections
import itertools
import os
import threading
from typing import Callable, List, Optional, Sequence

import numpy as np

from .engine import _CHUNK_SEGMENTS, ReferenceStatistics, chunk_statistics, count_tokens, id_table
from .sufficient_statistics import CountedWith, Statistics, segment_row
from .tokenizers import MECAB, reader_text, signature_name, token_text
from .tokenizers.ids import TokenIds

# A few segments: at most this many characters of token text, predictions and references (about
# 32 segments of 25 tokens), and at most this many documents.
_FEW_SEGMENTS_TEXT = 10_000
_FEW_DOCUMENTS = 256


def count(predictions: List[str], references: List[List[str]], settings, orders: int,
          cache: Optional["ReferenceCache"] = None, threads: Optional[int] = None,
          progress: Optional[Callable[[int], object]] = None, max_tokens: Optional[int] = None) -> Statistics:
    """The statistics of a corpus (``references``: a list of references per prediction), counting
    ``orders`` n-gram orders, under the settings' tokenizing and reference length.

    ``cache`` keeps the references' statistics for a later call with the same references.
    ``threads`` bounds the worker threads (None: two where two cores are free). ``progress``, if
    given, is called with each chunk's number of segments. ``max_tokens``, if given, bounds the
    work: a ValueError as soon as the tokens (predictions and references) exceed it, before their
    n-grams are counted.

    The statistics carry how many references each segment has, and the settings that counted them.
    """
    ids = isinstance(predictions, TokenIds)
    counts = references.groups.tolist() if ids else list(map(len, references))
    rows = None
    if len(predictions) + sum(counts) <= _FEW_DOCUMENTS:
        few = _few_id_rows if ids else _few_segments
        rows = few(predictions, references, settings, orders, max_tokens)
        if rows is not None and progress:
            progress(len(predictions))
    if rows is None:
        rows = _chunked_rows(predictions, references, settings, orders, cache, threads, progress, max_tokens)
    return Statistics(rows, orders, counts, counted_with(settings, orders))


def counted_with(settings, orders: int) -> CountedWith:
    """The settings that decide the rows: the tokenizing settings, the reference length and the orders."""
    tokenize = settings.tokenize
    return CountedWith(signature_name(tokenize), tokenize.lowercase, tokenize.rstrip, settings.statistics.ref_length,
                       orders)


def corpus_tokens(predictions: List[str], references: List[List[str]], settings) -> int:
    """How many tokens the predictions and references hold under the settings' tokenizing: what
    ``max_tokens`` bounds."""
    references = list(itertools.chain.from_iterable(references))
    return count_tokens(reader_text(predictions, settings.tokenize)) + count_tokens(reader_text(references, settings.tokenize))


def _few_segments(predictions, references, settings, orders, max_tokens):
    """The statistics rows of a few segments by the definition, or None where the corpus is not few."""
    if sum(map(len, predictions)) + sum(len(reference) for segment in references for reference in segment) \
            > _FEW_SEGMENTS_TEXT:
        return None  # decided on the raw text first, at no cost: both paths give the same rows
    prediction_text = token_text(predictions, settings.tokenize)
    reference_text = token_text(list(itertools.chain.from_iterable(references)), settings.tokenize)
    if len(prediction_text) + len(reference_text) > _FEW_SEGMENTS_TEXT:
        return None
    if max_tokens is not None and count_tokens(prediction_text) + count_tokens(reference_text) > max_tokens:
        return None  # the chunked path raises the error
    return few_segment_rows(prediction_text, reference_text, list(map(len, references)), orders,
                            settings.statistics.ref_length)


def _few_id_rows(predictions, references, settings, orders, max_tokens):
    """The statistics rows of a few segments of token ids by the definition, or None where they
    are not few."""
    tokens = len(predictions.ids) + len(references.ids)
    if tokens > _FEW_SEGMENTS_TEXT // 4 or max_tokens is not None and tokens > max_tokens:
        return None  # the chunked path raises the max_tokens error
    reference_lists, rows, first = references.as_lists(), [], 0
    for prediction, count in zip(predictions.as_lists(), references.groups.tolist()):
        rows.append(segment_row(prediction, reference_lists[first : first + count], orders,
                                settings.statistics.ref_length))
        first += count
    return rows


def few_segment_rows(prediction_text: str, reference_text: str, counts: Sequence[int], max_order: int,
                     ref_length: str = "shortest") -> List[List[int]]:
    """The statistics rows of a few segments from the token texts of their predictions and of
    their references (``counts``: how many references each segment has), one ``segment_row`` each,
    as lists: an array would cost more than the counting here."""
    references = [line.split() for line in reference_text.split("\n")]
    rows, first = [], 0
    for prediction, count in zip(prediction_text.split("\n"), counts):
        rows.append(segment_row(prediction.split(), references[first : first + count], max_order, ref_length))
        first += count
    return rows


def _chunked_rows(predictions, references, settings, orders, cache, threads, progress, max_tokens) -> np.ndarray:
    """The statistics rows of a corpus by the numpy engine, as an int64 array.

    The corpus is counted a chunk of segments at a time, each chunk's token texts dropped once
    counted, so memory stays bounded and time linear. A big corpus is counted in up to ``threads``
    threads: worker threads count the later chunks while this one counts the first, since the time
    goes to numpy's sorting and searching, which run outside the GIL. The workers end before this
    returns, even when it is interrupted.
    """
    ids = isinstance(predictions, TokenIds)
    reference_count = len(references) if ids else sum(map(len, references))
    threads = _thread_count(threads, len(predictions) + reference_count, settings)
    bounds = _chunk_bounds(len(predictions), threads)
    key = None
    # A callable tokenizer is never cached: what it returns may change between calls (a bound
    # method, an object with a flag), and a cached answer would then be stale. Nor are token ids.
    if cache is not None and reference_count <= _REFERENCE_CACHE_REFERENCES and isinstance(settings.tokenize.tokenizer, str) \
            and not ids:
        # The references' statistics depend on their tokens and the order, and on nothing else.
        key = (settings.tokenize, orders, len(bounds), *_references_key(references))
    cached = cache.get(key) if key else None
    prepared = list(cached) if cached else [None] * len(bounds)
    rows, spent, spending = [None] * len(bounds), [0], threading.Lock()

    def spend(text):
        if max_tokens is not None:
            tokens = len(text[2]) if isinstance(text, tuple) else count_tokens(text)
            with spending:
                spent[0] += tokens
                if spent[0] > max_tokens:
                    raise ValueError(f"the corpus holds more than {max_tokens:,} tokens, the most this metric "
                                     f"takes (max_tokens={max_tokens}); score it in parts, or without max_tokens")

    def count(numbers, stop):
        for number in numbers:
            if stop.is_set():
                return
            start, end = bounds[number]
            if ids:
                part = predictions.segments(start, end)
                text = id_table(part.ids, part.lengths)
            else:
                text = reader_text(predictions[start:end], settings.tokenize)
            spend(text)
            chunk_references = prepared[number]
            if chunk_references is None:
                if ids:
                    chunk = references.grouped(start, end)
                    reference_text, counts = id_table(chunk.ids, chunk.lengths), chunk.groups
                else:
                    chunk = references[start:end]
                    reference_text = reader_text(list(itertools.chain.from_iterable(chunk)), settings.tokenize)
                    counts = list(map(len, chunk))
                spend(reference_text)
                chunk_references = ReferenceStatistics(reference_text, counts, orders)
                if key:  # kept for the cache; otherwise dropped with this chunk, so memory stays bounded
                    prepared[number] = chunk_references
            rows[number] = chunk_statistics(text, chunk_references, orders, settings.statistics.ref_length)
            if progress:
                progress(end - start)

    _in_threads(count, range(len(bounds)), threads)
    if key and not cached:
        cache.put(key, prepared)
    return np.concatenate(rows) if rows else np.zeros((0, 2 + 2 * orders), dtype=np.int64)


def _chunk_bounds(segments, threads):
    """(start, stop) of each chunk: at most _CHUNK_SEGMENTS segments, as many chunks for each
    thread, and the same size give or take one."""
    chunks = -(-segments // _CHUNK_SEGMENTS)
    chunks = -(-chunks // threads) * threads if segments >= threads else chunks
    edges = [segments * number // chunks for number in range(chunks + 1)] if chunks else [0]
    return list(zip(edges[:-1], edges[1:]))


def _in_threads(work, items, threads):
    """``work(part, stop)`` on ``threads`` contiguous parts of ``items``: the first part in this
    thread, each other one in a worker thread of its own. Every worker has ended when this
    returns or raises; a failure anywhere sets ``stop``, and ``work`` checks it between items."""
    parts = [items[len(items) * number // threads : len(items) * (number + 1) // threads] for number in range(threads)]
    stop, errors = threading.Event(), []

    def guarded(part):
        try:
            work(part, stop)
        except BaseException as error:  # raised again in the calling thread
            errors.append(error)
            stop.set()

    workers = [threading.Thread(target=guarded, args=(part,), daemon=True) for part in parts[1:] if part]
    for worker in workers:
        worker.start()
    finished = False
    try:
        work(parts[0], stop)
        finished = True
    finally:
        if not finished:  # interrupted or failed here: the workers stop after their current chunk
            stop.set()
        for worker in workers:
            worker.join()
    if errors:
        raise errors[0]


def _thread_count(asked, documents, settings):
    """How many threads count a corpus of this many documents (predictions plus references): one
    for a small corpus (a thread would cost more than it saves), for a custom tokenizer (the user's
    function may not be thread-safe) and for MeCab (a worker would load a tagger of its own every
    call); else as asked, by default two where two cores are."""
    tokenizer = settings.tokenize.tokenizer
    if documents < _THREADS_MIN_DOCUMENTS or callable(tokenizer) or tokenizer in MECAB:
        return 1
    if asked is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return min(2, cores)
    return asked


_THREADS_MIN_DOCUMENTS = 2_000  # predictions plus references


def _references_key(references):
    """The references, compared in full: how many each segment has, and all of them in a row."""
    return tuple(map(len, references)), tuple(itertools.chain.from_iterable(references))


_REFERENCE_CACHE_ENTRIES = 2
_REFERENCE_CACHE_REFERENCES = 250_000


class ReferenceCache:
    """The prepared reference statistics of the last few reference sets (at most
    _REFERENCE_CACHE_ENTRIES of them, and _REFERENCE_CACHE_REFERENCES references in all).

    Threads may share it: an entry goes in whole once every chunk is counted, and is never changed
    after, so a call that is interrupted leaves nothing half-made. The key holds the references
    themselves, compared in full, not a hash of them.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._entries = collections.OrderedDict()

    def __len__(self):
        return len(self._entries)

    def get(self, key):
        with self._lock:
            chunks = self._entries.get(key)
            if chunks is not None:
                self._entries.move_to_end(key)
            return chunks

    def put(self, key, chunks):
        with self._lock:
            self._entries[key] = tuple(chunks)
            # A key ends with the references themselves, in a row: its length is their number.
            while (len(self._entries) > _REFERENCE_CACHE_ENTRIES
                   or sum(len(key[-1]) for key in self._entries) > _REFERENCE_CACHE_REFERENCES):
                self._entries.popitem(last=False)
