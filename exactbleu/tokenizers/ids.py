"""Token ids: segments already tokenized, as a model's tokenizer gives them. No tokenizer applies:
an id is a token, and two tokens are equal when their ids are. The statistics of ids are those of
the same ids written as space-separated strings under ``tokenizer="none"``, with no string made
per token.

``TokenIds`` holds a corpus's ids end to end, with each segment's length; references group
their segments by prediction (``groups``: how many references each prediction has).
"""

from typing import cast

import numpy as np


class TokenIds:
    """Segments of token ids: ``ids`` end to end (int64), ``lengths`` one per segment, and for
    references ``groups``, how many segments each prediction has."""

    __slots__ = ("groups", "ids", "lengths")

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, groups: np.ndarray | None = None):
        self.ids, self.lengths, self.groups = ids, lengths, groups

    @property
    def offsets(self) -> np.ndarray:
        """Where each segment starts in ``ids``, and where the last ends."""
        return np.concatenate(([0], np.cumsum(self.lengths)))

    def segments(self, start: int, stop: int) -> "TokenIds":
        """Segments ``start`` to ``stop``, without their groups."""
        offsets = self.offsets
        return TokenIds(self.ids[offsets[start] : offsets[stop]], self.lengths[start:stop])

    def grouped(self, start: int, stop: int) -> "TokenIds":
        """The segments of groups ``start`` to ``stop`` (the references of those predictions)."""
        groups = cast(np.ndarray, self.groups)  # references, whose groups are set
        firsts = np.concatenate(([0], np.cumsum(groups)))
        part = self.segments(int(firsts[start]), int(firsts[stop]))
        part.groups = groups[start:stop]
        return part

    def as_lists(self) -> list[list[int]]:
        """Each segment's ids as a list of ints."""
        ids, offsets = self.ids.tolist(), self.offsets.tolist()
        return [ids[offsets[number] : offsets[number + 1]] for number in range(len(self.lengths))]

    def __len__(self) -> int:
        return len(self.lengths)
