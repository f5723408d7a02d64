"""Texts in groups, as MBR decoding takes them: a list per source (its candidates, or its
pseudo-references), each source with as many as it has. They are checked as one list of texts,
end to end, and the groups' sizes kept beside them."""

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .text import as_list


def starts_of(sizes: ArrayLike) -> NDArray[np.int64]:
    """Where each group starts among the texts end to end, for groups of these sizes."""
    counts = np.asarray(sizes)
    starts: NDArray[np.int64] = np.cumsum(counts) - counts
    return starts


@dataclasses.dataclass(frozen=True, eq=False)
class Groups:
    """How many candidates and pseudo-references each source has, and whether the pseudo-references
    are the candidates themselves (``shared``: counted once). Where each source's texts start is
    worked out once, on first use, for every block of sources to read."""

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

    @functools.cached_property
    def candidate_starts(self) -> NDArray[np.int64]:
        """Where each source's candidates start among the candidates end to end."""
        return starts_of(self.candidates)

    @functools.cached_property
    def reference_starts(self) -> NDArray[np.int64]:
        """Where each source's pseudo-references start among the pseudo-references end to end."""
        return starts_of(self.references)

    def candidate_span(self, first: int, stop: int) -> tuple[int, int]:
        """Where the candidates of sources ``first`` to ``stop`` lie among the candidates end to end."""
        return int(self.candidate_starts[first]), int(self.candidate_starts[stop - 1] + self.candidates[stop - 1])

    def reference_span(self, first: int, stop: int) -> tuple[int, int]:
        """Where the pseudo-references of sources ``first`` to ``stop`` lie, end to end."""
        return int(self.reference_starts[first]), int(self.reference_starts[stop - 1] + self.references[stop - 1])


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
    starts = starts_of(sizes)
    for index, (start, size) in enumerate(zip(starts.tolist(), sizes.tolist())):
        try:
            check(texts[start:start + size], f"{name}[{index}]")
        except (TypeError, ValueError) as precise:
            return precise
    return error
