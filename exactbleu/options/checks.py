"""The checks of single option values, with the messages every face shows: each names the option,
the bad value and what would be right."""

import collections.abc
import itertools
import math
import numbers
from collections.abc import Iterable
from typing import cast

from ..limits import MAX_ORDER, MAX_WEIGHT_SETS
from .declared import Weights


def _is_bool(value: object) -> bool:
    """Python's bool or numpy's (numpy loads here, not when the command line starts)."""
    import numpy as np

    return isinstance(value, (bool, np.bool_))


def check_bool(name: str, value: object) -> bool:
    """``value`` as a bool, or a TypeError naming the option."""
    if not _is_bool(value):
        raise TypeError(f"{name} must be True or False, got {value!r:.80}")
    return bool(value)


def check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int from ``minimum`` to ``maximum``, or a ValueError naming the argument."""
    number = int(value) if isinstance(value, numbers.Integral) and not _is_bool(value) else None
    if number is None or number < minimum or (maximum is not None and number > maximum):
        kind = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        bound = f" of at most {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be {kind}{bound}, got {value!r:.80}")
    return number


def check_number(name: str, value: object) -> float:
    """``value`` as a finite number >= 0 (kept as given: NLTK computes with it as it is)."""
    if _is_bool(value) or not isinstance(value, numbers.Real) or not math.isfinite(value) or float(value) < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r:.80}")
    return cast(float, value)  # an int stays an int, as NLTK and sacrebleu compute with it


def _is_sequence(value: object) -> bool:
    return not isinstance(value, (str, bytes)) and hasattr(value, "__iter__") and hasattr(value, "__len__")


def _weight_values(weights: object) -> list[object]:
    """One weight set, or the list of weight sets, as it was given: a numpy array (float32 or
    float64) becomes the list of its values as Python floats, which is what NLTK computes with."""
    import numpy as np

    if isinstance(weights, np.ndarray):
        if weights.ndim != 1:
            raise ValueError(f"weights must be one weight set (a 1-D sequence of numbers) or a list of weight sets, "
                             f"got a {weights.ndim}-D array of shape {weights.shape}; pass several sets as a list "
                             f"of 1-D sequences, such as list(weights)")
        listed: list[object] = weights.tolist()
        return listed
    if not _is_sequence(weights) or isinstance(weights, (collections.abc.Mapping, collections.abc.Set)):
        raise ValueError(f"weights must be a sequence of numbers (or a list of weight sets), got "
                         f"{type(weights).__name__}: {weights!r:.80}")
    return list(cast(Iterable[object], weights))  # a sequence, as checked


def _checked_weights(weights: object) -> tuple[float, ...]:
    """One weight set, checked, as a tuple of floats."""
    values = tuple(float(check_number("weights", w)) for w in itertools.islice(_weight_values(weights), MAX_ORDER + 1))
    if len(values) > MAX_ORDER:
        raise ValueError(f"weights must hold at most {MAX_ORDER} numbers, one per order (max_order is at most "
                         f"{MAX_ORDER})")
    if not values or sum(values) == 0:
        raise ValueError(f"weights must hold at least one positive number, got {list(values)!r}")
    return values


def checked_weight_sets(weights: object) -> tuple[Weights, bool]:
    """(weights, several): one weight set as a tuple of floats, or several as a tuple of them,
    as NLTK's corpus_bleu tells them apart: several when the first entry is itself a sequence."""
    import numpy as np

    values = _weight_values(weights)
    several = len(values) > 0 and (isinstance(values[0], np.ndarray) or _is_sequence(values[0]))
    if not several:
        return _checked_weights(values), False
    if len(values) > MAX_WEIGHT_SETS:
        raise ValueError(f"weights holds {len(values)} weight sets; at most {MAX_WEIGHT_SETS} are scored at once")
    for number, one in enumerate(values):
        if not (isinstance(one, np.ndarray) or _is_sequence(one)):
            raise ValueError(f"weights mixes numbers and weight sets: weights[0] is a sequence but weights[{number}] "
                             f"is {one!r:.80}; give one set of numbers, or a list of sets")
    return tuple(_checked_weights(one) for one in values), True
