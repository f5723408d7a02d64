"""Texts in groups, as MBR decoding takes them: a list per source (its candidates, or its
pseudo-references), each source with as many as it has. They are checked as one list of texts,
end to end, and the groups' sizes kept beside them."""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .text import as_list


class Groups(NamedTuple):
    """How many candidates and pseudo-references each source has, and whether the pseudo-references
    are the candidates themselves (``shared``: counted once)."""

    candidates: NDArray[np.int64]
    references: NDArray[np.int64]
    shared: bool

    def blocks(self, cells: int, pairwise: bool = True) -> list[tuple[int, int]]:
        """(first, stop) of runs of sources with about ``cells`` (candidate, pseudo-reference) pairs
        each (or, not ``pairwise``, texts), at least one source each: the work of one block is held
        in memory at once."""
        pairs = np.cumsum(self.candidates * self.references if pairwise else self.candidates + self.references)
        bounds, first = [], 0
        while first < len(pairs):
            before = int(pairs[first - 1]) if first else 0
            stop = max(first + 1, int(np.searchsorted(pairs, before + cells, side="right")))
            bounds.append((first, stop))
            first = stop
        return bounds

    def starts(self, which: NDArray[np.int64]) -> NDArray[np.int64]:
        """Where each source's texts start in the texts end to end, for sizes ``which``."""
        return np.cumsum(which) - which


def group_sizes(value: object, name: str) -> tuple[list[object], NDArray[np.int64]]:
    """A list of groups, each a non-empty list: the texts end to end, and each group's size."""
    groups = as_list(value, name)
    if not groups:
        raise ValueError(f"{name} is empty: give a list of texts per source, at least one source")
    texts: list[object] = []
    sizes = np.zeros(len(groups), dtype=np.int64)
    for index, group in enumerate(groups):
        members = as_list(group, f"{name}[{index}]")
        if not members:
            raise ValueError(f"{name}[{index}] is empty: each source needs at least one text")
        sizes[index] = len(members)
        texts.extend(members)
    return texts, sizes


def located(error: Exception, name: str, sizes: NDArray[np.int64], check: Callable[[list[object], str], object],
            texts: list[object]) -> Exception:
    """The error of a text checked end to end, raised again for the group that holds it: each group
    checked alone, so that the message names ``name[source][candidate]``."""
    starts = np.cumsum(sizes) - sizes
    for index, (start, size) in enumerate(zip(starts.tolist(), sizes.tolist())):
        try:
            check(texts[start:start + size], f"{name}[{index}]")
        except (TypeError, ValueError) as precise:
            return precise
    return error
