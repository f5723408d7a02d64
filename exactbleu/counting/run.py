"""How a count runs, none of which changes a number: the worker threads, the bound on the tokens one
call may count, the reference cache and the progress callback, checked once where a public function
takes them and passed down whole (as httpx passes its ``Limits``)."""

from collections.abc import Callable
from typing import NamedTuple

from ..options import check_int
from .cache import ReferenceCache

Progress = Callable[[int], object]


class Run(NamedTuple):
    """``threads`` bounds the worker threads (None: two where two cores are free); ``max_tokens``
    the tokens one call may count (None: no bound), a ValueError as soon as they exceed it;
    ``cache`` keeps the references' statistics for a later call with the same references;
    ``progress`` is called with each chunk's number of segments."""

    threads: int | None = None
    max_tokens: int | None = None
    cache: ReferenceCache | None = None
    progress: Progress | None = None

    def checked(self) -> "Run":
        """The run, its numbers checked (positive ints, where given), with messages that name them."""
        if self.threads is not None:
            check_int("threads", self.threads, 1)
        if self.max_tokens is not None:
            check_int("max_tokens", self.max_tokens, 1)
        return self
