"""The reference cache: a training loop scores new predictions against the same references every
epoch, so the references' prepared statistics are kept for the next call with the same references.
Its key holds the references themselves, compared in full, never a hash of them.
"""

import collections
import itertools
import threading
from collections.abc import Sequence
from typing import Any

from ..inputs import TokenIds
from ..options import Settings

CacheKey = tuple[Any, ...]  # ending with the references themselves, in a row
REFERENCE_CACHE_ENTRIES = 2
REFERENCE_CACHE_REFERENCES = 250_000


def cache_key(references: list[list[str]] | TokenIds, reference_count: int, settings: Settings, orders: int,
              chunks: int) -> CacheKey | None:
    """The reference cache's key for these references, or None where they are not cached. A
    callable tokenizer is never cached: what it returns may change between calls (a bound method,
    an object with a flag), and a cached answer would then be stale. Nor are token ids."""
    if reference_count > REFERENCE_CACHE_REFERENCES or not isinstance(settings.tokenize.tokenizer, str) \
            or not isinstance(references, list):
        return None
    # The references' statistics depend on their tokens and the order, and on nothing else.
    return (settings.tokenize, orders, chunks, tuple(map(len, references)),
            tuple(itertools.chain.from_iterable(references)))


class ReferenceCache:
    """The prepared reference statistics of the last few reference sets (at most
    ``REFERENCE_CACHE_ENTRIES`` of them, and ``REFERENCE_CACHE_REFERENCES`` references in all).

    Threads may share it: an entry goes in whole once every chunk is counted, and is never changed
    after, so a call that is interrupted leaves nothing half-made.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[CacheKey, tuple[Any, ...]] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: CacheKey) -> tuple[Any, ...] | None:
        with self._lock:
            chunks = self._entries.get(key)
            if chunks is not None:
                self._entries.move_to_end(key)
            return chunks

    def put(self, key: CacheKey, chunks: Sequence[Any]) -> None:
        with self._lock:
            self._entries[key] = tuple(chunks)
            # A key ends with the references themselves, in a row: its length is their number.
            while (len(self._entries) > REFERENCE_CACHE_ENTRIES
                   or sum(len(key[-1]) for key in self._entries) > REFERENCE_CACHE_REFERENCES):
                self._entries.popitem(last=False)
