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


def _is_array(value: object) -> bool:
    """Whether a value is an array of some library (numpy's, torch's, ...): it has a shape and lists itself."""
    return not isinstance(value, (list, tuple)) and hasattr(value, "ndim") and hasattr(value, "tolist")


def _is_sequence(value: object) -> bool:
    if _is_array(value):
        return getattr(value, "ndim", 0) != 0
    return not isinstance(value, (str, bytes)) and hasattr(value, "__iter__") and hasattr(value, "__len__")


def _listed_array(weights: object) -> list[object]:
    """An array of weights (numpy's, torch's on any device, ...) as the list of its values as Python
    numbers, which is what NLTK computes with: one weight set, so 1-D."""
    ndim, shape = getattr(weights, "ndim", None), tuple(getattr(weights, "shape", ()))
    if ndim != 1:
        raise ValueError(f"weights must be one weight set (a 1-D sequence of numbers) or a list of weight sets, "
                         f"got a {ndim}-D {type(weights).__name__} of shape {shape}; pass several sets as a list of "
                         f"1-D sequences, such as list(weights)")
    try:
        listed: list[object] = weights.tolist()  # type: ignore[attr-defined]  # an array, as checked
    except (RuntimeError, NotImplementedError, ValueError, TypeError) as error:  # a tensor with no data, say
        raise ValueError(f"weights must hold numbers that can be read, got a {type(weights).__name__} that cannot "
                         f"list them ({error}); give a list of floats") from None
    return listed


def _weight_values(weights: object) -> list[object]:
    """One weight set, or the list of weight sets, as it was given: an array (numpy's float32 or
    float64, a tensor) becomes the list of its values as Python floats."""
    if _is_array(weights):
        return _listed_array(weights)
    if not _is_sequence(weights) or isinstance(weights, (collections.abc.Mapping, collections.abc.Set)):
        raise ValueError(f"weights must be a sequence of numbers (or a list of weight sets), got "
                         f"{type(weights).__name__}: {weights!r:.80}")
    return list(cast(Iterable[object], weights))  # a sequence, as checked


def _number(value: object) -> object:
    """A 0-d array (a numpy scalar array, a tensor) as the Python number it holds; else the value."""
    if _is_array(value) and getattr(value, "ndim", None) == 0:
        try:
            return value.item()  # type: ignore[attr-defined]  # an array, as checked
        except (RuntimeError, NotImplementedError, ValueError, TypeError):
            return value  # refused by the number's check, which names weights
    return value


def _checked_weights(weights: object) -> tuple[float, ...]:
    """One weight set, checked, as a tuple of floats."""
    values = tuple(float(check_number("weights", _number(w)))
                   for w in itertools.islice(_weight_values(weights), MAX_ORDER + 1))
    if len(values) > MAX_ORDER:
        raise ValueError(f"weights must hold at most {MAX_ORDER} numbers, one per order (max_order is at most "
                         f"{MAX_ORDER})")
    if not values or sum(values) == 0:
        raise ValueError(f"weights must hold at least one positive number, got {list(values)!r}")
    return values


def checked_weight_sets(weights: object) -> tuple[Weights, bool]:
    """(weights, several): one weight set as a tuple of floats, or several as a tuple of them,
    as NLTK's corpus_bleu tells them apart: several when the first entry is itself a sequence."""
    values = _weight_values(weights)
    several = len(values) > 0 and _is_sequence(values[0])
    if not several:
        return _checked_weights(values), False
    if len(values) > MAX_WEIGHT_SETS:
        raise ValueError(f"weights holds {len(values)} weight sets; at most {MAX_WEIGHT_SETS} are scored at once")
    for number, one in enumerate(values):
        if not _is_sequence(one):
            raise ValueError(f"weights mixes numbers and weight sets: weights[0] is a sequence but weights[{number}] "
                             f"is {one!r:.80}; give one set of numbers, or a list of sets")
    return tuple(_checked_weights(one) for one in values), True
