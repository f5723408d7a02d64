"""How a count runs, none of which changes a number: the worker threads, the bound on the tokens one
call may count, the reference cache and the progress callback, checked once where a public function
takes them (``Run.checked``, the one check of them all) and passed down whole (as httpx passes its
``Limits``)."""

import numbers
from collections.abc import Callable
from typing import NamedTuple

from .cache import ReferenceCache

Progress = Callable[[int], object]


def _positive_int(name: str, value: object) -> int | None:
    """``value`` as an int >= 1, or None where not given; else a ValueError naming the argument."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"{name} must be a positive int or None, not {value!r:.80} ({type(value).__name__})")
    return int(value)  # numpy's ints too


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
        """The run, every value checked, with messages that name the argument, its value and what
        is valid: each public function that takes any of them checks them here, before any work,
        as the cache and progress are first used only past the segments counted by the definition."""
        threads, max_tokens = _positive_int("threads", self.threads), _positive_int("max_tokens", self.max_tokens)
        if self.cache is not None and not isinstance(self.cache, ReferenceCache):
            raise TypeError(f"cache must be an exactbleu.ReferenceCache or None, not {self.cache!r:.80} "
                            f"({type(self.cache).__name__})")
        if self.progress is not None and not callable(self.progress):
            raise TypeError(f"progress must be a callable taking the number of segments counted, or None, not "
                            f"{self.progress!r:.80} ({type(self.progress).__name__})")
        return self._replace(threads=threads, max_tokens=max_tokens)
